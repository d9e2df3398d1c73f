package disk

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"simrun/sim"
)

func metricsRun(t testing.TB, seed uint64) map[string]any {
	env := sim.New(seed)
	v, err := New(env, loadPreset(t, "network-6750-54MBps"))
	if err != nil {
		t.Fatal(err)
	}
	d := newDriver(env, v, 16, 16<<10, 1<<30)
	d.readPct = 20
	d.src = v.RegisterSource("page")
	d.start()
	env.RunUntil(sim.At(time.Second))
	v.ResetStats()
	env.RunUntil(sim.At(4 * time.Second))
	return v.Metrics()
}

// Same seed, same bytes; the JSON block has the documented keys.
func TestMetricsDeterministic(t *testing.T) {
	a, b := metricsRun(t, 1), metricsRun(t, 1)
	if diff := cmp.Diff(a, b); diff != "" {
		t.Fatalf("same seed, different metrics:\n%s", diff)
	}
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	if string(ja) != string(jb) {
		t.Fatal("same seed, different JSON")
	}
	if c := metricsRun(t, 2); cmp.Equal(a["r_await_ms"], c["r_await_ms"]) {
		t.Error("different seeds gave identical r_await_ms")
	}
	for _, k := range []string{"reads_per_s", "writes_per_s", "read_kB_per_s", "write_kB_per_s", "avg_read_kB", "avg_write_kB",
		"flushes_per_s", "util_pct", "await_ms", "r_await_ms", "w_await_ms", "aqu_sz", "iops_cap_bound_pct", "bw_cap_bound_pct",
		"write_bytes_by_source", "series"} {
		if _, ok := a[k]; !ok {
			t.Errorf("missing key %s", k)
		}
	}
	s := a["series"].(map[string]any)
	for _, k := range []string{"write_kB_per_s", "util_pct", "writes_per_s"} {
		if xs, ok := s[k].([]float64); !ok || len(xs) != 3 {
			t.Errorf("series.%s = %v, want 3 per-second points", k, s[k])
		}
	}
	// The byte cap binds: 54 MB/s = 52,734 kB/s, each second.
	for i, x := range s["write_kB_per_s"].([]float64) {
		rkb := 0.0 // reads share the cap
		_ = rkb
		if x > 54e6/1024*1.01 {
			t.Errorf("second %d: %.0f wkB/s above the cap", i, x)
		}
	}
	if u := a["util_pct"].(float64); u < 99.9 {
		t.Errorf("util %.2f%%, want 100 at saturation", u)
	}
	if a["bw_cap_bound_pct"].(float64) < 50 {
		t.Errorf("bw_cap_bound_pct = %v", a["bw_cap_bound_pct"])
	}
	if a["write_bytes_by_source"].(map[string]any)["page"].(int64) == 0 {
		t.Errorf("write_bytes_by_source = %v", a["write_bytes_by_source"])
	}
}

// ResetStats forgets the warm-up but not the I/Os in flight.
func TestResetStats(t *testing.T) {
	env := sim.New(1)
	v, _ := New(env, loadPreset(t, "network-15k-120MBps"))
	d := newDriver(env, v, 8, 4<<10, 1<<30)
	d.start()
	env.RunUntil(sim.At(500 * time.Millisecond))
	v.ResetStats()
	if io := v.Iostat(); io.Writes != 0 || io.Elapsed != 0 {
		t.Errorf("after reset: %+v", io)
	}
	env.RunUntil(sim.At(1500 * time.Millisecond))
	io := v.Iostat()
	if io.Elapsed != time.Second || io.AquSz < 7.9 || io.UtilPct < 99.99 {
		t.Errorf("after 1 s: elapsed %v aqu-sz %.2f util %.2f", io.Elapsed, io.AquSz, io.UtilPct)
	}
	if ivs := v.Intervals(); len(ivs) != 1 || ivs[0].End != sim.At(time.Second) {
		t.Errorf("intervals %+v", ivs)
	}
}
