package sim

import (
	"math"
	"strings"
	"testing"
	"time"
)

// TestInterrupt: an interrupt takes IRQCost from the thread running on
// processor 0, and nothing when processor 0 is idle.
func TestInterrupt(t *testing.T) {
	const c = 20 * us
	seg := func(v ...time.Duration) []time.Duration { return v }
	tests := []struct {
		reason string
		cpus   int
		irqs   []time.Duration // when the interrupts come
		evs    []idleEv
		want   map[string]time.Duration
		busy   int64
	}{
		{"one mid-job: the job ends later by its cost", 1, []time.Duration{50 * us},
			[]idleEv{{0, "a", 1, seg(100 * us), false, "a"}},
			map[string]time.Duration{"a": 100*us + c}, 1},
		{"two in one segment of a query burst", 1, []time.Duration{10 * us, 20 * us},
			[]idleEv{{0, "a", 1, seg(100*us, 100*us), false, "a"}},
			map[string]time.Duration{"a": 200*us + 2*c}, 2},
		{"on an idle processor: counted, free", 1, []time.Duration{150 * us},
			[]idleEv{{0, "a", 1, seg(100 * us), false, "a"}},
			map[string]time.Duration{"a": 100 * us}, 0},
		{"a wake-up's continuation pays it too", 1, []time.Duration{5 * us},
			[]idleEv{{0, "a", 1, seg(30 * us), true, "a"}},
			map[string]time.Duration{"a": 30*us + c}, 1},
		{"processor 0 idle, processor 1 busy: free", 2, []time.Duration{80 * us},
			// a takes processor 0 and ends at 50 us, b runs on 1 until 200 us.
			[]idleEv{{0, "a", 1, seg(50 * us), false, "a"}, {0, "b", 1, seg(200 * us), false, "b"}},
			map[string]time.Duration{"a": 50 * us, "b": 200 * us}, 0},
		{"processor 0's thread pays, processor 1's does not", 2, []time.Duration{20 * us},
			[]idleEv{{0, "a", 1, seg(50 * us), false, "a"}, {0, "b", 1, seg(200 * us), false, "b"}},
			map[string]time.Duration{"a": 50*us + c, "b": 200 * us}, 1},
		{"an interrupt at the very end of a job extends it", 1, []time.Duration{100 * us},
			[]idleEv{{0, "a", 1, seg(100 * us), false, "a"}},
			map[string]time.Duration{"a": 100*us + c}, 1},
	}
	for _, tc := range tests {
		env := New(1)
		cpu, err := NewCPUWithPolicy(env, tc.cpus, CPUConfig{Policy: Fair, Fair: DefaultFairConfig(), IRQCost: c})
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]time.Duration{}
		for _, e := range tc.evs {
			th := &CPUThread{HandOffs: e.handOffs}
			env.At(Time(e.at), func() {
				done := func(any) { got[e.name] = time.Duration(env.Now()) }
				if e.wake {
					cpu.WakeAs(th, e.segs[0], done, nil)
					return
				}
				cpu.RunAs(th, e.segs, done, nil)
			})
		}
		for _, at := range tc.irqs {
			env.At(Time(at), cpu.Interrupt)
		}
		env.Run()
		for k, v := range tc.want {
			if got[k] != v {
				t.Errorf("%s: %s done at %v, want %v", tc.reason, k, got[k], v)
			}
		}
		st := cpu.Stats()
		if st.Interrupts != int64(len(tc.irqs)) || st.BusyIRQs != tc.busy || st.IRQCPU != time.Duration(tc.busy)*c {
			t.Errorf("%s: %d interrupts, %d on a busy processor (%v), want %d, %d", tc.reason, st.Interrupts, st.BusyIRQs, st.IRQCPU, len(tc.irqs), tc.busy)
		}
	}
}

// TestInterruptOff: with no IRQCost an interrupt changes nothing and is not
// counted, so a run without the mechanism is the run it was.
func TestInterruptOff(t *testing.T) {
	a, _ := randomLoad(t, 7, 4, 2, CPUConfig{Policy: Fair, Fair: DefaultFairConfig()})
	env := New(1)
	cpu, err := NewCPUWithPolicy(env, 1, CPUConfig{Policy: Fair, Fair: DefaultFairConfig()})
	if err != nil {
		t.Fatal(err)
	}
	cpu.RunAs(&CPUThread{}, []time.Duration{100 * us}, func(any) {}, nil)
	env.At(Time(10*us), cpu.Interrupt)
	env.Run()
	if st := cpu.Stats(); st.Interrupts != 0 || env.Now() != Time(100*us) {
		t.Errorf("without irq_cost: %d interrupts counted, job done at %v", st.Interrupts, env.Now())
	}
	if a.Interrupts != 0 {
		t.Errorf("random load without irq_cost counted %d interrupts", a.Interrupts)
	}
}

// TestInterruptConservation: the processors' busy time is the CPU the jobs
// asked for plus the refills, the idle wake-ups and the interrupts that
// found processor 0 busy; some interrupts find it idle.
func TestInterruptConservation(t *testing.T) {
	for _, seed := range []uint64{1, 2, 3} {
		st, asked := randomLoad(t, seed, 4, 2, CPUConfig{Policy: Fair, Fair: DefaultFairConfig(),
			Cache: CacheConfig{Refill: 5 * us, Decay: 50 * us}, IdleWake: 15 * us, IRQCost: 12 * us})
		busy := time.Duration(math.Round(st.Utilization * 3 * float64(st.Elapsed)))
		if diff := busy - asked - st.RefillCPU - st.IdleWakeCPU - st.IRQCPU; diff < -time.Microsecond || diff > time.Microsecond {
			t.Errorf("seed %d: busy %v, asked %v + refills %v + idle wakes %v + interrupts %v: off by %v", seed, busy, asked, st.RefillCPU, st.IdleWakeCPU, st.IRQCPU, diff)
		}
		if st.BusyIRQs == 0 || st.BusyIRQs == st.Interrupts {
			t.Errorf("seed %d: %d of %d interrupts on a busy processor: the load does not exercise both cases", seed, st.BusyIRQs, st.Interrupts)
		}
	}
}

func TestInterruptValidate(t *testing.T) {
	for _, tc := range []struct {
		cfg  CPUConfig
		want string
	}{
		{CPUConfig{Policy: Fair, Fair: DefaultFairConfig(), IRQCost: 20 * us}, ""},
		{CPUConfig{Policy: Fair, Fair: DefaultFairConfig(), IRQCost: 2 * ms}, "irq_cost: must be in [0, 1ms], got 2ms"},
		{CPUConfig{Policy: Fair, Fair: DefaultFairConfig(), IRQCost: -us}, "irq_cost: must be in [0, 1ms]"},
		{CPUConfig{IRQCost: us}, "irq_cost: needs the fair policy"},
	} {
		err := tc.cfg.Validate()
		if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("%v: error %v, want %q", tc.cfg.IRQCost, err, tc.want)
		}
	}
}

// TestInterruptNoAllocs: interrupts on busy and idle processors allocate
// nothing.
func TestInterruptNoAllocs(t *testing.T) {
	env := New(1)
	cpu, err := NewCPUWithPolicy(env, 2, CPUConfig{Policy: Fair, Fair: DefaultFairConfig(), IRQCost: 20 * us})
	if err != nil {
		t.Fatal(err)
	}
	segs := []time.Duration{40 * us, 40 * us}
	threads := make([]CPUThread, 3)
	var ran, run, tick func(any)
	run = func(a any) { cpu.RunAs(a.(*CPUThread), segs, ran, a) }
	ran = func(a any) { env.AfterArg(100*us, run, a) }
	tick = func(any) { cpu.Interrupt(); env.AfterArg(30*us, tick, nil) }
	for i := range threads {
		cpu.RunAs(&threads[i], segs, ran, &threads[i])
	}
	tick(nil)
	env.RunUntil(Time(20 * ms))
	allocs := testing.AllocsPerRun(100, func() { env.RunUntil(env.Now() + Time(ms)) })
	if allocs > 0 {
		t.Errorf("%v allocations per ms of simulated time", allocs)
	}
	if st := cpu.Stats(); st.BusyIRQs == 0 || st.BusyIRQs == st.Interrupts {
		t.Errorf("%d of %d interrupts on a busy processor: the loop does not exercise both cases", st.BusyIRQs, st.Interrupts)
	}
}
