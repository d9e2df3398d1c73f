package realdb

import (
	"encoding/json"
	"math"
	"os"
	"testing"
)

// alternation builds an ABBA alternation of off/flush=0 (A) and
// off/flush=1 (B) at 16 threads whose host speed drifts linearly by drift
// per slice; B runs at (1 - cost) of A's throughput at the same speed.
func alternation(n int, tpsA, cost, drift float64) Alternation {
	a := Alternation{Threads: 16, PeriodS: 5, SettleS: 1}
	for i := range n {
		s := Slice{Setting: Setting{Threads: 16}, T: 5 * float64(i), Elapsed: 4}
		tps := tpsA * (1 + drift*float64(i))
		if i%4 == 1 || i%4 == 2 {
			s.Setting.Flush = 1
			tps *= 1 - cost
		}
		s.Status = map[string]float64{"Com_commit": math.Round(tps * 4)}
		s.Disk = map[string]int64{}
		s.CPU.ServerUser, s.CPU.ClientUser = 0.4*4*1.5, 0.1*4*1.5
		a.Slices = append(a.Slices, s)
	}
	return a
}

// A linear drift of the host's speed cancels in the ABBA order: the cost
// comes out as built, and its interval holds it.
func TestPairedCostCancelsDrift(t *testing.T) {
	for _, tc := range []struct {
		name        string
		cost, drift float64
	}{
		{"no drift", 0.15, 0},
		{"speeding up", 0.15, 0.01},
		{"slowing down", 0.08, -0.008},
	} {
		d := Doc{Alternations: []Alternation{alternation(32, 5000, tc.cost, tc.drift)}}
		pcs := d.PairedCosts()
		if len(pcs) != 1 {
			t.Fatalf("%s: %d paired costs, want 1 (flush=1 against 0)", tc.name, len(pcs))
		}
		pc := pcs[0]
		if pc.Pairs != 16 || pc.With.Flush != 1 || pc.Without.Flush != 0 {
			t.Errorf("%s: %d pairs of %s against %s, want 16 of off/flush=1 against off/flush=0", tc.name, pc.Pairs, pc.With.Key(), pc.Without.Key())
		}
		if math.Abs(pc.Cost.Mean-tc.cost) > 0.002 || pc.Cost.Min > tc.cost+0.001 || pc.Cost.Max < tc.cost-0.001 {
			t.Errorf("%s: cost %+v, want %.3f inside it", tc.name, pc.Cost, tc.cost)
		}
	}
	// The same runs measured as one A run then one B run would carry the
	// drift: the ABBA pairing is what removes it.
	a := alternation(32, 5000, 0.15, 0.01)
	var first, second float64
	for i, s := range a.Slices {
		if i < 16 && s.Setting.Flush == 0 {
			first += s.Run().Derive().TPS / 8
		}
		if i >= 16 && s.Setting.Flush == 1 {
			second += s.Run().Derive().TPS / 8
		}
	}
	if naive := 1 - second/first; math.Abs(naive-0.15) < 0.05 {
		t.Errorf("the naive A-then-B cost %.3f is as good as the paired one: the test does not exercise the drift", naive)
	}
}

// A paired cost replaces the separate runs' TPS cost in the check, and
// the check says so.
func TestComparePaired(t *testing.T) {
	mk := func(fl int, meas, pred Figures) Prediction {
		return Prediction{Point: Point{Setting: Setting{Flush: fl, Threads: 16}, Runs: []Figures{meas}}, Predicted: pred}
	}
	ps := []Prediction{mk(0, Figures{TPS: 3000}, Figures{TPS: 3000}), mk(1, Figures{TPS: 2990}, Figures{TPS: 2700})}
	// Separate runs: 0.3 % measured against 10 % predicted, a miss.
	if cs := Compare(ps); cs[0].Name != "TPS cost of flush=1" || cs[0].Pass {
		t.Errorf("separate runs: %s", Report(cs))
	}
	d := Doc{Alternations: []Alternation{alternation(16, 5000, 0.12, 0.002)}}
	cs := Compare(ps, d.PairedCosts()...)
	if len(cs) != 1 || cs[0].Name != "TPS cost of flush=1 (paired)" || !cs[0].Pass {
		t.Errorf("paired: %s", Report(cs))
	}
}

// The harness's alternation JSON decodes into slices whose runs derive.
func TestAlternationDecodes(t *testing.T) {
	const js = `{"threads": 16, "period_s": 5, "settle_s": 1, "order": "ABBA", "slices": [
	 {"setting": {"binlog": true, "sync_binlog": 1, "innodb_flush_log_at_trx_commit": 1, "threads": 16},
	  "t_s": 0.0, "elapsed_s": 4.02, "status_delta": {"Com_commit": 12060, "Binlog_commits": 12060, "Binlog_group_commits": 3015},
	  "disk_delta": {"flushes": 8000, "writes": 20000},
	  "cpu": {"mariadbd_utime_s": 4.5, "mariadbd_stime_s": 1.2, "sysbench_utime_s": 1.0, "sysbench_stime_s": 0.4,
	          "machine_ticks_delta": {"user": 600, "system": 200, "idle": 4, "steal": 0}, "machine_context_switches": 1, "clk_tck": 100}}]}`
	var a Alternation
	if err := json.Unmarshal([]byte(js), &a); err != nil {
		t.Fatal(err)
	}
	f := a.Slices[0].Run().Derive()
	if math.Abs(f.TPS-3000) > 1 || f.TxPerGroup != 4 || math.Abs(f.ServerCPUUs-5.7e6/12060) > 0.01 || math.Abs(f.ClientCPUUs-1.4e6/12060) > 0.01 {
		t.Errorf("derived %+v", f)
	}
	if s := a.Slices[0].Setting; !s.Binlog || s.sync() != 1 || s.Flush != 1 {
		t.Errorf("setting %+v", s)
	}
}

// The committed 16-thread alternation gives the paired costs that
// docs/realdb.md and docs/validation.md quote.
func TestCommittedAlternation(t *testing.T) {
	type cost struct {
		with         string
		pairs        int
		mean, lo, hi float64
	}
	for _, tc := range []struct {
		file string
		want []cost
	}{
		{"alternation-2vcpu-10x100k-16t.json", []cost{ // the loaded host
			{"off/flush=1", 16, 0.175, 0.068, 0.282},
			{"on/sync_binlog=1/flush=1", 16, 0.185, 0.080, 0.290},
		}},
		{"alternation-2vcpu-10x100k-16t-busy.json", []cost{ // the host loaded again, steal 2-18 %
			{"off/flush=1", 24, 0.196, 0.093, 0.300},
			{"on/sync_binlog=1/flush=1", 24, 0.050, -0.148, 0.247},
		}},
		{"alternation-2vcpu-10x100k-16t-quiet.json", []cost{ // the quiet host: the reference's
			{"off/flush=1", 24, 0.118, -0.006, 0.242},
			{"on/sync_binlog=1/flush=1", 24, 0.110, 0.067, 0.153},
		}},
	} {
		b, err := os.ReadFile("../../docs/data/realdb/" + tc.file)
		if err != nil {
			t.Fatal(err)
		}
		d, err := Load(b)
		if err != nil {
			t.Fatal(err)
		}
		pcs := d.PairedCosts()
		if len(pcs) != len(tc.want) {
			t.Fatalf("%s: %d paired costs, want flush=1 and sync_binlog=1", tc.file, len(pcs))
		}
		for i, want := range tc.want {
			c := pcs[i]
			if c.With.Key() != want.with || c.Pairs != want.pairs || math.Abs(c.Cost.Mean-want.mean) > 0.0005 ||
				math.Abs(c.Cost.Min-want.lo) > 0.0005 || math.Abs(c.Cost.Max-want.hi) > 0.0005 {
				t.Errorf("%s: paired cost %d: %s, want %s %.3f [%.3f, %.3f] over %d pairs", tc.file, i, c, want.with, want.mean, want.lo, want.hi, want.pairs)
			}
		}
	}
}
