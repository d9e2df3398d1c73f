package server

import (
	"math"
	"strings"
	"testing"
	"time"

	"simrun/model/commit"
	"simrun/model/engine"
	"simrun/model/workload"
	"simrun/sim"
)

func backgroundRun(t *testing.T, threads int, bg Background) (Metrics, float64) {
	t.Helper()
	m := Machine{Cores: 2, CPU: sim.CPUConfig{Policy: sim.Fair, Fair: sim.DefaultFairConfig()}, Background: bg}
	s, _ := window(t, m, binlogOff(threads, commit.FlushPerSecond))
	r := s.Report()
	return r, r.CPUUtilPct / 100 * 2 * 2e6 / float64(r.Transactions)
}

// TestBackground: a background kernel thread that runs 5 ms every 50 ms
// (a tenth of a vCPU, below a fair share among 17 threads on 2 vCPUs)
// takes that CPU from the machine whatever the threads do. At 1 thread a
// vCPU is idle and throughput hardly moves; at 16 threads both vCPUs are
// busy and the threads lose about its share of the two, 5 %, while their
// own CPU a transaction stays what it was.
func TestBackground(t *testing.T) {
	bg := Background{Burst: 5 * time.Millisecond, Period: 50 * time.Millisecond}
	for _, tc := range []struct {
		threads          int
		minLoss, maxLoss float64
	}{
		{1, -0.02, 0.02},
		{16, 0.03, 0.08},
	} {
		base, baseCPU := backgroundRun(t, tc.threads, Background{})
		with, cpu := backgroundRun(t, tc.threads, bg)
		got := with.Threads.BackgroundUsPerTx * float64(with.Transactions) / 2e6 // vCPU-seconds a second over the 2 s window
		t.Logf("%d threads: %.0f -> %.0f TPS, background %.3f vCPU, busy %.1f -> %.1f us a transaction", tc.threads, base.TPS, with.TPS, got, baseCPU, cpu)
		// One burst every period, on the clock: 0.1 vCPU (less the one
		// burst the window may cut).
		if got < 0.0975 || got > 0.1+1e-9 {
			t.Errorf("%d threads: the background took %.4f of a vCPU, want 5 ms every 50 ms", tc.threads, got)
		}
		if base.Threads.BackgroundUsPerTx != 0 {
			t.Errorf("without a background: %.2f us a transaction", base.Threads.BackgroundUsPerTx)
		}
		if loss := 1 - with.TPS/base.TPS; loss < tc.minLoss || loss > tc.maxLoss {
			t.Errorf("%d threads: TPS %.0f -> %.0f (%.1f %%), want a loss in [%.0f, %.0f] %%", tc.threads, base.TPS, with.TPS, 100*loss, 100*tc.minLoss, 100*tc.maxLoss)
		}
		if d := (cpu - with.Threads.BackgroundUsPerTx) - baseCPU; math.Abs(d) > 0.03*baseCPU {
			t.Errorf("%d threads: the threads' CPU a transaction moved from %.1f to %.1f us", tc.threads, baseCPU, cpu-with.Threads.BackgroundUsPerTx)
		}
	}
}

func TestBackgroundValidate(t *testing.T) {
	for _, tc := range []struct {
		bg   Background
		want string
	}{
		{Background{Burst: -time.Millisecond, Period: time.Second}, "background_burst: must be in [0, 10s]"},
		{Background{Burst: time.Millisecond}, "background_period: must be in [100us, 1m0s]"},
		{Background{Burst: time.Millisecond, Period: 2 * time.Minute}, "background_period"},
		{Background{Burst: time.Second, Period: time.Second}, "background_burst: must be shorter than background_period"},
	} {
		_, err := NewSysbenchOn(sim.New(1), Machine{Cores: 1, Background: tc.bg}, nil, engine.DefaultConfig(), commit.DefaultConfig(), workload.DefaultConfig())
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want an error with %q", tc.bg, err, tc.want)
		}
	}
	if err := (Background{Period: -1}).Validate(); err != nil {
		t.Errorf("no burst: %v, want none (the period is unused)", err)
	}
}

// TestBackgroundNoAllocs: a burst, its wake-up and its completion allocate
// nothing once the thread runs (the kernel's steady state).
func TestBackgroundNoAllocs(t *testing.T) {
	env := sim.New(1)
	cpu, err := sim.NewCPUWithPolicy(env, 2, sim.CPUConfig{Policy: sim.Fair, Fair: sim.DefaultFairConfig()})
	if err != nil {
		t.Fatal(err)
	}
	b := &background{cfg: Background{Burst: time.Millisecond, Period: 10 * time.Millisecond}, cpu: cpu}
	b.start(env)
	env.RunUntil(sim.At(time.Second)) // warm the CPU's job slices
	at := time.Second
	if n := testing.AllocsPerRun(50, func() {
		at += 110 * time.Millisecond
		env.RunUntil(sim.At(at))
	}); n != 0 {
		t.Errorf("%.1f allocations per 110 ms of bursts, want 0", n)
	}
	if b.ran == 0 {
		t.Fatal("no burst ran")
	}
}
