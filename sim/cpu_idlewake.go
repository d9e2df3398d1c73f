package sim

import "time"

// The wake-up of an idle processor under the Fair policy
// (CPUConfig.IdleWake).
//
// Linux's try_to_wake_up queues a woken task on a busy CPU's runqueue with
// a lock and no interrupt, but an idle target must be woken: the waker
// sends it an inter-processor interrupt (ttwu_queue_cond: queue on the
// wake list of an idle CPU; smp_send_reschedule), and the target leaves
// its halt. On a VM both the interrupt and the halt trap to the
// hypervisor, and the guest pays for the exits in CPU: on the realdb host
// a futex ping-pong between two vCPUs costs 5-22 us of CPU a wake-up where
// one on the same vCPU costs 0.7-2 us (scripts/realdb/wake.c,
// docs/realdb.md). So a lone connection pays an interrupt at every hop
// between its client and its server thread, and a crowd that keeps every
// processor busy pays none.
//
// The CPU charges IdleWake to a thread's job, in its current segment:
//   - when the job starts on a processor that was idle (it was woken onto
//     it): once, or CPUThread.HandOffs times for a job of segments;
//   - at each segment boundary passed while another processor is idle
//     (CPUThread.HandOffs times): a segment stands for a query, whose
//     request wakes the server thread and whose reply wakes the client,
//     each onto the idle processor select_idle_sibling finds.
//
// Whether another processor is idle changes only when the busy count
// crosses the processor count, and then every running thread is brought to
// that instant first (setBusy), so the boundaries it passed alone are
// charged by the state they were passed in. Jobs with no thread (Run,
// Wake) pay nothing, as with the caches.

// handOffs is the cross-thread wake-ups each segment start of j stands for.
func handOffs(j *cpuJob) int64 {
	if j.segs != nil && j.th.HandOffs > 1 {
		return int64(j.th.HandOffs)
	}
	return 1
}

// handOffCost is what a boundary of j costs now: IdleWake per hand-off if
// another processor is idle (j's own is busy), else nothing.
func (c *CPU) handOffCost(j *cpuJob) time.Duration {
	f := &c.fair
	if f.idleWake == 0 || j.th == nil || c.busy >= c.servers {
		return 0
	}
	return time.Duration(f.idleWake * handOffs(j))
}

// handOff charges a boundary of j that is passed now and returns its cost.
func (c *CPU) handOff(j *cpuJob) time.Duration {
	d := c.handOffCost(j)
	if d > 0 {
		c.fair.idleWakes += handOffs(j)
		c.fair.idleWakeNs += int64(d)
	}
	return d
}

// wokeIdle charges j, just put on an idle processor, for the wake-up.
func (c *CPU) wokeIdle(j *cpuJob) {
	f := &c.fair
	if f.idleWake == 0 || j.th == nil {
		return
	}
	n := handOffs(j)
	d := time.Duration(f.idleWake * n)
	j.left += d
	f.idleWakes += n
	f.idleWakeNs += int64(d)
}

// setBusy sets the count of busy processors. When that changes whether a
// processor is idle, every running thread is first brought to now under
// the old state and then rescheduled under the new one.
func (c *CPU) setBusy(n int) {
	if c.fair.idleWake == 0 || (c.busy < c.servers) == (n < c.servers) {
		c.busy = n
		return
	}
	for i := range c.slots {
		if s := &c.slots[i]; s.busy {
			c.sync(s)
		}
	}
	c.busy = n
	for i := range c.slots {
		if s := &c.slots[i]; s.busy {
			s.end.Stop()
			c.schedule(s)
		}
	}
}
