package commit

import (
	"strings"
	"testing"
	"time"

	"simrun/model/disk"
	"simrun/sim"
)

// constVolume has constant latencies so that the stages' timing can be
// checked by hand.
func constVolume(t *testing.T, env *sim.Env) *disk.Volume {
	t.Helper()
	cfg := disk.DefaultConfig()
	cfg.WriteLatency = sim.ConstantDist(sim.Duration(300 * time.Microsecond))
	cfg.FlushLatency = sim.ConstantDist(sim.Duration(200 * time.Microsecond))
	cfg.ReadLatency = sim.ConstantDist(sim.Duration(300 * time.Microsecond))
	cfg.TransferRate = 0
	v, err := disk.New(env, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// The log writer writes what the buffer holds, one write at a time; the
// flusher fsyncs whatever is written or being written, back to back, and
// a flush serves every waiter its LSN covers.
func TestRedoFlushGroups(t *testing.T) {
	env := sim.New(1)
	v := constVolume(t, env)
	l := NewRedo(v.OpenFile("ib_redo", true), v.RegisterSource("redo"))
	var done []sim.Time
	record := func(any) { done = append(done, env.Now()) }
	lsns := []int64{l.Append(100), l.Append(100), l.Append(100)}
	for _, lsn := range lsns {
		l.WaitDurable(lsn, record, nil)
	}
	env.AfterArg(100*time.Microsecond, func(any) {
		for range 2 {
			l.WaitDurable(l.Append(100), record, nil)
		}
	}, nil)
	env.Run()
	// The first Append starts write 1 (bytes 0-100, 0-300 us) and flush 1
	// (its fsync waits for write 1, then 200 us: 500 us). Write 2 takes
	// what the buffer holds at 300 us (100-500, until 600 us); flush 2
	// starts when flush 1 ends and covers it: 600 + 200 = 800 us.
	want := []sim.Time{sim.At(500 * time.Microsecond), sim.At(800 * time.Microsecond), sim.At(800 * time.Microsecond),
		sim.At(800 * time.Microsecond), sim.At(800 * time.Microsecond)}
	if len(done) != len(want) {
		t.Fatalf("%d waiters served, want %d", len(done), len(want))
	}
	for i := range want {
		if done[i] != want[i] {
			t.Errorf("waiter %d durable at %v, want %v", i, done[i], want[i])
		}
	}
	if l.Flushes != 2 || l.Waiters != 5 {
		t.Errorf("%d flushes for %d waiters, want 2 for 5", l.Flushes, l.Waiters)
	}
	// Already durable: at once.
	now := false
	l.WaitDurable(l.LSN(), func(any) { now = true }, nil)
	if !now {
		t.Error("a durable LSN waited")
	}
}

// The writer and the flusher do not wait for a committer: redo appended
// with nobody waiting becomes durable on its own (log_flusher fsyncs
// whenever flushed_to_disk_lsn < write_lsn).
func TestRedoFlushesWithoutWaiters(t *testing.T) {
	env := sim.New(1)
	v := constVolume(t, env)
	l := NewRedo(v.OpenFile("ib_redo", true), v.RegisterSource("redo"))
	l.Append(4096)
	env.AfterArg(100*time.Microsecond, func(any) { l.Append(512) }, nil)
	env.Run()
	if l.flushed != l.LSN() || l.Flushes != 2 {
		t.Errorf("flushed %d of %d in %d flushes, want all in 2", l.flushed, l.LSN(), l.Flushes)
	}
	if env.Now() != sim.At(800*time.Microsecond) {
		t.Errorf("log durable at %v, want 800us (write 1 + fsync, then write 2 + fsync)", env.Now())
	}
}

// Every registered transaction commits once, in order, with each profile
// of the ordered commit; binlog bytes all reach the file.
func TestOrderedCommitInOrder(t *testing.T) {
	for _, tc := range []struct {
		name         string
		redo, binlog bool
	}{
		{"commit order only", false, false},
		{"commit order + redo", true, false},
		{"binlog group commit", true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := sim.New(1)
			v := constVolume(t, env)
			var redo *Redo
			if tc.redo {
				redo = NewRedo(v.OpenFile("ib_redo", true), v.RegisterSource("redo"))
			}
			var binlog *disk.File
			var src disk.Source
			if tc.binlog {
				binlog, src = v.OpenFile("binlog.000001", false), v.RegisterSource("binlog")
			}
			var got []int64
			var inCommit time.Duration // summed from Register to committed
			o := NewOrderedCommit(env, MySQLConfig{}, sim.NewCPU(env, 4), redo, binlog, src, 10*time.Microsecond, func(seq int64) {
				got = append(got, seq)
				inCommit += time.Duration(env.Now()) - time.Duration(seq)*7*time.Microsecond
			})
			const n = 200
			for seq := int64(1); seq <= n; seq++ {
				at := time.Duration(seq) * 7 * time.Microsecond
				env.AfterArg(at, func(any) {
					if redo != nil {
						redo.Append(500)
					}
					o.Register(seq, 1000)
				}, nil)
			}
			env.Run()
			// The stages partition each transaction's time in the ordered
			// commit (the means truncate to the ns).
			var sum time.Duration
			st := o.StageMeans()
			for _, d := range st {
				sum += d
			}
			if mean := inCommit / n; sum > mean || sum < mean-time.Duration(len(st)) {
				t.Errorf("stage means sum to %v, mean time in the ordered commit %v (%v)", sum, mean, st)
			}
			if !tc.binlog && (st[StageSyncWait] != 0 || st[StageSync] != 0) {
				t.Errorf("no binlog, but sync stages %v", st)
			}
			if tc.binlog && st[StageSync] <= 0 {
				t.Errorf("binlog sync stage %v", st[StageSync])
			}
			if len(got) != n {
				t.Fatalf("%d commits, want %d", len(got), n)
			}
			for i, s := range got {
				if s != int64(i+1) {
					t.Fatalf("commit %d is seq %d: out of order", i, s)
				}
			}
			if o.GroupTrx != n || o.Groups < 2 || o.Groups > n {
				t.Errorf("%d transactions in %d groups", o.GroupTrx, o.Groups)
			}
			if tc.binlog {
				if binlog.Size() != n*1000 {
					t.Errorf("binlog holds %d bytes, want %d", binlog.Size(), n*1000)
				}
				if o.SyncTrx != n || o.Syncs > o.Groups {
					t.Errorf("%d syncs for %d transactions (%d groups)", o.Syncs, o.SyncTrx, o.Groups)
				}
			}
		})
	}
}

// Without logs the stage is the serial engine commits: n transactions
// registered at once commit after n x commit_cpu, the first alone.
func TestOrderedCommitSerialCPU(t *testing.T) {
	env := sim.New(1)
	var last sim.Time
	o := NewOrderedCommit(env, MySQLConfig{}, sim.NewCPU(env, 2), nil, nil, 0, 10*time.Microsecond, func(int64) { last = env.Now() })
	for seq := int64(1); seq <= 5; seq++ {
		o.Register(seq, 0)
	}
	env.Run()
	// The first registration starts a group of one (10 us); the other
	// four form the second (40 us).
	if want := sim.At(50 * time.Microsecond); last != want {
		t.Errorf("last commit at %v, want %v", last, want)
	}
	if o.Groups != 2 || o.GroupTrx != 5 {
		t.Errorf("%d groups of %d transactions, want 2 of 5", o.Groups, o.GroupTrx)
	}
	// The four of the second group wait 10 us for the stage and commit in
	// 40 us, the first commits in 10: queue 40/5 us, commit 170/5 us.
	var want [stageN]time.Duration
	want[StageQueue], want[StageCommit] = 8*time.Microsecond, 34*time.Microsecond
	if got := o.StageMeans(); got != want {
		t.Errorf("stage means %v, want %v", got, want)
	}
}

// binlog_group_commit_sync_delay holds the sync stage's leader so that the
// groups flushed meanwhile share one fsync; sync_no_delay_count ends the
// wait once that many transactions wait.
func TestOrderedCommitSyncDelay(t *testing.T) {
	for _, tc := range []struct {
		name       string
		cfg        MySQLConfig
		firstSync  int64    // transactions the first binlog sync covers
		firstAfter sim.Time // the first commit is not before this
	}{
		{"no delay", MySQLConfig{}, 1, 0},
		{"1 ms delay", MySQLConfig{SyncDelay: sim.Duration(time.Millisecond)}, 5, sim.At(time.Millisecond)},
		{"delay cut at 3", MySQLConfig{SyncDelay: sim.Duration(time.Millisecond), NoDelayCount: 3}, 3, sim.At(200 * time.Microsecond)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := sim.New(1)
			v := constVolume(t, env)
			var first sim.Time = -1
			o := NewOrderedCommit(env, tc.cfg, sim.NewCPU(env, 2), nil, v.OpenFile("binlog.000001", false), v.RegisterSource("binlog"), time.Microsecond,
				func(int64) {
					if first < 0 {
						first = env.Now()
					}
				})
			for seq := int64(1); seq <= 5; seq++ {
				env.AfterArg(time.Duration(seq-1)*100*time.Microsecond, func(any) { o.Register(seq, 100) }, nil)
			}
			var firstSync int64 = -1
			env.RunWhile(func() bool {
				if firstSync < 0 && o.Syncs > 0 {
					firstSync = o.SyncTrx
				}
				return true
			})
			if firstSync != tc.firstSync {
				t.Errorf("first binlog sync covered %d transactions, want %d", firstSync, tc.firstSync)
			}
			if first < tc.firstAfter {
				t.Errorf("first commit at %v, before %v", first, tc.firstAfter)
			}
			if o.SyncTrx != 5 {
				t.Errorf("%d transactions synced, want 5", o.SyncTrx)
			}
		})
	}
	if err := (MySQLConfig{SyncDelay: -1, NoDelayCount: -1}).Validate(); err == nil || !strings.Contains(err.Error(), "binlog_group_commit_sync_delay:") || !strings.Contains(err.Error(), "binlog_group_commit_sync_no_delay_count:") {
		t.Errorf("bad settings: %v", err)
	}
}
