package commit

import (
	"math"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"simrun/internal/configtest"
	"simrun/model/disk"
	"simrun/model/engine"
	"simrun/model/workload"
	"simrun/sim"
)

func TestEventSizes(t *testing.T) {
	wl := workload.DefaultSysbench()
	e := Events(wl)
	if e.Row != 190 {
		t.Errorf("row image %d, want 190 (1 + 4 + 4 + 2+119 + 1+59)", e.Row)
	}
	// Update_rows with before and after images: 19 + 8 + 3 + 2*190 + 4.
	if got := e.PerStmt[workload.UpdateIndex] - e.SQL[workload.UpdateIndex] - 23 - 59; got != 414 {
		t.Errorf("Update_rows event %d, want 414", got)
	}
	var tx workload.Tx
	g := workload.NewGenerator(wl, sim.NewStream(1, "t"))
	g.Next(&tx)
	n := e.TxBytes(&tx)
	// mechanisms-notes §4: about 2.1-2.2 KB per transaction for MariaDB.
	if n < 2050 || n > 2250 {
		t.Errorf("binlog per transaction %d B, want about 2.1-2.2 KB", n)
	}
}

type rig struct {
	env  *sim.Env
	vol  *disk.Volume
	eng  *engine.Engine
	pipe *Pipeline
	cpu  *sim.CPU
	done int
}

func newRig(t *testing.T, mode string, syncBinlog, trx int) *rig {
	t.Helper()
	// A written-through log: its syncs never touch the journal.
	return newRigLog(t, mode, syncBinlog, trx, "wrapped")
}

// newRigLog is newRig with the redo log's initial state (engine
// redo.initial_log).
func newRigLog(t *testing.T, mode string, syncBinlog, trx int, initialLog string) *rig {
	t.Helper()
	return newRigCPU(t, mode, syncBinlog, trx, initialLog, DefaultConfig().CPU.Sync)
}

// newRigCPU is newRigLog with commit.cpu.sync = syncCPU and
// commit.cpu.binlog_sync = 2 x syncCPU, so that a test tells them apart.
func newRigCPU(t *testing.T, mode string, syncBinlog, trx int, initialLog string, syncCPU sim.Duration) *rig {
	t.Helper()
	return newRigVol(t, disk.DefaultConfig(), mode, syncBinlog, trx, initialLog, syncCPU)
}

// newRigVol is newRigCPU on a volume configured by vc.
func newRigVol(t *testing.T, vc disk.Config, mode string, syncBinlog, trx int, initialLog string, syncCPU sim.Duration) *rig {
	t.Helper()
	env := sim.New(1)
	vol, err := disk.New(env, vc)
	if err != nil {
		t.Fatal(err)
	}
	cfg := engine.DefaultConfig()
	cfg.Redo.InitialLog = initialLog
	cc := DefaultConfig()
	cc.BinlogStorageEngine, cc.SyncBinlog, cc.FlushLogAtTrxCommit = BinlogMode(mode), syncBinlog, FlushPolicy(trx)
	cc.CPU.Sync = syncCPU
	cc.CPU.BinlogSync = 2 * syncCPU
	if err := cc.Validate(); err != nil {
		t.Fatal(err)
	}
	wl := workload.DefaultSysbench()
	wl.TableSize = 10_000
	src := engine.Sources{Redo: vol.RegisterSource("redo"), PageFlush: vol.RegisterSource("page_flush"),
		Doublewrite: vol.RegisterSource("doublewrite"), PageRead: vol.RegisterSource("page_read")}
	e, err := engine.New(env, cfg, wl, vol, src, cc.FlushLogAtTrxCommit.LogBufferedByDefault())
	if err != nil {
		t.Fatal(err)
	}
	cpu := sim.NewCPU(env, 4)
	p := New(env, e, cpu, vol, cc, Sources{BinlogFile: vol.RegisterSource("binlog_file"), BinlogPages: vol.RegisterSource("binlog_pages")}, cfg.CPU.Wakeup.D())
	return &rig{env: env, vol: vol, eng: e, pipe: p, cpu: cpu}
}

// commitBurst commits n transactions at once and runs until they finish.
func (r *rig) commitBurst(t *testing.T, n int) []*Tx {
	txs := make([]*Tx, n)
	for i := range txs {
		tx := &Tx{BinlogBytes: 2150}
		tx.TL.Begin(r.env.Now())
		tx.Done = func(any) { r.done++ }
		txs[i] = tx
		r.eng.ApplyBody(nil, nil)
		r.pipe.Commit(tx)
	}
	r.env.RunUntil(r.env.Now().Add(200 * time.Millisecond))
	if r.done != n {
		t.Fatalf("%d of %d commits acknowledged", r.done, n)
	}
	return txs
}

// TestFirstPassCommitsJournal: while the log's first pass converts
// unwritten extents, each redo sync commits the filesystem journal too;
// a written-through log never does (TestCommitModes).
func TestFirstPassCommitsJournal(t *testing.T) {
	for _, state := range []string{"new", "after_load"} {
		r := newRigLog(t, "off", 0, 1, state)
		r.commitBurst(t, 12)
		if r.eng.Redo.Syncs == 0 || r.vol.JournalCommits() < r.eng.Redo.Syncs {
			t.Errorf("%s: %d redo syncs, %d journal commits; want a commit per sync", state, r.eng.Redo.Syncs, r.vol.JournalCommits())
		}
	}
}

func TestConfigValidate(t *testing.T) {
	if err := DefaultConfig().Validate(); err != nil {
		t.Fatalf("default invalid: %v", err)
	}
	configtest.RejectsNaming(t, DefaultConfig, []configtest.Case[Config]{
		configtest.Bad(func(c *Config) { c.BinlogStorageEngine = "aria" }, "binlog_storage_engine"),
		configtest.Bad(func(c *Config) { c.FlushLogAtTrxCommit = 4 }, "innodb_flush_log_at_trx_commit"),
		configtest.Bad(func(c *Config) { c.SyncBinlog = -1 }, "sync_binlog"),
		configtest.Bad(func(c *Config) { c.BinlogRedoExtra = -1 }, "binlog_redo_extra"),
		configtest.Bad(func(c *Config) { c.Binlog.IBBFlushBatch = 0 }, "binlog.ibb_flush_batch"),
		configtest.Bad(func(c *Config) { c.Binlog.MaxBinlogSize = 1 }, "binlog.max_binlog_size"),
		configtest.Bad(func(c *Config) { c.CPU.Prepare = -1 }, "cpu.prepare"),
		configtest.Bad(func(c *Config) { c.CPU.Sync = sim.Duration(2 * time.Second) }, "cpu.sync"),
	})
}

// The flush policy's meaning, decided in one place.
func TestFlushPolicy(t *testing.T) {
	type want struct{ syncs, writes, waits, afterSync, afterWrite bool }
	for _, tc := range []struct {
		f FlushPolicy
		w want
	}{
		{FlushPerSecond, want{}},
		{FlushSyncAtCommit, want{syncs: true, waits: true}},
		{FlushWriteCommit, want{writes: true, waits: true, afterWrite: true}},
		{FlushSyncTwice, want{syncs: true, waits: true, afterSync: true}},
	} {
		var got want
		got.syncs, got.writes, got.waits = tc.f.Syncs(), tc.f.Writes(), tc.f.Waits()
		got.afterSync, got.afterWrite = tc.f.AfterBinlog()
		if got != tc.w {
			t.Errorf("trx_commit %v: got %+v, want %+v", tc.f, got, tc.w)
		}
	}
}

func TestCommitModes(t *testing.T) {
	cases := []struct {
		mode          string
		sb, trx       int
		binlogSyncs   bool
		redoSyncs     bool
		journal       bool
		fsyncCats     []engine.Cat
		noCats        []engine.Cat
		binlogPerTxOK bool
	}{
		{"off", 0, 1, false, true, false, []engine.Cat{engine.CatRedoFsync}, []engine.Cat{engine.CatBinlogFsync}, false},
		{"off", 0, 0, false, false, false, nil, []engine.Cat{engine.CatRedoFsync}, false},
		{"innodb", 0, 1, false, true, false, []engine.Cat{engine.CatRedoFsync, engine.CatBinlogWrite}, []engine.Cat{engine.CatBinlogFsync}, true},
		{"innodb", 1, 2, false, false, false, nil, []engine.Cat{engine.CatBinlogFsync, engine.CatRedoFsync}, true},
		{"file", 1, 1, true, true, true, []engine.Cat{engine.CatRedoFsync, engine.CatBinlogFsync}, nil, true},
		{"file", 1, 0, true, false, true, []engine.Cat{engine.CatBinlogFsync}, []engine.Cat{engine.CatRedoFsync}, true},
		{"file", 0, 1, false, true, false, []engine.Cat{engine.CatRedoFsync}, []engine.Cat{engine.CatBinlogFsync}, true},
	}
	for _, tc := range cases {
		r := newRig(t, tc.mode, tc.sb, tc.trx)
		txs := r.commitBurst(t, 12)
		st := r.pipe.Stats()
		if (st.BinlogSyncs > 0) != tc.binlogSyncs {
			t.Errorf("%s sb=%d trx=%d: binlog syncs %d", tc.mode, tc.sb, tc.trx, st.BinlogSyncs)
		}
		if (r.eng.Redo.Syncs > 0) != tc.redoSyncs {
			t.Errorf("%s sb=%d trx=%d: redo syncs %d", tc.mode, tc.sb, tc.trx, r.eng.Redo.Syncs)
		}
		if (r.vol.JournalCommits() > 0) != tc.journal {
			t.Errorf("%s sb=%d trx=%d: journal commits %d", tc.mode, tc.sb, tc.trx, r.vol.JournalCommits())
		}
		if v := r.pipe.Violations; v != 0 {
			t.Errorf("%s: %d durability violations", tc.mode, v)
		}
		for _, tx := range txs {
			var sum int64
			for _, v := range tx.TL.Comp {
				sum += v
			}
			if sum != int64(tx.TL.Last-tx.TL.Start) {
				t.Errorf("%s: breakdown %d != elapsed %d", tc.mode, sum, tx.TL.Last-tx.TL.Start)
			}
		}
		var agg [engine.NumCats]int64
		for _, tx := range txs {
			for i, v := range tx.TL.Comp {
				agg[i] += v
			}
		}
		for _, c := range tc.fsyncCats {
			if agg[c] == 0 {
				t.Errorf("%s sb=%d trx=%d: nothing charged to %v", tc.mode, tc.sb, tc.trx, c)
			}
		}
		for _, c := range tc.noCats {
			if agg[c] != 0 {
				t.Errorf("%s sb=%d trx=%d: %v charged %d", tc.mode, tc.sb, tc.trx, c, agg[c])
			}
		}
		if got := st.BinlogBytes > 0; got != tc.binlogPerTxOK {
			t.Errorf("%s: binlog bytes %d", tc.mode, st.BinlogBytes)
		}
	}
}

// Every sync of the commit path costs its thread CPU on the server's CPUs,
// the redo leader's cpu.sync, the binlog leader's cpu.binlog_sync: in the
// rig the CPUs run only wake-ups, so their busy time is wakes x wakeup +
// redo syncs x cpu.sync + binlog syncs x cpu.binlog_sync.
func TestSyncCPU(t *testing.T) {
	wakeup := engine.DefaultConfig().CPU.Wakeup.D()
	for _, tc := range []struct {
		mode    string
		sb, trx int
		sync    sim.Duration
	}{
		{"off", 0, 1, 0},
		{"off", 0, 1, sim.Duration(time.Millisecond)},
		{"off", 0, 0, sim.Duration(time.Millisecond)},
		{"file", 1, 0, sim.Duration(time.Millisecond)},
		{"file", 1, 1, sim.Duration(300 * time.Microsecond)},
		{"innodb", 0, 1, sim.Duration(time.Millisecond)},
	} {
		r := newRigCPU(t, tc.mode, tc.sb, tc.trx, "wrapped", tc.sync)
		r.eng.SetCPU(r.cpu) // the redo log's callers are threads on the CPUs too
		r.commitBurst(t, 12)
		st := r.cpu.Stats()
		busy := st.MeanBusy * float64(st.Elapsed)
		rs, bs := r.eng.Redo.Syncs, r.pipe.Stats().BinlogSyncs
		syncs := rs + bs
		want := float64(st.Wakes)*float64(wakeup) + float64(rs)*float64(tc.sync) + float64(bs)*float64(2*tc.sync)
		if math.Abs(busy-want) > 1e3 {
			t.Errorf("%s sb=%d trx=%d sync=%v: CPU busy %.0fns, want %d wakes x %v + %d redo syncs x %v + %d binlog syncs x %v = %.0fns",
				tc.mode, tc.sb, tc.trx, tc.sync, busy, st.Wakes, wakeup, rs, tc.sync, bs, 2*tc.sync, want)
		}
		if tc.trx != 0 && syncs == 0 {
			t.Errorf("%s trx=%d: no syncs", tc.mode, tc.trx)
		}
	}
}

// The InnoDB-stored binlog puts every binlog byte into the redo log.
func TestInnoDBBinlogIsRedo(t *testing.T) {
	off := newRig(t, "off", 0, 1)
	off.commitBurst(t, 10)
	in := newRig(t, "innodb", 0, 1)
	in.commitBurst(t, 10)
	extra := in.eng.Redo.LSN() - off.eng.Redo.LSN()
	want := uint64(10 * (2150 + DefaultConfig().BinlogRedoExtra))
	if extra != want {
		t.Fatalf("innodb binlog adds %d redo bytes, want %d", extra, want)
	}
}

// TestBinlogWriteSleepsOnShadow: a group whose binlog write(2) finds the
// binlog's inode block shadowed by a journal commit sleeps, holding
// LOCK_log, until the commit's metadata write completes; charged to
// binlog_write. The group then syncs and rotates (the longest phase list);
// without the commit in flight nothing sleeps.
func TestBinlogWriteSleepsOnShadow(t *testing.T) {
	const lat = 10 * time.Millisecond
	vc := disk.DefaultConfig()
	vc.WriteLatency = sim.ConstantDist(sim.Duration(lat))
	vc.FlushLatency = sim.ConstantDist(sim.Duration(time.Millisecond))
	for _, inFlight := range []bool{false, true} {
		r := newRigVol(t, vc, "file", 1, 0, "wrapped", 0)
		// The file is full but for the group's write, all of it clean.
		r.pipe.file.end = int64(r.pipe.cfg.Binlog.MaxBinlogSize) - 1
		r.pipe.file.clean = r.pipe.file.end
		// The binlog's inode is in the running transaction; a commit
		// starts writing it to the journal (0-10 ms).
		if r.pipe.file.file.DirtyInode(nil, nil) {
			t.Fatal("DirtyInode slept with no commit")
		}
		if inFlight {
			r.vol.CommitJournal(nil, nil)
		}
		txs := r.commitBurst(t, 4)
		var bw time.Duration
		for _, tx := range txs {
			bw = max(bw, time.Duration(tx.TL.Comp[engine.CatBinlogWrite]))
		}
		want := int64(0)
		if inFlight {
			want = 1
			// The leader's copy takes microseconds; the rest of the
			// 10 ms metadata write (and its transfer) is the sleep.
			if bw < lat-time.Millisecond || bw > lat+time.Millisecond {
				t.Errorf("binlog_write %v with the commit in flight, want ~%v", bw, lat)
			}
		} else if bw > time.Millisecond {
			t.Errorf("binlog_write %v with no commit, want the copy alone", bw)
		}
		if got := r.vol.ShadowWaits(); got != want {
			t.Errorf("in flight %v: %d sleeps, want %d", inFlight, got, want)
		}
		if r.pipe.file.Rotations != 1 {
			t.Errorf("in flight %v: %d rotations, want 1", inFlight, r.pipe.file.Rotations)
		}
	}
}

// TestLogBufferedByDefault: MariaDB starts with the redo log's file system
// cache off (O_DIRECT) except under innodb_flush_log_at_trx_commit = 2
// (innodb_init_params); redo.log_file_buffering "auto" follows it, and
// "on"/"off" override it.
func TestLogBufferedByDefault(t *testing.T) {
	for _, tc := range []struct {
		policy        FlushPolicy
		auto, on, off bool
	}{
		{FlushPerSecond, false, true, false},
		{FlushSyncAtCommit, false, true, false},
		{FlushWriteCommit, true, true, false},
		{FlushSyncTwice, false, true, false},
	} {
		d := tc.policy.LogBufferedByDefault()
		got := []bool{
			engine.RedoConfig{FileBuffering: "auto"}.Buffered(d),
			engine.RedoConfig{FileBuffering: "on"}.Buffered(d),
			engine.RedoConfig{FileBuffering: "off"}.Buffered(d),
		}
		if diff := cmp.Diff([]bool{tc.auto, tc.on, tc.off}, got); diff != "" {
			t.Errorf("trx_commit %v: auto, on, off buffered (-want +got):\n%s", tc.policy, diff)
		}
	}
}
