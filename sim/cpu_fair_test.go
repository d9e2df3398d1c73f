package sim

import (
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

const ms = time.Millisecond

func TestFairConfig(t *testing.T) {
	def := DefaultFairConfig()
	lin := def
	lin.Scaling = ScaleLinear
	none := def
	none.Scaling = ScaleNone
	tests := []struct {
		cfg         FairConfig
		cpus        int
		slice, limt time.Duration
	}{
		// 0.75 ms x (1 + ilog2(min(cpus, 8))); lag limit max(2 slices, 4 ms tick)
		{def, 1, 750 * us, 4 * ms},
		{def, 2, 1500 * us, 4 * ms},
		{def, 3, 1500 * us, 4 * ms},
		{def, 4, 2250 * us, 4500 * us},
		{def, 8, 3 * ms, 6 * ms},
		{def, 64, 3 * ms, 6 * ms},
		{lin, 4, 3 * ms, 6 * ms},
		{lin, 16, 6 * ms, 12 * ms},
		{none, 16, 750 * us, 4 * ms},
	}
	for _, tc := range tests {
		if got := tc.cfg.Slice(tc.cpus); got != tc.slice {
			t.Errorf("%v scaling, %d cpus: slice %v, want %v", tc.cfg.Scaling, tc.cpus, got, tc.slice)
		}
		if got := tc.cfg.LagLimit(tc.cpus); got != tc.limt {
			t.Errorf("%v scaling, %d cpus: lag limit %v, want %v", tc.cfg.Scaling, tc.cpus, got, tc.limt)
		}
	}
}

func TestFairConfigValidate(t *testing.T) {
	tests := []struct {
		name string
		cfg  CPUConfig
		n    int
		want string // substring of the error, "" for none
	}{
		{"default", CPUConfig{Policy: Fair, Fair: DefaultFairConfig()}, 2, ""},
		{"wake first ignores the fair parameters", CPUConfig{}, 2, ""},
		{"zero fair config", CPUConfig{Policy: Fair}, 2, "fair.base_slice: must be in [1us, 1s], got 0s"},
		{"slow tick", CPUConfig{Policy: Fair, Fair: FairConfig{BaseSlice: ms, Tick: 20 * ms}}, 2, "tick: must be in [1ms, 10ms]"},
		{"bad scaling", CPUConfig{Policy: Fair, Fair: FairConfig{BaseSlice: ms, Scaling: 7, Tick: ms}}, 2, "scaling: must be log, none or linear, got SliceScaling(7)"},
		{"bad policy", CPUConfig{Policy: 3}, 2, "policy: must be wake_first or fair, got CPUPolicy(3)"},
		{"no processor", CPUConfig{}, 0, "processors: must be at least 1, got 0"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := NewCPUWithPolicy(New(1), tc.n, tc.cfg)
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("unexpected error %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Errorf("error %v, want it to contain %q", err, tc.want)
			}
		})
	}
}

type cpuEv struct {
	at   time.Duration
	wake bool
	segs []time.Duration // burst, or one element: the wake's CPU
	name string
	lag  time.Duration // the thread's lag when it arrives
}

// runCPUEvents submits evs to a CPU under cfg and returns each job's
// completion time and the CPU's statistics.
func runCPUEvents(t *testing.T, cpus int, cfg CPUConfig, evs []cpuEv) (map[string]time.Duration, CPUStats) {
	t.Helper()
	env := New(1)
	cpu, err := NewCPUWithPolicy(env, cpus, cfg)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]time.Duration{}
	for _, e := range evs {
		th := &CPUThread{vlag: int64(e.lag)}
		env.At(Time(e.at), func() {
			done := func(any) { got[e.name] = time.Duration(env.Now()) }
			if e.wake {
				cpu.WakeAs(th, e.segs[0], done, nil)
			} else {
				cpu.RunAs(th, e.segs, done, nil)
			}
		})
	}
	env.Run()
	if cpu.Busy() != 0 || cpu.QueueLen() != 0 {
		t.Errorf("busy %d queued %d after the run", cpu.Busy(), cpu.QueueLen())
	}
	return got, cpu.Stats()
}

// TestFairWhoRunsNext: under Fair, who runs when a thread wakes while
// others run. One processor's slice is 0.75 ms, two processors' 1.5 ms.
func TestFairWhoRunsNext(t *testing.T) {
	fair := CPUConfig{Policy: Fair, Fair: DefaultFairConfig()}
	d := func(v ...time.Duration) []time.Duration { return v }
	tests := []struct {
		name     string
		cpus     int
		evs      []cpuEv
		want     map[string]time.Duration
		preempts int64
	}{
		{"a wake takes a free processor", 2, []cpuEv{
			{at: 0, segs: d(10*us, 10*us), name: "b"},
			{at: 3 * us, wake: true, segs: d(5 * us), name: "w"},
		}, map[string]time.Duration{"b": 20 * us, "w": 8 * us}, 0},
		// WakeFirst: w 15us, b1 25us, b2 29us.
		{"at a boundary the earliest deadline runs, not the wake", 1, []cpuEv{
			{at: 0, segs: d(10*us, 10*us), name: "b1"},
			{at: 1 * us, segs: d(4 * us), name: "b2"},
			{at: 3 * us, wake: true, segs: d(5 * us), name: "w"},
		}, map[string]time.Duration{"b2": 14 * us, "w": 19 * us, "b1": 29 * us}, 0},
		// The burst passes 10 and 20 us with no one waiting (no events).
		{"a wake waits for the next boundary of a burst alone", 1, []cpuEv{
			{at: 0, segs: d(10*us, 10*us, 10*us, 10*us, 10*us), name: "b"},
			{at: 25 * us, wake: true, segs: d(5 * us), name: "w"},
		}, map[string]time.Duration{"w": 35 * us, "b": 55 * us}, 0},
		// WakeFirst: w waits for the end, 10.1 ms.
		{"a running thread keeps its processor to its slice's end", 1, []cpuEv{
			{at: 0, segs: d(10 * ms), name: "b"},
			{at: 1 * ms, wake: true, segs: d(100 * us), name: "w"},
		}, map[string]time.Duration{"w": 1600 * us, "b": 10100 * us}, 1},
		{"a wake with no lag does not preempt a thread in its slice", 1, []cpuEv{
			{at: 0, segs: d(10 * ms), name: "b"},
			{at: 500 * us, wake: true, segs: d(100 * us), name: "w"},
		}, map[string]time.Duration{"w": 850 * us, "b": 10100 * us}, 1},
		{"a wake with lag preempts a thread past its share at once", 1, []cpuEv{
			{at: 0, segs: d(10 * ms), name: "b"},
			{at: 500 * us, wake: true, segs: d(100 * us), name: "w", lag: 300 * us},
		}, map[string]time.Duration{"w": 600 * us, "b": 10100 * us}, 1},
		{"a wake that is not the pick does not preempt", 1, []cpuEv{
			{at: 0, segs: d(10 * ms), name: "b1"},
			{at: 200 * us, segs: d(200 * us), name: "b2"},
			{at: 500 * us, wake: true, segs: d(100 * us), name: "w"},
		}, map[string]time.Duration{"b2": 950 * us, "w": 1050 * us, "b1": 10300 * us}, 1},
		{"an idle processor pulls a waiting thread", 2, []cpuEv{
			{at: 0, segs: d(1 * ms), name: "b1"},
			{at: 0, segs: d(3 * ms), name: "b2"},
			{at: 100 * us, segs: d(1 * ms), name: "b3"},
			{at: 200 * us, segs: d(1 * ms), name: "b4"},
		}, map[string]time.Duration{"b1": 1 * ms, "b3": 2 * ms, "b4": 2500 * us, "b2": 3500 * us}, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, st := runCPUEvents(t, tc.cpus, fair, tc.evs)
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("completions (-want +got):\n%s", d)
			}
			if st.Preemptions != tc.preempts {
				t.Errorf("%d preemptions, want %d", st.Preemptions, tc.preempts)
			}
		})
	}
}

// TestFairLagLimit: a thread that slept with a large lag is placed at most
// the lag limit (max(2 slices, a tick): 4 ms on one processor) ahead of the
// average, so a lag of 1 s schedules exactly as a lag of 4 ms, and a
// smaller lag does not. A thread leaves with its lag at the time.
func TestFairLagLimit(t *testing.T) {
	fair := CPUConfig{Policy: Fair, Fair: DefaultFairConfig()}
	limit := fair.Fair.LagLimit(1)
	run := func(lag time.Duration) map[string]time.Duration {
		got, _ := runCPUEvents(t, 1, fair, []cpuEv{
			{at: 0, segs: []time.Duration{20 * ms}, name: "b"},
			{at: 5 * ms, segs: []time.Duration{10 * ms}, name: "w", lag: lag},
		})
		return got
	}
	atLimit := run(limit)
	if d := cmp.Diff(atLimit, run(time.Second)); d != "" {
		t.Errorf("lag 1s vs lag %v (-limit +1s):\n%s", limit, d)
	}
	if d := cmp.Diff(atLimit, run(limit/2)); d == "" {
		t.Errorf("lag %v schedules as lag %v: the lag has no effect", limit/2, limit)
	}

	// Where the thread is placed: its lag once it counts in the average.
	env := New(1)
	cpu, err := NewCPUWithPolicy(env, 1, fair)
	if err != nil {
		t.Fatal(err)
	}
	cpu.Run([]time.Duration{20 * ms}, nil, nil)
	th := &CPUThread{vlag: int64(time.Second)}
	var placed time.Duration
	env.At(Time(5*ms), func() {
		cpu.WakeAs(th, 100*us, nil, nil)
		r := &cpu.fair.rqs[0]
		r.advance(env.Now(), true)
		j := cpu.slots[0].fk // the wake preempted the burst
		placed = time.Duration(r.avg() - j.v)
	})
	env.Run()
	if placed < limit-1 || placed > limit {
		t.Errorf("placed with lag %v, limit %v", placed, limit)
	}
	// It ran 100 us of its 4 ms lead while the burst waited: it leaves
	// with lag ((5 ms) + (5 ms - 8 ms + 0.1 ms))/2 - (5 ms - 8 ms + 0.1 ms).
	if want := 3950 * us; th.Lag() != want {
		t.Errorf("left with lag %v, want %v", th.Lag(), want)
	}
}

// TestFairMMc: a pure CPU-burst workload (Poisson arrivals, exponential
// bursts of mean 1 ms, no sleeps) under Fair still gives M/M/c's mean
// wait: the number in the system is the same birth-death process under any
// work-conserving rule that does not look at the work left, so the mean
// sojourn is Erlang C's Wq plus the mean service (the wait before the first
// run is not: preemption shortens it and lengthens the run). On the same
// draws, Fair's mean sojourn is also WakeFirst's (FIFO here) within 1 %:
// the formula's 3 % allows for the draws, this for the rule.
func TestFairMMc(t *testing.T) {
	if testing.Short() {
		t.Skip("analytical checks need millions of customers")
	}
	for _, tc := range []struct {
		cpus   int
		lambda float64 // per second
	}{
		{1, 800}, {2, 1600}, {4, 3200},
	} {
		t.Run(fmt.Sprintf("M/M/%d rho=0.8", tc.cpus), func(t *testing.T) {
			a := tc.lambda / 1000
			want := erlangC(tc.cpus, a) / (float64(tc.cpus)*1000 - tc.lambda) * 1e9
			fair, st := burstQueue(t, Fair, tc.cpus, tc.lambda)
			fifo, _ := burstQueue(t, WakeFirst, tc.cpus, tc.lambda)
			if err := math.Abs(fair-want) / want; err > 0.03 {
				t.Errorf("mean sojourn - service %.4gms, Erlang C Wq %.4gms: error %.2f%% > 3%%", fair/1e6, want/1e6, 100*err)
			}
			if err := math.Abs(fair-fifo) / fifo; err > 0.01 {
				t.Errorf("mean sojourn - service %.4gms, FIFO on the same draws %.4gms: error %.2f%% > 1%%", fair/1e6, fifo/1e6, 100*err)
			}
			t.Logf("mean sojourn - service %.4gms; FIFO %.4gms; Erlang C Wq %.4gms; wait before the first run %.4gms; %.2f preemptions per burst",
				fair/1e6, fifo/1e6, want/1e6, float64(st.MeanWait)/1e6, float64(st.Preemptions)/float64(st.Completed))
		})
	}
}

// burstQueue runs a million Poisson arrivals (rate lambda per second) of
// single-segment exponential bursts of mean 1 ms on n processors and
// returns the mean sojourn less the mean service, in ns.
func burstQueue(t *testing.T, p CPUPolicy, n int, lambda float64) (float64, CPUStats) {
	const mean, customers = 1e6, 1_000_000
	env := New(20261201)
	cpu, err := NewCPUWithPolicy(env, n, CPUConfig{Policy: p, Fair: DefaultFairConfig()})
	if err != nil {
		t.Fatal(err)
	}
	arr, svc := env.Stream("arrivals"), env.Stream("service")
	at := make([]Time, customers)
	segs := make([][1]time.Duration, customers)
	var sojourn, service float64
	depart := func(a any) { sojourn += float64(env.Now() - at[a.(int)]) }
	i := 0
	var arrive func()
	arrive = func() {
		at[i] = env.Now()
		segs[i][0] = time.Duration(math.Round(svc.Exp() * mean))
		service += float64(segs[i][0])
		cpu.Run(segs[i][:], depart, i)
		if i++; i < customers {
			env.After(time.Duration(math.Round(arr.Exp()*1e9/lambda)), arrive)
		}
	}
	env.After(0, arrive)
	env.Run()
	return (sojourn - service) / customers, cpu.Stats()
}

// TestFairNoAllocs: a steady state of threads with lags running bursts and
// waking allocates nothing, with the cache model (CacheConfig) and without.
func TestFairNoAllocs(t *testing.T) {
	for _, cache := range []CacheConfig{{}, {Refill: 10 * us, Decay: 100 * us}} {
		env := New(1)
		cpu, err := NewCPUWithPolicy(env, 2, CPUConfig{Policy: Fair, Fair: DefaultFairConfig(), Cache: cache})
		if err != nil {
			t.Fatal(err)
		}
		segs := []time.Duration{400 * us, 400 * us, 2 * ms}
		threads := make([]CPUThread, 6)
		var ran, woke func(any)
		ran = func(a any) { cpu.WakeAs(a.(*CPUThread), 30*us, woke, a) }
		woke = func(a any) { cpu.RunAs(a.(*CPUThread), segs, ran, a) }
		for i := range threads {
			woke(&threads[i])
		}
		env.RunUntil(Time(20 * ms))
		allocs := testing.AllocsPerRun(100, func() {
			env.RunUntil(env.Now() + Time(ms))
		})
		if allocs > 0 {
			t.Errorf("cache %+v: %v allocations per ms of simulated time", cache, allocs)
		}
		st := cpu.Stats()
		if st.Preemptions == 0 || st.Yields == 0 {
			t.Errorf("cache %+v: the loop exercised no preemption (%d) or yield (%d)", cache, st.Preemptions, st.Yields)
		}
		if (st.Refills > 0) != (cache.Refill > 0) {
			t.Errorf("cache %+v: %d refills", cache, st.Refills)
		}
	}
}

// BenchmarkCPUPolicy runs BenchmarkCPUThreads' load (16 closed-loop
// threads on 4 processors: bursts of six 100 us queries, an exponential
// sleep of mean 2.4 ms, a 10 us wake-up) under each policy, the threads
// carrying their lag: events/s, and jobs/s since Fair has more events per
// job.
func BenchmarkCPUPolicy(b *testing.B) {
	cases := []struct {
		name  string
		p     CPUPolicy
		cache CacheConfig
	}{
		{"policy=wake_first", WakeFirst, CacheConfig{}},
		{"policy=fair", Fair, CacheConfig{}},
		{"policy=fair/cache", Fair, CacheConfig{Refill: 10 * time.Microsecond, Decay: 100 * time.Microsecond}},
	}
	for _, tc := range cases {
		b.Run(tc.name, func(b *testing.B) {
			e := New(1)
			cpu, err := NewCPUWithPolicy(e, 4, CPUConfig{Policy: tc.p, Fair: DefaultFairConfig(), Cache: tc.cache})
			if err != nil {
				b.Fatal(err)
			}
			nap := e.Stream("sleep")
			q := 100 * time.Microsecond
			segs := []time.Duration{q, q, q, q, q, q}
			var burst, sleep, woke func(any)
			burst = func(a any) { e.AfterArg(time.Duration(nap.Exp()*2.4e6), sleep, a) }
			sleep = func(a any) { cpu.WakeAs(a.(*CPUThread), 10*time.Microsecond, woke, a) }
			woke = func(a any) { cpu.RunAs(a.(*CPUThread), segs, burst, a) }
			threads := make([]CPUThread, 16)
			for i := range threads {
				cpu.RunAs(&threads[i], segs, burst, &threads[i])
			}
			for i := 0; i < 100000; i++ {
				e.Step()
			}
			cpu.ResetStats()
			measureSteps(b, e, 0)
			st := cpu.Stats()
			b.ReportMetric(float64(st.Completed)/b.Elapsed().Seconds(), "jobs/s")
			b.ReportMetric(float64(st.Yields)/float64(st.Wakes), "yields/wake")
			b.ReportMetric(float64(st.Preemptions)/float64(st.Wakes), "preempts/wake")
		})
	}
}

// TestFairDeterministic: the same seed gives the same schedule.
func TestFairDeterministic(t *testing.T) {
	run := func() ([]Time, CPUStats) {
		e := New(3)
		cpu, err := NewCPUWithPolicy(e, 2, CPUConfig{Policy: Fair, Fair: DefaultFairConfig()})
		if err != nil {
			t.Fatal(err)
		}
		nap, work := e.Stream("sleep"), e.Stream("work")
		var ends []Time
		segs := make([][3]time.Duration, 8)
		threads := make([]CPUThread, 8)
		var burst, sleep, woke func(any)
		burst = func(a any) {
			ends = append(ends, e.Now())
			e.AfterArg(time.Duration(nap.Exp()*1e6), sleep, a)
		}
		sleep = func(a any) { cpu.WakeAs(&threads[a.(int)], 20*us, woke, a) }
		woke = func(a any) {
			i := a.(int)
			for k := range segs[i] {
				segs[i][k] = time.Duration(work.Exp() * 3e5)
			}
			cpu.RunAs(&threads[i], segs[i][:], burst, a)
		}
		for i := range threads {
			woke(i)
		}
		e.RunUntil(Time(time.Second))
		return ends, cpu.Stats()
	}
	e1, s1 := run()
	e2, s2 := run()
	if d := cmp.Diff(s1, s2); d != "" {
		t.Errorf("statistics differ between two runs:\n%s", d)
	}
	if d := cmp.Diff(e1, e2); d != "" {
		t.Errorf("burst completions differ between two runs:\n%s", d)
	}
	if s1.Preemptions == 0 || s1.Yields == 0 {
		t.Errorf("the run exercised no preemption (%d) or yield (%d)", s1.Preemptions, s1.Yields)
	}
}

// TestFairDelayZero: with DELAY_DEQUEUE/DELAY_ZERO a thread that ran past
// its share leaves with lag 0, without it with its negative lag; a
// positive lag is kept either way.
func TestFairDelayZero(t *testing.T) {
	tests := []struct {
		name      string
		delayZero bool
		wantNeg   bool // the thread that overran leaves with lag < 0
	}{
		{"6.6-6.11 rule", false, true},
		{"6.12+ rule", true, false},
	}
	for _, tc := range tests {
		cfg := DefaultFairConfig()
		cfg.DelayZero = tc.delayZero
		env := New(1)
		cpu, err := NewCPUWithPolicy(env, 1, CPUConfig{Policy: Fair, Fair: cfg})
		if err != nil {
			t.Fatal(err)
		}
		// One processor, 0.75 ms slices: a (1 ms) runs 0-0.75 ms, b
		// (10 ms) 0.75-1.5 ms, a again to 1.75 ms; a leaves with v = 1 ms
		// against b's 0.75 ms, 0.125 ms past its share.
		var a, b CPUThread
		cpu.RunAs(&a, []time.Duration{1 * ms}, nil, nil)
		cpu.RunAs(&b, []time.Duration{10 * ms}, nil, nil)
		env.Run()
		if neg := a.Lag() < 0; neg != tc.wantNeg {
			t.Errorf("%s: the overrunning thread left with lag %v", tc.name, a.Lag())
		}
		if b.Lag() < 0 {
			t.Errorf("%s: the waiting thread left with lag %v, want >= 0", tc.name, b.Lag())
		}
	}
}
