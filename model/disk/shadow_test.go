package disk

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"simrun/sim"
)

// shadowVolume is one device slot with constant latencies: a redo-like
// fallocated file's write runs 0-1 ms, its sync's journal commit writes the
// descriptor and metadata blocks 1-2 ms (the shadow window), flushes
// 2-2.5 ms and writes the commit block 2.5-3.5 ms.
func shadowVolume(t *testing.T, journal string) (*sim.Env, *Volume) {
	t.Helper()
	cfg := DefaultConfig()
	cfg.QueueDepth = 64
	cfg.Merge = false
	cfg.TransferRate = 0
	cfg.WriteCache = false
	cfg.WriteLatency = sim.ConstantDist(sim.Duration(time.Millisecond))
	cfg.FlushLatency = sim.ConstantDist(sim.Duration(500 * time.Microsecond))
	cfg.JournalWriteSize = 12 * sim.KiB
	cfg.Journal = journal
	env := sim.New(1)
	v, err := New(env, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return env, v
}

// A write(2) that dirties an inode sleeps only while a journal commit that
// carries that inode is writing its metadata blocks (do_get_write_access,
// "on shadow: sleep"), and wakes when that write completes.
func TestDirtyInodeShadow(t *testing.T) {
	ms := func(f float64) time.Duration { return time.Duration(f * float64(time.Millisecond)) }
	type result struct {
		Waited bool
		Woke   time.Duration // when the write went on
	}
	for _, tc := range []struct {
		name    string
		journal string
		before  bool          // the binlog's inode was dirtied at 0, before the commit started
		at      time.Duration // the write under test
		want    result
	}{
		{"before the commit", "", true, ms(0.5), result{false, ms(0.5)}},
		{"metadata write in flight", "", true, ms(1.5), result{true, ms(2)}},
		{"inode not in the commit", "", false, ms(1.5), result{false, ms(1.5)}},
		{"during the pre-flush", "", true, ms(2.2), result{false, ms(2.2)}},
		{"during the commit block", "", true, ms(3), result{false, ms(3)}},
		{"after the commit", "", true, ms(4), result{false, ms(4)}},
		{"no journal", JournalNone, true, ms(1.5), result{false, ms(1.5)}},
	} {
		env, v := shadowVolume(t, tc.journal)
		redo := v.OpenFile("ib_logfile0", true)
		redo.Fallocate(0)
		bin := v.OpenFile("binlog.000001", false)
		if tc.before && bin.DirtyInode(nil, nil) {
			t.Fatalf("%s: the first write waited with no commit", tc.name)
		}
		redo.WriteAt(0, 4096, SourceOther, nil, nil)
		redo.Sync(nil, nil)
		var got result
		env.After(tc.at, func() {
			got.Waited = bin.DirtyInode(func(any) { got.Woke = env.Now().Sub(0) }, nil)
			if !got.Waited {
				got.Woke = env.Now().Sub(0)
			}
		})
		env.Run()
		if d := cmp.Diff(tc.want, got); d != "" {
			t.Errorf("%s: (-want +got)\n%s", tc.name, d)
		}
		if n := v.ShadowWaits(); n != map[bool]int64{true: 1}[tc.want.Waited] {
			t.Errorf("%s: ShadowWaits = %d", tc.name, n)
		}
	}
}

// Two writes that hit the same shadowed block both sleep (the block joins
// the running transaction only when a woken write journals it); the write
// after them does not.
func TestDirtyInodeShadowTwice(t *testing.T) {
	env, v := shadowVolume(t, "")
	redo := v.OpenFile("ib_logfile0", true)
	redo.Fallocate(0)
	bin := v.OpenFile("binlog.000001", false)
	bin.DirtyInode(nil, nil)
	redo.WriteAt(0, 4096, SourceOther, nil, nil)
	redo.Sync(nil, nil)
	var woke []time.Duration
	wake := func(any) { woke = append(woke, env.Now().Sub(0)) }
	var waited []bool
	for _, at := range []time.Duration{1200 * time.Microsecond, 1600 * time.Microsecond, 2100 * time.Microsecond} {
		env.After(at, func() { waited = append(waited, bin.DirtyInode(wake, nil)) })
	}
	env.Run()
	if d := cmp.Diff([]bool{true, true, false}, waited); d != "" {
		t.Errorf("waited (-want +got)\n%s", d)
	}
	if d := cmp.Diff([]time.Duration{2 * time.Millisecond, 2 * time.Millisecond}, woke); d != "" {
		t.Errorf("woke (-want +got)\n%s", d)
	}
}

// Property: under random loads of appending and fallocated files with
// syncs, a write never waits unless a journal commit is writing its
// metadata, and every wait ends exactly once, when that same commit's
// metadata write completes.
func TestDirtyInodeProperty(t *testing.T) {
	total := 0
	for seed := uint64(1); seed <= 20; seed++ {
		env := sim.New(seed)
		r := env.Stream("test")
		cfg, _, _, _, _, _ := randomCase(r)
		v, err := New(env, cfg)
		if err != nil {
			t.Fatal(err)
		}
		files := []*File{v.OpenFile("a", false), v.OpenFile("b", false), v.OpenFile("redo", true)}
		files[2].Fallocate(0)
		j := &v.fs.journal
		waits, wakes := 0, 0
		stop := sim.At(200 * time.Millisecond)
		var step func()
		step = func() {
			if env.Now() >= stop {
				return
			}
			f := files[r.IntN(len(files))]
			switch r.IntN(3) {
			case 0:
				f.Append(int64(1+r.IntN(8))*512, SourceOther, nil, nil)
			case 1:
				f.Sync(nil, nil)
			default:
				logging, commits := j.logging, j.commits
				woke := func(any) {
					wakes++
					if j.logging || j.commits != commits {
						t.Errorf("seed %d: a write slept on commit %d woke in commit %d (logging %v)", seed, commits, j.commits, j.logging)
					}
				}
				if f.DirtyInode(woke, nil) {
					waits++
					if !logging || !j.busy {
						t.Fatalf("seed %d: a write waited with no commit writing its metadata", seed)
					}
					if f.inodeTx != commits {
						t.Fatalf("seed %d: a write waited on a commit without its inode", seed)
					}
				}
			}
			env.After(time.Duration(1+r.IntN(400))*time.Microsecond, step)
		}
		env.After(0, step)
		env.Run()
		total += waits
		if wakes != waits {
			t.Errorf("seed %d: %d waits, %d wakes", seed, waits, wakes)
		}
		if len(j.shadowed) != 0 || j.logging {
			t.Errorf("seed %d: %d writes still asleep, logging %v", seed, len(j.shadowed), j.logging)
		}
	}
	if total == 0 {
		t.Error("no write ever waited: the loads never exercised the shadow")
	}
}
