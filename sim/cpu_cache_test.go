package sim

import (
	"math"
	"strings"
	"testing"
	"time"
)

// cacheEv is a job of a named thread at a time.
type cacheEv struct {
	at     time.Duration
	thread string
	segs   []time.Duration
	name   string
}

// runCache runs evs on cpus processors under Fair with cache and returns
// each job's completion time and the statistics. Jobs of one thread share
// its CPUThread.
func runCache(t *testing.T, cpus int, cache CacheConfig, evs []cacheEv) (map[string]time.Duration, CPUStats) {
	t.Helper()
	jobs := make([]idleEv, len(evs))
	for i, e := range evs {
		jobs[i] = idleEv{at: e.at, thread: e.thread, segs: e.segs, name: e.name}
	}
	return runJobs(t, cpus, CPUConfig{Policy: Fair, Fair: DefaultFairConfig(), Cache: cache}, jobs)
}

// runJobs runs evs on cpus processors under cfg and returns each job's
// completion time and the statistics. Jobs of one thread share its
// CPUThread, whose HandOffs the thread's first job sets.
func runJobs(t *testing.T, cpus int, cfg CPUConfig, evs []idleEv) (map[string]time.Duration, CPUStats) {
	t.Helper()
	env := New(1)
	cpu, err := NewCPUWithPolicy(env, cpus, cfg)
	if err != nil {
		t.Fatal(err)
	}
	threads := map[string]*CPUThread{}
	got := map[string]time.Duration{}
	for _, e := range evs {
		th := threads[e.thread]
		if th == nil {
			th = &CPUThread{HandOffs: e.handOffs}
			threads[e.thread] = th
		}
		env.At(Time(e.at), func() {
			done := func(any) { got[e.name] = time.Duration(env.Now()) }
			if e.wake {
				cpu.WakeAs(th, e.segs[0], done, nil)
				return
			}
			cpu.RunAs(th, e.segs, done, nil)
		})
	}
	env.Run()
	return got, cpu.Stats()
}

// TestCacheRefill: what a thread pays when it comes back to a processor.
func TestCacheRefill(t *testing.T) {
	cache := CacheConfig{Refill: 10 * us, Decay: 100 * us}
	d := func(v ...time.Duration) []time.Duration { return v }
	// After B ran 110 us (its 100 us and its own first refill) A pays
	// 10 us x (1 - e^-1.1).
	partial := time.Duration(math.Round(10e3 * -math.Expm1(-1.1)))
	tests := []struct {
		name    string
		cpus    int
		cache   CacheConfig
		evs     []cacheEv
		want    map[string]time.Duration
		refills int64
		cpu     time.Duration
	}{
		{"a first run is cold, a return with nothing between is warm", 1, cache,
			[]cacheEv{{0, "A", d(50 * us), "a1"}, {ms, "A", d(50 * us), "a2"}},
			map[string]time.Duration{"a1": 60 * us, "a2": ms + 50*us}, 1, 10 * us},
		{"another thread between: the refill decays with its run time", 1, cache,
			[]cacheEv{{0, "A", d(50 * us), "a1"}, {100 * us, "B", d(100 * us), "b"}, {ms, "A", d(50 * us), "a2"}},
			map[string]time.Duration{"a1": 60 * us, "b": 210 * us, "a2": ms + 50*us + partial}, 3, 20*us + partial},
		{"a query boundary with a thread waiting: both come back", 1, cache,
			[]cacheEv{{0, "A", d(50*us, 50*us), "a"}, {10 * us, "B", d(30 * us), "b"}},
			// A runs 10 + 50 us, B (cold) 10 + 30 us at 60 us, then A's
			// second query after B's 40 us.
			map[string]time.Duration{"b": 100 * us, "a": 150*us + time.Duration(math.Round(10e3*-math.Expm1(-0.4)))}, 3,
			20*us + time.Duration(math.Round(10e3*-math.Expm1(-0.4)))},
		{"a thread on another processor pays the whole refill", 2, cache,
			// A leaves processor 0; C takes it (the most recently idled);
			// A comes back while C runs and goes to processor 1.
			[]cacheEv{{0, "A", d(50 * us), "a1"}, {100 * us, "C", d(ms), "c"}, {200 * us, "A", d(50 * us), "a2"}},
			map[string]time.Duration{"a1": 60 * us, "c": 1110 * us, "a2": 260 * us}, 3, 30 * us},
		{"no refill: the caches cost nothing", 1, CacheConfig{},
			[]cacheEv{{0, "A", d(50 * us), "a1"}, {100 * us, "B", d(100 * us), "b"}, {ms, "A", d(50 * us), "a2"}},
			map[string]time.Duration{"a1": 50 * us, "b": 200 * us, "a2": ms + 50*us}, 0, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, st := runCache(t, tc.cpus, tc.cache, tc.evs)
			for k, w := range tc.want {
				if got[k] != w {
					t.Errorf("%s done at %v, want %v", k, got[k], w)
				}
			}
			if st.Refills != tc.refills || st.RefillCPU != tc.cpu {
				t.Errorf("refills %d (%v), want %d (%v)", st.Refills, st.RefillCPU, tc.refills, tc.cpu)
			}
		})
	}
}

// TestCacheAffinity: with the cache model a thread that wakes takes the idle
// processor it last ran on; without it, the most recently idled one.
func TestCacheAffinity(t *testing.T) {
	d := func(v ...time.Duration) []time.Duration { return v }
	// A runs on processor 0 while B takes processor 1 and ends last, so
	// processor 1 is the most recently idled when A comes back.
	evs := []cacheEv{{0, "A", d(50 * us), "a1"}, {10 * us, "B", d(100 * us), "b"}, {ms, "A", d(50 * us), "a2"}}
	got, st := runCache(t, 2, CacheConfig{Refill: 10 * us, Decay: 100 * us}, evs)
	if got["a2"] != ms+50*us || st.Refills != 2 {
		t.Errorf("A back at %v with %d refills; want its own processor: done at %v, 2 refills (the first runs)", got["a2"], st.Refills, ms+50*us)
	}
}

// TestCacheConservation: the processors' busy time is the CPU the jobs
// asked for plus the refills, under a random load of threads that share
// three processors.
func TestCacheConservation(t *testing.T) {
	for _, seed := range []uint64{1, 2, 3} {
		st, asked := randomLoad(t, seed, 9, 0, CPUConfig{Policy: Fair, Fair: DefaultFairConfig(), Cache: CacheConfig{Refill: 20 * us, Decay: 50 * us}})
		busy := time.Duration(math.Round(st.Utilization * 3 * float64(st.Elapsed)))
		if diff := busy - asked - st.RefillCPU; diff < -time.Microsecond || diff > time.Microsecond {
			t.Errorf("seed %d: busy %v, asked %v + refills %v (%d): off by %v", seed, busy, asked, st.RefillCPU, st.Refills, diff)
		}
		if st.Refills == 0 {
			t.Errorf("seed %d: no refill in a crowded run", seed)
		}
	}
}

// randomLoad runs n threads on three processors under cfg for 50 ms: each
// repeats one to five random bursts of 1-200 us (RunAs), a random sleep
// of up to 300 us between; every wakeEvery-th thread (0: none) also wakes
// for a burst of up to 50 us (WakeAs) before its queries. It returns the
// CPU's statistics and the CPU the jobs asked for.
func randomLoad(t *testing.T, seed uint64, n, wakeEvery int, cfg CPUConfig) (CPUStats, time.Duration) {
	t.Helper()
	env := New(seed)
	cpu, err := NewCPUWithPolicy(env, 3, cfg)
	if err != nil {
		t.Fatal(err)
	}
	rng := env.Stream("cpu-load-test")
	threads := make([]CPUThread, n)
	segs := make([][]time.Duration, n)
	var asked time.Duration
	var loop func(any)
	run := func(a any) { cpu.RunAs(&threads[a.(int)], segs[a.(int)], loop, a) }
	loop = func(a any) {
		i := a.(int)
		if env.Now() > Time(50*ms) {
			return
		}
		s := segs[i][:0]
		for k := 0; k < 1+rng.IntN(5); k++ {
			q := time.Duration(1+rng.IntN(200)) * us
			s = append(s, q)
			asked += q
		}
		segs[i] = s
		sleep := time.Duration(rng.IntN(300)) * us
		if wakeEvery > 0 && i%wakeEvery == wakeEvery-1 {
			q := time.Duration(1+rng.IntN(50)) * us
			asked += q
			env.AfterArg(sleep, func(a any) { cpu.WakeAs(&threads[a.(int)], q, run, a) }, i)
			return
		}
		env.AfterArg(sleep, run, i)
	}
	for i := range threads {
		threads[i].HandOffs = 2
		segs[i] = make([]time.Duration, 0, 5)
		loop(i)
	}
	if cfg.IRQCost > 0 { // device interrupts at random, on their own stream
		irq := env.Stream("cpu-irq-test")
		var tick func(any)
		tick = func(any) {
			if env.Now() <= Time(50*ms) {
				cpu.Interrupt()
				env.AfterArg(time.Duration(irq.IntN(100))*us, tick, nil)
			}
		}
		tick(nil)
	}
	env.Run()
	return cpu.Stats(), asked
}

func TestCacheConfigValidate(t *testing.T) {
	tests := []struct {
		cfg  CPUConfig
		want string
	}{
		{CPUConfig{Policy: Fair, Fair: DefaultFairConfig(), Cache: CacheConfig{Refill: 10 * us, Decay: 100 * us}}, ""},
		{CPUConfig{Policy: Fair, Fair: DefaultFairConfig(), Cache: CacheConfig{Refill: 10 * us}}, "cache.decay: must be in [1us, 1s] when refill > 0, got 0s"},
		{CPUConfig{Policy: Fair, Fair: DefaultFairConfig(), Cache: CacheConfig{Refill: 2 * ms, Decay: us}}, "cache.refill: must be in [0, 1ms], got 2ms"},
		{CPUConfig{Cache: CacheConfig{Refill: us, Decay: us}}, "cache.refill: needs the fair policy"},
	}
	for _, tc := range tests {
		err := tc.cfg.Validate()
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%+v: unexpected error %v", tc.cfg.Cache, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%+v: error %v, want %q", tc.cfg.Cache, err, tc.want)
		}
	}
}
