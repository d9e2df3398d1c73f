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

	"simrun/internal/result"
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
		keys:   []string{"engine.binlog_storage_engine", "engine.sync_binlog", "engine.innodb_flush_log_at_trx_commit"},
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
