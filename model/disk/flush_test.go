package disk

import (
	"testing"
	"time"

	"simrun/sim"
)

// A flush completes only after every write acknowledged before it was
// submitted is durable (destaged from a volatile cache). Writes go to
// distinct offsets so each is identified by its offset.
func TestFlushOrdering(t *testing.T) {
	for _, name := range []string{"nvme-consumer", "hdd-7200", "network-15k-120MBps"} {
		t.Run(name, func(t *testing.T) {
			cfg := loadPreset(t, name)
			cfg.Merge = false
			env := sim.New(5)
			v, err := New(env, cfg)
			if err != nil {
				t.Fatal(err)
			}
			ackedNotDurable := map[int64]bool{}
			v.trace = func(ev traceEvent, n *ioNode) {
				switch ev {
				case evAck:
					ackedNotDurable[n.off] = true
				case evDestaged:
					delete(ackedNotDurable, n.off)
				}
			}
			// Without a cache a write is durable when acknowledged.
			wt := func(any) {}
			if !cfg.WriteCache {
				v.trace = nil
			}
			flushes, checked := 0, 0
			var off int64
			rng := env.Stream("test/flush")
			var step func(any)
			step = func(any) {
				if env.Now() > sim.At(2*time.Second) {
					return
				}
				for range 1 + rng.IntN(8) {
					v.Submit(Request{Op: Write, File: 1 << 20, Offset: off, Size: 64 << 10, Done: wt})
					off += 64 << 10
				}
				snap := make([]int64, 0, len(ackedNotDurable))
				for o := range ackedNotDurable {
					snap = append(snap, o)
				}
				flushes++
				v.Submit(Request{Op: Flush, Done: func(any) {
					for _, o := range snap {
						if ackedNotDurable[o] {
							t.Fatalf("flush done at %v while the write at %d, acknowledged before it, is not durable", env.Now(), o)
						}
					}
					checked += len(snap)
				}})
				env.AfterArg(time.Duration(rng.IntN(3000))*time.Microsecond, step, nil)
			}
			step(nil)
			env.Run()
			if cfg.WriteCache && checked == 0 {
				t.Errorf("%d flushes but no cached write was pending at any flush: test is vacuous", flushes)
			}
			if v.Dirty() != 0 {
				t.Errorf("dirty %d after drain", v.Dirty())
			}
		})
	}
}

// A flush with dirty data in the cache pays for destaging it: after 2 MB of
// writes the consumer NVMe preset's fsync costs 2 MB / 2 GB/s = 1 ms more
// than on a clean cache (Callaghan: 1-10 ms after 2 MB of writes).
func TestFlushPaysForDirtyData(t *testing.T) {
	cfg := loadPreset(t, "nvme-consumer")
	measure := func(dirty int64) time.Duration {
		env := sim.New(1)
		v, _ := New(env, cfg)
		var acked int64
		for off := int64(0); off < dirty; off += 128 << 10 {
			v.Submit(Request{Op: Write, File: 1 << 20, Offset: off, Size: 128 << 10, Done: func(any) { acked++ }})
		}
		env.RunWhile(func() bool { return acked*(128<<10) < dirty })
		start := env.Now()
		var end sim.Time
		v.Submit(Request{Op: Flush, Done: func(any) { end = env.Now() }})
		env.Run()
		return time.Duration(end - start)
	}
	clean := measure(0)
	dirty := measure(2 << 20)
	if extra := dirty - clean; extra < 700*time.Microsecond || extra > 1200*time.Microsecond {
		t.Errorf("fsync after 2 MiB: %v vs clean %v; want ~1 ms more (2 MiB at 2 GB/s, minus destage during the writes)", dirty, clean)
	}
}
