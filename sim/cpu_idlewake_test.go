package sim

import (
	"math"
	"strings"
	"testing"
	"time"
)

// idleEv is a job of a thread at a time: segments (RunAs) with the
// thread's hand-offs, or one wake-up (WakeAs) when segs has one entry and
// wake is set.
type idleEv struct {
	at       time.Duration
	thread   string
	handOffs int
	segs     []time.Duration
	wake     bool
	name     string
}

func runIdleWake(t *testing.T, cpus int, idle time.Duration, evs []idleEv) (map[string]time.Duration, CPUStats) {
	t.Helper()
	return runJobs(t, cpus, CPUConfig{Policy: Fair, Fair: DefaultFairConfig(), IdleWake: idle}, evs)
}

// TestIdleWake: what a wake-up onto an idle processor costs, and when a
// query boundary pays it.
func TestIdleWake(t *testing.T) {
	const w = 20 * us
	seg3 := []time.Duration{100 * us, 100 * us, 100 * us}
	tests := []struct {
		reason string
		cpus   int
		idle   time.Duration
		evs    []idleEv
		want   map[string]time.Duration
		wakes  int64
	}{
		{"a lone connection on two processors: its start and both boundaries, two hand-offs each", 2, w,
			[]idleEv{{0, "a", 2, seg3, false, "a"}},
			map[string]time.Duration{"a": 300*us + 6*w}, 6},
		{"one processor: the start only (no other processor to go idle)", 1, w,
			[]idleEv{{0, "a", 2, seg3, false, "a"}},
			map[string]time.Duration{"a": 300*us + 2*w}, 2},
		{"a wake-up onto an idle processor pays once", 2, w,
			[]idleEv{{0, "a", 2, []time.Duration{50 * us}, true, "a"}},
			map[string]time.Duration{"a": 50*us + w}, 1},
		{"two connections keep both processors busy: only their starts pay", 2, w,
			[]idleEv{{0, "a", 2, seg3, false, "a"}, {0, "b", 2, seg3, false, "b"}},
			map[string]time.Duration{"a": 300*us + 2*w, "b": 300*us + 2*w}, 4},
		{"the other processor goes idle mid-run: the boundaries after it pay", 2, w,
			// b starts on the idle processor (2 hand-offs) and ends at 150 us;
			// a started first (2), its boundary at 100 us had b running (0),
			// its boundary at 200 us finds b's processor idle (2).
			[]idleEv{{0, "a", 2, seg3, false, "a"}, {0, "b", 1, []time.Duration{150 * us}, false, "b"}},
			map[string]time.Duration{"a": 300*us + 4*w, "b": 150*us + w}, 5},
		{"no idle_wake: nothing changes", 2, 0,
			[]idleEv{{0, "a", 2, seg3, false, "a"}},
			map[string]time.Duration{"a": 300 * us}, 0},
	}
	for _, tc := range tests {
		got, st := runIdleWake(t, tc.cpus, tc.idle, tc.evs)
		for k, v := range tc.want {
			if got[k] != v {
				t.Errorf("%s: %s done at %v, want %v", tc.reason, k, got[k], v)
			}
		}
		if st.IdleWakes != tc.wakes || st.IdleWakeCPU != time.Duration(tc.wakes)*tc.idle {
			t.Errorf("%s: %d idle wakes (%v), want %d", tc.reason, st.IdleWakes, st.IdleWakeCPU, tc.wakes)
		}
	}
}

// TestIdleWakeConservation: the processors' busy time is the CPU the jobs
// asked for plus the idle wake-ups and the refills, under a random load
// that leaves processors idle part of the time.
func TestIdleWakeConservation(t *testing.T) {
	for _, seed := range []uint64{1, 2, 3} {
		st, asked := randomLoad(t, seed, 4, 2, CPUConfig{Policy: Fair, Fair: DefaultFairConfig(),
			Cache: CacheConfig{Refill: 5 * us, Decay: 50 * us}, IdleWake: 15 * us})
		busy := time.Duration(math.Round(st.Utilization * 3 * float64(st.Elapsed)))
		if diff := busy - asked - st.RefillCPU - st.IdleWakeCPU; diff < -time.Microsecond || diff > time.Microsecond {
			t.Errorf("seed %d: busy %v, asked %v + refills %v + idle wakes %v (%d): off by %v", seed, busy, asked, st.RefillCPU, st.IdleWakeCPU, st.IdleWakes, diff)
		}
		if st.IdleWakes == 0 || st.Utilization > 0.95 {
			t.Errorf("seed %d: %d idle wakes at utilisation %.2f: the load does not leave processors idle", seed, st.IdleWakes, st.Utilization)
		}
	}
}

func TestIdleWakeValidate(t *testing.T) {
	for _, tc := range []struct {
		cfg  CPUConfig
		want string
	}{
		{CPUConfig{Policy: Fair, Fair: DefaultFairConfig(), IdleWake: 20 * us}, ""},
		{CPUConfig{Policy: Fair, Fair: DefaultFairConfig(), IdleWake: 2 * ms}, "idle_wake: must be in [0, 1ms], got 2ms"},
		{CPUConfig{Policy: Fair, Fair: DefaultFairConfig(), IdleWake: -us}, "idle_wake: must be in [0, 1ms]"},
		{CPUConfig{IdleWake: us}, "idle_wake: needs the fair policy"},
	} {
		err := tc.cfg.Validate()
		if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("%v: error %v, want %q", tc.cfg.IdleWake, err, tc.want)
		}
	}
}

// TestIdleWakeNoAllocs: with idle processors coming and going (three
// threads that sleep between their jobs on two processors), the charges
// and the re-synchronisation of the running threads allocate nothing.
func TestIdleWakeNoAllocs(t *testing.T) {
	env := New(1)
	cpu, err := NewCPUWithPolicy(env, 2, CPUConfig{Policy: Fair, Fair: DefaultFairConfig(), IdleWake: 20 * us})
	if err != nil {
		t.Fatal(err)
	}
	segs := []time.Duration{40 * us, 40 * us, 40 * us}
	threads := make([]CPUThread, 3)
	var ran, slept, woke func(any)
	ran = func(a any) { env.AfterArg(150*us, slept, a) }
	slept = func(a any) { cpu.WakeAs(a.(*CPUThread), 10*us, woke, a) }
	woke = func(a any) { cpu.RunAs(a.(*CPUThread), segs, ran, a) }
	for i := range threads {
		threads[i].HandOffs = 2
		woke(&threads[i])
	}
	env.RunUntil(Time(20 * ms))
	allocs := testing.AllocsPerRun(100, func() {
		env.RunUntil(env.Now() + Time(ms))
	})
	if allocs > 0 {
		t.Errorf("%v allocations per ms of simulated time", allocs)
	}
	if st := cpu.Stats(); st.IdleWakes == 0 || st.Utilization > 0.95 {
		t.Errorf("the loop charged %d idle wake-ups at utilisation %.2f: it does not exercise them", st.IdleWakes, st.Utilization)
	}
}
