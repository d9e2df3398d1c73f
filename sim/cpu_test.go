package sim

import (
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

const us = time.Microsecond

// TestCPUYield checks where woken threads run: on a free processor at once,
// else at the next segment boundary of a running burst, which resumes
// before bursts that have not started.
func TestCPUYield(t *testing.T) {
	type ev struct {
		at   time.Duration
		wake bool
		segs []time.Duration // burst, or one element: the wake's CPU
		name string
	}
	tests := []struct {
		name string
		cpus int
		evs  []ev
		want map[string]time.Duration // completion time per job
	}{
		{"wake takes a free processor", 2, []ev{
			{0, false, []time.Duration{10 * us, 10 * us}, "b"},
			{3 * us, true, []time.Duration{5 * us}, "w"},
		}, map[string]time.Duration{"b": 20 * us, "w": 8 * us}},
		{"wake waits for the next boundary", 1, []ev{
			{0, false, []time.Duration{10 * us, 10 * us, 10 * us}, "b"},
			{3 * us, true, []time.Duration{5 * us}, "w"},
		}, map[string]time.Duration{"w": 15 * us, "b": 35 * us}},
		{"a yielded burst resumes before a new one", 1, []ev{
			{0, false, []time.Duration{10 * us, 10 * us}, "b1"},
			{1 * us, false, []time.Duration{4 * us}, "b2"},
			{3 * us, true, []time.Duration{5 * us}, "w"},
		}, map[string]time.Duration{"w": 15 * us, "b1": 25 * us, "b2": 29 * us}},
		{"no boundary: the wake waits for the end", 1, []ev{
			{0, false, []time.Duration{10 * us}, "b"},
			{3 * us, true, []time.Duration{5 * us}, "w"},
		}, map[string]time.Duration{"b": 10 * us, "w": 15 * us}},
		{"two wakes take the two earliest boundaries", 2, []ev{
			{0, false, []time.Duration{10 * us, 10 * us}, "b1"},
			{0, false, []time.Duration{6 * us, 20 * us}, "b2"},
			{1 * us, true, []time.Duration{2 * us}, "w1"},
			{1 * us, true, []time.Duration{2 * us}, "w2"},
		}, map[string]time.Duration{"w1": 8 * us, "w2": 10 * us, "b2": 30 * us, "b1": 20 * us}},
		{"a freed processor cancels a planned yield", 2, []ev{
			{0, false, []time.Duration{10 * us, 10 * us}, "b1"},
			{0, false, []time.Duration{4 * us}, "b2"},
			{1 * us, true, []time.Duration{2 * us}, "w"},
		}, map[string]time.Duration{"b2": 4 * us, "w": 6 * us, "b1": 20 * us}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			env := New(1)
			cpu := NewCPU(env, tc.cpus)
			got := map[string]time.Duration{}
			for _, e := range tc.evs {
				e := e
				env.At(Time(e.at), func() {
					done := func(any) { got[e.name] = time.Duration(env.Now()) }
					if e.wake {
						cpu.Wake(e.segs[0], done, nil)
					} else {
						cpu.Run(e.segs, done, nil)
					}
				})
			}
			env.Run()
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("completions (-want +got):\n%s", d)
			}
			if cpu.Busy() != 0 || cpu.QueueLen() != 0 {
				t.Errorf("busy %d queued %d after the run", cpu.Busy(), cpu.QueueLen())
			}
		})
	}
}

// TestCPUBurstsAreAStation: with bursts only, the CPU is a k-server FIFO
// station; the same arrivals give the same statistics.
func TestCPUBurstsAreAStation(t *testing.T) {
	run := func(useCPU bool) StationStats {
		env := New(7)
		arr, svc := env.Stream("arrivals"), env.Stream("service")
		st := NewStation(env, 3)
		cpu := NewCPU(env, 3)
		var next func()
		next = func() {
			d := time.Duration(svc.Exp() * float64(100*us))
			if useCPU {
				cpu.Run([]time.Duration{d / 2, d - d/2}, nil, nil)
			} else {
				st.Submit(d, nil, nil)
			}
			if env.Now() < Time(2*time.Second) {
				env.After(time.Duration(arr.Exp()*float64(40*us)), next)
			}
		}
		next()
		env.RunUntil(Time(2 * time.Second))
		if useCPU {
			return cpu.Stats().StationStats
		}
		return st.Stats()
	}
	a, b := run(false), run(true)
	if d := cmp.Diff(a, b); d != "" {
		t.Errorf("station vs CPU with bursts only (-station +cpu):\n%s", d)
	}
}

// TestCPUConservation: under a random mix of bursts and wakes every job
// completes once, the processors are busy exactly the CPU submitted, never more than n, and
// none idles while a thread waits. Under Fair, threads with a lag come and
// go and never keep more than the lag limit.
func TestCPUConservation(t *testing.T) {
	for _, policy := range []CPUPolicy{WakeFirst, Fair} {
		for _, n := range []int{1, 2, 4} {
			t.Run(fmt.Sprintf("%v/n=%d", policy, n), func(t *testing.T) {
				checkConservation(t, policy, n)
			})
		}
	}
}

func checkConservation(t *testing.T, policy CPUPolicy, n int) {
	env := New(uint64(n))
	r := env.Stream("mix")
	cfg := CPUConfig{Policy: policy, Fair: DefaultFairConfig()}
	cpu, err := NewCPUWithPolicy(env, n, cfg)
	if err != nil {
		t.Fatal(err)
	}
	limit := cfg.Fair.LagLimit(n)
	threads := make([]CPUThread, 5000)
	var submitted, completed int
	var work time.Duration
	for i := 0; i < 5000; i++ {
		at := Time(r.Uint64N(uint64(200 * time.Millisecond)))
		wake := r.IntN(3) == 0
		var th *CPUThread
		if r.IntN(2) == 0 {
			th = &threads[i]
		}
		var segs []time.Duration
		k := 1 + r.IntN(6)
		for j := 0; j < k; j++ {
			segs = append(segs, time.Duration(1+r.Uint64N(uint64(60*us))))
		}
		d := segs[0]
		for _, s := range segs[1:] {
			if !wake {
				d += s
			}
		}
		work += d
		submitted++
		env.At(at, func() {
			done := func(any) {
				completed++
				if b := cpu.Busy(); b > n {
					t.Fatalf("%d processors busy of %d", b, n)
				}
				if cpu.QueueLen() > 0 && cpu.Busy() < n {
					t.Fatalf("%d threads wait with %d of %d processors busy", cpu.QueueLen(), cpu.Busy(), n)
				}
				if th != nil && (th.Lag() > limit || th.Lag() < -limit) {
					t.Fatalf("thread left with lag %v, limit %v", th.Lag(), limit)
				}
			}
			if wake {
				cpu.WakeAs(th, d, done, nil)
			} else {
				cpu.RunAs(th, segs, done, nil)
			}
		})
	}
	cpu.ResetStats()
	env.Run()
	st := cpu.Stats()
	if completed != submitted {
		t.Fatalf("%d of %d jobs completed", completed, submitted)
	}
	busy := time.Duration(st.MeanBusy * float64(st.Elapsed))
	if diff := busy - work; diff < -time.Microsecond || diff > time.Microsecond {
		t.Errorf("busy %v, submitted CPU %v", busy, work)
	}
	if st.Utilization > 1 {
		t.Errorf("utilisation %v > 1", st.Utilization)
	}
	if cpu.Busy() != 0 || cpu.QueueLen() != 0 {
		t.Errorf("busy %d queued %d after the run", cpu.Busy(), cpu.QueueLen())
	}
}

// TestCPUNoAllocs: a steady state of bursts and wakes allocates nothing.
func TestCPUNoAllocs(t *testing.T) {
	env := New(1)
	cpu := NewCPU(env, 2)
	segs := []time.Duration{10 * us, 10 * us, 10 * us}
	var loop func(any)
	wake := func(any) {}
	loop = func(any) {
		cpu.Wake(3*us, wake, nil)
		cpu.Run(segs, loop, nil)
	}
	for i := 0; i < 4; i++ {
		cpu.Run(segs, loop, nil)
	}
	env.RunUntil(Time(time.Millisecond))
	allocs := testing.AllocsPerRun(100, func() {
		env.RunUntil(env.Now() + Time(100*us))
	})
	if allocs > 0 {
		t.Errorf("%v allocations per 100us of simulated time", allocs)
	}
}
