package sim

import (
	"fmt"
	"time"
)

// CPU is a machine's processors as an operating-system scheduler shares
// them among threads, at the granularity that matters for a server whose
// threads alternate short bursts of work with sleeps.
//
// A thread that runs queries submits a burst (Run): the CPU of consecutive
// segments (one per query) that it executes on one processor. A thread that
// wakes from a sleep (a lock, a condition variable, an I/O) needs a
// processor for a short continuation (Wake). Bursts start in arrival order
// when a processor is free. Woken threads go first: they take a free
// processor, or else the first segment boundary of a running burst, where a
// real thread would block on its client anyway and the scheduler runs the
// thread that woke meanwhile; the burst resumes as soon as a processor
// frees, ahead of bursts that have not started. A running segment is never
// cut (the scheduler's wake-up preemption granularity is longer than a
// query's CPU).
//
// That rule is the WakeFirst policy, NewCPU's. NewCPUWithPolicy can choose
// Fair instead, a simplified EEVDF (Linux's fair class since 6.6): see
// cpu_fair.go and docs/kernel.md.
//
// Time integrals are kept as in Station, so that utilisation and waits come
// out exactly.
type CPU struct {
	env     *Env
	policy  CPUPolicy
	servers int
	busy    int
	slots   []cpuSlot
	idle    []int32
	woken   FIFO[cpuJob]
	yielded FIFO[cpuJob] // bursts that gave their processor to a woken thread
	bursts  FIFO[cpuJob]
	yields  int // slots with a yield scheduled (<= woken.Len())
	finish  func(any)
	yield   func(any)

	serverStats // since the last ResetStats
	yieldCount  int64
	wakes       int64
	wakeWait    int64

	fair cpuFair // the Fair policy's state
}

// cpuJob is a burst (segs, from segment k) or a wake (segs nil, service d).
type cpuJob struct {
	segs   []time.Duration
	k      int
	d      time.Duration
	done   func(any)
	arg    any
	queued Time

	// Fair policy only (its scheduling key is a fairKey).
	th   *CPUThread    // whose lag and caches (CacheConfig) the job carries, or nil
	left time.Duration // CPU left in the current segment (or the wake)
	ran  bool          // started once (counted in the statistics)
}

func (j *cpuJob) remaining() time.Duration {
	if j.segs == nil {
		return j.d
	}
	var d time.Duration
	for _, s := range j.segs[j.k:] {
		d += s
	}
	return d
}

type cpuSlot struct {
	cpuJob
	index   int32
	start   Time
	end     *Alarm // the end of the running segment (Fair: or of the slice)
	yieldAt Time
	yieldK  int     // the segment the burst resumes at after the yield
	yieldT  Timer   // pending yield, if any
	busy    bool    // Fair: running a thread
	protect bool    // Fair: picked and not yet past its deadline (RUN_TO_PARITY)
	fk      fairKey // Fair: the running job's key; its body is fair.jobs[fk.id]

	busyFrom Time  // Fair: when the slot last became busy
	runNs    int64 // Fair: the time it ran threads before that
}

// NewCPU returns n processors under the WakeFirst policy. It panics if
// n < 1.
func NewCPU(env *Env, n int) *CPU {
	if n < 1 {
		panic(fmt.Sprintf("sim: CPU needs at least one processor, got %d", n))
	}
	return newCPU(env, n)
}

func newCPU(env *Env, n int) *CPU {
	c := &CPU{env: env, servers: n, slots: make([]cpuSlot, n), idle: make([]int32, n)}
	for i := range c.slots {
		c.slots[i].index = int32(i)
		c.idle[n-1-i] = int32(i)
	}
	c.finish = c.onFinish
	c.yield = c.onYield
	for i := range c.slots {
		c.slots[i].end = env.NewAlarm(c.finish, &c.slots[i])
	}
	c.reset(env.now, 0)
	return c
}

// Servers returns the number of processors.
func (c *CPU) Servers() int { return c.servers }

// Busy returns the number of processors running a thread now.
func (c *CPU) Busy() int { return c.busy }

// QueueLen returns the number of threads waiting for a processor.
func (c *CPU) QueueLen() int {
	return c.woken.Len() + c.yielded.Len() + c.bursts.Len() + c.fair.waiting
}

// Policy returns the scheduling policy.
func (c *CPU) Policy() CPUPolicy { return c.policy }

// Run queues a burst of the given segments; done(arg) runs when the last
// one has executed. segs is read, not copied: the caller keeps it unchanged
// until done. It panics on a negative segment. Under Fair the burst is an
// anonymous thread, placed with no lag.
func (c *CPU) Run(segs []time.Duration, done func(any), arg any) {
	c.RunAs(nil, segs, done, arg)
}

// RunAs is Run for thread th, whose lag under Fair it carries and updates
// (WakeFirst ignores th). th may be nil.
func (c *CPU) RunAs(th *CPUThread, segs []time.Duration, done func(any), arg any) {
	for _, s := range segs {
		if s < 0 {
			panic(fmt.Sprintf("sim: negative CPU segment %v", s))
		}
	}
	if segs == nil {
		segs = []time.Duration{}
	}
	c.submit(cpuJob{segs: segs, done: done, arg: arg, queued: c.env.now, th: th})
}

// Wake queues a woken thread's continuation of d; done(arg) runs when it
// has executed. It panics if d is negative. Under Fair the thread is
// anonymous, placed with no lag.
func (c *CPU) Wake(d time.Duration, done func(any), arg any) {
	c.WakeAs(nil, d, done, arg)
}

// WakeAs is Wake for thread th, whose lag under Fair it carries and updates
// (WakeFirst ignores th). th may be nil.
func (c *CPU) WakeAs(th *CPUThread, d time.Duration, done func(any), arg any) {
	if d < 0 {
		panic(fmt.Sprintf("sim: negative CPU time %v", d))
	}
	c.wakes++
	c.submit(cpuJob{d: d, done: done, arg: arg, queued: c.env.now, th: th})
}

// Waker puts a thread back on a processor each time a blocking call it
// sleeps in wakes it (disk.Sleeper: the device waits inside an fdatasync):
// each wake-up costs Cost of CPU and, when the processors are busy, the
// wait for one; the thread is placed with its lag (WakeAs), as Linux
// places every task it wakes.
type Waker struct {
	CPU    *CPU
	Thread *CPUThread
	Cost   time.Duration
}

// Wake runs next(arg) once the thread has run its wake-up.
func (w *Waker) Wake(next func(any), arg any) { w.CPU.WakeAs(w.Thread, w.Cost, next, arg) }

func (c *CPU) submit(j cpuJob) {
	if c.policy == Fair {
		c.fairSubmit(j)
		return
	}
	c.account()
	c.arrived++
	if c.busy < c.servers {
		i := c.idle[len(c.idle)-1]
		c.idle = c.idle[:len(c.idle)-1]
		c.busy++
		c.start(&c.slots[i], j)
		return
	}
	if j.segs == nil {
		c.woken.Push(j)
		c.planYield()
	} else {
		c.bursts.Push(j)
	}
	c.maxQueue = max(c.maxQueue, c.QueueLen())
}

// start runs j on slot s (counted busy by the caller).
func (c *CPU) start(s *cpuSlot, j cpuJob) {
	now := c.env.now
	d := j.remaining()
	if j.k == 0 || j.segs == nil {
		c.started++
		c.waitSum += int64(now - j.queued)
		c.serviceSum += int64(d)
		if j.segs == nil {
			c.wakeWait += int64(now - j.queued)
		}
	}
	s.cpuJob = j
	s.start = now
	s.end.After(d)
}

// planYield schedules yields at the earliest segment boundaries of running
// bursts until every woken thread has a processor coming.
func (c *CPU) planYield() {
	now := c.env.now
	for c.yields < c.woken.Len() {
		best := -1
		var bestAt Time
		var bestK int
		for i := range c.slots {
			s := &c.slots[i]
			if s.segs == nil || c.env.Scheduled(s.yieldT) {
				continue
			}
			t := s.start
			for k := s.k; k < len(s.segs)-1; k++ {
				t += Time(s.segs[k])
				if t > now {
					if best < 0 || t < bestAt {
						best, bestAt, bestK = i, t, k+1
					}
					break
				}
			}
		}
		if best < 0 {
			return
		}
		s := &c.slots[best]
		s.yieldAt, s.yieldK = bestAt, bestK
		s.yieldT = c.env.AtArg(bestAt, c.yield, s)
		c.yields++
	}
}

// onYield: a burst reached a segment boundary with a woken thread waiting.
func (c *CPU) onYield(a any) {
	s := a.(*cpuSlot)
	c.yields--
	s.end.Stop()
	j := s.cpuJob
	j.k = s.yieldK
	c.yielded.Push(j)
	c.yieldCount++
	c.account()
	c.start(s, c.woken.Pop())
}

func (c *CPU) onFinish(a any) {
	s := a.(*cpuSlot)
	if c.policy == Fair {
		c.fairEvent(s)
		return
	}
	done, arg := s.done, s.arg
	if c.env.Scheduled(s.yieldT) {
		c.env.Cancel(s.yieldT)
		c.yields--
	}
	s.cpuJob = cpuJob{}
	c.account()
	c.completed++
	switch {
	case c.woken.Len() > 0:
		c.start(s, c.woken.Pop())
		c.dropYields()
	case c.yielded.Len() > 0:
		c.start(s, c.yielded.Pop())
	case c.bursts.Len() > 0:
		c.start(s, c.bursts.Pop())
	default:
		c.busy--
		c.idle = append(c.idle, s.index)
	}
	c.planYield()
	if done != nil {
		done(arg)
	}
}

// dropYields cancels the latest planned yields beyond what the woken
// threads still need.
func (c *CPU) dropYields() {
	for c.yields > c.woken.Len() {
		latest := -1
		for i := range c.slots {
			s := &c.slots[i]
			if c.env.Scheduled(s.yieldT) && (latest < 0 || s.yieldAt > c.slots[latest].yieldAt) {
				latest = i
			}
		}
		c.env.Cancel(c.slots[latest].yieldT)
		c.yields--
	}
}

func (c *CPU) account() { c.serverStats.account(c.env.now, c.busy, c.QueueLen()) }

// ResetStats forgets the statistics gathered so far; threads running and
// waiting are kept.
func (c *CPU) ResetStats() {
	c.account()
	c.reset(c.env.now, c.QueueLen())
	c.yieldCount, c.wakes, c.wakeWait, c.fair.preempts = 0, 0, 0, 0
	c.fair.refills, c.fair.refillNs = 0, 0
	c.fair.idleWakes, c.fair.idleWakeNs = 0, 0
	c.fair.irqs, c.fair.irqsBusy, c.fair.irqNs = 0, 0, 0
}

// CPUStats summarises a CPU since its last ResetStats.
type CPUStats struct {
	StationStats
	Wakes        int64         // continuations of woken threads
	MeanWakeWait time.Duration // mean wait of a woken thread for a processor
	Yields       int64         // bursts that yielded at a segment boundary
	Preemptions  int64         // Fair: threads cut mid-segment (wake-up or slice end)
	Refills      int64         // Fair: arrivals charged a cache refill (CacheConfig)
	RefillCPU    time.Duration // Fair: the CPU those refills took
	IdleWakes    int64         // Fair: wake-ups onto an idle processor charged CPUConfig.IdleWake
	IdleWakeCPU  time.Duration // Fair: the CPU they took
	Interrupts   int64         // Fair, CPUConfig.IRQCost > 0: device interrupts delivered
	BusyIRQs     int64         // of them, those that found their processor running a thread
	IRQCPU       time.Duration // the CPU those took from the threads
}

// Stats returns the CPU's statistics up to now.
func (c *CPU) Stats() CPUStats {
	c.account()
	st := CPUStats{StationStats: c.summary(c.env.now, c.servers), Wakes: c.wakes, Yields: c.yieldCount,
		Preemptions: c.fair.preempts, Refills: c.fair.refills, RefillCPU: time.Duration(c.fair.refillNs),
		IdleWakes: c.fair.idleWakes, IdleWakeCPU: time.Duration(c.fair.idleWakeNs),
		Interrupts: c.fair.irqs, BusyIRQs: c.fair.irqsBusy, IRQCPU: time.Duration(c.fair.irqNs)}
	if c.wakes > 0 {
		st.MeanWakeWait = time.Duration(c.wakeWait / c.wakes)
	}
	return st
}
