package disk

import (
	"testing"
	"time"

	"simrun/sim"
)

// N sequential appends queued behind a busy device leave as a few large
// writes: the first starts at once, the other 99 x 4 KiB merge into
// 256 KiB + 140 KiB. Without merging each is its own write.
func TestMergeQueuedAppends(t *testing.T) {
	for _, tc := range []struct {
		merge      bool
		wantWrites int64
	}{{true, 3}, {false, 100}} {
		cfg := loadPreset(t, "network-15k-120MBps")
		cfg.QueueDepth = 1
		cfg.Merge = tc.merge
		env := sim.New(1)
		v, err := New(env, cfg)
		if err != nil {
			t.Fatal(err)
		}
		f := v.OpenFile("log", true)
		done := 0
		cb := func(any) { done++ }
		for range 100 {
			f.Append(4<<10, SourceOther, cb, nil)
		}
		env.Run()
		io := v.Iostat()
		if done != 100 || io.Writes != tc.wantWrites {
			t.Errorf("merge=%v: %d callbacks, %d device writes; want 100, %d", tc.merge, done, io.Writes, tc.wantWrites)
		}
		if io.WriteBytes != 400<<10 {
			t.Errorf("merge=%v: wrote %d bytes, want %d", tc.merge, io.WriteBytes, 400<<10)
		}
	}
}

// committer is a group-commit-style client: append a small log record,
// fsync, repeat.
type committer struct {
	f                *File
	src              Source
	size             int64
	commits          int64
	appended, synced func(any)
}

func newCommitter(f *File, src Source, size int64) *committer {
	c := &committer{f: f, src: src, size: size}
	c.appended = func(any) {}
	c.synced = c.onSynced
	return c
}

func (c *committer) next() {
	c.f.Append(c.size, c.src, c.appended, nil)
	c.f.Sync(c.synced, nil)
}

func (c *committer) onSynced(any) {
	c.commits++
	c.next()
}

// On a volume whose byte cap is saturated by page writes, 16 committers'
// log appends queue behind the cap; merged, they go out as fewer, larger
// writes without costing commits. The per-source bytes show who wrote
// what.
func TestMergeGroupCommit(t *testing.T) {
	type result struct {
		commits   int64
		logWrites int64
		logBytes  int64
		bySrc     map[string]any
	}
	run := func(merge bool) result {
		cfg := loadPreset(t, "network-6750-54MBps")
		cfg.Merge = merge
		env := sim.New(3)
		v, err := New(env, cfg)
		if err != nil {
			t.Fatal(err)
		}
		page := v.RegisterSource("page")
		redo := v.RegisterSource("redo")
		log := v.OpenFile("redo", true)
		var res result
		v.trace = func(ev traceEvent, n *ioNode) {
			if ev == evComplete && n.file == log.ID() && n.op == Write {
				res.logWrites++
				res.logBytes += n.size
			}
		}
		bg := newDriver(env, v, 32, 16<<10, 10<<30)
		bg.src = page
		bg.start()
		cs := make([]*committer, 16)
		for i := range cs {
			cs[i] = newCommitter(log, redo, 2<<10)
			cs[i].next()
		}
		env.RunUntil(sim.At(10 * time.Second))
		for _, c := range cs {
			res.commits += c.commits
		}
		res.bySrc = v.Metrics()["write_bytes_by_source"].(map[string]any)
		return res
	}
	on, off := run(true), run(false)
	avgOn := float64(on.logBytes) / float64(on.logWrites) / 1024
	avgOff := float64(off.logBytes) / float64(off.logWrites) / 1024
	t.Logf("merge on:  %d commits, %d log writes, %.1f KiB/write", on.commits, on.logWrites, avgOn)
	t.Logf("merge off: %d commits, %d log writes, %.1f KiB/write", off.commits, off.logWrites, avgOff)
	if !(avgOn > 2*avgOff) {
		t.Errorf("merged log writes average %.1f KiB, unmerged %.1f KiB; want larger when merged", avgOn, avgOff)
	}
	if on.logWrites*2 > on.logBytes/(2<<10) {
		t.Errorf("merge on: %d log writes for %d records; want at most half", on.logWrites, on.logBytes/(2<<10))
	}
	// Merging saves IOPS, not bytes: with the byte cap binding, commits
	// must not suffer from it (they gain only where the IOPS cap binds).
	if on.commits*100 < off.commits*99 {
		t.Errorf("commits: merge on %d, off %d; merging must not cost commits", on.commits, off.commits)
	}
	if on.bySrc["redo"].(int64) == 0 || on.bySrc["page"].(int64) == 0 {
		t.Errorf("write_bytes_by_source = %v", on.bySrc)
	}
}
