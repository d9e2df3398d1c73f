package sim

import "time"

// Device interrupts on a busy processor under the Fair policy
// (CPUConfig.IRQCost).
//
// A block device with one request queue raises its completion interrupts
// on one vCPU (virtio-blk's req.0 vector; /proc/interrupts on the realdb
// hosts). The interrupt runs there whatever that vCPU was doing: its
// handler, the block layer's completion and, on a VM, the exits that
// inject it. When the vCPU was halted that time is idle time and costs no
// thread anything, which is why a 1-thread calibration cannot see it; when
// a thread was running, the thread loses it (scripts/realdb/irq-cost.sh
// measures 18-35 us a completion on the Firecracker hosts, docs/realdb.md).
//
// Interrupt charges IRQCost to the job running on processor 0 (the one
// that takes the interrupts; the processors are otherwise alike) as work
// added to its current segment, so the thread's vruntime and the
// processor's busy time grow with it as a tick-accounted kernel would
// charge them; on an idle processor it is counted and costs nothing.

// Interrupt delivers one device interrupt.
func (c *CPU) Interrupt() {
	f := &c.fair
	if f.irqCost == 0 {
		return
	}
	f.irqs++
	s := &c.slots[0]
	if !s.busy {
		return
	}
	c.sync(s)
	c.fair.body(&s.fk).left += time.Duration(f.irqCost)
	f.irqsBusy++
	f.irqNs += f.irqCost
	s.end.Stop()
	c.schedule(s)
}
