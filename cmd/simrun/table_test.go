package main

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"simrun/internal/result"
	"simrun/scenarios"
)

var update = flag.Bool("update", false, "rewrite the goldens under testdata/")

// tableDoc is a fixed result of six cases, two of them identical, with the
// metrics a database run reports (raw byte counts among them).
func tableDoc() *result.Document {
	d := result.New("binlog-demo")
	d.Description = "one fsync vs two, six cases"
	d.Seed, d.Duration, d.Warmup = 1, 20, 5
	row := func(name string, tps, p99, kBs, util float64) result.Case {
		return result.Case{Name: name, Metrics: result.Metrics{
			"tps": tps, "qps": 6 * tps, "transactions": int64(tps * 20),
			"latency_ms":   result.Metrics{"avg": p99 / 2.1, "p95": p99 / 1.2, "p99": p99},
			"redo_bytes":   int64(tps * 20 * 3100),
			"binlog_bytes": int64(tps * 20 * 2150),
			"cpu_util_pct": util * 0.7,
			"disk":         result.Metrics{"write_kB_per_s": kBs, "writes_per_s": kBs / 9.5, "util_pct": util, "await_ms": p99 / 4},
		}}
	}
	d.Cases = []result.Case{
		row("Case1", 7165.4, 2.61, 21893.2, 38.5),
		row("Case2", 4520.1, 5.34, 117187.5, 99.9),
		row("Case3", 7165.4, 2.61, 21893.2, 38.5),
		row("Case4", 6758.0, 2.77, 30112.75, 51.25),
		row("Case5", 4526.9, 5.6, 117000.1, 100),
		row("Case8", 2250.33, 10.16, 116999.9, 100),
	}
	return d
}

func tableSettings() *settings {
	st := &settings{
		keys:   []string{"commit.binlog_storage_engine", "commit.sync_binlog", "commit.innodb_flush_log_at_trx_commit"},
		values: map[string]map[string]string{},
	}
	for name, v := range map[string][3]string{
		"Case1": {"innodb", "0", "0"}, "Case2": {"innodb", "0", "1"}, "Case3": {"innodb", "0", "2"},
		"Case4": {"file", "0", "0"}, "Case5": {"file", "0", "1"}, "Case8": {"file", "1", "1"},
	} {
		st.values[name] = map[string]string{st.keys[0]: v[0], st.keys[1]: v[1], st.keys[2]: v[2]}
	}
	return st
}

// TestTableGolden: the run table at 80 and 160 columns, as a person reads
// it: one row per case even with six cases (no metric dump), thousands
// separators, aligned decimals, units in the headers (MB/s), each case's
// distinguishing settings, the identical pair explained, nothing wider
// than the terminal.
func TestTableGolden(t *testing.T) {
	for _, width := range []int{80, 160} {
		var buf bytes.Buffer
		if err := writeTable(&buf, tableDoc(), tableOptions{width: width, cases: tableSettings()}, style{}); err != nil {
			t.Fatal(err)
		}
		got := buf.String()
		for i, l := range strings.Split(got, "\n") {
			if n := utf8.RuneCountInString(l); n > width {
				t.Errorf("width %d: line %d is %d wide: %q", width, i+1, n, l)
			}
		}
		if n := strings.Count(got, "\n"); n > 30 {
			t.Errorf("width %d: %d lines for six cases", width, n)
		}
		path := filepath.Join("testdata", "table-"+itoa(width)+".txt")
		if *update {
			os.WriteFile(path, []byte(got), 0o644)
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%v (go test ./cmd/simrun -run TestTableGolden -update)", err)
		}
		if got != string(want) {
			t.Errorf("width %d differs from %s (-update to accept):\n%s", width, path, got)
		}
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

// TestTableNumbers: the pieces the golden relies on.
func TestTableNumbers(t *testing.T) {
	for in, want := range map[string]string{"1234567": "1,234,567", "-12345.50": "-12,345.50", "999": "999", "1000.5": "1,000.5"} {
		if got := group(in); got != want {
			t.Errorf("group(%s) = %s, want %s", in, got, want)
		}
	}
	cells := formatCells([]float64{2.61, 10.16, 0.5}, []float64{0, 0, 0}, []bool{true, true, true}, false)
	for _, c := range cells {
		if i := strings.IndexByte(c, '.'); len(c)-i != 3 {
			t.Errorf("cells %q: decimals not aligned", cells)
		}
	}
	if c := columnFor("disk.write_kB_per_s"); c.header != "disk write MB/s" || c.scale != 1024/1e6 {
		t.Errorf("column %+v", c)
	}
	_, _, _, err := runTable(tableDoc(), tableOptions{metrics: []string{"latency_ms.p9"}})
	if err == nil || !strings.Contains(err.Error(), "did you mean latency_ms.p95?") {
		t.Errorf("--metrics typo: %v", err)
	}
	h, _, _, err := runTable(tableDoc(), tableOptions{metrics: []string{"tps", "disk"}})
	if err != nil || strings.Join(h, "|") != "case|tps|disk util %|disk writes/s|disk write MB/s|disk await ms" {
		t.Errorf("--metrics tps,disk: %q %v", h, err)
	}
}

// TestTableDropsRepeatedColumns: a headline column equal to one already
// shown in every case (applier.tps beside tps) is left out.
func TestTableDropsRepeatedColumns(t *testing.T) {
	d := result.New("r")
	d.Cases = []result.Case{
		{Name: "a", Metrics: result.Metrics{"tps": 10.5, "applier": result.Metrics{"tps": 10.5, "cpu_util_pct": 3.0}}},
		{Name: "b", Metrics: result.Metrics{"tps": 12.0, "applier": result.Metrics{"tps": 12.0, "cpu_util_pct": 4.0}}},
	}
	h, _, _, err := runTable(d, tableOptions{})
	if err != nil || strings.Join(h, "|") != "case|tps|applier cpu util %" {
		t.Errorf("header %q, %v", h, err)
	}
}

// TestSweptCells: a swept column shows each value as people read it: in
// its key's unit, a plain number with thousands separators, an inline
// table as TOML text; the JSON and CSV keep the number.
func TestSweptCells(t *testing.T) {
	for _, tt := range []struct {
		name string
		axis result.Axis
		v    any
		want string
	}{
		{"rate", result.Axis{Unit: "bytes/s"}, int64(40000000), "40MB/s"},
		{"rate not round", result.Axis{Unit: "bytes/s"}, int64(123456789), "123.5MB/s"},
		{"size", result.Axis{Unit: "bytes"}, int64(96 << 20), "96MiB"},
		{"duration", result.Axis{Unit: "s"}, 0.0015, "1.5ms"},
		{"plain integer", result.Axis{}, int64(100000), "100,000"},
		{"plain small", result.Axis{}, int64(8), "8"},
		{"plain float", result.Axis{}, 1234.5, "1,234.5"},
		{"plain huge float keeps its exponent", result.Axis{}, 1.5e22, "1.5e+22"},
		{"string", result.Axis{}, "1ms", "1ms"},
		{"inline table", result.Axis{}, map[string]any{"mean": "1ms", "dist": "exponential"}, `{ dist = "exponential", mean = "1ms" }`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := sweptCell(tt.axis, tt.v); got != tt.want {
				t.Errorf("sweptCell(%+v, %#v) = %q, want %q", tt.axis, tt.v, got, tt.want)
			}
		})
	}
}

// sweepDoc is a sweep's result as Run reports it: cases at points of the
// given axis, the metrics tps of each row.
func sweepDoc(axis result.Axis, rows []sweepRow) *result.Document {
	d := result.New("demo-mmc")
	d.Seed, d.Duration, d.Warmup = 42, 5, 2
	d.Sweep = []result.Axis{axis}
	for _, r := range rows {
		d.Cases = append(d.Cases, result.Case{Name: r.name, Point: map[string]any{axis.Key: r.at},
			Metrics: result.Metrics{"throughput_per_s": r.tps, "latency_ms": result.Metrics{"avg": r.tps / 1000}}})
	}
	return d
}

type sweepRow struct {
	name string
	at   any
	tps  float64
}

// TestSweepTable: the swept column of the table prints each value in its
// unit (40MB/s, not 40000000) or as TOML text (not map[...]).
func TestSweepTable(t *testing.T) {
	exp := map[string]any{"dist": "exponential", "mean": "1ms"}
	for _, tt := range []struct {
		name       string
		doc        *result.Document
		wantHeader []string
		wantCells  []string // the swept column
	}{
		{
			name: "rate",
			doc: sweepDoc(result.Axis{Key: "volume.bandwidth_max", Unit: "bytes/s", Values: []any{int64(40e6), int64(400e6)}},
				[]sweepRow{{"Case2", int64(40e6), 1528}, {"Case2", int64(400e6), 3956}}),
			wantHeader: []string{"case", "bandwidth_max", "throughput/s", "latency avg ms"},
			wantCells:  []string{"40MB/s", "400MB/s"},
		},
		{
			name: "inline table",
			doc: sweepDoc(result.Axis{Key: "workload.demo.service", Values: []any{"1ms", exp}},
				[]sweepRow{{"mm4", "1ms", 3046}, {"mm4", exp, 3047}}),
			wantHeader: []string{"case", "service", "throughput/s", "latency avg ms"},
			wantCells:  []string{"1ms", `{ dist = "exponential", mean = "1ms" }`},
		},
		{
			name: "plain number",
			doc: sweepDoc(result.Axis{Key: "workload.demo.arrival_rate", Values: []any{2000.0, 12500.0}},
				[]sweepRow{{"mm4", 2000.0, 2000}, {"mm4", 12500.0, 4000}}),
			wantHeader: []string{"case", "arrival_rate", "throughput/s", "latency avg ms"},
			wantCells:  []string{"2,000", "12,500"},
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			header, rows, _, err := runTable(tt.doc, tableOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tt.wantHeader, header); d != "" {
				t.Errorf("header (-want +got):\n%s", d)
			}
			var cells []string
			for _, r := range rows {
				cells = append(cells, r[1])
			}
			if d := cmp.Diff(tt.wantCells, cells); d != "" {
				t.Errorf("swept column (-want +got):\n%s", d)
			}
		})
	}
}

// TestIdenticalNotesInSweep: the note on cases with identical results
// names the settings they differ in as the rows ran them: a sweep that
// overrides the setting in which the cases differ leaves nothing between
// them, and a note true at some points only names those points.
func TestIdenticalNotesInSweep(t *testing.T) {
	sc, err := scenarios.Load("demo/mmc")
	if err != nil {
		t.Fatal(err)
	}
	const services = `service ({ dist = "exponential", mean = "1ms" } vs { dist = "constant", value = "1ms" } vs { dist = "lognormal", median = "490us", p99 = "8ms" })`
	exp := map[string]any{"dist": "exponential", "mean": "1ms"}
	// rows puts mm4, md4 and mg4-lognormal at each point with the same
	// results when same[i], different ones otherwise, and mm4-busy apart.
	rows := func(points []any, same []bool) []sweepRow {
		var out []sweepRow
		for j, c := range []string{"mm4", "md4", "mg4-lognormal", "mm4-busy"} {
			for i, p := range points {
				tps := 3000.0 + float64(i)
				if !same[i] || c == "mm4-busy" {
					tps += float64(j+1) * 10
				}
				out = append(out, sweepRow{c, p, tps})
			}
		}
		return out
	}
	for _, tt := range []struct {
		name       string
		doc        *result.Document
		wantNotes  []string
		wantLabels map[string]string
	}{
		{
			name: "no sweep: the cases differ in service",
			doc: func() *result.Document {
				d := sweepDoc(result.Axis{Key: "x"}, rows([]any{nil}, []bool{true}))
				d.Sweep = nil
				for i := range d.Cases {
					d.Cases[i].Point = nil
				}
				return d
			}(),
			wantNotes: []string{"mm4, md4 and mg4-lognormal give identical results: they differ only in " + services + ", and nothing on their path in this run depends on it."},
			wantLabels: map[string]string{
				"mm4":           `arrival_rate=3000 service={ dist = "exponential", mean = "1ms" }`,
				"md4":           `arrival_rate=3000 service={ dist = "constant", value = "1ms" }`,
				"mg4-lognormal": `arrival_rate=3000 service={ dist = "lognormal", median = "490us", p99 = "8ms" }`,
				"mm4-busy":      `arrival_rate=3600 service={ dist = "exponential", mean = "1ms" }`,
			},
		},
		{
			name: "the sweep sets service: nothing differs, said once",
			doc: sweepDoc(result.Axis{Key: "workload.demo.service", Values: []any{"1ms", exp}},
				rows([]any{"1ms", exp}, []bool{true, true})),
			wantNotes: []string{"mm4, md4 and mg4-lognormal give identical results: nothing on their path differs."},
			wantLabels: map[string]string{
				"mm4": "arrival_rate=3000", "md4": "arrival_rate=3000", "mg4-lognormal": "arrival_rate=3000", "mm4-busy": "arrival_rate=3600",
			},
		},
		{
			name: "the sweep leaves service alone; identical at one point of two",
			doc: sweepDoc(result.Axis{Key: "workload.demo.servers", Values: []any{int64(4), int64(8)}},
				rows([]any{int64(4), int64(8)}, []bool{false, true})),
			wantNotes: []string{"mm4, md4 and mg4-lognormal give identical results at servers=8: they differ only in " + services + ", and nothing on their path in this run depends on it."},
			wantLabels: map[string]string{
				"mm4":           `arrival_rate=3000 service={ dist = "exponential", mean = "1ms" }`,
				"md4":           `arrival_rate=3000 service={ dist = "constant", value = "1ms" }`,
				"mg4-lognormal": `arrival_rate=3000 service={ dist = "lognormal", median = "490us", p99 = "8ms" }`,
				"mm4-busy":      `arrival_rate=3600 service={ dist = "exponential", mean = "1ms" }`,
			},
		},
		{
			name: "the sweep sets arrival_rate: mm4-busy no longer stands apart",
			doc: sweepDoc(result.Axis{Key: "workload.demo.arrival_rate", Values: []any{2000.0, 2500.0}},
				rows([]any{2000.0, 2500.0}, []bool{true, true})),
			wantNotes: []string{"mm4, md4 and mg4-lognormal give identical results: they differ only in " + services + ", and nothing on their path in this run depends on it."},
			wantLabels: map[string]string{
				"mm4":           `service={ dist = "exponential", mean = "1ms" }`,
				"md4":           `service={ dist = "constant", value = "1ms" }`,
				"mg4-lognormal": `service={ dist = "lognormal", median = "490us", p99 = "8ms" }`,
				"mm4-busy":      `service={ dist = "exponential", mean = "1ms" }`,
			},
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			st := caseSettings(sc, nil).inRun(tt.doc)
			if d := cmp.Diff(tt.wantNotes, identicalNotes(tt.doc, st)); d != "" {
				t.Errorf("notes (-want +got):\n%s", d)
			}
			labels := map[string]string{}
			for _, c := range tt.doc.Cases {
				labels[c.Name] = st.label(c.Name)
			}
			if d := cmp.Diff(tt.wantLabels, labels); d != "" {
				t.Errorf("labels (-want +got):\n%s", d)
			}
		})
	}
}

// TestSettingsWithout: when a row cannot be resolved, the keys a sweep set
// (or set inside) are left out, not reported with the file's values.
func TestSettingsWithout(t *testing.T) {
	st := &settings{keys: []string{"workload.demo.service", "workload.demo.arrival_rate", "machine.cpu.cores"}}
	for _, tt := range []struct {
		sweep []result.Axis
		want  []string
	}{
		{nil, st.keys},
		{[]result.Axis{{Key: "workload.demo.service"}}, []string{"workload.demo.arrival_rate", "machine.cpu.cores"}},
		{[]result.Axis{{Key: "machine"}, {Key: "workload.demo.arrival_rate"}}, []string{"workload.demo.service"}},
		{[]result.Axis{{Key: "workload.demo.serv"}}, st.keys},
	} {
		if d := cmp.Diff(tt.want, st.without(tt.sweep).keys); d != "" {
			t.Errorf("without %v (-want +got):\n%s", tt.sweep, d)
		}
	}
}

func TestDisplayWidth(t *testing.T) {
	for _, tc := range []struct {
		s    string
		want int
	}{
		{"Case2", 5},
		{"café", 4},
		{"cafe\u0301", 4}, // e and a combining acute: one column
		{"四", 2},
		{"日本語/テスト", 13},
		{"ﾃｽﾄ", 3},      // halfwidth katakana
		{"ＡＢ", 4},       // fullwidth Latin
		{"한국어", 6},      // hangul
		{"a\u200bb", 2}, // a zero-width space
		{"Привет", 6},
		{"", 0},
	} {
		if got := displayWidth(tc.s); got != tc.want {
			t.Errorf("displayWidth(%q) = %d, want %d", tc.s, got, tc.want)
		}
	}
}

// TestWideNamesAlign: in a table with CJK case names every column starts
// at the same terminal column on every line, and a cut title or a wrapped
// note never passes its width.
func TestWideNamesAlign(t *testing.T) {
	var buf bytes.Buffer
	printGrid(&buf, result.Table{
		Header: []string{"case", "tps", "p99 ms"},
		Rows:   [][]string{{"café-四", "3,043", "5.47"}, {"日本語/テスト", "3,043", "4.75"}, {"Case2", "12,345", "10.20"}},
	}, style{}, true)
	lines := strings.Split(strings.TrimRight(buf.String(), "\n"), "\n")
	var ends []int // the column each line ends at: right-aligned, so all the same
	for _, l := range lines {
		ends = append(ends, displayWidth(l))
	}
	if d := cmp.Diff([]int{29, 29, 29, 29}, ends); d != "" {
		t.Errorf("line widths (-want +got):\n%s\n%s", d, buf.String())
	}
	for _, tc := range []struct {
		s     string
		width int
		want  string
	}{
		{"日本語/テスト — unicode", 10, "日本語/テ…"},
		{"日本語", 6, "日本語"},
		{"日本語", 5, "日本…"},
		{"abcdef", 4, "abc…"},
	} {
		if got := fit(tc.s, tc.width); got != tc.want || displayWidth(got) > tc.width {
			t.Errorf("fit(%q, %d) = %q (%d columns), want %q", tc.s, tc.width, got, displayWidth(got), tc.want)
		}
	}
	for _, l := range wrap("日本語 テスト 日本語 テスト 日本語", 14, 2) {
		if displayWidth(l) > 14 {
			t.Errorf("wrap: line %q is %d columns, over 14", l, displayWidth(l))
		}
	}
}
