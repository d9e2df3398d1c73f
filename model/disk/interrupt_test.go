package disk

import (
	"testing"
	"time"

	"simrun/sim"
)

// TestInterruptPerCompletion: SetInterrupt's function runs once per
// host-visible device I/O (merged requests once, a cached write at its
// acknowledgement, a flush), before the caller hears of it.
func TestInterruptPerCompletion(t *testing.T) {
	for _, preset := range []string{"network-15k-120MBps", "nvme-consumer", "hdd-7200"} {
		env := sim.New(3)
		v, err := New(env, loadPreset(t, preset))
		if err != nil {
			t.Fatal(err)
		}
		var irqs, early int64
		last := sim.Time(-1)
		v.SetInterrupt(func() { irqs++; last = env.Now() })
		d := newDriver(env, v, 8, 4096, 64<<20)
		d.readPct, d.flushPct, d.seq = 30, 10, true // sequential: some merge
		cb := d.cb
		d.cb = func(a any) {
			if last != env.Now() {
				early++
			}
			cb(a)
		}
		d.stopAt = sim.At(200 * time.Millisecond)
		d.start()
		env.Run()
		io := v.Iostat()
		if n := io.Reads + io.Writes + io.Flushes; irqs != n || n == 0 {
			t.Errorf("%s: %d interrupts for %d device I/Os", preset, irqs, n)
		}
		if early > 0 {
			t.Errorf("%s: %d completions reached their caller with no interrupt at that instant", preset, early)
		}
		if preset == "network-15k-120MBps" && d.done <= irqs {
			t.Errorf("%s: %d requests done for %d interrupts: no merge exercised", preset, d.done, irqs)
		}
	}
}

// TestFlushDispatchPerFlush: SetFlushDispatch's function runs once per
// flush request as it enters the device queue (a flush is never merged),
// and for nothing else.
func TestFlushDispatchPerFlush(t *testing.T) {
	for _, preset := range []string{"network-15k-120MBps", "nvme-consumer", "hdd-7200"} {
		env := sim.New(5)
		v, err := New(env, loadPreset(t, preset))
		if err != nil {
			t.Fatal(err)
		}
		var calls int64
		v.SetFlushDispatch(func() { calls++ })
		d := newDriver(env, v, 8, 4096, 64<<20)
		d.readPct, d.flushPct, d.seq = 30, 10, true
		d.stopAt = sim.At(200 * time.Millisecond)
		d.start()
		env.Run()
		if n := v.Iostat().Flushes; calls != n || n == 0 {
			t.Errorf("%s: %d dispatches for %d flushes", preset, calls, n)
		}
	}
}
