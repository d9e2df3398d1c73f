package export

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"simrun/internal/plot"
	"simrun/internal/result"
)

// The notebook's Python draws each chart from the same description the Go
// charts follow: the palette and hatches, the stage order, the percentiles,
// the series panels and every metric's axis label come from package plot
// (the STYLE literal), and each chart cell records what it drew (DRAWN),
// which the round-trip test compares with plot.Figure.Data. Only the
// standard library, pandas and matplotlib are used.

// py returns s as a Python string literal (a JSON string is one).
func py(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// style is the description shared with package plot.
type style struct {
	Palette     []string          `json:"palette"`
	Hatches     []string          `json:"hatches"`
	StageOrder  []string          `json:"stage_order"`
	Skip        []string          `json:"breakdown_skip"`
	Percentiles [][2]any          `json:"percentiles"`
	Panels      [][3]any          `json:"panels"`
	Fallback    [][3]any          `json:"series_panels"`
	Labels      map[string]string `json:"labels"`
	Titles      map[string]string `json:"titles"`
	Units       map[string]string `json:"units"`
	Knee        string            `json:"knee_latency"`
	Lower       []string          `json:"lower_better"`
	Defaults    map[string]string `json:"defaults"`
}

// styleFor returns the description for d's metrics.
func styleFor(d *result.Document) style {
	st := style{
		Palette: plot.Palette(), Hatches: plot.Hatches, StageOrder: plot.StageOrder(),
		Skip:   []string{"total", "sum"},
		Labels: map[string]string{}, Titles: map[string]string{}, Units: map[string]string{},
		Knee: plot.SweepLatency(d), Lower: []string{},
	}
	for _, p := range plot.Percentiles {
		st.Percentiles = append(st.Percentiles, [2]any{p.Key, p.Q})
	}
	for _, pn := range plot.DefaultPanels {
		st.Panels = append(st.Panels, [3]any{pn.Paths, pn.Scale, pn.Label})
	}
	st.Fallback = [][3]any{}
	for _, pn := range plot.SeriesPanels(d.Cases) {
		st.Fallback = append(st.Fallback, [3]any{pn.Paths, pn.Scale, pn.Label})
	}
	add := func(p string) {
		if _, ok := st.Labels[p]; !ok {
			st.Labels[p], st.Titles[p], st.Units[p] = plot.Label(p), plot.Title(p), plot.UnitOf(p)
			if plot.LowerIsBetter(p) {
				st.Lower = append(st.Lower, p)
			}
		}
	}
	for _, p := range result.MetricPaths(d) {
		add(p)
		for i := strings.LastIndexByte(p, '.'); i > 0; i = strings.LastIndexByte(p[:i], '.') {
			add(p[:i])
		}
	}
	bar, lat, bd := plot.Defaults(d)
	st.Defaults = map[string]string{"bar": bar, "latency": lat, "breakdown": bd, "throughput": plot.ThroughputMetric(d)}
	return st
}

// styleJSON is the description as compact JSON with sorted keys, one
// top-level entry per line.
func styleJSON(d *result.Document) string {
	b, _ := json.Marshal(styleFor(d))
	var m map[string]json.RawMessage
	json.Unmarshal(b, &m)
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var out strings.Builder
	out.WriteString("{")
	for i, k := range keys {
		if i > 0 {
			out.WriteString(",")
		}
		fmt.Fprintf(&out, "\n%q: %s", k, m[k])
	}
	out.WriteString("\n}")
	return strings.ReplaceAll(out.String(), "'", `\u0027`)
}

const paramsSrc = `# Parameters: change any of these and run the whole notebook again.
RESULT_FILE = @FILE@  # a result written by simrun run --format json
CASE_NAMES = None  # e.g. ["Case1", "Case4"]: draw only these cases; None draws all
BAR_METRIC = @BAR@  # the metric of the bar chart (a dotted path, as in the CSV)
LATENCY_BLOCK = @LAT@  # the block of percentiles of the latency chart
BREAKDOWN_BLOCK = @BD@  # the block the breakdown chart stacks
SERIES = None  # e.g. ["series.tps"]: one panel per series; None draws the default panels
FIGSIZE = (9.6, 5.4)  # inches at 100 dpi`

const dataSrc = `import json
import math

import matplotlib.pyplot as plt
import pandas as pd

# How simrun draws its charts (package plot): colours, hatches, stage
# order, percentiles, panels and axis labels. The charts below follow it.
STYLE = json.loads(r'''
@STYLE@
''')

with open(RESULT_FILE) as f:
    RESULT = json.load(f)  # schema simrun.result/v1
CASES = [c for c in RESULT["cases"] if CASE_NAMES is None or c["name"] in CASE_NAMES]
SWEEP = [axis["key"] for axis in RESULT.get("sweep") or []]
DRAWN = {}  # what each chart drew, by kind


def lookup(metrics, path):
    """The metric at a dotted path, or None."""
    value = metrics
    for part in path.split("."):
        if not isinstance(value, dict) or value.get(part) is None:
            return None
        value = value[part]
    return value


def number(metrics, path):
    """The number at a dotted path, or None."""
    value = lookup(metrics, path)
    return value if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def flatten(metrics, prefix=""):
    """Scalar metrics by dotted path; series are left out."""
    out = {}
    for key, value in metrics.items():
        if isinstance(value, dict):
            out.update(flatten(value, prefix + key + "."))
        elif not isinstance(value, list):
            out[prefix + key] = value
    return out


def fmt_value(v):
    """A value as simrun prints it in labels."""
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    return str(v)


def point_label(case, skip=None):
    """A case's swept values, as simrun prints them: threads=16 cap=54."""
    point = case.get("point") or {}
    return " ".join(f"{key.split('.')[-1]}={fmt_value(point.get(key))}" for key in SWEEP if key != skip)


def label(case):
    """A case's name and swept values."""
    return (case["name"] + " " + point_label(case)).strip()


def colour(i):
    return STYLE["palette"][i % len(STYLE["palette"])]


def hatch(i):
    return STYLE["hatches"][(i // len(STYLE["palette"])) % len(STYLE["hatches"])]


def short(v):
    """A value written on a bar, as simrun writes it: three or four figures."""
    a = abs(v)
    if a == 0:
        return "0"
    if a >= 100:
        return f"{v:.0f}"
    if a >= 10:
        return f"{v:.1f}"
    if a >= 1:
        return f"{v:.2f}"
    return f"{v:.3g}"


def axis_label(path):
    return STYLE["labels"].get(path, path.replace("_", " "))


def axis_title(path):
    return STYLE["titles"].get(path, path.replace("_", " "))


def titled(text):
    """A chart's title, marked as simrun marks a result that is not whole."""
    notes = []
    if RESULT.get("shard"):
        notes.append(f"shard {RESULT['shard']['index']}/{RESULT['shard']['count']}")
    if RESULT.get("partial"):
        notes.append("interrupted")
    return f"{text} (partial: {', '.join(notes)})" if notes else text


def record(kind, fig):
    """Keep what a chart drew: panels with their texts, bars and lines."""
    fig.canvas.draw()
    panels = []
    for ax in fig.axes:
        panel = {"title": ax.get_title(), "xlabel": ax.get_xlabel(), "ylabel": ax.get_ylabel(),
                 "yscale": ax.get_yscale(), "bars": [], "lines": [],
                 "texts": [t.get_text() for t in ax.texts],
                 "xticks": [t.get_text() for t in ax.get_xticklabels()]}
        for c in ax.containers:
            if hasattr(c, "patches"):
                name = c.get_label() or ""
                panel["bars"].append({"label": "" if name.startswith("_") else name,
                                      "y": [float(p.get_height()) for p in c.patches]})
        for line in ax.get_lines():
            name = line.get_label() or ""
            if name.startswith("_"):
                continue
            xs, ys = line.get_data()
            panel["lines"].append({"label": name, "x": [float(x) for x in xs], "y": [float(y) for y in ys]})
        panels.append(panel)
    DRAWN[kind] = panels


df = pd.DataFrame(
    [{"case": case["name"], **(case.get("point") or {}), **flatten(case["metrics"])} for case in CASES],
    index=[label(case) for case in CASES],
)
tidy = df.rename_axis("label").reset_index().melt(id_vars=["label", "case"] + SWEEP, var_name="metric")
df.T`

const barSrc = `metric = BAR_METRIC
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
    values[cluster, serie] = (number(case["metrics"], metric), number(case["metrics"], metric + "_ci95"))

fig, ax = plt.subplots(figsize=FIGSIZE)
width = 0.8 / len(series)
for i, serie in enumerate(series):
    xs = [c + (i - (len(series) - 1) / 2) * width for c in range(len(clusters))]
    got = [values.get((c, serie), (None, None)) for c in clusters]
    ys = [v or 0 for v, _ in got]
    errs = [e or 0 for _, e in got]
    bars = ax.bar(xs, ys, width, yerr=errs if any(errs) else None, capsize=3, label=serie or None,
                  color=colour(i), hatch=hatch(i) or None)
    ax.bar_label(bars, labels=["n/a" if v is None else short(v) for v, _ in got], fontsize=8)
ax.set_xticks(range(len(clusters)))
ax.set_xticklabels(clusters)
ax.set_ylabel(axis_label(metric))
ax.set_title(titled(f"{RESULT['scenario']}: {axis_title(metric)} per case"))
ax.set_ylim(bottom=0)
if series != [""]:
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1))  # beside the data, as simrun draws it
record("bar", fig)
plt.show()`

const sweepSrc = `axis = SWEEP[0]
metric, latency = BAR_METRIC, STYLE["knee_latency"]
lower = metric in STYLE["lower_better"]  # a latency, a wait, a lag: less is better
# The knee weighs a throughput against the latency: the metric, or the
# result's throughput when the metric is itself a time.
thr = STYLE["defaults"]["throughput"] if lower else metric
values = RESULT["sweep"][0]["values"]
numeric = all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values)


def value(case, path):
    v = number(case["metrics"], path) if path else None
    return math.nan if v is None else v


lines = {}
for case in CASES:
    x = (case.get("point") or {}).get(axis)
    if x is None or number(case["metrics"], metric) is None:
        continue
    lines.setdefault((case["name"] + " " + point_label(case, skip=axis)).strip(), []).append(
        (x if numeric else values.index(x), value(case, metric), value(case, latency), value(case, thr)))
has_lat = any(not math.isnan(p[2]) for points in lines.values() for p in points)


def enough(vals):
    """The least x within 1 % of the best value (the lowest when lower is better)."""
    ok = [v for v in vals if not math.isnan(v)]
    if not ok or (not lower and not max(ok) > 0):
        return None
    best = min(ok) if lower else max(ok)
    return next((i for i, v in enumerate(vals) if (v <= best + 0.01 * abs(best) if lower else v >= 0.99 * best)), None)


def knee(ts, qs):
    """The point of highest power, throughput / latency (Kleinrock)."""
    return max((i for i in range(len(ts)) if qs[i] > 0 and not math.isnan(ts[i])), key=lambda i: ts[i] / qs[i], default=None)


if has_lat:
    fig, (top, bottom) = plt.subplots(2, 1, figsize=FIGSIZE, sharex=True)
else:
    fig, top = plt.subplots(figsize=FIGSIZE)
    bottom = None
labelled, marked = set(), {}
for i, (key, points) in enumerate(lines.items()):
    points.sort()
    xs, vs, qs, ts = zip(*points)
    if not numeric:
        # A category has no "between": its points side by side, unjoined, unmarked.
        off = (i - (len(lines) - 1) / 2) * min(0.6 / len(lines), 0.15)
        top.plot([x + off for x in xs], vs, "o", label=key, color=colour(i))
        if bottom is not None:
            bottom.plot([x + off for x in xs], qs, "o", color=colour(i), label="_" + key)
        continue
    top.plot(xs, vs, marker="o", label=key, color=colour(i))
    if bottom is not None:
        bottom.plot(xs, qs, marker="o", color=colour(i), label="_" + key)
    # Along a capacity (latency falls as x grows) the least x that is
    # enough; along an offered load the knee.
    if not has_lat or (len(qs) >= 2 and qs[-1] < qs[0]):
        at, what = enough(vs), "enough"
    else:
        at, what = (knee(ts, qs) if thr else None), "knee"
    if at is None:
        continue
    marked[what] = True
    for ax, ys in ((top, vs), (bottom, qs)):
        if ax is not None:
            ax.plot([xs[at]], [ys[at]], "o", markersize=14, markerfacecolor="none", color="black", label="_" + what)
    if xs[at] not in labelled:  # lines whose markers coincide share one label
        labelled.add(xs[at])
        top.annotate(f"{what}{':' if what == 'enough' else ''} {fmt_value(xs[at])}", (xs[at], vs[at]),
                     textcoords="offset points", xytext=(0, 12), ha="center", fontsize=8)
last = bottom if bottom is not None else top
if numeric and min(values) > 0 and max(values) / min(values) >= 16:
    last.set_xscale("log")
last.set_xticks(values if numeric else list(range(len(values))))
last.set_xticklabels([str(v) for v in values])
last.minorticks_off()
if not numeric:
    last.set_xlim(-0.5, len(values) - 0.5)
top.set_ylim(bottom=0)
top.set_ylabel(axis_label(metric))
if bottom is not None:
    bottom.set_ylim(bottom=0)
    bottom.set_ylabel("p99 latency (ms)" if latency == "latency_ms.p99" else axis_label(latency))
    lat_title = "p99 latency" if latency == "latency_ms.p99" else axis_title(latency)
    top.set_title(titled(f"{RESULT['scenario']}: {axis_title(metric)} and {lat_title} vs {axis.split('.')[-1]}"))
else:
    top.set_title(titled(f"{RESULT['scenario']}: {axis_title(metric)} vs {axis.split('.')[-1]}"))
last.set_xlabel(axis)
if len(lines) > 1 or marked:
    handles, names = top.get_legend_handles_labels()
    ring = plt.Line2D([], [], marker="o", markersize=10, markerfacecolor="none", color="black", linestyle="")
    best = ("the lowest " if lower else "the best ") + axis_title(metric)
    if marked.get("knee"):
        short = "p99" if latency == "latency_ms.p99" else axis_title(latency)
        handles, names = handles + [ring], names + [f"knee: max {axis_title(thr)} / {short}"]
    if marked.get("enough"):
        handles, names = handles + [ring], names + [("enough: within 1 % of " if lower else "enough: 99 % of ") + best]
    top.legend(handles, names, fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1))
record("sweep", fig)
plt.show()`

const latencySrc = `block = LATENCY_BLOCK
keys = [(k, q) for k, q in STYLE["percentiles"] if k != "max"]


def nines(q):
    """Percentile to x: -log10(1 - q), so p90 is 1 and p99 is 2."""
    return -math.log10(1 - q / 100)


last = max([q for case in CASES for k, q in keys if number(case["metrics"], f"{block}.{k}") is not None] + [99])
xmax = nines(last) + 0.6
fig, ax = plt.subplots(figsize=FIGSIZE)
used = {}
ys_all = []
for i, case in enumerate(CASES):
    points = [(nines(q), number(case["metrics"], f"{block}.{k}"), f"p{fmt_value(q)}") for k, q in keys]
    points.append((xmax, number(case["metrics"], f"{block}.max"), "max"))
    points = [p for p in points if p[1] is not None]
    if len(points) < 2:
        continue
    used.update({x: name for x, _, name in points})
    ys_all += [p[1] for p in points]
    ax.plot([p[0] for p in points], [p[1] for p in points], marker="o", label=label(case), color=colour(i))
ax.set_xticks(sorted(used))
ax.set_xticklabels([used[x] for x in sorted(used)])
ax.set_xlabel("percentile")
ax.set_ylabel(f"{axis_title(block)} ({STYLE['units'].get(block) or 'ms'})")
if ys_all and min(ys_all) > 0 and max(ys_all) / min(ys_all) > 50:
    ax.set_yscale("log")  # as simrun does when the tail spans decades
else:
    ax.set_ylim(bottom=0)
ax.set_title(titled(f"{RESULT['scenario']}: {axis_title(block)} percentiles"))
ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1))
record("latency", fig)
plt.show()`

const seriesSrc = `LABELS = {paths[0]: ylabel for paths, _, ylabel in STYLE["series_panels"]}


def has_series(case, path):
    ys = lookup(case["metrics"], path)
    return isinstance(ys, list) and len(ys) > 0


panels = [(paths, scale, ylabel) for paths, scale, ylabel in STYLE["panels"]]
if SERIES:
    panels = [([s], 1, LABELS.get(s, axis_label(s.replace("series.", "", 1)))) for s in SERIES]
elif not any(has_series(case, path) for paths, _, _ in panels for path in paths for case in CASES):
    # Not a database run (replication, fio, demo): as simrun does, a panel
    # for each series the cases have, up to five.
    panels = [p for p in STYLE["series_panels"] if any(has_series(case, p[0][0]) for case in CASES)][:5]


def interval(case, path, n):
    """Seconds per point: interval_s beside the series, else duration / n."""
    parent = path.rsplit(".", 1)[0] + "." if "." in path else ""
    step = number(case["metrics"], parent + "interval_s")
    if step and step > 0:
        return step
    duration = case.get("duration_s") or RESULT.get("duration_s")
    return duration / n if duration and n else 1


present, missing = [], []
for paths, scale, ylabel in panels:
    rows = []
    for i, case in enumerate(CASES):
        for path in paths:
            if has_series(case, path):
                rows.append((i, case, path, lookup(case["metrics"], path)))
                break
    if rows:
        present.append((ylabel, scale, rows))
    else:
        missing.append(f"{ylabel.split(' (')[0]} ({paths[0]})")

if not present:
    # Nothing to draw: say so rather than fail, and the later cells still run.
    print("No series to draw: " + (", ".join(missing) if missing else "the cases have none")
          + " not in this result. Set SERIES to series it has, e.g. "
          + (", ".join(p[0][0] for p in STYLE["series_panels"][:3]) or "none: this result has no series"))
else:
    fig, axes = plt.subplots(len(present), 1, figsize=(FIGSIZE[0], 2.1 * len(present) + 0.8), sharex=True, squeeze=False)
    for ax, (ylabel, scale, rows) in zip(axes[:, 0], present):
        for i, case, path, ys in rows:
            step = interval(case, path, len(ys))
            points = [((j + 1) * step, y * scale) for j, y in enumerate(ys) if y is not None and math.isfinite(y)]
            if len(points) == 1:  # a line needs two points
                points.insert(0, (0, points[0][1]))
            ax.plot([p[0] for p in points], [p[1] for p in points], label=label(case) if len(CASES) > 1 else "_" + label(case), color=colour(i))
        ax.set_ylabel(ylabel)
        ax.set_ylim(bottom=0)
    axes[0, 0].set_title(titled(f"{RESULT['scenario']}: over time"))
    if len(CASES) > 1:
        axes[0, 0].legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1))
    xlabel = "time since the end of warm-up (s)"
    if missing:
        xlabel += "\nnot in this result: " + ", ".join(missing)
    axes[-1, 0].set_xlabel(xlabel)
    axes[-1, 0].set_xlim(left=0)
    record("series", fig)
    plt.show()`

const breakdownSrc = `block = BREAKDOWN_BLOCK
order = STYLE["stage_order"]
components = []
for case in CASES:
    for key, value in (lookup(case["metrics"], block) or {}).items():
        numeric = isinstance(value, (int, float)) and not isinstance(value, bool)
        if numeric and key not in STYLE["breakdown_skip"] and not key.endswith("_ci95") and key not in components:
            components.append(key)
components.sort(key=lambda k: (order.index(k) if k in order else len(order), k))

fig, ax = plt.subplots(figsize=FIGSIZE)
bottom = [0.0] * len(CASES)
for i, comp in enumerate(components):
    ys = [max(number(case["metrics"], f"{block}.{comp}") or 0, 0) for case in CASES]
    ax.bar(range(len(CASES)), ys, 0.6, bottom=bottom, label=comp.replace("_", " "), color=colour(i), hatch=hatch(i) or None)
    bottom = [b + y for b, y in zip(bottom, ys)]
for i, total in enumerate(bottom):
    ax.annotate(short(total), (i, total), textcoords="offset points", xytext=(0, 3), ha="center", fontsize=8)
ax.set_xticks(range(len(CASES)))
ax.set_xticklabels([label(case) for case in CASES])
if block == "commit_breakdown_ms":
    ax.set_ylabel("commit latency by stage (ms)")
else:
    ax.set_ylabel(f"{axis_title(block)} per transaction ({STYLE['units'].get(block) or 'ms'})")
ax.set_ylim(bottom=0)
ax.set_title(titled(f"{RESULT['scenario']}: where commit time goes"))
handles, names = ax.get_legend_handles_labels()
ax.legend(handles[::-1], names[::-1], loc="upper left", bbox_to_anchor=(1.01, 1))  # top of the stack first
record("breakdown", fig)
plt.show()`

func paramsCell(d *result.Document, file string) string {
	bar, lat, bd := plot.Defaults(d)
	return strings.NewReplacer("@FILE@", py(file), "@BAR@", py(bar), "@LAT@", py(lat), "@BD@", py(bd)).Replace(paramsSrc)
}

func dataCell(d *result.Document) string {
	return strings.Replace(dataSrc, "@STYLE@", styleJSON(d), 1)
}

// chartCell returns the matplotlib code that redraws a chart of kind k.
func chartCell(k plot.Kind) (string, error) {
	switch k {
	case plot.Bar:
		return barSrc, nil
	case plot.Sweep:
		return sweepSrc, nil
	case plot.Latency:
		return latencySrc, nil
	case plot.Series:
		return seriesSrc, nil
	case plot.Breakdown:
		return breakdownSrc, nil
	}
	return "", fmt.Errorf("export: no notebook code for chart kind %q", k)
}
