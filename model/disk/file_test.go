package disk

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"simrun/sim"
)

// Sync waits for the writes issued before it and not for later ones.
func TestSyncWaitsForEarlierWrites(t *testing.T) {
	env := sim.New(1)
	v, err := New(env, loadPreset(t, "network-15k-120MBps"))
	if err != nil {
		t.Fatal(err)
	}
	f := v.OpenFile("data", true)
	var writeDone [3]sim.Time
	var syncDone, lateDone sim.Time
	for i := range 3 {
		f.WriteAt(int64(i)*(1<<20), 64<<10, SourceOther, func(any) { writeDone[i] = env.Now() }, nil)
	}
	f.Sync(func(any) { syncDone = env.Now() }, nil)
	// A slow, late write: issued after the sync, it must not hold it up.
	env.After(10*time.Microsecond, func() {
		f.WriteAt(8<<20, 256<<10, SourceOther, func(any) { lateDone = env.Now() }, nil)
	})
	env.Run()
	for i, w := range writeDone {
		if w == 0 || syncDone < w {
			t.Errorf("sync done at %v before write %d at %v", syncDone, i, w)
		}
	}
	if v.JournalCommits() != 0 {
		t.Errorf("a preallocated file committed the journal %d times", v.JournalCommits())
	}
	if lateDone == 0 {
		t.Error("late write never completed")
	}
}

// fsyncLoop measures the mean time of (write 4 KiB, fsync) on one file.
func fsyncLoop(t *testing.T, cfg Config, prealloc bool, n int) (time.Duration, *Volume) {
	env := sim.New(11)
	v, err := New(env, cfg)
	if err != nil {
		t.Fatal(err)
	}
	f := v.OpenFile("log", prealloc)
	i := 0
	var start sim.Time
	var total time.Duration
	var step func(any)
	step = func(any) {
		if i > 0 {
			total += time.Duration(env.Now() - start)
		}
		if i == n {
			return
		}
		i++
		start = env.Now()
		if prealloc {
			f.WriteAt(int64(i%1000)*4096, 4096, SourceOther, nil, nil)
		} else {
			f.Append(4096, SourceOther, nil, nil)
		}
		f.Sync(step, nil)
	}
	step(nil)
	env.Run()
	return total / time.Duration(n), v
}

// The append penalty: fsync of a file that grew also commits the filesystem
// journal. With jbd2's barrier commit (file.go: journal) that is the
// descriptor + metadata write, a flush, then the commit block, so on the
// network preset (no volatile cache: the commit block's FUA costs the write
// alone) an appending write+fsync costs data write + journal write + flush
// + commit write, where a preallocated file pays data write + flush.
//
// The expectations changed with the mechanism: the earlier model committed
// the journal with one write and a flush and gave 1.53 ms, ratio 1.66,
// inside mechanisms-notes §1.3's [derived] 1.5-2 and §2.3's 1.3-1.7 ms. The
// commit block written after the flush adds one more serial write
// (~0.56 ms), so the test now checks the model against its own analytic
// mean and only logs the hypotheses of §1.3 and §2.3.
func TestAppendPenalty(t *testing.T) {
	cfg := loadPreset(t, "network-15k-120MBps")
	over, v1 := fsyncLoop(t, cfg, true, 5000)
	app, v2 := fsyncLoop(t, cfg, false, 5000)
	ratio := float64(app) / float64(over)
	t.Logf("write+fsync: preallocated %v, appending %v, ratio %.2f (mechanisms-notes §1.3 hypothesis: 1.5-2; §2.3: 1.3-1.7 ms appending)", over, app, ratio)
	w := float64(cfg.WriteLatency.MeanDuration())
	f := float64(cfg.FlushLatency.MeanDuration())
	xfer := func(b int64) float64 { return float64(b) * 1e9 / float64(cfg.TransferRate) }
	j := int64(cfg.JournalWriteSize)
	wantOver := w + xfer(4096) + f
	wantApp := wantOver + (w + xfer(j-4096)) + (w + xfer(4096))
	for _, x := range []struct {
		name      string
		got, want float64
	}{{"preallocated", float64(over), wantOver}, {"appending", float64(app), wantApp}} {
		if d := (x.got - x.want) / x.want; d > 0.03 || d < -0.03 {
			t.Errorf("%s write+fsync %v, want %v ± 3%%", x.name, time.Duration(x.got), time.Duration(x.want))
		}
	}
	if ratio < 1.5 {
		t.Errorf("F_append/F_overwrite = %.2f: the journal commit must cost more than a flush", ratio)
	}
	if v1.JournalCommits() != 0 || v2.JournalCommits() != 5000 {
		t.Errorf("journal commits: preallocated %d, appending %d; want 0 and 5000", v1.JournalCommits(), v2.JournalCommits())
	}
	io := v2.Iostat()
	if io.Flushes != 5000 || io.Writes != 15000 {
		t.Errorf("appending: %d flushes, %d writes; want 5000 and 15000 (data, journal blocks, commit block)", io.Flushes, io.Writes)
	}
}

// The commit sequence of one journal commit: journal blocks, flush, commit
// block, and on a volume with a volatile write cache a flush after the
// commit block (FUA emulated as blk-flush does).
func TestJournalCommitSequence(t *testing.T) {
	for _, tc := range []struct {
		preset string
		want   string
	}{
		{"network-15k-120MBps", "write 8192, flush, write 4096"},
		{"nvme-consumer", "write 8192, flush, write 4096, flush"},
	} {
		env := sim.New(1)
		cfg := loadPreset(t, tc.preset)
		cfg.JournalWriteSize = 12 * sim.KiB
		v, err := New(env, cfg)
		if err != nil {
			t.Fatal(err)
		}
		var seq []string
		v.trace = func(ev traceEvent, n *ioNode) {
			if ev != evComplete || n.op == Read || (n.op == Write && n.file != journalFile) {
				return
			}
			if n.op == Flush {
				seq = append(seq, "flush")
			} else {
				seq = append(seq, fmt.Sprintf("write %d", n.size))
			}
		}
		done := false
		v.CommitJournal(func(any) { done = true }, nil)
		env.Run()
		if got := strings.Join(seq, ", "); !done || got != tc.want {
			t.Errorf("%s: journal commit did %q (done %v), want %q", tc.preset, got, done, tc.want)
		}
	}
}

// Syncs of growing files that arrive while a journal commit runs share the
// next commit (jbd2 batches transactions).
func TestJournalBatching(t *testing.T) {
	env := sim.New(1)
	v, err := New(env, loadPreset(t, "network-15k-120MBps"))
	if err != nil {
		t.Fatal(err)
	}
	files := make([]*File, 8)
	synced := 0
	for i := range files {
		files[i] = v.OpenFile("f", false)
		files[i].Append(4096, SourceOther, nil, nil)
		files[i].Sync(func(any) { synced++ }, nil)
	}
	env.Run()
	if synced != 8 {
		t.Fatalf("%d syncs done", synced)
	}
	if c := v.JournalCommits(); c < 1 || c > 3 {
		t.Errorf("%d journal commits for 8 concurrent syncs; want them batched into 1-3", c)
	}
	// A second sync with nothing new written needs no journal commit.
	before := v.JournalCommits()
	files[0].Sync(nil, nil)
	env.Run()
	if v.JournalCommits() != before {
		t.Error("sync of an unchanged file committed the journal")
	}
}

// QueueTime reports, inside a completion callback, the time a request
// waited before the device started on it; for a sync, the queueing of the
// flush and journal I/Os it issued after its writes; outside a callback 0.
func TestQueueTime(t *testing.T) {
	cfg := DefaultConfig()
	cfg.QueueDepth = 1
	cfg.Merge = false
	cfg.TransferRate = 0
	cfg.WriteLatency = sim.ConstantDist(sim.Duration(time.Millisecond))
	cfg.FlushLatency = sim.ConstantDist(sim.Duration(500 * time.Microsecond))
	cfg.JournalWriteSize = 12 * sim.KiB
	env := sim.New(1)
	v, err := New(env, cfg)
	if err != nil {
		t.Fatal(err)
	}
	type got struct {
		name     string
		at       sim.Time
		queueing time.Duration
	}
	var res []got
	cb := func(name string) func(any) {
		return func(any) { res = append(res, got{name, env.Now(), v.QueueTime()}) }
	}
	// One device slot. A growing file's data write runs 0-1 ms; a raw write
	// submitted behind it waits 1 ms and runs 1-2 ms; the sync's journal
	// blocks, submitted at 1 ms, wait behind the raw write (1 ms), then the
	// flush and the commit block follow on an idle device.
	f := v.OpenFile("binlog", false)
	f.Append(4096, SourceOther, cb("data"), nil)
	f.Sync(cb("sync"), nil)
	v.Submit(Request{Op: Write, File: 1 << 20, Offset: 0, Size: 4096, Done: cb("raw"), Arg: nil})
	env.Run()
	want := []got{
		{"data", sim.At(time.Millisecond), 0},
		{"raw", sim.At(2 * time.Millisecond), time.Millisecond},
		// journal blocks queued 1-2 ms, written 2-3 ms; flush 3-3.5 ms;
		// commit block 3.5-4.5 ms.
		{"sync", sim.At(4500 * time.Microsecond), time.Millisecond},
	}
	if fmt.Sprint(res) != fmt.Sprint(want) {
		t.Errorf("completions %v, want %v", res, want)
	}
	if q := v.QueueTime(); q != 0 {
		t.Errorf("QueueTime outside a callback = %v, want 0", q)
	}
}

// A fallocated file: a sync after a write into unwritten extents commits
// the journal; once the file has been written through, syncs are flushes
// again, and overwrites below the mark never commit.
func TestFallocateUnwrittenExtents(t *testing.T) {
	tests := []struct {
		name    string
		written int64   // Fallocate(written); -1: not called
		offs    []int64 // 4 KiB write then sync at each offset
		commits int64
	}{
		{"written file", -1, []int64{0, 4096, 8192}, 0},
		{"fresh file, first pass", 0, []int64{0, 4096, 8192}, 3},
		{"overwrite below the mark", 1 << 20, []int64{0, 4096, 8192}, 0},
		{"crosses the mark once", 8192, []int64{4096, 8192, 4096, 0}, 1},
		{"second pass after a wrap", 0, []int64{0, 4096, 0, 4096}, 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			env := sim.New(1)
			v, err := New(env, loadPreset(t, "network-15k-120MBps"))
			if err != nil {
				t.Fatal(err)
			}
			f := v.OpenFile("ib_logfile0", true)
			if tc.written >= 0 {
				f.Fallocate(tc.written)
			}
			i := 0
			var next func(any)
			next = func(any) {
				if i == len(tc.offs) {
					return
				}
				f.WriteAt(tc.offs[i], 4096, SourceOther, nil, nil)
				i++
				f.Sync(next, nil)
			}
			next(nil)
			env.Run()
			if i != len(tc.offs) {
				t.Fatalf("%d of %d syncs done", i, len(tc.offs))
			}
			if got := v.JournalCommits(); got != tc.commits {
				t.Errorf("journal commits %d, want %d", got, tc.commits)
			}
		})
	}
}

// Every sync of an appending file commits its size change, even when the
// appends stay inside one page (the page cache rewrites the last partial
// page: the write ends where the previous one did). With journal = none
// the sync writes the inode block instead of committing jbd2, after any
// write, a preallocated file's too.
func TestSyncMetadata(t *testing.T) {
	type step struct {
		off, size int64 // a write before the sync; size 0: none
	}
	page := []step{{0, 4096}, {0, 4096}, {0, 4096}}       // three appends inside page 0
	grow := []step{{0, 4096}, {4096, 4096}, {8192, 4096}} // three appends that grow the file
	idle := []step{{0, 4096}, {0, 0}, {0, 0}}             // one write, then syncs with nothing new
	tests := []struct {
		name     string
		journal  string
		prealloc bool
		steps    []step
		commits  int64 // journal commits
		writes   int64 // device writes (data + journal/inode)
		flushes  int64
		fineTime bool // timestamp_tick 0: every write changes the mtime
	}{
		// The preset has no volatile cache: a commit is write, flush, write.
		{"ordered, appends in one page", "", false, page, 3, 3 + 3*2, 3, false},
		{"ordered, growing appends", "ordered", false, grow, 3, 3 + 3*2, 3, false},
		{"ordered, preallocated", "ordered", true, grow, 0, 3, 3, false},
		{"ordered, nothing appended", "", false, idle, 1, 1 + 2, 3, false},
		{"none, appends in one page", "none", false, page, 0, 3 + 3, 3, false},
		{"none, preallocated, fine-grained mtime", "none", true, grow, 0, 3 + 3, 3, true},
		// The three writes and syncs take about 3 ms, inside one 4 ms
		// tick: only the first write changes the mtime.
		{"none, preallocated, 4 ms mtime", "none", true, grow, 0, 3 + 1, 3, false},
		{"none, nothing written", "none", true, idle, 0, 1 + 1, 3, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			env := sim.New(1)
			cfg := loadPreset(t, "network-15k-120MBps")
			cfg.Journal = tc.journal
			if tc.fineTime {
				cfg.TimestampTick = 0
			}
			if err := cfg.Validate(); err != nil {
				t.Fatal(err)
			}
			v, err := New(env, cfg)
			if err != nil {
				t.Fatal(err)
			}
			f := v.OpenFile("binlog", tc.prealloc)
			i := 0
			var next func(any)
			next = func(any) {
				if i == len(tc.steps) {
					return
				}
				if s := tc.steps[i]; s.size > 0 {
					f.WriteAt(s.off, s.size, SourceOther, nil, nil)
				}
				i++
				f.Sync(next, nil)
			}
			next(nil)
			env.Run()
			if i != len(tc.steps) {
				t.Fatalf("%d of %d syncs done", i, len(tc.steps))
			}
			io := v.Iostat()
			if got := v.JournalCommits(); got != tc.commits {
				t.Errorf("journal commits %d, want %d", got, tc.commits)
			}
			if io.Writes != tc.writes || io.Flushes != tc.flushes {
				t.Errorf("%d writes, %d flushes; want %d, %d", io.Writes, io.Flushes, tc.writes, tc.flushes)
			}
		})
	}
}

// journal = none: the periodic commit has nothing to do and completes at once.
func TestNoJournalCommit(t *testing.T) {
	env := sim.New(1)
	cfg := loadPreset(t, "network-15k-120MBps")
	cfg.Journal = JournalNone
	v, err := New(env, cfg)
	if err != nil {
		t.Fatal(err)
	}
	done := false
	v.CommitJournal(func(any) { done = true }, nil)
	env.Run()
	if !done || v.JournalCommits() != 0 || v.Iostat().Writes != 0 {
		t.Errorf("done %v, %d commits, %d writes: want done, none, none", done, v.JournalCommits(), v.Iostat().Writes)
	}
}

// sleeper is a thread that needs delay of processor after each wake-up.
type sleeper struct {
	env   *sim.Env
	delay time.Duration
	wakes int
}

func (s *sleeper) Wake(next func(any), arg any) {
	s.wakes++
	s.env.After(s.delay, func() { next(arg) })
}

// SyncBy: the syncing thread sleeps at each device wait inside the call
// (ext4_sync_file) and each wake-up delays the next step by the thread's
// time to run again, so the sync ends wakes x delay after the same sync
// with no thread.
func TestSyncBy(t *testing.T) {
	const delay = 50 * time.Microsecond
	for _, tc := range []struct {
		name    string
		journal string
		write   bool // write before the sync
		acked   bool // and wait for its ack before syncing
		wakes   int
	}{
		{"no journal: write pending -> data, inode block", JournalNone, true, false, 2},
		{"no journal: write acked -> inode block", JournalNone, true, true, 1},
		{"no journal: nothing written -> flush alone", JournalNone, false, false, 0},
		{"journal: write pending -> data", JournalOrdered, true, false, 1},
		{"journal: write acked -> none", JournalOrdered, true, true, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			run := func(by *sleeper) time.Duration {
				env := sim.New(3)
				cfg := loadPreset(t, "network-15k-120MBps")
				cfg.Journal = tc.journal
				v, err := New(env, cfg)
				if err != nil {
					t.Fatal(err)
				}
				f := v.OpenFile("log", true)
				var end sim.Time
				sync := func(any) {
					var s Sleeper
					if by != nil {
						by.env = env
						s = by
					}
					f.SyncBy(s, func(any) { end = env.Now() }, nil)
				}
				switch {
				case tc.write && tc.acked:
					f.WriteAt(0, 4096, SourceOther, sync, nil)
				case tc.write:
					f.WriteAt(0, 4096, SourceOther, nil, nil)
					sync(nil)
				default:
					sync(nil)
				}
				env.Run()
				return time.Duration(end)
			}
			base := run(nil)
			by := &sleeper{delay: delay}
			got := run(by)
			if by.wakes != tc.wakes {
				t.Errorf("%d wake-ups, want %d", by.wakes, tc.wakes)
			}
			if d := got - base; d != time.Duration(tc.wakes)*delay {
				t.Errorf("sync took %v longer with a sleeping thread, want %d x %v", d, tc.wakes, delay)
			}
		})
	}
}
