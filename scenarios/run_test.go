package scenarios

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"simrun/internal/result"
)

var update = flag.Bool("update", false, "rewrite golden files in testdata/golden")

func runJSON(t *testing.T, sc *Scenario, opt Options) []byte {
	t.Helper()
	doc, err := Run(context.Background(), sc, opt)
	if err != nil {
		t.Fatal(err)
	}
	b, err := result.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestGolden runs every built-in scenario with its own seed and compares
// the JSON with testdata/golden/<topic>_<name>.json
// (go test ./scenarios -run TestGolden -update rewrites them).
func TestGolden(t *testing.T) {
	for _, name := range Builtins() {
		sc := mustLoad(t, BuiltinPrefix+name)
		shrinkForTest(t, sc, "2s", "500ms")
		got := runJSON(t, sc, Options{})
		golden := filepath.Join("testdata", "golden", strings.ReplaceAll(strings.TrimSuffix(name, ".toml"), "/", "_")+".json")
		if *update {
			os.MkdirAll(filepath.Dir(golden), 0o755)
			if err := os.WriteFile(golden, got, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(golden)
		if err != nil {
			t.Fatalf("%v (run go test ./scenarios -run TestGolden -update)", err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s: output differs from %s; if the change is intended, rerun with -update.\ngot:\n%s", name, golden, got)
		}
	}
}

// TestDeterminism: the same scenario and seed give byte-identical JSON run
// twice, with GOMAXPROCS 1 and 2, with 1 worker or many, and sharded then
// merged versus whole.
func TestDeterminism(t *testing.T) {
	sc := mustLoad(t, "demo/mmc")
	if err := sc.Override("duration", "5s", Source{Kind: "flag", Name: "--duration"}); err != nil {
		t.Fatal(err)
	}
	opt := Options{Replications: 2}
	first := runJSON(t, sc, opt)
	if again := runJSON(t, sc, opt); !bytes.Equal(first, again) {
		t.Error("two runs differ")
	}
	prev := runtime.GOMAXPROCS(1)
	one := runJSON(t, sc, opt)
	runtime.GOMAXPROCS(2)
	two := runJSON(t, sc, Options{Replications: 2, Workers: 7})
	runtime.GOMAXPROCS(prev)
	if !bytes.Equal(first, one) || !bytes.Equal(first, two) {
		t.Error("GOMAXPROCS or worker count changed the output")
	}

	sweep := Options{
		Cases: []string{"mm4", "md4"},
		Sweep: []Axis{
			{Key: "workload.demo.servers", Values: []any{int64(4), int64(5), int64(6)}},
			{Key: "workload.demo.arrival_rate", Values: []any{"2k", int64(2500)}},
		},
	}
	whole := runJSON(t, sc, sweep)
	for _, n := range []int{1, 2, 5, 12, 20} {
		var parts []*result.Document
		for i := n - 1; i >= 0; i-- {
			o := sweep
			o.Shard = Shard{Index: i, Count: n}
			b := runJSON(t, sc, o)
			d, err := result.Decode(bytes.NewReader(b))
			if err != nil {
				t.Fatal(err)
			}
			parts = append(parts, d)
		}
		m, err := result.Merge(parts)
		if err != nil {
			t.Fatalf("%d shards: %v", n, err)
		}
		merged, _ := result.Marshal(m)
		if !bytes.Equal(merged, whole) {
			t.Errorf("%d shards merged differ from the whole sweep:\n%s\n---\n%s", n, merged, whole)
		}
	}
}

func TestSweepRows(t *testing.T) {
	sc := mustLoad(t, "demo/mmc")
	sc.Override("duration", "1s", Source{Kind: "flag"})
	doc, err := Run(context.Background(), sc, Options{
		Cases: []string{"md4", "mm4"}, // file order wins
		Sweep: []Axis{{Key: "workload.demo.servers", Values: []any{int64(4), int64(8)}}, {Key: "seed", Values: []any{int64(1), int64(2)}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range doc.Cases {
		got = append(got, c.Name+"/"+result.FormatValue(c.Point["workload.demo.servers"])+"/"+result.FormatValue(c.Point["seed"]))
		if c.Seed == nil || *c.Seed != uint64(c.Point["seed"].(int64)) {
			t.Errorf("row seed %v, point %v", c.Seed, c.Point)
		}
	}
	want := "mm4/4/1 mm4/4/2 mm4/8/1 mm4/8/2 md4/4/1 md4/4/2 md4/8/1 md4/8/2"
	if s := join(got); s != want {
		t.Errorf("rows %s, want %s", s, want)
	}
	_, err = Run(context.Background(), sc, Options{Sweep: []Axis{{Key: "workload.demo.servers", Values: []any{int64(0)}}}})
	var el ErrorList
	if !errors.As(err, &el) {
		t.Errorf("invalid sweep value: %v, want ErrorList", err)
	}
}

func join(s []string) string {
	var b bytes.Buffer
	for i, x := range s {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(x)
	}
	return b.String()
}

func TestReplications(t *testing.T) {
	sc := mustLoad(t, "demo/mmc")
	sc.Override("duration", "5s", Source{Kind: "flag"})
	doc, err := Run(context.Background(), sc, Options{Cases: []string{"mm4"}, Replications: 8})
	if err != nil {
		t.Fatal(err)
	}
	m := doc.Cases[0].Metrics
	mean, _ := m.Lookup("wait_ms.avg")
	ci, ok := m.Lookup("wait_ms.avg_ci95")
	theory, _ := m.Lookup("erlang_c.wait_ms_avg")
	if !ok || doc.Replications != 8 {
		t.Fatalf("no CI: %v", m)
	}
	mf, cf, tf := mean.(float64), ci.(float64), theory.(float64)
	if !(cf > 0) || math.Abs(mf-tf) > 3*cf {
		t.Errorf("wait %.4f ± %.4f ms vs Erlang C %.4f", mf, cf, tf)
	}
	if ReplicationSeed(42, 0) != 42 || ReplicationSeed(42, 1) == ReplicationSeed(42, 2) {
		t.Error("replication seeds")
	}
}

func TestInterrupt(t *testing.T) {
	sc := mustLoad(t, "demo/mmc")
	ctx, cancel := context.WithCancel(context.Background())
	n := 0
	doc, err := Run(ctx, sc, Options{Workers: 1, Progress: func(done, total int) {
		n = done
		if done == 2 {
			cancel()
		}
	}})
	if !errors.Is(err, ErrInterrupted) || doc == nil || !doc.Partial || len(doc.Cases) != 2 || n != 2 {
		t.Fatalf("err %v, doc partial=%v cases=%d, progress %d", err, doc != nil && doc.Partial, len(doc.Cases), n)
	}
	if doc.Cases[0].Name != "mm4" || doc.Cases[1].Name != "md4" {
		t.Errorf("kept %s, %s", doc.Cases[0].Name, doc.Cases[1].Name)
	}
}

// shrinkForTest shortens a scenario so that every built-in one runs in the
// golden and fuzz tests within seconds: they pin the wiring and determinism
// of every file, not the published figures (docs/validation.md and the
// model packages' tests check those at full length).
func shrinkForTest(t *testing.T, sc *Scenario, duration, warmup string) {
	t.Helper()
	src := Source{Kind: "flag", Name: "test"}
	sets := [][2]any{{"duration", duration}, {"warmup", warmup}}
	switch sc.Base.Config.Workload.Kind {
	case "replication":
		sets = append(sets, [2]any{"applier.backlog_trx", int64(20000)})
	case "sysbench":
		sets = append(sets, [2]any{"workload.sysbench.table_size", int64(100000)})
	}
	for _, kv := range sets {
		if err := sc.Override(kv[0].(string), kv[1], src); err != nil {
			t.Fatalf("%s: %v", sc.File, err)
		}
	}
	if err := sc.Validate(); err != nil {
		t.Fatalf("%s: %v", sc.File, err)
	}
}

// TestModelDeterminism: every model workload gives byte-identical JSON run
// twice, under GOMAXPROCS 1 and 2, with one worker or several, and when a
// sweep over one of its keys is sharded and merged.
func TestModelDeterminism(t *testing.T) {
	for _, tc := range []struct {
		name  string
		sweep Axis
	}{
		{"binlog/quick", Axis{Key: "commit.innodb_flush_log_at_trx_commit", Values: []any{int64(0), int64(1)}}},
		{"replication/csa-vs-mta", Axis{Key: "applier.workers", Values: []any{int64(8), int64(64)}}},
		{"disk/fio-network-caps", Axis{Key: "workload.fio.iodepth", Values: []any{int64(1), int64(8)}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sc := mustLoad(t, tc.name)
			shrinkForTest(t, sc, "1s", "200ms")
			opt := Options{Cases: []string{sc.Cases[0].Name, sc.Cases[len(sc.Cases)-1].Name}}
			first := runJSON(t, sc, opt)
			prev := runtime.GOMAXPROCS(1)
			one := runJSON(t, sc, Options{Cases: opt.Cases, Workers: 1})
			runtime.GOMAXPROCS(2)
			two := runJSON(t, sc, Options{Cases: opt.Cases, Workers: 5})
			runtime.GOMAXPROCS(prev)
			if !bytes.Equal(first, one) || !bytes.Equal(first, two) {
				t.Fatal("GOMAXPROCS or worker count changed the output")
			}
			sweep := Options{Cases: opt.Cases, Sweep: []Axis{tc.sweep}}
			whole := runJSON(t, sc, sweep)
			var parts []*result.Document
			for i := 2; i >= 0; i-- {
				o := sweep
				o.Shard = Shard{Index: i, Count: 3}
				d, err := result.Decode(bytes.NewReader(runJSON(t, sc, o)))
				if err != nil {
					t.Fatal(err)
				}
				parts = append(parts, d)
			}
			merged, err := result.Merge(parts)
			if err != nil {
				t.Fatal(err)
			}
			b, err := result.Marshal(merged)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(b, whole) {
				t.Fatal("sharded and merged sweep differs from the whole sweep")
			}
		})
	}
}

// TestRowLabels: the progress lines name each row's point as people read
// it, the way the warnings after the run do: a number in its key's unit
// (not the override "40000000B/s"), an inline table as TOML text (not Go's
// map[...]), a plain value as given.
func TestRowLabels(t *testing.T) {
	for _, tt := range []struct {
		name     string
		scenario string
		cases    []string
		sweep    []string // --set arguments
		want     []string
	}{
		{
			name: "rate range", scenario: "binlog/quick", cases: []string{"Case2"},
			sweep: []string{"volume.bandwidth_max=40MB/s..120MB/s:3"},
			want: []string{
				"Case2 [volume.bandwidth_max=40MB/s]",
				"Case2 [volume.bandwidth_max=80MB/s]",
				"Case2 [volume.bandwidth_max=120MB/s]",
			},
		},
		{
			name: "rate and size list", scenario: "binlog/quick", cases: []string{"Case2"},
			sweep: []string{"volume.bandwidth_max=54MB/s", "engine.redo.log_file_size=96MiB,1GiB"},
			want: []string{
				"Case2 [volume.bandwidth_max=54MB/s engine.redo.log_file_size=96MiB]",
				"Case2 [volume.bandwidth_max=54MB/s engine.redo.log_file_size=1GiB]",
			},
		},
		{
			name: "duration and plain number", scenario: "demo/mmc", cases: []string{"mm4"},
			sweep: []string{"duration=1500ms", "workload.demo.servers=4,8"},
			want: []string{
				"mm4 [duration=1.5s workload.demo.servers=4]",
				"mm4 [duration=1.5s workload.demo.servers=8]",
			},
		},
		{
			name: "inline table", scenario: "demo/mmc", cases: []string{"mm4"},
			sweep: []string{`workload.demo.service=1ms,{ mean = "1ms", dist = "exponential" }`},
			want: []string{
				"mm4 [workload.demo.service=1ms]",
				`mm4 [workload.demo.service={ dist = "exponential", mean = "1ms" }]`,
			},
		},
		{
			name: "no sweep", scenario: "demo/mmc", cases: []string{"md4"},
			want: []string{"md4"},
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			sc := mustLoad(t, tt.scenario)
			_, rows := planSweep(t, sc, tt.cases, tt.sweep)
			var got []string
			for _, r := range rows {
				got = append(got, rowLabel(r))
			}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("labels (-want +got):\n%s", d)
			}
		})
	}
}

// TestCaseAt: a case at a row of a sweep's result has the values the row
// ran with, read back from the point as the result reports it (a rate as
// a number of bytes/s, a duration in seconds, a table as given), and the
// same parameters as the case Plan made for that row.
func TestCaseAt(t *testing.T) {
	for _, tt := range []struct {
		name     string
		scenario string
		sweep    []string
		want     map[string]string // case/key -> value ran with
	}{
		{
			name: "rate", scenario: "binlog/quick", sweep: []string{"volume.bandwidth_max=40MB/s..400MB/s:2"},
			want: map[string]string{"Case2/volume.bandwidth_max": "40MB/s"},
		},
		{
			name: "inline table overrides every case's", scenario: "demo/mmc",
			sweep: []string{`workload.demo.service={ dist = "exponential", mean = "1ms" }`, "warmup=1500ms"},
			want: map[string]string{
				"mm4/workload.demo.service":           `{ dist = "exponential", mean = "1ms" }`,
				"md4/workload.demo.service":           `{ dist = "exponential", mean = "1ms" }`,
				"mg4-lognormal/workload.demo.service": `{ dist = "exponential", mean = "1ms" }`,
				"md4/warmup":                          "1.5s",
			},
		},
		{
			name: "count", scenario: "demo/mmc", sweep: []string{"workload.demo.arrival_rate=2k,2.5k"},
			want: map[string]string{"mm4/workload.demo.arrival_rate": "2000"},
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			sc := mustLoad(t, tt.scenario)
			opt, rows := planSweep(t, sc, nil, tt.sweep)
			axes, err := ResolveAxes(sc, opt.Sweep)
			if err != nil {
				t.Fatal(err)
			}
			var sweep []result.Axis
			for _, a := range axes {
				sweep = append(sweep, result.Axis{Key: a.Key, Values: a.Report, Unit: a.Unit})
			}
			got, seen := map[string]string{}, map[string]bool{}
			for _, r := range rows {
				rc := rowCase(r, sc.Base.Settings, nil)
				c, err := sc.CaseAt(rc.Name, sweep, rc.Point)
				if err != nil {
					t.Fatalf("%s: %v", rowLabel(r), err)
				}
				if d := cmp.Diff(paramMap(r.Case), paramMap(c)); d != "" {
					t.Errorf("%s: parameters differ from the row's (-row +CaseAt):\n%s", rowLabel(r), d)
				}
				// Each case's values at its first point.
				for k, v := range paramMap(c) {
					if _, ok := tt.want[c.Name+"/"+k]; ok && !seen[c.Name+"/"+k] {
						seen[c.Name+"/"+k] = true
						got[c.Name+"/"+k] = v
					}
				}
			}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("values (-want +got):\n%s", d)
			}
		})
	}
	sc := mustLoad(t, "demo/mmc")
	sweep := []result.Axis{{Key: "workload.demo.servers", Values: []any{int64(4)}}}
	if _, err := sc.CaseAt("nope", sweep, map[string]any{"workload.demo.servers": int64(4)}); err == nil || !strings.Contains(err.Error(), `no case "nope"`) {
		t.Errorf("unknown case: %v", err)
	}
	if _, err := sc.CaseAt("mm4", sweep, map[string]any{}); err == nil || !strings.Contains(err.Error(), "no value for workload.demo.servers") {
		t.Errorf("point without the swept key: %v", err)
	}
}

func paramMap(c *Case) map[string]string {
	m := map[string]string{}
	for _, p := range c.Params() {
		m[p.Key] = p.Value
	}
	return m
}

// planSweep plans the rows of a sweep of cases (all if none) over the
// --set flags sets.
func planSweep(t *testing.T, sc *Scenario, cases, sets []string) (Options, []Row) {
	t.Helper()
	opt := Options{Cases: cases}
	for _, s := range sets {
		a, err := ParseSet(s)
		if err != nil {
			t.Fatal(err)
		}
		opt.Sweep = append(opt.Sweep, a)
	}
	rows, err := Plan(sc, opt)
	if err != nil {
		t.Fatal(err)
	}
	return opt, rows
}
