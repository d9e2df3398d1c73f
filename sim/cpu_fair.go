package sim

import (
	"errors"
	"fmt"
	"math/bits"
	"time"
)

// CPUPolicy is the rule by which a CPU gives its processors to threads.
type CPUPolicy int

const (
	// WakeFirst gives a woken thread strict priority: a free processor, or
	// else the next segment boundary of a running burst (NewCPU's rule).
	WakeFirst CPUPolicy = iota
	// Fair places every thread that becomes runnable by its lag and runs
	// the eligible thread with the earliest virtual deadline, as Linux's
	// EEVDF does (kernel/sched/fair.c since 6.6); a wake-up preempts only
	// a thread that has run past its fair share.
	Fair
)

func (p CPUPolicy) String() string {
	switch p {
	case WakeFirst:
		return "wake_first"
	case Fair:
		return "fair"
	}
	return fmt.Sprintf("CPUPolicy(%d)", int(p))
}

// SliceScaling is sysctl_sched_tunable_scaling: how the kernel scales its
// base slice with the number of CPUs (at most 8 are counted).
type SliceScaling int

const (
	ScaleLog    SliceScaling = iota // factor 1 + ilog2(cpus): the kernel's default
	ScaleNone                       // factor 1
	ScaleLinear                     // factor cpus
)

func (s SliceScaling) String() string {
	switch s {
	case ScaleLog:
		return "log"
	case ScaleNone:
		return "none"
	case ScaleLinear:
		return "linear"
	}
	return fmt.Sprintf("SliceScaling(%d)", int(s))
}

// FairConfig holds the Fair policy's parameters, named after the kernel's.
type FairConfig struct {
	// BaseSlice is normalized_sysctl_sched_base_slice: the virtual time a
	// thread may run before its deadline, before scaling (0.75 ms).
	BaseSlice time.Duration
	// Scaling is sysctl_sched_tunable_scaling (log).
	Scaling SliceScaling
	// Tick is TICK_NSEC = 1 s / CONFIG_HZ; it floors the lag limit
	// (Debian's kernels: HZ = 250, 4 ms).
	Tick time.Duration
	// DelayZero is the DELAY_DEQUEUE + DELAY_ZERO features (on since
	// 6.12): a thread that sleeps owing CPU (negative lag) stays queued
	// until it is eligible and then leaves with lag 0. Taken as exact for
	// a sleep long enough to reach eligibility: the thread keeps
	// max(lag, 0).
	DelayZero bool
}

// DefaultFairConfig returns the kernel's defaults.
func DefaultFairConfig() FairConfig {
	return FairConfig{BaseSlice: 750 * time.Microsecond, Scaling: ScaleLog, Tick: 4 * time.Millisecond, DelayZero: true}
}

// Validate reports every parameter out of range.
func (f FairConfig) Validate() error {
	var errs []error
	if f.BaseSlice < time.Microsecond || f.BaseSlice > time.Second {
		errs = append(errs, fmt.Errorf("base_slice: must be in [1us, 1s], got %v", f.BaseSlice))
	}
	if f.Scaling < ScaleLog || f.Scaling > ScaleLinear {
		errs = append(errs, fmt.Errorf("scaling: must be log, none or linear, got %v", f.Scaling))
	}
	if f.Tick < time.Millisecond || f.Tick > 10*time.Millisecond {
		errs = append(errs, fmt.Errorf("tick: must be in [1ms, 10ms] (CONFIG_HZ 1000..100), got %v", f.Tick))
	}
	return errors.Join(errs...)
}

// Slice returns the base slice scaled for n processors (update_sysctl:
// sysctl_sched_base_slice = factor * normalized_sysctl_sched_base_slice).
func (f FairConfig) Slice(n int) time.Duration {
	cpus := min(max(n, 1), 8)
	factor := 1
	switch f.Scaling {
	case ScaleLog:
		factor = bits.Len(uint(cpus)) // 1 + ilog2(cpus)
	case ScaleLinear:
		factor = cpus
	}
	return time.Duration(factor) * f.BaseSlice
}

// LagLimit returns the largest lag a thread keeps when it leaves the
// processors (update_entity_lag: max(2 slices, one tick)).
func (f FairConfig) LagLimit(n int) time.Duration { return max(2*f.Slice(n), f.Tick) }

// CPUConfig chooses a CPU's policy and the Fair policy's parameters
// (ignored under WakeFirst).
type CPUConfig struct {
	Policy CPUPolicy
	Fair   FairConfig
	Cache  CacheConfig // Fair only
	// IdleWake is the extra CPU a thread costs when it is woken onto an
	// idle processor, beyond a wake-up where the processors are busy: the
	// waker's inter-processor interrupt and the idle processor's exit
	// from halt (Linux's try_to_wake_up sends an IPI only to an idle
	// target, ttwu_queue_cond; on a VM both trap to the hypervisor). Fair
	// only; cpu_idlewake.go says where it is charged.
	IdleWake time.Duration
	// IRQCost is the CPU a device's completion interrupt takes from the
	// thread running on the processor that receives it (its handler and,
	// on a VM, the exits that inject it); nothing when that processor is
	// idle. Fair only; cpu_irq.go says where it is charged.
	IRQCost time.Duration
}

// CacheConfig is what a processor's caches cost a thread that comes back to
// them (cpu_cache.go). The zero value is caches that cost nothing.
type CacheConfig struct {
	// Refill is the CPU a thread spends reloading its working set into a
	// processor's caches that no longer hold any of it.
	Refill time.Duration
	// Decay is the run time of other threads on a processor over which a
	// thread's state in its caches falls by a factor e.
	Decay time.Duration
}

// Validate reports a parameter out of range.
func (c CacheConfig) Validate() error { return c.ValidateAs("refill", "decay") }

// ValidateAs is Validate with the parameters named as the caller's
// configuration names them.
func (c CacheConfig) ValidateAs(refill, decay string) error {
	var errs []error
	if c.Refill < 0 || c.Refill > time.Millisecond {
		errs = append(errs, fmt.Errorf("%s: must be in [0, 1ms], got %v", refill, c.Refill))
	}
	if c.Refill > 0 && (c.Decay < time.Microsecond || c.Decay > time.Second) {
		errs = append(errs, fmt.Errorf("%s: must be in [1us, 1s] when %s > 0, got %v", decay, refill, c.Decay))
	}
	return errors.Join(errs...)
}

// Validate reports a policy or parameter out of range.
func (c CPUConfig) Validate() error {
	switch c.Policy {
	case WakeFirst:
		if c.Cache.Refill != 0 {
			return fmt.Errorf("cache.refill: needs the fair policy, got %v under wake_first", c.Cache.Refill)
		}
		if c.IdleWake != 0 {
			return fmt.Errorf("idle_wake: needs the fair policy, got %v under wake_first", c.IdleWake)
		}
		if c.IRQCost != 0 {
			return fmt.Errorf("irq_cost: needs the fair policy, got %v under wake_first", c.IRQCost)
		}
		return nil
	case Fair:
		if err := c.Fair.Validate(); err != nil {
			return fmt.Errorf("fair.%w", err)
		}
		if err := c.Cache.Validate(); err != nil {
			return fmt.Errorf("cache.%w", err)
		}
		if c.IdleWake < 0 || c.IdleWake > time.Millisecond {
			return fmt.Errorf("idle_wake: must be in [0, 1ms], got %v", c.IdleWake)
		}
		if c.IRQCost < 0 || c.IRQCost > time.Millisecond {
			return fmt.Errorf("irq_cost: must be in [0, 1ms], got %v", c.IRQCost)
		}
		return nil
	}
	return fmt.Errorf("policy: must be wake_first or fair, got %v", c.Policy)
}

// NewCPUWithPolicy returns n processors under cfg's policy, or an error
// naming what is out of range.
func NewCPUWithPolicy(env *Env, n int, cfg CPUConfig) (*CPU, error) {
	if n < 1 {
		return nil, fmt.Errorf("processors: must be at least 1, got %d", n)
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	c := newCPU(env, n)
	c.policy = cfg.Policy
	if cfg.Policy == Fair {
		c.fair.slice = int64(cfg.Fair.Slice(n))
		c.fair.limit = int64(cfg.Fair.LagLimit(n))
		c.fair.rqs = make([]cpuRQ, n)
		c.fair.delayZero = cfg.Fair.DelayZero
		c.fair.refill, c.fair.decay = float64(cfg.Cache.Refill), float64(cfg.Cache.Decay)
		c.fair.idleWake = int64(cfg.IdleWake)
		c.fair.irqCost = int64(cfg.IRQCost)
	}
	return c, nil
}

// CPUThread is the scheduling state a thread keeps across its sleeps: under
// Fair, the lag it left the processors with (se->vlag), which places it
// when it wakes. The zero value is a thread with no lag. A thread has at
// most one job on a CPU at a time.
type CPUThread struct {
	// HandOffs is the cross-thread wake-ups each segment of the thread's
	// segmented jobs (RunAs) stands for, for CPUConfig.IdleWake: a
	// sysbench connection's query is 2 (its request wakes the server
	// thread, its reply the client); 0 or 1 is one.
	HandOffs int

	vlag int64 // ns of virtual time owed to the thread (> 0) or by it
	slot int32 // 1 + the processor it last ran on; 0: none yet
	left int64 // that processor's run time when the thread left it, ns
}

// Lag returns the lag the thread last left the processors with.
func (t *CPUThread) Lag() time.Duration { return time.Duration(t.vlag) }

// cpuFair is the Fair policy's state: a runqueue per processor and the
// bodies of the jobs on the CPU. The rule reads and moves only keys
// (fairKey: four words, no pointers), so a switch trades two keys and a
// pick scans contiguous words; a body stays in place from submission to
// completion.
type cpuFair struct {
	slice, limit int64 // ns
	rqs          []cpuRQ
	jobs         []cpuJob // the bodies, by fairKey.id
	free         []int32  // indices of unused bodies
	seq          uint64
	preempts     int64
	waiting      int // threads waiting on all runqueues
	delayZero    bool

	refill, decay float64 // CacheConfig, ns
	refills       int64   // arrivals charged a refill
	refillNs      int64   // the CPU they were charged

	idleWake   int64 // CPUConfig.IdleWake, ns
	idleWakes  int64 // wake-ups charged it
	idleWakeNs int64 // the CPU they were charged

	irqCost  int64 // CPUConfig.IRQCost, ns
	irqs     int64 // interrupts delivered
	irqsBusy int64 // of them, those that found processor 0 running a job
	irqNs    int64 // the CPU those took
}

// fairKey is what the Fair rule reads of a job: its virtual runtime and
// deadline, its arrival order, and where its body is.
type fairKey struct {
	v   int64  // virtual runtime, ns (nice 0: one ns per ns run)
	dl  int64  // virtual deadline, ns
	seq uint64 // arrival order, for ties
	id  int32  // the body: cpuFair.jobs[id]
}

// add stores a new job's body and returns its index.
func (f *cpuFair) add(j *cpuJob) int32 {
	if n := len(f.free); n > 0 {
		id := f.free[n-1]
		f.free = f.free[:n-1]
		f.jobs[id] = *j
		return id
	}
	f.jobs = append(f.jobs, *j)
	return int32(len(f.jobs) - 1)
}

// body returns the body of k's job. A submission may move the bodies: do
// not keep the pointer across one.
func (f *cpuFair) body(k *fairKey) *cpuJob { return &f.jobs[k.id] }

// cpuRQ is one processor's runqueue (struct cfs_rq): its waiting threads
// and the sum of its runnable threads' vruntimes, so that their average
// (avg_vruntime) is exact.
type cpuRQ struct {
	wait   []fairKey
	vsum   int64 // sum of the runnable threads' vruntimes at vtime
	vtime  Time
	nrun   int64 // runnable threads: the running one + the waiting ones
	vfloor int64 // the average when nothing is runnable
}

// advance brings vsum to now: the running thread's vruntime grows by the
// time it ran (nice 0: weight 1024, so virtual time is real time).
func (r *cpuRQ) advance(now Time, running bool) {
	if running {
		r.vsum += int64(now - r.vtime)
	}
	r.vtime = now
}

// avg is avg_vruntime, V: the mean vruntime of the runnable threads.
func (r *cpuRQ) avg() int64 {
	if r.nrun == 0 {
		return r.vfloor
	}
	q := r.vsum / r.nrun
	if r.vsum%r.nrun != 0 && r.vsum < 0 {
		q-- // floor
	}
	return q
}

// eligible is entity_eligible: the thread has received no more than its
// share, v <= V, compared without division.
func (r *cpuRQ) eligible(v int64) bool { return v*r.nrun <= r.vsum }

// pick is pick_eevdf over the waiting threads: the eligible one with the
// earliest deadline, or if none is eligible the one with the least
// vruntime (the kernel's fallback to the leftmost).
func (r *cpuRQ) pick() int {
	w := r.wait
	n, sum := r.nrun, r.vsum // eligible, with the sums in registers
	best := -1
	for i := range w {
		if w[i].v*n <= sum && (best < 0 || before(&w[i], &w[best])) {
			best = i
		}
	}
	if best >= 0 {
		return best
	}
	for i := range w {
		if best < 0 || w[i].v < w[best].v || w[i].v == w[best].v && w[i].seq < w[best].seq {
			best = i
		}
	}
	return best
}

// takeInto moves the i-th waiting thread's key to dst (ties are broken by
// seq, not by place, so the order of the slice does not matter).
func (r *cpuRQ) takeInto(i int, dst *fairKey) {
	w := r.wait
	*dst = w[i]
	last := len(w) - 1
	w[i] = w[last]
	r.wait = w[:last]
}

// before orders threads by virtual deadline, then arrival.
func before(a, b *fairKey) bool { return a.dl < b.dl || a.dl == b.dl && a.seq < b.seq }

func (c *CPU) clampLag(l int64) int64 { return min(max(l, -c.fair.limit), c.fair.limit) }

// rq returns slot s's runqueue, brought to now.
func (c *CPU) rq(s *cpuSlot) *cpuRQ {
	r := &c.fair.rqs[s.index]
	r.advance(c.env.now, s.busy)
	return r
}

// enqueue is place_entity: v = V - lag, the lag scaled so that it is still
// the thread's lag once the thread counts in V; the deadline one slice on.
func (c *CPU) enqueue(r *cpuRQ, k *fairKey, lag int64) {
	if r.nrun > 0 {
		lag = c.clampLag(lag) * (r.nrun + 1) / r.nrun
	} else {
		lag = 0
	}
	k.v = r.avg() - lag
	k.dl = k.v + c.fair.slice
	r.vsum += k.v
	r.nrun++
}

// dequeue takes k out of r's sums and returns the lag it leaves with
// (update_entity_lag).
func (c *CPU) dequeue(r *cpuRQ, k *fairKey) int64 {
	lag := c.clampLag(r.avg() - k.v)
	r.vsum -= k.v
	r.nrun--
	if r.nrun == 0 {
		r.vfloor = k.v
	}
	return lag
}

func (c *CPU) fairSubmit(j cpuJob) {
	f := &c.fair
	c.account()
	c.arrived++
	j.left = j.d
	if j.segs != nil {
		j.left = 0
		if len(j.segs) > 0 {
			j.left = j.segs[0]
		}
	}
	var lag int64
	if j.th != nil {
		lag = j.th.vlag
	}
	k := fairKey{seq: f.seq, id: f.add(&j)}
	f.seq++
	if c.busy < c.servers {
		s := &c.slots[c.takeIdle(j.th)]
		c.enqueue(c.rq(s), &k, lag)
		c.setBusy(c.busy + 1)
		s.fk = k
		c.wokeIdle(f.body(&k))
		c.fairStart(s)
		return
	}
	// No processor is idle: the runqueue with the fewest threads, as
	// select_task_rq_fair and the load balancer keep them even.
	t := 0
	for q := range f.rqs {
		if f.rqs[q].nrun < f.rqs[t].nrun {
			t = q
		}
	}
	t = c.affine(j.th, t)
	s := &c.slots[t]
	r := c.rq(s)
	c.enqueue(r, &k, lag)
	r.wait = append(r.wait, k)
	f.waiting++
	c.maxQueue = max(c.maxQueue, c.QueueLen())
	if len(r.wait) == 1 { // the running thread's boundaries matter now
		c.sync(s)
		s.end.Stop()
		c.schedule(s)
	}
	c.wakeupPreempt(s, len(r.wait)-1)
}

// fairStart runs the job whose key was just put in s.fk (counted busy by
// the caller; it is in s's runqueue sums) until its segment ends or its
// vruntime reaches its deadline.
func (c *CPU) fairStart(s *cpuSlot) {
	now := c.env.now
	if j := c.fair.body(&s.fk); !j.ran {
		j.ran = true
		c.started++
		c.waitSum += int64(now - j.queued)
		c.serviceSum += int64(j.remaining())
		if j.segs == nil {
			c.wakeWait += int64(now - j.queued)
		}
	}
	c.arrive(s)
	if k := &s.fk; k.v >= k.dl { // update_deadline: the slice is used up
		k.dl = k.v + c.fair.slice
	}
	c.resume(s, true)
}

// resume lets s's job run on s; protect says it has just been picked, so that a
// wake-up cannot preempt it while it is eligible (RUN_TO_PARITY). With no
// thread waiting on its runqueue it runs to the end of its job: a query
// boundary or a slice end would change nothing but its deadline, which
// sync works out if a thread comes.
func (c *CPU) resume(s *cpuSlot, protect bool) {
	if !s.busy {
		s.busyFrom = c.env.now
	}
	s.busy = true
	s.start = c.env.now
	s.protect = protect
	c.schedule(s)
}

// schedule sets s's timer for its next event.
func (c *CPU) schedule(s *cpuSlot) {
	k := &s.fk
	j := c.fair.body(k)
	d := j.left
	if len(c.fair.rqs[s.index].wait) > 0 {
		d = min(d, time.Duration(k.dl-k.v))
	} else if j.segs != nil {
		h := c.handOffCost(j)
		for _, seg := range j.segs[j.k+1:] {
			d += seg + h
		}
	}
	s.end.After(d)
}

// sync brings the thread running on s to now, through the query
// boundaries and slice ends it passed alone on its runqueue.
func (c *CPU) sync(s *cpuSlot) {
	k := &s.fk
	j := c.fair.body(k)
	el := int64(c.env.now - s.start)
	for el > int64(j.left) && j.segs != nil && j.k < len(j.segs)-1 {
		el -= int64(j.left)
		k.v += int64(j.left)
		j.k++
		j.left = j.segs[j.k] + c.handOff(j)
		k.dl = k.v + c.fair.slice // woken again, alone: no lag
		s.protect = true
	}
	k.v += el
	j.left -= time.Duration(el)
	if sl := c.fair.slice; k.dl < k.v { // slices ended with no one waiting
		k.dl += (k.v - k.dl + sl - 1) / sl * sl
		s.protect = false
	}
	s.start = c.env.now
}

// switchTo puts the thread on s, brought to now, back among r's waiting
// threads, in the place of the i-th waiting one, which runs instead: the
// two trade keys (the order of r.wait does not matter, see takeInto).
func (c *CPU) switchTo(s *cpuSlot, r *cpuRQ, i int) {
	c.leave(s, c.fair.body(&s.fk).th)
	r.wait[i], s.fk = s.fk, r.wait[i]
	c.fairStart(s)
}

// wakeupPreempt is check_preempt_wakeup_fair for the i-th waiting thread
// of s's runqueue, which just became runnable: it preempts only if it is
// what pick_eevdf would run, and only a running thread it beats there: one
// that has run past its share (ineligible), or, once the slice it was
// picked with is over, one with a later deadline.
func (c *CPU) wakeupPreempt(s *cpuSlot, i int) {
	r := c.rq(s)
	w := &r.wait[i]
	if !s.busy || !r.eligible(w.v) || r.pick() != i {
		return
	}
	c.sync(s)
	if r.eligible(s.fk.v) && (s.protect || !before(w, &s.fk)) {
		return
	}
	s.end.Stop()
	c.fair.preempts++
	c.switchTo(s, r, i)
}

// fairEvent: the thread on s reached the end of its segment or its
// deadline.
func (c *CPU) fairEvent(s *cpuSlot) {
	f := &c.fair
	c.account()
	r := c.rq(s)
	c.sync(s)
	cur := &s.fk // the thread stays in its slot while it may go on
	j := f.body(cur)
	if j.left > 0 { // deadline reached: a new slice, and a pick
		cur.dl = cur.v + f.slice
		if len(r.wait) == 0 {
			c.resume(s, false)
			return
		}
		i := r.pick()
		if w := &r.wait[i]; r.eligible(cur.v) && (!r.eligible(w.v) || !before(w, cur)) {
			c.resume(s, true)
			return
		}
		f.preempts++
		c.switchTo(s, r, i)
		return
	}
	if j.segs != nil && j.k < len(j.segs)-1 {
		// A query boundary: the thread blocks on its client and wakes at
		// once on the same processor, placed by its lag with a new
		// deadline; the processor goes to the pick of the waiting threads.
		j.k++
		j.left = j.segs[j.k] + c.handOff(j)
		c.enqueue(r, cur, c.dequeue(r, cur))
		if len(r.wait) == 0 {
			c.resume(s, true)
			return
		}
		c.yieldCount++
		i := r.pick()
		c.switchTo(s, r, i)
		// The thread that yielded (at i now) could preempt the pick only
		// if the pick is ineligible: it was just picked, so it is
		// protected while eligible, and the sums are those it was picked
		// with. Skipping the test saves a second scan of the runqueue.
		if !r.eligible(s.fk.v) {
			c.wakeupPreempt(s, i)
		}
		return
	}
	// The job is done: the thread leaves with its lag.
	lag := c.dequeue(r, cur)
	if f.delayZero && lag < 0 {
		lag = 0
	}
	if j.th != nil {
		j.th.vlag = lag
	}
	c.leave(s, j.th)
	done, arg := j.done, j.arg
	*j = cpuJob{} // keeps no references
	f.free = append(f.free, cur.id)
	s.runNs += int64(c.env.now - s.busyFrom)
	s.busy = false
	c.completed++
	switch {
	case len(r.wait) > 0:
		f.waiting--
		r.takeInto(r.pick(), &s.fk)
		c.fairStart(s)
	case f.waiting > 0:
		c.pull(s, r)
	default:
		c.setBusy(c.busy - 1)
		c.idle = append(c.idle, s.index)
	}
	if done != nil {
		done(arg)
	}
}

// pull is newidle balancing: a processor with nothing to run takes the
// next thread of the runqueue with the most waiting, keeping its lag.
func (c *CPU) pull(s *cpuSlot, r *cpuRQ) {
	f := &c.fair
	src := -1
	for q := range f.rqs {
		if n := len(f.rqs[q].wait); n > 0 && (src < 0 || n > len(f.rqs[src].wait)) {
			src = q
		}
	}
	sr := c.rq(&c.slots[src])
	k := &s.fk
	sr.takeInto(sr.pick(), k)
	lag := c.dequeue(sr, k)
	f.waiting--
	c.enqueue(r, k, lag)
	c.fairStart(s)
}
