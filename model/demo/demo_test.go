package demo

import (
	"math"
	"strings"
	"testing"
	"time"

	"simrun/sim"
)

func TestErlangC(t *testing.T) {
	// Textbook values: c=2, a=1 -> C = 1/3; c=1 -> C = rho.
	if got := ErlangC(2, 1); math.Abs(got-1.0/3) > 1e-12 {
		t.Errorf("ErlangC(2,1) = %v, want 1/3", got)
	}
	if got := ErlangC(1, 0.6); math.Abs(got-0.6) > 1e-12 {
		t.Errorf("ErlangC(1,0.6) = %v, want 0.6", got)
	}
}

// TestMeanWaitMatchesErlangC runs M/M/c queues long enough that the sampled
// mean wait is within a few per cent of Erlang C.
func TestMeanWaitMatchesErlangC(t *testing.T) {
	cases := []struct {
		servers int
		rate    sim.Count
		tol     float64
	}{
		{1, 700, 0.05},  // M/M/1 at rho = 0.7
		{4, 3000, 0.04}, // rho = 0.75
		{8, 6800, 0.05}, // rho = 0.85
	}
	run := 400 * time.Second
	if testing.Short() {
		run = 100 * time.Second
		for i := range cases {
			cases[i].tol *= 2
		}
	}
	for _, tc := range cases {
		cfg := Config{ArrivalRate: tc.rate, Service: sim.ExponentialDist(sim.Duration(time.Millisecond)), Servers: tc.servers}
		env := sim.New(1)
		m, err := New(env, cfg)
		if err != nil {
			t.Fatal(err)
		}
		m.Start()
		env.RunUntil(sim.At(10 * time.Second))
		m.ResetStats()
		env.RunUntil(sim.At(10*time.Second + run))
		st := m.Stats()
		th, ok := MMC(cfg)
		if !ok {
			t.Fatal("no theory for exponential service")
		}
		got, want := st.Wait.Mean, float64(th.MeanWait)
		if rel := math.Abs(got-want) / want; rel > tc.tol {
			t.Errorf("c=%d λ=%v: mean wait %.1fus, Erlang C %.1fus (%.1f%% off, tolerance %.0f%%)",
				tc.servers, tc.rate, got/1e3, want/1e3, 100*rel, 100*tc.tol)
		}
		if rel := math.Abs(st.Utilization-th.Utilization) / th.Utilization; rel > 0.02 {
			t.Errorf("c=%d: utilisation %.4f, want %.4f", tc.servers, st.Utilization, th.Utilization)
		}
		t.Logf("c=%d λ=%v: wait %.1fus vs Erlang C %.1fus; util %.4f vs %.4f; %d jobs",
			tc.servers, tc.rate, got/1e3, want/1e3, st.Utilization, th.Utilization, st.Completed)
	}
}

func TestValidate(t *testing.T) {
	bad := []struct {
		mod    func(*Config)
		errSub string
	}{
		{func(c *Config) { c.Servers = 0 }, "servers: must be between 1"},
		{func(c *Config) { c.ArrivalRate = 0 }, "arrival_rate: must be between"},
		{func(c *Config) { c.ArrivalRate = 5000 }, "arrival_rate: offered load 5 erlangs"},
		{func(c *Config) { c.Service = sim.DistSpec{} }, "service: no distribution"},
	}
	for _, b := range bad {
		c := DefaultConfig()
		b.mod(&c)
		if err := c.Validate(); err == nil || !strings.Contains(err.Error(), b.errSub) {
			t.Errorf("got %v, want error containing %q", err, b.errSub)
		}
	}
	if err := DefaultConfig().Validate(); err != nil {
		t.Errorf("default config invalid: %v", err)
	}
}

func BenchmarkDemo(b *testing.B) {
	b.ReportAllocs()
	env := sim.New(1)
	m, _ := New(env, DefaultConfig())
	m.Start()
	env.RunUntil(sim.At(time.Second)) // grow the slabs
	start := env.Events()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		env.Step()
	}
	b.ReportMetric(float64(env.Events()-start)/b.Elapsed().Seconds(), "events/s")
}
