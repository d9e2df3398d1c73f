package main

import (
	"fmt"
	"math"
	"os"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"

	"golang.org/x/term"
	"golang.org/x/text/width"

	"simrun/internal/result"
	"simrun/scenarios"
)

// The run table: one row per case (per sweep point), one column per chosen
// metric. Numbers carry thousands separators and, within a column, the
// same number of decimals, so decimal points line up; headers carry units
// (device bandwidth in MB/s, the unit caps are set in). The table fits the
// terminal: columns that do not fit are named below it, with the flag that
// shows them. It never turns into a dump of every metric.

// headlineMetrics are the default columns, those a result has, in order.
var headlineMetrics = []string{
	"elapsed_s", "rows_per_s", "misses_per_1000_rows",
	"tps", "qps", "throughput_per_s", "applier.tps",
	"write.iops", "read.iops", "write.bw_kB_per_s", "read.bw_kB_per_s",
	"latency_ms.avg", "latency_ms.p95", "latency_ms.p99",
	"write.clat_ms.p99", "read.clat_ms.p99",
	"wait_ms.avg", "wait_ms.p99", "util_pct", "queue_len_avg",
	"cpu_util_pct", "tx_per_group", "commit_fsyncs",
	"applier.cpu_util_pct", "applier.hol_blocked_pct", "applier.max_lag_s",
	"disk.write_kB_per_s", "disk.writes_per_s", "disk.util_pct", "disk.await_ms",
}

// tableOptions shape the run table.
type tableOptions struct {
	metrics []string      // --metrics: paths or block prefixes; empty: the headline
	width   int           // columns of the terminal; 0: unlimited
	cases   *settings     // what sets the cases apart; nil when unknown
	every   time.Duration // --report-interval: per-interval lines after the table
	iostat  bool          // --iostat: per-interval device rows after the table
}

// terminalWidth is the width to fit: the terminal's, else $COLUMNS, else 80.
func terminalWidth(w any) int {
	if f, ok := w.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		if cols, _, err := term.GetSize(int(f.Fd())); err == nil && cols > 20 {
			return cols
		}
	}
	if c, err := strconv.Atoi(os.Getenv("COLUMNS")); err == nil && c > 20 {
		return c
	}
	return 80
}

// column is one metric column: its path, header, unit and scale.
type column struct {
	path   string
	header string
	scale  float64
}

// unitSuffixes turn a metric name's unit suffix into a header unit.
var unitSuffixes = []struct {
	suffix, unit string
	scale        float64
}{
	{"_kB_per_s", "MB/s", 1024 / 1e6}, // iostat kB (1024 B) to the MB/s caps are set in
	{"_MB_per_s", "MB/s", 1},
	{"_per_s", "/s", 1},
	{"_pct", "%", 1},
	{"_ms", "ms", 1},
	{"_us", "us", 1},
	{"_s", "s", 1},
	{"_bytes", "MB", 1e-6},
	{"_kB", "KiB", 1},
	{"_MB", "MB", 1},
}

// columnFor names a metric column with its unit: latency_ms.p99 is
// "latency p99 ms", disk.write_kB_per_s is "disk write MB/s".
func columnFor(path string) column {
	segs := strings.Split(path, ".")
	unit, scale := "", 1.0
	for i, s := range segs {
		for _, u := range unitSuffixes {
			if strings.HasSuffix(s, u.suffix) && len(s) > len(u.suffix) {
				segs[i] = strings.TrimSuffix(s, u.suffix)
				if unit == "" {
					unit, scale = u.unit, u.scale
				}
				break
			}
		}
		segs[i] = strings.ReplaceAll(segs[i], "_", " ")
	}
	h := strings.Join(segs, " ")
	switch path {
	case "tps", "qps":
		h = path
	case "write.iops", "read.iops":
		h = segs[0] + " IOPS"
	}
	switch {
	case strings.HasPrefix(unit, "/"):
		h += unit
	case unit != "":
		h += " " + unit
	}
	return column{path: path, header: h, scale: scale}
}

// chooseColumns returns the metric columns: --metrics, or the headline
// metrics the result has (its first numeric metrics if it has none). A
// --metrics entry the result lacks is left out and reported in the error,
// after the table is shown: the run's result is not thrown away for it.
func chooseColumns(doc *result.Document, only []string) (cols []column, err error) {
	paths := result.MetricPaths(doc)
	numeric := func(p string) bool {
		if strings.HasSuffix(p, result.CISuffix) {
			return false
		}
		for _, c := range doc.Cases {
			if v, ok := c.Metrics.Lookup(p); ok {
				if _, isNum := result.Float(v); isNum {
					return true
				}
			}
		}
		return false
	}
	var chosen []string
	if len(only) > 0 {
		for _, want := range only {
			n := 0
			for _, p := range paths {
				if (p == want || strings.HasPrefix(p, want+".")) && numeric(p) {
					chosen = append(chosen, p)
					n++
				}
			}
			if n == 0 {
				msg := fmt.Sprintf("--metrics: the result has no metric %q", want)
				if slices.Contains(paths, want) {
					msg = fmt.Sprintf("--metrics: %q is a per-interval series, not a table column (--report-interval and --iostat print the series; the JSON holds them)", want)
				} else if s := scenarios.Suggest(want, paths); s != "" {
					msg += fmt.Sprintf("; did you mean %s?", s)
				}
				if err == nil {
					err = usagef("%s (--format csv lists every metric)", msg)
				}
			}
		}
	}
	if len(chosen) == 0 {
		have := map[string]bool{}
		for _, p := range paths {
			have[p] = numeric(p)
		}
		for _, h := range headlineMetrics {
			if have[h] && !allZero(doc, h) && !sameAsChosen(doc, h, chosen) {
				chosen = append(chosen, h)
			}
		}
		if len(chosen) < 2 {
			for _, p := range paths {
				if have[p] && len(chosen) < 8 && !contains(chosen, p) {
					chosen = append(chosen, p)
				}
			}
		}
	}
	cols = make([]column, len(chosen))
	for i, p := range chosen {
		cols[i] = columnFor(p)
	}
	return cols, err
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// group formats n with thousands separators: 1234567 -> "1,234,567".
func group(n string) string {
	neg := strings.HasPrefix(n, "-")
	n = strings.TrimPrefix(n, "-")
	intPart, frac, hasFrac := strings.Cut(n, ".")
	var b strings.Builder
	for i, c := range intPart {
		if i > 0 && (len(intPart)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	s := b.String()
	if hasFrac {
		s += "." + frac
	}
	if neg {
		s = "-" + s
	}
	return s
}

// decimalsFor is the number of decimals a column's values share: enough
// for about four significant digits of its largest value, at most 3.
func decimalsFor(vals []float64) int {
	top := 0.0
	for _, v := range vals {
		if !math.IsNaN(v) && !math.IsInf(v, 0) {
			top = math.Max(top, math.Abs(v))
		}
	}
	if top == 0 {
		return 0
	}
	return min(3, max(0, 3-int(math.Floor(math.Log10(top)))))
}

// formatCells formats one column's values for the table.
func formatCells(vals, cis []float64, has []bool, integer bool) []string {
	dec := decimalsFor(vals)
	if integer {
		dec = 0
	}
	out := make([]string, len(vals))
	for i, v := range vals {
		switch {
		case !has[i]:
			out[i] = ""
		case math.IsNaN(v) || math.IsInf(v, 0):
			out[i] = "-"
		default:
			out[i] = group(strconv.FormatFloat(v, 'f', dec, 64))
			if cis[i] > 0 {
				out[i] += " ± " + group(strconv.FormatFloat(cis[i], 'f', dec, 64))
			}
		}
	}
	return out
}

// runTable lays the document out as rows of strings, without colour.
func runTable(doc *result.Document, opt tableOptions) (header []string, rows [][]string, hidden []string, err error) {
	cols, err := chooseColumns(doc, opt.metrics)
	header = []string{"case"}
	for _, a := range doc.Sweep {
		header = append(header, lastSegment(a.Key))
	}
	rows = make([][]string, len(doc.Cases))
	for i, c := range doc.Cases {
		rows[i] = []string{c.Name}
		for _, a := range doc.Sweep {
			rows[i] = append(rows[i], sweptCell(a, c.Point[a.Key]))
		}
	}
	// What binds each row, beside its name: it explains the numbers after it.
	if len(opt.metrics) == 0 && hasBottleneck(doc) {
		header = append(header, "bound")
		for i, c := range doc.Cases {
			cell := "-"
			if b := c.Bottleneck; b != nil {
				cell = fmt.Sprintf("%s %.0f%%", b.Resource, b.UtilPct)
			}
			rows[i] = append(rows[i], cell)
		}
	}
	for _, col := range cols {
		n := len(doc.Cases)
		vals, cis, has := make([]float64, n), make([]float64, n), make([]bool, n)
		integer := true
		for i, c := range doc.Cases {
			v, ok := c.Metrics.Lookup(col.path)
			if !ok {
				continue
			}
			f, ok := result.Float(v)
			if !ok {
				continue
			}
			switch v.(type) {
			case float64, float32:
				integer = false
			}
			vals[i], has[i] = f*col.scale, true
			if ci, ok := c.Metrics.Lookup(col.path + result.CISuffix); ok {
				if x, ok := result.Float(ci); ok {
					cis[i] = x * col.scale
				}
			}
		}
		if col.scale != 1 {
			integer = false
		}
		cells := formatCells(vals, cis, has, integer)
		header = append(header, col.header)
		for i := range rows {
			rows[i] = append(rows[i], cells[i])
		}
	}
	if opt.width > 0 {
		keep := len(header)
		for keep > 2 && gridWidth(header[:keep], rows, keep) > opt.width {
			keep--
		}
		for _, h := range header[keep:] {
			hidden = append(hidden, h)
		}
		header = header[:keep]
		for i := range rows {
			rows[i] = rows[i][:keep]
		}
	}
	return header, rows, hidden, err
}

// sweptCell prints a row's value of a swept key as people read it: in the
// key's unit (40MB/s, 1.5ms), a plain number with thousands separators, an
// inline table as TOML text. The JSON and CSV keep the number.
func sweptCell(a result.Axis, v any) string {
	s := a.Format(v)
	if _, ok := result.Float(v); ok && a.Unit == "" && plainNumber.MatchString(s) {
		s = group(s)
	}
	return s
}

// plainNumber matches a number group can separate: no exponent.
var plainNumber = regexp.MustCompile(`^-?[0-9]+(\.[0-9]+)?$`)

func hasBottleneck(doc *result.Document) bool {
	for _, c := range doc.Cases {
		if c.Bottleneck != nil {
			return true
		}
	}
	return false
}

func lastSegment(p string) string {
	if i := strings.LastIndexByte(p, '.'); i >= 0 {
		return p[i+1:]
	}
	return p
}

// displayWidth is how many terminal columns s takes: two for an East Asian
// wide or fullwidth rune (CJK ideographs, kana, hangul, fullwidth forms,
// most emoji), none for a combining mark or a zero-width format
// character, one for any other. Counting runes instead shifted every
// column after a name such as 日本語/テスト. The classes are Unicode's
// East Asian Width (UAX #11), from golang.org/x/text/width.
func displayWidth(s string) int {
	n := 0
	for _, r := range s {
		n += runeWidth(r)
	}
	return n
}

func runeWidth(r rune) int {
	switch {
	case r < 0x300: // ASCII and Latin-1: one column, no table lookup
		return 1
	case unicode.In(r, unicode.Mn, unicode.Me, unicode.Cf):
		return 0
	}
	switch width.LookupRune(r).Kind() {
	case width.EastAsianWide, width.EastAsianFullwidth:
		return 2
	}
	return 1
}

// padRight pads s with spaces to w columns (displayWidth).
func padRight(s string, w int) string {
	return s + strings.Repeat(" ", max(0, w-displayWidth(s)))
}

// gridWidth is the printed width of the first n columns.
func gridWidth(header []string, rows [][]string, n int) int {
	w := 0
	for i := 0; i < n; i++ {
		cw := displayWidth(header[i])
		for _, r := range rows {
			cw = max(cw, displayWidth(r[i]))
		}
		w += cw
		if i > 0 {
			w += 2
		}
	}
	return w
}

// settings are the parameters that set the cases of a run apart: for each
// case, the differing parameters' values, by key, in declaration order.
type settings struct {
	keys   []string                     // keys whose values differ between cases
	values map[string]map[string]string // case -> key -> value
	// rows holds, in a sweep, the values each row of the result ran with,
	// its point's overrides applied, by row; nil without a sweep.
	rows []map[string]string
	sc   *scenarios.Scenario // resolves a sweep's rows; nil when unknown
}

// caseSettings finds the parameters whose values differ between the cases
// of sc that run (all, or those named).
func caseSettings(sc *scenarios.Scenario, names []string) *settings {
	var cases []*scenarios.Case
	for _, c := range sc.Cases {
		if len(names) == 0 || contains(names, c.Name) {
			cases = append(cases, c)
		}
	}
	if len(cases) < 2 {
		return nil
	}
	st := &settings{values: map[string]map[string]string{}, sc: sc}
	var keys []string
	for _, c := range cases {
		var m map[string]string
		keys, m = paramValues(c, keys)
		st.values[c.Name] = m
	}
	first := st.values[cases[0].Name]
	for _, k := range keys {
		for _, c := range cases[1:] {
			if st.values[c.Name][k] != first[k] {
				st.keys = append(st.keys, k)
				break
			}
		}
	}
	return st
}

// paramValues returns a case's parameters by key, and keys with the
// case's keys appended in declaration order.
func paramValues(c *scenarios.Case, keys []string) ([]string, map[string]string) {
	m := map[string]string{}
	for _, p := range c.Params() {
		keys = appendUnique(keys, p.Key)
		m[p.Key] = strings.Trim(p.Value, `"`)
	}
	return keys, m
}

// inRun returns the settings as the rows of doc ran them. Without a sweep
// they are the cases'. In a sweep each row's point overrides some of them
// (--set workload.demo.service=1ms gives every case that service), so a
// key sets cases apart only when two cases ran with different values at
// the same point, and a case is labelled only with the values it ran with
// at every point (the swept columns show the others).
func (st *settings) inRun(doc *result.Document) *settings {
	if st == nil || st.sc == nil || len(doc.Sweep) == 0 {
		return st
	}
	out := &settings{values: map[string]map[string]string{}, rows: make([]map[string]string, len(doc.Cases))}
	var keys []string
	for i, c := range doc.Cases {
		rc, err := st.sc.CaseAt(c.Name, doc.Sweep, c.Point)
		if err != nil {
			// Not for the rows a sweep ran; at least leave out the keys
			// the sweep set, whose values in the file did not run.
			return st.without(doc.Sweep)
		}
		keys, out.rows[i] = paramValues(rc, keys)
	}
	// Rows at the same point, by point.
	atPoint := map[string][]int{}
	var points []string
	for i, c := range doc.Cases {
		p := pointKey(doc, c)
		if _, ok := atPoint[p]; !ok {
			points = append(points, p)
		}
		atPoint[p] = append(atPoint[p], i)
	}
	for _, k := range keys {
		differs := false
		for _, p := range points {
			rows := atPoint[p]
			for _, i := range rows[1:] {
				if out.rows[i][k] != out.rows[rows[0]][k] {
					differs = true
				}
			}
		}
		if differs {
			out.keys = append(out.keys, k)
		}
	}
	// A case's label: the values it ran with at every point.
	varies := map[string]map[string]bool{}
	for i, c := range doc.Cases {
		m := out.values[c.Name]
		if m == nil {
			m, varies[c.Name] = map[string]string{}, map[string]bool{}
			out.values[c.Name] = m
		}
		for _, k := range out.keys {
			v, seen := m[k]
			switch {
			case varies[c.Name][k]:
			case !seen:
				m[k] = out.rows[i][k]
			case v != out.rows[i][k]:
				varies[c.Name][k] = true
				delete(m, k)
			}
		}
	}
	return out
}

// without returns st less the keys at or under a swept key.
func (st *settings) without(sweep []result.Axis) *settings {
	out := *st
	out.keys = nil
	for _, k := range st.keys {
		swept := false
		for _, a := range sweep {
			swept = swept || k == a.Key || strings.HasPrefix(k, a.Key+".")
		}
		if !swept {
			out.keys = append(out.keys, k)
		}
	}
	return &out
}

// pointKey identifies a row's sweep point.
func pointKey(doc *result.Document, c result.Case) string {
	var parts []string
	for _, a := range doc.Sweep {
		parts = append(parts, result.FormatValue(c.Point[a.Key]))
	}
	return strings.Join(parts, "\x00")
}

// label is a case's distinguishing settings: "binlog_storage_engine=file
// sync_binlog=0 innodb_flush_log_at_trx_commit=0".
func (st *settings) label(name string) string {
	if st == nil {
		return ""
	}
	var parts []string
	for _, k := range st.keys {
		if v, ok := st.values[name][k]; ok {
			parts = append(parts, lastSegment(k)+"="+v)
		}
	}
	return strings.Join(parts, " ")
}

// differ lists the settings in which the rows of doc at the given indices
// (cases at one point) differ from each other, as "key (a vs b)": the
// values they ran with.
func (st *settings) differ(doc *result.Document, rows []int) []string {
	if st == nil {
		return nil
	}
	var out []string
	for _, k := range st.keys {
		var vals []string
		for _, i := range rows {
			if st.rows != nil {
				vals = appendUnique(vals, st.rows[i][k])
			} else {
				vals = appendUnique(vals, st.values[doc.Cases[i].Name][k])
			}
		}
		if len(vals) > 1 {
			out = append(out, fmt.Sprintf("%s (%s)", lastSegment(k), strings.Join(vals, " vs ")))
		}
	}
	return out
}

func appendUnique(list []string, s string) []string {
	if contains(list, s) {
		return list
	}
	return append(list, s)
}

// identicalGroups returns the sets of rows (two or more, as indices into
// doc.Cases) whose metrics and sweep point are identical, in document
// order.
func identicalGroups(doc *result.Document) [][]int {
	used := make([]bool, len(doc.Cases))
	var out [][]int
	for i := range doc.Cases {
		if used[i] {
			continue
		}
		g := []int{i}
		for j := i + 1; j < len(doc.Cases); j++ {
			if !used[j] && reflect.DeepEqual(doc.Cases[i].Metrics, doc.Cases[j].Metrics) && reflect.DeepEqual(doc.Cases[i].Point, doc.Cases[j].Point) {
				used[j] = true
				g = append(g, j)
			}
		}
		if len(g) > 1 {
			out = append(out, g)
		}
	}
	return out
}

// identicalNotes says which cases give identical results and why. In a
// sweep, a note true at every point is said once; one true at some points
// names them.
func identicalNotes(doc *result.Document, st *settings) []string {
	type note struct {
		names, why string
		points     []string
	}
	var notes []*note
	byText := map[string]*note{}
	allPoints := map[string]bool{}
	for _, c := range doc.Cases {
		allPoints[pointKey(doc, c)] = true
	}
	for _, g := range identicalGroups(doc) {
		var names []string
		for _, i := range g {
			names = append(names, doc.Cases[i].Name)
		}
		why := "nothing on their path differs"
		if d := st.differ(doc, g); len(d) > 0 {
			why = fmt.Sprintf("they differ only in %s, and nothing on their path in this run depends on it", strings.Join(d, ", "))
		}
		text := joinAnd(names) + "\x00" + why
		n := byText[text]
		if n == nil {
			n = &note{names: joinAnd(names), why: why}
			byText[text] = n
			notes = append(notes, n)
		}
		n.points = append(n.points, result.PointLabel(doc, doc.Cases[g[0]]))
	}
	var out []string
	for _, n := range notes {
		at := ""
		if len(doc.Sweep) > 0 && len(n.points) < len(allPoints) {
			const most = 4
			at = " at " + strings.Join(n.points[:min(len(n.points), most)], "; ")
			if len(n.points) > most {
				at += fmt.Sprintf(" and %d more points", len(n.points)-most)
			}
		}
		out = append(out, fmt.Sprintf("%s give identical results%s: %s.", n.names, at, n.why))
	}
	return out
}

// allZero reports whether every case has 0 at path (a read column of a
// write-only job): a default column that says nothing.
func allZero(doc *result.Document, path string) bool {
	for _, c := range doc.Cases {
		v, ok := c.Metrics.Lookup(path)
		if !ok {
			continue
		}
		if f, ok := result.Float(v); ok && f != 0 {
			return false
		}
	}
	return true
}

// wrap breaks s into lines of at most width columns at spaces,
// continuation lines indented by indent spaces (width 0: one line).
func wrap(s string, width, indent int) []string {
	if width <= 0 || displayWidth(s) <= width {
		return []string{s}
	}
	var lines []string
	line := ""
	for _, w := range strings.Fields(s) {
		switch {
		case line == "":
			line = w
			if len(lines) > 0 {
				line = strings.Repeat(" ", indent) + w
			}
		case displayWidth(line)+1+displayWidth(w) > width:
			lines = append(lines, line)
			line = strings.Repeat(" ", indent) + w
		default:
			line += " " + w
		}
	}
	return append(lines, line)
}

// sameAsChosen reports whether path holds, in every case, the value of a
// column already chosen (applier.tps beside tps): a column that repeats
// another says nothing.
func sameAsChosen(doc *result.Document, path string, chosen []string) bool {
	for _, c := range chosen {
		same := true
		for _, cs := range doc.Cases {
			a, _ := cs.Metrics.Lookup(path)
			b, _ := cs.Metrics.Lookup(c)
			fa, okA := result.Float(a)
			fb, okB := result.Float(b)
			if okA != okB || fa != fb {
				same = false
				break
			}
		}
		if same {
			return true
		}
	}
	return false
}
