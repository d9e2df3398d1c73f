package result

import (
	"encoding/csv"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
)

// WriteCSV writes one row per case (per sweep point) with the columns
// case, the swept keys in sweep order, then every metric leaf by dotted
// path in display order. Series are written as "[N points]"; use JSON for
// them.
func WriteCSV(w io.Writer, d *Document) error {
	cw := csv.NewWriter(w)
	paths := MetricPaths(d)
	header := []string{"case"}
	for _, a := range d.Sweep {
		header = append(header, a.Key)
	}
	header = append(header, paths...)
	if err := cw.Write(header); err != nil {
		return err
	}
	for _, c := range d.Cases {
		row := []string{c.Name}
		for _, a := range d.Sweep {
			row = append(row, FormatValue(c.Point[a.Key]))
		}
		for _, p := range paths {
			v, _ := c.Metrics.Lookup(p)
			row = append(row, FormatValue(v))
		}
		if err := cw.Write(row); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// MetricPaths returns the union of the metric leaf paths of all cases, in
// display order (see OrderPaths).
func MetricPaths(d *Document) []string {
	seen := map[string]bool{}
	var paths []string
	for _, c := range d.Cases {
		for _, l := range Flatten(c.Metrics) {
			if !seen[l.Path] {
				seen[l.Path] = true
				paths = append(paths, l.Path)
			}
		}
	}
	OrderPaths(paths)
	return paths
}

// preferred ranks well-known metric names first, in this order; others
// follow alphabetically. A NAME_ci95 sorts right after NAME.
var preferred = []string{
	"tps", "qps", "throughput_per_s", "completed", "arrivals",
	"latency_ms", "response_ms", "wait_ms", "service_ms",
	"avg", "mean", "p50", "p90", "p95", "p99", "p999", "max", "min",
	"util_pct", "cpu_util_pct", "queue_len_avg", "queue_len_max",
	"redo_bytes", "binlog_bytes", "fsyncs", "disk",
	"reads_per_s", "writes_per_s", "read_kB_per_s", "write_kB_per_s", "avg_write_kB", "await_ms",
}

var rank = func() map[string]int {
	m := map[string]int{}
	for i, p := range preferred {
		m[p] = i
	}
	return m
}()

func segRank(s string) (int, string) {
	base := strings.TrimSuffix(s, CISuffix)
	r, ok := rank[base]
	if !ok {
		r = len(preferred)
	}
	return r, base
}

// OrderPaths sorts dotted metric paths for display: segment by segment,
// well-known names first in a fixed order, then alphabetically.
func OrderPaths(paths []string) {
	sort.SliceStable(paths, func(i, j int) bool { return lessPath(paths[i], paths[j]) })
}

func lessPath(a, b string) bool {
	as, bs := strings.Split(a, "."), strings.Split(b, ".")
	for k := 0; k < len(as) && k < len(bs); k++ {
		if as[k] == bs[k] {
			continue
		}
		ra, na := segRank(as[k])
		rb, nb := segRank(bs[k])
		// NAME and NAME_ci95 share a rank and a base; NAME comes first.
		if ra != rb {
			return ra < rb
		}
		if na != nb {
			return na < nb
		}
		return as[k] < bs[k]
	}
	return len(as) < len(bs)
}

// Table is a grid of cells for a text table: the caller aligns and colours.
type Table struct {
	Header []string
	Rows   [][]string
}

// MetricTable lays a document out with one row per metric and one column
// per case: the easiest way to compare a few cases. With replications a
// cell reads "mean ± ci95".
func MetricTable(d *Document) Table {
	t := Table{Header: []string{"metric"}}
	for _, c := range d.Cases {
		t.Header = append(t.Header, caseLabel(d, c))
	}
	for _, p := range MetricPaths(d) {
		if strings.HasSuffix(p, CISuffix) {
			continue
		}
		row := []string{p}
		for _, c := range d.Cases {
			row = append(row, cell(c.Metrics, p))
		}
		t.Rows = append(t.Rows, row)
	}
	return t
}

// RowTable lays a document out with one row per case (sweep point): the
// case, the swept values, then the metrics (all of them, or those whose
// path is in only, if only is non-empty).
func RowTable(d *Document, only []string) Table {
	t := Table{Header: []string{"case"}}
	for _, a := range d.Sweep {
		t.Header = append(t.Header, a.Key)
	}
	var paths []string
	for _, p := range MetricPaths(d) {
		if strings.HasSuffix(p, CISuffix) {
			continue
		}
		if len(only) > 0 && !containsPrefix(only, p) {
			continue
		}
		paths = append(paths, p)
	}
	t.Header = append(t.Header, paths...)
	for _, c := range d.Cases {
		row := []string{c.Name}
		for _, a := range d.Sweep {
			row = append(row, FormatValue(c.Point[a.Key]))
		}
		for _, p := range paths {
			row = append(row, cell(c.Metrics, p))
		}
		t.Rows = append(t.Rows, row)
	}
	return t
}

func containsPrefix(list []string, p string) bool {
	for _, x := range list {
		if p == x || strings.HasPrefix(p, x+".") {
			return true
		}
	}
	return false
}

func caseLabel(d *Document, c Case) string {
	if len(d.Sweep) == 0 {
		return c.Name
	}
	return c.Name + " " + PointLabel(d, c)
}

// PointLabel prints a row's sweep point as a table shows it, each key by
// its last segment and each value in its unit: "bandwidth_max=40MB/s".
func PointLabel(d *Document, c Case) string {
	var parts []string
	for _, a := range d.Sweep {
		parts = append(parts, lastSeg(a.Key)+"="+a.Format(c.Point[a.Key]))
	}
	return strings.Join(parts, " ")
}

// RowLabel names a row in notes and headings: its case and, in a sweep,
// its point by full keys in key order, each value in its unit:
// "Case2 [volume.bandwidth_max=40MB/s]".
func RowLabel(d *Document, c Case) string {
	if len(d.Sweep) == 0 || len(c.Point) == 0 {
		return c.Name
	}
	axes := slices.Clone(d.Sweep)
	slices.SortFunc(axes, func(a, b Axis) int { return strings.Compare(a.Key, b.Key) })
	var parts []string
	for _, a := range axes {
		parts = append(parts, a.Key+"="+a.Format(c.Point[a.Key]))
	}
	return c.Name + " [" + strings.Join(parts, " ") + "]"
}

func lastSeg(p string) string {
	if i := strings.LastIndexByte(p, '.'); i >= 0 {
		return p[i+1:]
	}
	return p
}

// cell formats the metric at path p for a table: numbers with about five
// significant digits, "mean ± ci" when the interval is there.
func cell(m Metrics, p string) string {
	v, ok := m.Lookup(p)
	if !ok {
		return ""
	}
	s := Human(v)
	if ci, ok := m.Lookup(p + CISuffix); ok {
		s += " ± " + Human(ci)
	}
	return s
}

// Human formats a value for people: integers as they are, floats with five
// significant digits and no exponent for ordinary magnitudes.
func Human(v any) string {
	switch x := v.(type) {
	case float64:
		return humanFloat(x)
	case float32:
		return humanFloat(float64(x))
	}
	return FormatValue(v)
}

func humanFloat(f float64) string {
	n := FormatNumber(f)
	if n == nil {
		return "-"
	}
	a := f
	if a < 0 {
		a = -a
	}
	switch {
	case a == 0:
		return "0"
	case a >= 1e5 && a < 1e15:
		return fmt.Sprintf("%.0f", f)
	case a >= 1e-4 && a < 1e5:
		s := fmt.Sprintf("%.5g", f)
		if strings.ContainsAny(s, "e") {
			return fmt.Sprintf("%.1f", f)
		}
		return s
	}
	return fmt.Sprintf("%.4g", f)
}
