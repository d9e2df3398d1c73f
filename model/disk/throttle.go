package disk

import (
	"math"
	"time"

	"simrun/sim"
)

// Throttle is the blkio throttle of the server's cgroup on this volume
// (cgroup v1 blkio.throttle.{read,write}_{bps,iops}_device; Linux
// block/blk-throttle.c). It sits in front of the volume, not in it: a
// request the server's own threads submit waits in the throttle group's
// queue of its direction until that direction's byte and I/O allowances
// cover it, and only then enters the volume's queue, so the volume (and
// iostat) never sees the wait. Requests a kernel thread submits (the
// flusher's write-back of a buffered file, jbd2's journal commit;
// Request.Kernel) belong to no process's group and pass straight through.
// Reads and writes have separate allowances and queues; a flush is a write
// of no bytes that counts one I/O (a REQ_PREFLUSH bio passes
// blk_throtl_bio like any write: "iops limit is always counted"). A zero
// knob is no limit.
type Throttle struct {
	ReadBPS   sim.Rate     `toml:"read_bps" unit:"bytes/s" doc:"blkio.throttle.read_bps_device of the server's cgroup: bytes/s its threads may read from this volume; 0 = no limit"`
	WriteBPS  sim.Rate     `toml:"write_bps" unit:"bytes/s" doc:"blkio.throttle.write_bps_device: bytes/s the server's threads may write (O_DIRECT writes, and a buffered file's pages that its fsync writes); kernel write-back and the journal commit are not charged; 0 = no limit"`
	ReadIOPS  sim.Count    `toml:"read_iops" unit:"IOPS" doc:"blkio.throttle.read_iops_device: read bios/s of the server's threads, a bio being at most max_io_size; 0 = no limit"`
	WriteIOPS sim.Count    `toml:"write_iops" unit:"IOPS" doc:"blkio.throttle.write_iops_device: write bios/s (a flush counts one); 0 = no limit"`
	Slice     sim.Duration `toml:"slice" unit:"duration" doc:"throtl_slice: the allowance is granted a slice at a time, so a group that was idle may send one slice's worth at once; 0 = 100ms, Linux's DFL_THROTL_SLICE_HD (HZ/10), which blk_throtl_register sets on every device when CONFIG_BLK_DEV_THROTTLING_LOW is off and on rotational ones otherwise (20ms on non-rotational; Linux 6.1 block/blk-throttle.c)"`
}

// DefaultThrottleSlice is throtl_slice, DFL_THROTL_SLICE_HD: every
// device's without CONFIG_BLK_DEV_THROTTLING_LOW, a rotational one's with
// it (virtio disks and many cloud volumes report themselves rotational).
const DefaultThrottleSlice = sim.Duration(100 * time.Millisecond)

// On reports whether any knob limits.
func (t Throttle) On() bool {
	return t.ReadBPS > 0 || t.WriteBPS > 0 || t.ReadIOPS > 0 || t.WriteIOPS > 0
}

func (t Throttle) validate(bad func(string, ...any)) {
	for _, k := range []struct {
		key string
		v   float64
	}{{"read_bps", float64(t.ReadBPS)}, {"write_bps", float64(t.WriteBPS)}, {"read_iops", float64(t.ReadIOPS)}, {"write_iops", float64(t.WriteIOPS)}} {
		if !(k.v >= 0) || k.v > 1e12 {
			bad("throttle.%s: must be in [0, 1e12] (0 = no limit), got %v", k.key, k.v)
		}
	}
	if !t.On() {
		return
	}
	if t.Slice < 0 || t.Slice > sim.Duration(time.Second) {
		bad("throttle.slice: must be in [0, 1s] (0 = %v), got %v", DefaultThrottleSlice, t.Slice)
		return
	}
	for _, r := range []float64{float64(t.ReadBPS), float64(t.WriteBPS)} {
		if r > 0 && burstTokens(int64(r), t.slice()) > maxBucketTokens {
			bad("throttle.slice: bps x slice must be <= %d bytes, got %v x %v", int64(maxBucketTokens), r, t.slice())
		}
	}
}

// slice is Slice with its default.
func (t Throttle) slice() sim.Duration {
	if t.Slice == 0 {
		return DefaultThrottleSlice
	}
	return t.Slice
}

// throttleDir is one direction's allowances and queue.
type throttleDir struct {
	bytes, ios *sim.TokenBucket // nil: no limit
	queue      sim.FIFO[held]
}

// held is a request waiting for its allowance, and since when.
type held struct {
	r  Request
	at sim.Time
}

// throttle is a Volume's Throttle at run time.
type throttle struct {
	v       *Volume
	maxIO   int64
	dir     [2]throttleDir // read, write
	timer   sim.Timer
	timerAt sim.Time
	armed   bool
	onTimer func(any)
	delayed int64         // requests that waited
	waited  time.Duration // their total wait
	passed  int64         // requests that were charged
}

func newThrottle(v *Volume, t Throttle) *throttle {
	th := &throttle{v: v, maxIO: int64(v.cfg.MaxIOSize)}
	bucket := func(rate float64) *sim.TokenBucket {
		if rate <= 0 {
			return nil
		}
		r := int64(math.Round(rate))
		return sim.NewTokenBucket(r, max(1, burstTokens(r, t.slice())))
	}
	th.dir[0] = throttleDir{bytes: bucket(float64(t.ReadBPS)), ios: bucket(float64(t.ReadIOPS))}
	th.dir[1] = throttleDir{bytes: bucket(float64(t.WriteBPS)), ios: bucket(float64(t.WriteIOPS))}
	th.onTimer = th.fire
	return th
}

func dirOf(op Op) int {
	if op == Read {
		return 0
	}
	return 1
}

// bios is the I/O count of a request: the block layer splits it at
// max_io_size and blk-throttle charges each piece (the bytes once).
func (th *throttle) bios(r Request) int64 {
	if r.Size <= 0 {
		return 1
	}
	return (r.Size + th.maxIO - 1) / th.maxIO
}

// readyAt is when r's direction allows r.
func (th *throttle) readyAt(d *throttleDir, r Request, now sim.Time) sim.Time {
	t := now
	if d.bytes != nil && r.Size > 0 {
		t = max(t, d.bytes.ReadyAt(now, r.Size))
	}
	if d.ios != nil {
		t = max(t, d.ios.ReadyAt(now, th.bios(r)))
	}
	return t
}

func (th *throttle) charge(d *throttleDir, r Request, now sim.Time) {
	if d.bytes != nil && r.Size > 0 {
		d.bytes.Take(now, r.Size)
	}
	if d.ios != nil {
		d.ios.Take(now, th.bios(r))
	}
	th.passed++
}

// admit reports whether r may enter the volume now; if not, r is queued
// and enters later, in FIFO order within its direction.
func (th *throttle) admit(r Request) bool {
	if r.Kernel {
		return true
	}
	now := th.v.env.Now()
	d := &th.dir[dirOf(r.Op)]
	if d.queue.Len() == 0 && th.readyAt(d, r, now) <= now {
		th.charge(d, r, now)
		return true
	}
	d.queue.Push(held{r, now})
	th.arm(now)
	return false
}

// arm sets the timer for the earliest queue head's allowance.
func (th *throttle) arm(now sim.Time) {
	next := sim.Time(math.MaxInt64)
	for i := range th.dir {
		d := &th.dir[i]
		if d.queue.Len() > 0 {
			next = min(next, th.readyAt(d, d.queue.Front().r, now))
		}
	}
	if next == sim.Time(math.MaxInt64) {
		return
	}
	if th.armed {
		if th.timerAt <= next {
			return
		}
		th.v.env.Cancel(th.timer)
	}
	th.armed, th.timerAt = true, next
	th.timer = th.v.env.AtArg(next, th.onTimer, nil)
}

// fire dispatches every queue head its allowance now covers.
func (th *throttle) fire(any) {
	th.armed = false
	now := th.v.env.Now()
	for i := range th.dir {
		d := &th.dir[i]
		for d.queue.Len() > 0 && th.readyAt(d, d.queue.Front().r, now) <= now {
			h := d.queue.Pop()
			th.charge(d, h.r, now)
			th.delayed++
			th.waited += now.Sub(h.at)
			th.v.enqueue(h.r)
		}
	}
	th.arm(now)
}

// ThrottleMetrics is the `disk.throttle` block, present when the volume
// has a Throttle: what the server's cgroup throttle held back.
type ThrottleMetrics struct {
	Charged   int64   `json:"charged"`     // requests of the server's threads it charged
	Delayed   int64   `json:"delayed"`     // of them, requests that waited for an allowance
	WaitMsAvg float64 `json:"wait_ms_avg"` // their mean wait, before the volume's queue
	Queued    int64   `json:"queued"`      // requests waiting at the end of the run
}

// resetStats starts the counters anew (Volume.ResetStats, the warm-up's
// end); the requests held stay held.
func (th *throttle) resetStats() {
	if th != nil {
		th.delayed, th.waited, th.passed = 0, 0, 0
	}
}

func (th *throttle) report() *ThrottleMetrics {
	if th == nil {
		return nil
	}
	m := &ThrottleMetrics{Charged: th.passed, Delayed: th.delayed, Queued: int64(th.dir[0].queue.Len() + th.dir[1].queue.Len())}
	if th.delayed > 0 {
		m.WaitMsAvg = float64(th.waited) / float64(th.delayed) / 1e6
	}
	return m
}
