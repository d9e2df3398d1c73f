package export

import (
	"encoding/json"
	"fmt"
	"strings"

	"simrun/internal/plot"
)

// The notebook's Python mirrors the Go charts: same grouping, same knee
// rule, same panels, so running the notebook redraws what the exported
// PNG shows. Only the standard library, pandas and matplotlib are used.

// py returns s as a Python string literal (a JSON string is one).
func py(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

const dataSrc = `import json
import math

import matplotlib.pyplot as plt
import pandas as pd

# The result document simrun wrote (schema simrun.result/v1).
RESULT = json.loads(r'''
@DATA@
''')
CASES = RESULT["cases"]
SWEEP = [axis["key"] for axis in RESULT.get("sweep") or []]


def lookup(metrics, path):
    """The metric at a dotted path, or None."""
    value = metrics
    for part in path.split("."):
        if not isinstance(value, dict) or value.get(part) is None:
            return None
        value = value[part]
    return value


def flatten(metrics, prefix=""):
    """Scalar metrics by dotted path; series are left out."""
    out = {}
    for key, value in metrics.items():
        if isinstance(value, dict):
            out.update(flatten(value, prefix + key + "."))
        elif not isinstance(value, list):
            out[prefix + key] = value
    return out


def point_label(case, skip=None):
    """A case's swept values, as simrun prints them: threads=16 cap=54."""
    point = case.get("point") or {}
    return " ".join(f"{key.split('.')[-1]}={point.get(key)}" for key in SWEEP if key != skip)


def label(case):
    """A case's name and swept values."""
    return (case["name"] + " " + point_label(case)).strip()


df = pd.DataFrame(
    [{"case": case["name"], **(case.get("point") or {}), **flatten(case["metrics"])} for case in CASES],
    index=[label(case) for case in CASES],
)
tidy = df.rename_axis("label").reset_index().melt(id_vars=["label", "case"] + SWEEP, var_name="metric")
df.T`

const barSrc = `metric = @METRIC@
names = [case["name"] for case in CASES]
split = not SWEEP and all("/" in name for name in names)
clusters, series, values = [], [], {}
for case in CASES:
    if SWEEP:
        cluster, serie = case["name"], point_label(case)
    elif split:
        cluster, serie = case["name"].rsplit("/", 1)
    else:
        cluster, serie = case["name"], ""
    if cluster not in clusters:
        clusters.append(cluster)
    if serie not in series:
        series.append(serie)
    values[cluster, serie] = (lookup(case["metrics"], metric), lookup(case["metrics"], metric + "_ci95"))

fig, ax = plt.subplots(figsize=(9.6, 5.4))
width = 0.8 / len(series)
for i, serie in enumerate(series):
    xs = [c + (i - (len(series) - 1) / 2) * width for c in range(len(clusters))]
    ys = [values.get((c, serie), (None, None))[0] or 0 for c in clusters]
    errs = [values.get((c, serie), (None, None))[1] or 0 for c in clusters]
    bars = ax.bar(xs, ys, width, yerr=errs if any(errs) else None, capsize=3, label=serie or None)
    ax.bar_label(bars, labels=[f"{y:.4g}" for y in ys], fontsize=8)
ax.set_xticks(range(len(clusters)))
ax.set_xticklabels(clusters)
ax.set_ylabel(@YLABEL@)
ax.set_title(f"{RESULT['scenario']}: " + @TITLE@ + " per case")
if series != [""]:
    ax.legend()
plt.show()`

const sweepSrc = `axis = SWEEP[0]
metric, latency = @METRIC@, @LATENCY@
values = RESULT["sweep"][0]["values"]
numeric = all(isinstance(v, (int, float)) for v in values)
lines = {}
for case in CASES:
    x = (case.get("point") or {}).get(axis)
    t, q = lookup(case["metrics"], metric), lookup(case["metrics"], latency)
    if x is None or t is None or q is None:
        continue
    lines.setdefault((case["name"] + " " + point_label(case, skip=axis)).strip(), []).append(
        (x if numeric else values.index(x), t, q))

fig, (top, bottom) = plt.subplots(2, 1, figsize=(9.6, 5.4), sharex=True)
labelled = set()
for key, points in lines.items():
    points.sort()
    xs, ts, qs = zip(*points)
    line, = top.plot(xs, ts, marker="o", label=key)
    bottom.plot(xs, qs, marker="o", color=line.get_color())
    # The knee: the point of highest power, TPS / p99 (Kleinrock).
    knee = max((i for i in range(len(xs)) if qs[i] > 0), key=lambda i: ts[i] / qs[i], default=None)
    if knee is not None:
        for ax, ys in ((top, ts), (bottom, qs)):
            ax.plot([xs[knee]], [ys[knee]], "o", markersize=14, markerfacecolor="none", color="black")
        if xs[knee] not in labelled:  # lines whose knees coincide share one label
            labelled.add(xs[knee])
            top.annotate(f"knee {xs[knee] if numeric else values[xs[knee]]}", (xs[knee], ts[knee]),
                         textcoords="offset points", xytext=(0, 12), ha="center", fontsize=8)
if numeric and min(values) > 0 and max(values) / min(values) >= 16:
    bottom.set_xscale("log")
ticks = values if numeric else list(range(len(values)))
bottom.set_xticks(ticks)
bottom.set_xticklabels([str(v) for v in values])
bottom.minorticks_off()
top.set_ylim(bottom=0)
bottom.set_ylim(bottom=0)
top.set_ylabel(@YLABEL@)
bottom.set_ylabel("p99 latency (ms)")
bottom.set_xlabel(axis)
top.set_title(f"{RESULT['scenario']}: " + @TITLE@ + f" and p99 latency vs {axis.split('.')[-1]}")
if len(lines) > 1:
    top.legend(fontsize=8)
plt.show()`

const latencySrc = `block = @BLOCK@
keys = [@KEYS@]


def nines(q):
    """Percentile to x: -log10(1 - q), so p90 is 1 and p99 is 2."""
    return -math.log10(1 - q / 100)


last = max([q for case in CASES for k, q in keys if lookup(case["metrics"], f"{block}.{k}") is not None] + [99])
xmax = nines(last) + 0.6
fig, ax = plt.subplots(figsize=(9.6, 5.4))
used = {}
for case in CASES:
    points = [(nines(q), lookup(case["metrics"], f"{block}.{k}"), f"p{q:g}") for k, q in keys]
    points.append((xmax, lookup(case["metrics"], f"{block}.max"), "max"))
    points = [p for p in points if p[1] is not None]
    if len(points) < 2:
        continue
    used.update({x: name for x, _, name in points})
    ax.plot([p[0] for p in points], [p[1] for p in points], marker="o", label=label(case))
ax.set_xticks(sorted(used))
ax.set_xticklabels([used[x] for x in sorted(used)])
ax.set_xlabel("percentile")
ax.set_ylabel(@YLABEL@)
ax.set_title(f"{RESULT['scenario']}: " + @TITLE@ + " percentiles")
ax.legend(fontsize=8)
plt.show()`

const seriesSrc = `panels = [
@PANELS@
]


def interval(case, path, n):
    """Seconds per point: interval_s beside the series, else duration / n."""
    parent = path.rsplit(".", 1)[0] + "." if "." in path else ""
    step = lookup(case["metrics"], parent + "interval_s")
    if step:
        return step
    duration = case.get("duration_s") or RESULT.get("duration_s")
    return duration / n if duration else 1


present = []
for paths, scale, ylabel in panels:
    rows = []
    for case in CASES:
        for path in paths:
            ys = lookup(case["metrics"], path)
            if isinstance(ys, list) and ys:
                rows.append((case, path, ys))
                break
    if rows:
        present.append((ylabel, scale, rows))

fig, axes = plt.subplots(len(present), 1, figsize=(9.6, 2.1 * len(present) + 0.8), sharex=True, squeeze=False)
for ax, (ylabel, scale, rows) in zip(axes[:, 0], present):
    for case, path, ys in rows:
        step = interval(case, path, len(ys))
        ax.plot([(i + 1) * step for i in range(len(ys))],
                [float("nan") if y is None else y * scale for y in ys], label=label(case))
    ax.set_ylabel(ylabel, fontsize=8)
    ax.set_ylim(bottom=0)
axes[0, 0].set_title(f"{RESULT['scenario']}: over time")
if len(CASES) > 1:
    axes[0, 0].legend(fontsize=7)
axes[-1, 0].set_xlabel("time since the end of warm-up (s)")
axes[-1, 0].set_xlim(left=0)
plt.show()`

const breakdownSrc = `block = @BLOCK@
order = [@ORDER@]
components = []
for case in CASES:
    for key, value in (lookup(case["metrics"], block) or {}).items():
        if isinstance(value, (int, float)) and key != "total" and not key.endswith("_ci95") and key not in components:
            components.append(key)
components.sort(key=lambda k: (order.index(k) if k in order else len(order), k))

fig, ax = plt.subplots(figsize=(9.6, 5.4))
bottom = [0.0] * len(CASES)
for comp in components:
    ys = [max(lookup(case["metrics"], f"{block}.{comp}") or 0, 0) for case in CASES]
    ax.bar(range(len(CASES)), ys, 0.6, bottom=bottom, label=comp.replace("_", " "))
    bottom = [b + y for b, y in zip(bottom, ys)]
for i, total in enumerate(bottom):
    ax.annotate(f"{total:.3g}", (i, total), textcoords="offset points", xytext=(0, 3), ha="center", fontsize=8)
ax.set_xticks(range(len(CASES)))
ax.set_xticklabels([label(case) for case in CASES])
ax.set_ylabel(@YLABEL@)
ax.set_title(f"{RESULT['scenario']}: where commit time goes")
handles, names = ax.get_legend_handles_labels()
ax.legend(handles[::-1], names[::-1])
plt.show()`

func dataCell(data string) string {
	return strings.Replace(dataSrc, "@DATA@", data, 1)
}

// chartCell returns the matplotlib code that redraws a chart of kind k
// with its default options.
func chartCell(k plot.Kind) (string, error) {
	r := func(src string, kv ...string) string { return strings.NewReplacer(kv...).Replace(src) }
	switch k {
	case plot.Bar:
		return r(barSrc, "@METRIC@", py("tps"), "@YLABEL@", py(plot.Label("tps")), "@TITLE@", py("TPS")), nil
	case plot.Sweep:
		return r(sweepSrc, "@METRIC@", py("tps"), "@LATENCY@", py(plot.KneeLatency),
			"@YLABEL@", py(plot.Label("tps")), "@TITLE@", py("TPS")), nil
	case plot.Latency:
		var keys []string
		for _, p := range plot.Percentiles {
			if p.Key != "max" {
				keys = append(keys, fmt.Sprintf("(%s, %s)", py(p.Key), pyNum(p.Q)))
			}
		}
		return r(latencySrc, "@BLOCK@", py("latency_ms"), "@KEYS@", strings.Join(keys, ", "),
			"@YLABEL@", py("latency (ms)"), "@TITLE@", py("latency")), nil
	case plot.Series:
		var rows []string
		for _, pn := range plot.DefaultPanels {
			var paths []string
			for _, p := range pn.Paths {
				paths = append(paths, py(p))
			}
			rows = append(rows, fmt.Sprintf("    ([%s], %s, %s),", strings.Join(paths, ", "), pyNum(pn.Scale), py(pn.Label)))
		}
		return r(seriesSrc, "@PANELS@", strings.Join(rows, "\n")), nil
	case plot.Breakdown:
		var order []string
		for _, s := range plot.StageOrder() {
			order = append(order, py(s))
		}
		return r(breakdownSrc, "@BLOCK@", py("commit_breakdown_ms"), "@ORDER@", strings.Join(order, ", "),
			"@YLABEL@", py("commit latency by stage (ms)")), nil
	}
	return "", fmt.Errorf("export: no notebook code for chart kind %q", k)
}

// pyNum prints a float as a Python literal.
func pyNum(f float64) string {
	b, _ := json.Marshal(f)
	return string(b)
}
