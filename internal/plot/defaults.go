package plot

import (
	"fmt"
	"strings"

	"simrun/internal/result"
)

// A chart drawn without --metric picks what the result has: every workload
// (sysbench, fio, demo, replication) gets a chart, not an error about a
// metric only another workload reports.

// headline lists the throughput metrics a bar (and sweep) chart prefers,
// in order; a result with none of them gets its first numeric metric.
var headline = []string{"tps", "applier.tps", "throughput_per_s", "qps", "write.iops", "read.iops", "disk.writes_per_s"}

// caseMetricPaths returns the metric leaf paths of the cases in display
// order.
func caseMetricPaths(cases []result.Case) []string {
	return result.MetricPaths(&result.Document{Cases: cases})
}

// numericPaths returns the scalar numeric metric paths of the cases.
func numericPaths(cases []result.Case) []string {
	var out []string
	for _, p := range caseMetricPaths(cases) {
		if strings.HasSuffix(p, result.CISuffix) {
			continue
		}
		for _, c := range cases {
			if _, ok := number(c.Metrics, p); ok {
				out = append(out, p)
				break
			}
		}
	}
	return out
}

func anyHas(cases []result.Case, path string) bool {
	for _, c := range cases {
		if _, ok := number(c.Metrics, path); ok {
			return true
		}
	}
	return false
}

// defaultMetric is the bar chart's metric without --metric.
func defaultMetric(cases []result.Case) string {
	for _, h := range headline {
		if anyHas(cases, h) {
			return h
		}
	}
	if ps := numericPaths(cases); len(ps) > 0 {
		return ps[0]
	}
	return "tps"
}

// lowerWords mark a metric of which less is better: a time, a wait, a lag,
// a queue.
var lowerWords = []string{"latency", "wait", "lag", "await", "clat", "response", "elapsed", "catchup", "blocked", "queue", "misses"}

// LowerIsBetter reports whether less of a metric is better: latency, wait
// and lag (latency_ms.p99, wait_ms.avg, applier.max_lag_s), and any time
// (a name ending in _ms, _us, _ns or _s, but not _per_s). Throughput,
// IOPS and utilisation are higher-is-better.
func LowerIsBetter(path string) bool {
	p := strings.ToLower(path)
	for _, w := range lowerWords {
		if strings.Contains(p, w) {
			return true
		}
	}
	for _, seg := range strings.Split(p, ".") {
		if strings.HasSuffix(seg, "_per_s") {
			continue
		}
		for _, u := range []string{"_ms", "_us", "_ns", "_s"} {
			if strings.HasSuffix(seg, u) {
				return true
			}
		}
	}
	return false
}

// ThroughputMetric is the metric a sweep's knee weighs against latency
// when the metric drawn is itself a time: the first headline metric (tps,
// applier.tps, throughput_per_s, qps, write.iops, ...) d has, or "".
func ThroughputMetric(d *result.Document) string { return throughputMetric(d.Cases) }

// throughputMetric is ThroughputMetric of the cases.
func throughputMetric(cases []result.Case) string {
	for _, h := range headline {
		if anyHas(cases, h) {
			return h
		}
	}
	return ""
}

// SweepLatency is the latency the sweep chart draws under its metric and
// weighs the knee by: latency_ms.p99, else the p99 (or the highest
// percentile) of the first block of percentiles (write.clat_ms.p99); ""
// when the result has none.
func SweepLatency(d *result.Document) string { return sweepLatency(d.Cases) }

func sweepLatency(cases []result.Case) string {
	if anyHas(cases, KneeLatency) {
		return KneeLatency
	}
	for _, b := range percentileBlocks(cases) {
		for _, k := range []string{"p99", "p99_9", "p999", "p95", "p90", "p75", "p50"} {
			// A block with data: a write-only fio job reports its read
			// percentiles as zeros.
			if anyPositive(cases, b+"."+k) {
				return b + "." + k
			}
		}
	}
	return ""
}

// anyPositive reports whether a case has path above zero.
func anyPositive(cases []result.Case, path string) bool {
	for _, c := range cases {
		if v, ok := number(c.Metrics, path); ok && v > 0 {
			return true
		}
	}
	return false
}

// percentileBlocks returns the blocks holding two or more percentiles
// (latency_ms, write.clat_ms, wait_ms, ...), latency_ms first.
func percentileBlocks(cases []result.Case) []string {
	count := map[string]int{}
	var order []string
	for _, p := range numericPaths(cases) {
		i := strings.LastIndexByte(p, '.')
		if i < 0 {
			continue
		}
		block, key := p[:i], p[i+1:]
		for _, pc := range Percentiles {
			if pc.Key == key && pc.Key != "max" {
				if count[block] == 0 {
					order = append(order, block)
				}
				count[block]++
			}
		}
	}
	var out []string
	for _, b := range order {
		if count[b] >= 2 {
			out = append(out, b)
		}
	}
	for i, b := range out {
		if b == "latency_ms" {
			out = append([]string{b}, append(out[:i:i], out[i+1:]...)...)
			break
		}
	}
	return out
}

// breakdownBlocks returns the blocks whose name says they break a time
// down (commit_breakdown_ms first).
func breakdownBlocks(cases []result.Case) []string {
	seen := map[string]bool{}
	var out []string
	for _, p := range numericPaths(cases) {
		i := strings.LastIndexByte(p, '.')
		if i < 0 || !strings.Contains(p[:i], "breakdown") || seen[p[:i]] {
			continue
		}
		seen[p[:i]] = true
		out = append(out, p[:i])
	}
	return out
}

// seriesPaths returns every time series of the cases, by path.
func seriesPaths(cases []result.Case) []string {
	var out []string
	for _, p := range caseMetricPaths(cases) {
		for _, c := range cases {
			if _, ok := series(c.Metrics, p); ok {
				out = append(out, p)
				break
			}
		}
	}
	return out
}

// suggest completes a missing-metric error with what the result does
// have, and how to choose it.
func suggest(err error, k Kind, candidates []string) error {
	if len(candidates) == 0 {
		return fmt.Errorf("%w; this result has nothing to draw as a %s chart (simrun plot --kind: %s)", err, k, kindList())
	}
	if len(candidates) > 6 {
		candidates = append(candidates[:6:6], "...")
	}
	return fmt.Errorf("%w; choose one with --metric, e.g. %s", err, strings.Join(candidates, ", "))
}

// Defaults are what each chart kind draws of d without --metric: the bar
// metric, the latency block and the breakdown block.
func Defaults(d *result.Document) (bar, latency, breakdown string) {
	bar = defaultMetric(d.Cases)
	latency = "latency_ms"
	if bs := percentileBlocks(d.Cases); len(bs) > 0 {
		latency = bs[0]
	}
	breakdown = "commit_breakdown_ms"
	if bs := breakdownBlocks(d.Cases); len(bs) > 0 {
		breakdown = bs[0]
	}
	return bar, latency, breakdown
}

// Title is a metric's axis label without its unit, for chart titles.
func Title(path string) string { return title(path) }

// UnitOf is the unit a metric or block name says ("ms" for latency_ms), or
// "".
func UnitOf(path string) string {
	for _, u := range units {
		if strings.HasSuffix(path, u.suffix) {
			return u.unit
		}
	}
	return ""
}
