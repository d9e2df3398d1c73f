package sim

import (
	"math"
	"time"
)

// The cache model of the Fair policy (CacheConfig).
//
// A thread's working set (its stack, its connection's buffers, the data
// structures it touches) stays in a processor's caches while the thread is
// away only until other threads' work displaces it. A thread that comes back
// after others ran w of CPU on that processor pays
//
//	refill · (1 − e^(−w/decay))
//
// of extra CPU before its work proceeds, and the full refill on a processor
// it did not last run on (Thiébaut and Stone, "Footprints in the cache",
// ACM TOCS 1987: the footprint of an absent process decays with the
// references others make; Squillante and Lazowska, IEEE TPDS 1993, the
// reload transient of cache-affinity scheduling). So two threads that
// alternate on one processor each find their state (w is the other's
// short burst), while a processor shared by many threads sends each back
// to a cold cache. A thread with no identity (Run, Wake) is charged
// nothing but counts in the others' w.
//
// With a refill the placement follows the cache too, as Linux's
// select_idle_sibling does: a waking thread takes the processor it last ran
// on when that one is idle, and when none is idle it queues there if that
// runqueue is as short as the shortest. Without one the placement is the
// cache-blind rule it was before, so results without the model do not
// change.

// slotRun is the time slot s has spent running threads up to now, ns.
func (c *CPU) slotRun(s *cpuSlot) int64 {
	if s.busy {
		return s.runNs + int64(c.env.now-s.busyFrom)
	}
	return s.runNs
}

// leave records that th leaves slot s now.
func (c *CPU) leave(s *cpuSlot, th *CPUThread) {
	if th == nil || c.fair.refill == 0 {
		return
	}
	th.slot, th.left = s.index+1, c.slotRun(s)
}

// arrive charges the refill to the job just put on slot s, in its current
// segment.
func (c *CPU) arrive(s *cpuSlot) {
	f := &c.fair
	j := f.body(&s.fk)
	if f.refill == 0 || j.th == nil {
		return
	}
	p := int64(f.refill)
	if j.th.slot == s.index+1 {
		w := float64(c.slotRun(s) - j.th.left)
		p = int64(math.Round(f.refill * -math.Expm1(-w/f.decay)))
	}
	if p <= 0 {
		return
	}
	j.left += time.Duration(p)
	f.refills++
	f.refillNs += p
}

// takeIdle removes an idle slot from the idle list and returns it: th's
// last one if the cache model is on and that one is idle, else the
// most recently idled.
func (c *CPU) takeIdle(th *CPUThread) int32 {
	n := len(c.idle) - 1
	if c.fair.refill > 0 && th != nil && th.slot > 0 {
		for k, i := range c.idle {
			if i == th.slot-1 {
				copy(c.idle[k:], c.idle[k+1:])
				c.idle = c.idle[:n]
				return i
			}
		}
	}
	i := c.idle[n]
	c.idle = c.idle[:n]
	return i
}

// affine returns the runqueue a thread that finds no idle processor joins:
// its last one when the cache model is on and that one is as short as the
// shortest, t.
func (c *CPU) affine(th *CPUThread, t int) int {
	if c.fair.refill > 0 && th != nil && th.slot > 0 {
		if q := int(th.slot - 1); c.fair.rqs[q].nrun == c.fair.rqs[t].nrun {
			return q
		}
	}
	return t
}
