package export

import (
	"encoding/csv"
	"io"
	"strings"

	"simrun/internal/result"
)

// isSeries reports whether a metric value is a series rather than a scalar.
func isSeries(v any) bool {
	switch v.(type) {
	case []float64, []int64, []any:
		return true
	}
	return false
}

// inSeries reports whether a path lies under a "series" block, whose
// scalars (interval_s) only describe the series.
func inSeries(p string) bool {
	return p == "series" || strings.HasPrefix(p, "series.") || strings.Contains(p, ".series.")
}

// scalarPaths returns the metric paths that hold a scalar in some case, in
// display order, without the _ci95 siblings.
func scalarPaths(d *result.Document) []string {
	var out []string
	for _, p := range result.MetricPaths(d) {
		if strings.HasSuffix(p, result.CISuffix) || inSeries(p) {
			continue
		}
		for _, c := range d.Cases {
			if v, ok := c.Metrics.Lookup(p); ok && !isSeries(v) {
				out = append(out, p)
				break
			}
		}
	}
	return out
}

// WriteCSV writes d as tidy data: one row per case × scalar metric, with
// the columns case, the swept keys (in sweep order), metric, value and
// ci95 (the half-width of the 95 % interval, empty without replications).
// Series blocks are left out: the JSON result holds them.
func WriteCSV(w io.Writer, d *result.Document) error {
	cw := csv.NewWriter(w)
	head := []string{"case"}
	for _, a := range d.Sweep {
		head = append(head, a.Key)
	}
	head = append(head, "metric", "value", "ci95")
	if err := cw.Write(head); err != nil {
		return err
	}
	paths := scalarPaths(d)
	for _, c := range d.Cases {
		for _, p := range paths {
			v, ok := c.Metrics.Lookup(p)
			if !ok || isSeries(v) {
				continue
			}
			row := []string{c.Name}
			for _, a := range d.Sweep {
				row = append(row, result.FormatValue(c.Point[a.Key]))
			}
			ci, _ := c.Metrics.Lookup(p + result.CISuffix)
			row = append(row, p, result.FormatValue(v), result.FormatValue(ci))
			if err := cw.Write(row); err != nil {
				return err
			}
		}
	}
	cw.Flush()
	return cw.Error()
}

// headline are the metrics a table of many rows keeps, when present.
var headline = []string{
	"tps", "qps", "latency_ms.avg", "latency_ms.p95", "latency_ms.p99",
	"disk.write_kB_per_s", "disk.util_pct", "applier.tps",
}

// caseLabel names a case in a table header: its name and swept values,
// each in its key's unit.
func caseLabel(d *result.Document, c result.Case) string {
	if len(d.Sweep) == 0 {
		return c.Name
	}
	var parts []string
	for _, a := range d.Sweep {
		k := a.Key
		if i := strings.LastIndexByte(k, '.'); i >= 0 {
			k = k[i+1:]
		}
		parts = append(parts, k+"="+a.Format(c.Point[a.Key]))
	}
	return c.Name + " " + strings.Join(parts, " ")
}

// cell formats a metric for a table: five significant digits, "± ci" when
// the result has an interval.
func cell(m result.Metrics, p string) string {
	v, ok := m.Lookup(p)
	if !ok || isSeries(v) {
		return ""
	}
	s := result.Human(v)
	if ci, ok := m.Lookup(p + result.CISuffix); ok {
		s += " ± " + result.Human(ci)
	}
	return s
}

// resultsTable lays the results out as a markdown table: metrics down and
// cases across for a handful of cases; one row per case (per sweep point)
// with the headline metrics otherwise.
func resultsTable(d *result.Document) string {
	paths := scalarPaths(d)
	var rows [][]string
	if len(d.Sweep) == 0 && len(d.Cases) <= 10 {
		head := []string{"metric"}
		for _, c := range d.Cases {
			head = append(head, caseLabel(d, c))
		}
		rows = append(rows, head)
		for _, p := range paths {
			r := []string{"`" + p + "`"}
			for _, c := range d.Cases {
				r = append(r, cell(c.Metrics, p))
			}
			rows = append(rows, r)
		}
		return markdownTable(rows, 1)
	}
	keep := paths
	if len(paths) > 8 {
		keep = nil
		for _, h := range headline {
			for _, p := range paths {
				if p == h {
					keep = append(keep, p)
				}
			}
		}
		if len(keep) == 0 {
			keep = paths[:8]
		}
	}
	head := []string{"case"}
	for _, a := range d.Sweep {
		head = append(head, "`"+a.Key+"`")
	}
	for _, p := range keep {
		head = append(head, "`"+p+"`")
	}
	rows = append(rows, head)
	for _, c := range d.Cases {
		r := []string{c.Name}
		for _, a := range d.Sweep {
			r = append(r, a.Format(c.Point[a.Key])) // in the key's unit: 40MB/s
		}
		for _, p := range keep {
			r = append(r, cell(c.Metrics, p))
		}
		rows = append(rows, r)
	}
	s := markdownTable(rows, 1+len(d.Sweep))
	if len(keep) < len(paths) {
		s += "\nThe table shows the headline metrics; the data cell and the CSV export hold all of them.\n"
	}
	return s
}

// markdownTable formats rows (the first is the header) with the first
// textCols columns left-aligned and the rest right-aligned.
func markdownTable(rows [][]string, textCols int) string {
	var b strings.Builder
	for i, r := range rows {
		b.WriteString("|")
		for _, c := range r {
			b.WriteString(" " + strings.ReplaceAll(c, "|", `\|`) + " |")
		}
		b.WriteString("\n")
		if i == 0 {
			b.WriteString("|")
			for j := range r {
				if j < textCols {
					b.WriteString(" --- |")
				} else {
					b.WriteString(" ---: |")
				}
			}
			b.WriteString("\n")
		}
	}
	return b.String()
}
