package engine

import (
	"testing"
	"time"

	"simrun/internal/configtest"
	"simrun/model/disk"
	"simrun/model/workload"
	"simrun/sim"
)

func TestCapacityPoints(t *testing.T) {
	// MariaDB log_t::set_capacity with the 96 MiB default: cap ≈ 90.6 MB,
	// sync point ≈ 80.8 MB, async point ≈ 70.7 MB (mechanisms-notes §3.3).
	r := DefaultConfig().Redo
	r.LogFileSize = 96 * sim.MiB
	c, s, a := r.Capacity()
	for _, x := range []struct {
		name      string
		got, want float64
	}{{"capacity", float64(c), 90.58e6}, {"sync", float64(s), 80.8e6}, {"async", float64(a), 70.7e6}} {
		if d := (x.got - x.want) / x.want; d > 0.005 || d < -0.005 {
			t.Errorf("%s = %.4g, want %.4g", x.name, x.got, x.want)
		}
	}
}

func TestBufferPoolFlushList(t *testing.T) {
	b := NewBufferPool(10, 10, true)
	for i, p := range []int32{3, 1, 3, 7, 1} {
		b.Touch(p, uint64(10+i))
	}
	if b.Dirty() != 3 {
		t.Fatalf("dirty = %d, want 3", b.Dirty())
	}
	if got := b.OldestLSN(); got != 10 {
		t.Fatalf("oldest = %d, want 10 (page 3 first dirtied at 10)", got)
	}
	// Clean page 3 out of order (an eviction write): its entry goes stale.
	b.Clean(3)
	if got := b.OldestLSN(); got != 11 {
		t.Fatalf("oldest after cleaning page 3 = %d, want 11", got)
	}
	b.Touch(3, 20) // dirty again, at the tail
	pages, minLSN := b.TakeOldest(nil, 10, 14)
	if len(pages) != 2 || pages[0] != 1 || pages[1] != 7 || minLSN != 11 {
		t.Fatalf("TakeOldest below 14 = %v (min %d), want [1 7] (11)", pages, minLSN)
	}
	if got := b.CountBelow(100, 10); got != 1 {
		t.Fatalf("CountBelow = %d, want 1", got)
	}
}

func TestBufferPoolEviction(t *testing.T) {
	b := NewBufferPool(100, 10, true)
	if b.Resident() != 10 || b.HasFree() {
		t.Fatalf("warm pool: resident %d", b.Resident())
	}
	for p := int32(0); p < 10; p++ {
		b.Touch(p, 0)
	}
	b.Touch(0, 5)
	v, dirty, ok := b.Victim(64)
	if !ok || dirty || v == 0 {
		t.Fatalf("victim = %d dirty=%v ok=%v, want a clean page other than 0", v, dirty, ok)
	}
	b.Evict(v)
	b.Load(50)
	if !b.IsResident(50) || b.IsResident(v) {
		t.Fatal("load/evict did not swap residency")
	}
}

// newTestEngine builds an engine whose log is synced at commit
// (innodb_flush_log_at_trx_commit = 1).
func newTestEngine(t *testing.T, cfg Config) (*sim.Env, *Engine, *disk.Volume) {
	t.Helper()
	wl := workload.DefaultSysbench()
	wl.TableSize = 10_000
	env, e, vol, _ := newTestEngineWL(t, cfg, wl)
	return env, e, vol
}

// newTestEngineWL builds an engine for the sysbench tables of wl and
// returns the volume's sources too.
func newTestEngineWL(t *testing.T, cfg Config, wl workload.Sysbench) (*sim.Env, *Engine, *disk.Volume, Sources) {
	t.Helper()
	env := sim.New(1)
	vol, err := disk.New(env, disk.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	src := Sources{Redo: vol.RegisterSource("redo"), PageFlush: vol.RegisterSource("page_flush"),
		Doublewrite: vol.RegisterSource("doublewrite"), PageRead: vol.RegisterSource("page_read")}
	e, err := New(env, cfg, wl, vol, src, cfg.Redo.FileBuffering == "on")
	if err != nil {
		t.Fatal(err)
	}
	return env, e, vol, src
}

// One flush round serves every waiter that queued while the previous one
// ran: group commit.
func TestRedoGroupCommit(t *testing.T) {
	cfg := DefaultConfig()
	env, e, _ := newTestEngine(t, cfg)
	var done int
	var tls [5]Timeline
	cb := func(any) { done++ }
	for i := range tls {
		tls[i].Begin(env.Now())
		lsn := e.CommitMTR(1000)
		if e.Redo.Request(lsn, true, &tls[i], cb, nil) {
			t.Fatal("request satisfied before any I/O")
		}
	}
	env.RunUntil(sim.At(50 * time.Millisecond))
	if done != 5 {
		t.Fatalf("%d of 5 waiters released", done)
	}
	// Waiter 0 started the first round; 1-4 joined the second.
	if e.Redo.Syncs != 2 {
		t.Fatalf("syncs = %d, want 2 (one round in flight, one for the rest)", e.Redo.Syncs)
	}
	for i := range tls {
		var sum int64
		for _, v := range tls[i].Comp {
			sum += v
		}
		if sum != int64(tls[i].Last-tls[i].Start) || sum == 0 {
			t.Errorf("waiter %d: charged %d ns over a %d ns wait", i, sum, tls[i].Last-tls[i].Start)
		}
	}
	if tls[1].Comp[CatGroupCommitWait] == 0 || tls[0].Comp[CatGroupCommitWait] != 0 {
		t.Errorf("group wait: leader %d, follower %d", tls[0].Comp[CatGroupCommitWait], tls[1].Comp[CatGroupCommitWait])
	}
	if e.Redo.Flushed() != e.Redo.LSN() {
		t.Errorf("flushed %d != lsn %d", e.Redo.Flushed(), e.Redo.LSN())
	}
}

// An O_DIRECT log writes whole blocks and rewrites the partial last block:
// device bytes exceed the LSN range by about a block per write.
func TestRedoBlockRewrite(t *testing.T) {
	cfg := DefaultConfig()
	env, e, _ := newTestEngine(t, cfg)
	for i := 0; i < 20; i++ {
		lsn := e.CommitMTR(1000)
		e.Redo.Request(lsn, true, nil, nil, nil)
		env.RunUntil(env.Now().Add(20 * time.Millisecond))
	}
	if e.Redo.LSNWritten != 20*1000+uint64(cfg.Redo.Commit)*20 {
		t.Fatalf("LSN written %d", e.Redo.LSNWritten)
	}
	var want int64
	per := uint64(1000 + cfg.Redo.Commit)
	for i := uint64(0); i < 20; i++ {
		start, end := i*per/4096, ((i+1)*per+4095)/4096
		want += int64(end-start) * 4096
	}
	if e.Redo.DevBytes != want {
		t.Fatalf("device bytes %d, want %d: whole 4 KiB blocks, the partial last one written again", e.Redo.DevBytes, want)
	}
}

// The log's initial state decides whether its syncs commit the journal:
// only while the first pass writes into unwritten extents, from where the
// initial load left it.
func TestRedoInitialLog(t *testing.T) {
	for _, tc := range []struct {
		state    string
		loadRow  sim.Bytes
		journal  bool
		wantBase uint64
	}{
		{"wrapped", 260, false, 0},
		{"new", 260, true, 0},
		{"after_load", 260, true, 100_000 * 260 / 4096 * 4096}, // 10 tables x 10,000 rows
		{"after_load", 64 * sim.KiB, false, 0},                 // the load wrapped a 4 GiB log
	} {
		cfg := DefaultConfig()
		cfg.Redo.InitialLog, cfg.Redo.BytesLoadRow = tc.state, tc.loadRow
		env, e, vol := newTestEngine(t, cfg)
		for i := 0; i < 5; i++ { // each round reaches a new 4 KiB block
			e.Redo.Request(e.CommitMTR(5000), true, nil, nil, nil)
			env.RunUntil(env.Now().Add(20 * time.Millisecond))
		}
		if e.Redo.Syncs < 5 {
			t.Fatalf("%s: %d syncs", tc.state, e.Redo.Syncs)
		}
		if got := vol.JournalCommits() >= e.Redo.Syncs; got != tc.journal {
			t.Errorf("%s (%v/row): %d journal commits for %d syncs, want a commit per sync: %v", tc.state, tc.loadRow, vol.JournalCommits(), e.Redo.Syncs, tc.journal)
		}
		if e.Redo.base != tc.wantBase {
			t.Errorf("%s (%v/row): the run starts at ring offset %d, want %d", tc.state, tc.loadRow, e.Redo.base, tc.wantBase)
		}
	}
}

// A buffered log (trx_commit 2) writes to the page cache at once; the
// device sees the log only at the once-per-second sync.
func TestRedoBuffered(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Redo.FileBuffering = "on" // what auto gives at trx_commit 2
	env, e, _ := newTestEngine(t, cfg)
	e.Start()
	lsn := e.CommitMTR(5000)
	if !e.Redo.Request(lsn, false, nil, nil, nil) {
		t.Fatal("a buffered write must complete at once")
	}
	env.RunUntil(sim.At(500 * time.Millisecond))
	if e.Redo.DevBytes != 0 || e.Redo.Flushed() != 0 {
		t.Fatalf("device bytes %d flushed %d before the background sync", e.Redo.DevBytes, e.Redo.Flushed())
	}
	env.RunUntil(sim.At(1100 * time.Millisecond))
	// >=: the page cleaner's checkpoint at 1 s appends its FILE_MODIFY and
	// FILE_CHECKPOINT records and makes them durable too.
	if e.Redo.Flushed() < lsn {
		t.Fatalf("flushed %d after the background sync, want >= %d", e.Redo.Flushed(), lsn)
	}
}

// Past the sync point, log_free_check stalls until furious flushing and a
// checkpoint bring the age back.
func TestCheckpointStall(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Redo.LogFileSize = 8 * sim.MiB
	cfg.Redo.LogBufferSize = 2 * sim.MiB
	env, e, _ := newTestEngine(t, cfg)
	e.Start()
	_, syncPt, _ := e.Redo.Points()
	wl := workload.DefaultSysbench()
	g := workload.NewGenerator(wl, env.Stream("w"))
	var tx workload.Tx
	var pages []int32
	for e.Redo.Age() <= syncPt {
		g.Next(&tx)
		tx.Stmts = tx.Stmts[:len(tx.Stmts)]
		for i := range tx.Stmts {
			tx.Stmts[i].Row = 1 + tx.Stmts[i].Row%10_000
		}
		pages = e.PlanPages(tx.Stmts, pages[:0])
		e.ApplyBody(tx.Stmts, pages)
		e.CommitMTR(0)
	}
	var tl Timeline
	tl.Begin(env.Now())
	resumed := false
	if e.FreeCheck(&tl, func(any) { resumed = true }, nil) {
		t.Fatal("FreeCheck passed beyond the sync point")
	}
	env.RunUntil(env.Now().Add(5 * time.Second))
	if !resumed {
		t.Fatal("stalled thread never resumed")
	}
	if tl.Comp[CatCheckpointStall] < int64(10*time.Millisecond) {
		t.Errorf("stall charged %v, want at least the 10 ms sleep", time.Duration(tl.Comp[CatCheckpointStall]))
	}
	if msg := e.Invariants(); msg != "" {
		t.Error(msg)
	}
	if e.FuriousOn == 0 {
		t.Error("no furious flushing happened")
	}
}

func TestConfigValidate(t *testing.T) {
	if err := DefaultConfig().Validate(); err != nil {
		t.Fatalf("default invalid: %v", err)
	}
	configtest.RejectsNaming(t, DefaultConfig, []configtest.Case[Config]{
		configtest.Bad(func(c *Config) { c.BufferPool.Size = sim.MiB }, "buffer_pool.size"),
		configtest.Bad(func(c *Config) { c.Redo.LogFileSize = sim.MiB }, "redo.log_file_size"),
		configtest.Bad(func(c *Config) { c.Redo.BlockSize = 3000 }, "redo.block_size"),
		configtest.Bad(func(c *Config) { c.Redo.FileBuffering = "maybe" }, "redo.log_file_buffering"),
		configtest.Bad(func(c *Config) { c.Redo.InitialLog = "old" }, "redo.initial_log"),
		configtest.Bad(func(c *Config) { c.Redo.BytesLoadRow = -1 }, "redo.bytes_load_row"),
		configtest.Bad(func(c *Config) { c.Flushing.IOCapacityMax = 100 }, "flushing.io_capacity_max"),
		configtest.Bad(func(c *Config) { c.Flushing.AdaptiveFlushingLWM = 90 }, "flushing.adaptive_flushing_lwm"),
		configtest.Bad(func(c *Config) { c.CPU.Insert = -1 }, "cpu.insert"),
		configtest.Bad(func(c *Config) { c.Flushing.FlushNeighbors = 3 }, "flushing.flush_neighbors"),
		configtest.Bad(func(c *Config) { c.Flushing.LRUScanDepth = 50 }, "flushing.lru_scan_depth"),
		configtest.Bad(func(c *Config) { c.Flushing.MaxDirtyPagesPctLWM = 95 }, "flushing.max_dirty_pages_pct_lwm"),
		configtest.Bad(func(c *Config) { c.Layout.RowsPerPage = 0 }, "layout.rows_per_page"),
	})
}

func TestPctForLSN(t *testing.T) {
	// af_get_pct_for_lsn: (max/cap) * f * sqrt(f) / 7.5 with
	// f = age*100/async, zero below the low-water mark.
	cfg := DefaultConfig()
	_, e, _ := newTestEngine(t, cfg)
	c := e.cl
	_, _, async := e.Redo.Points()
	if got := c.pctForLSN(async / 100); got != 0 {
		t.Errorf("below lwm: %d, want 0", got)
	}
	if got := c.pctForLSN(async / 2); got != 471 { // 10*50*sqrt(50)/7.5 = 471.4
		t.Errorf("half the async point: %d", got)
	}
}

// log_close's targets: past the async point buf_flush_ahead is asked for
// lsn - A (the age back to the async point), furiously from the sync point
// on; not for the current LSN.
func TestFlushAheadTargets(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Redo.LogFileSize = 8 * sim.MiB
	cfg.Redo.LogBufferSize = 2 * sim.MiB
	_, e, _ := newTestEngine(t, cfg)
	_, syncPoint, async := e.Redo.Points()
	for _, tc := range []struct {
		name        string
		age         uint64
		wantAsync   uint64 // lsn - A, or 0
		wantFurious bool
	}{
		{"below A", async - 4096, 0, false},
		{"past A", async + 4096, 4096, false},
		{"past M", syncPoint + 4096, syncPoint + 4096 - async, true},
	} {
		e.async, e.furious = 0, 0
		lsn := e.AppendRedo(tc.age - e.Redo.Age())
		got := e.async
		if tc.wantFurious {
			got = e.furious
		}
		if want := tc.wantAsync; got != want || (e.furious != 0) != tc.wantFurious {
			t.Errorf("%s (lsn %d): async %d furious %d, want target %d furious=%v", tc.name, lsn, e.async, e.furious, want, tc.wantFurious)
		}
	}
}

// TestPoolFrames checks the extent layout against the realdb host's
// Innodb_buffer_pool_pages_total and the non-leaf pages against the
// levels a 15/16 fill gives.
func TestPoolFrames(t *testing.T) {
	for _, tc := range []struct {
		size sim.Bytes
		want int
	}{
		{2560 * sim.MiB, 162_240}, // measured, docs/data/realdb/caps-2vcpu-10x1M-bp2560M-redo2G.json
		{4 * sim.GiB, 259_584},    // measured, caps-2vcpu-10x1M-bp4G-redo96M.json
		{64 * sim.MiB, 8 * 507},
		{64*sim.MiB + 4*sim.MiB, 8*507 + 253},
	} {
		if got := PoolFrames(tc.size); got != tc.want {
			t.Errorf("PoolFrames(%v) = %d, want %d", tc.size, got, tc.want)
		}
	}
	for _, tc := range []struct{ leaves, ptr, want int }{
		{1, clusteredNodePtr, 0},
		{13_889, clusteredNodePtr, 12 + 1}, // 1,171 pointers a page
		{1_000, secondaryNodePtr, 2 + 1},   // 895 a page
		{1_171*1_171 + 1, clusteredNodePtr, 1_172 + 2 + 1},
	} {
		if got := nonLeafPages(tc.leaves, tc.ptr); got != tc.want {
			t.Errorf("nonLeafPages(%d, %d) = %d, want %d", tc.leaves, tc.ptr, got, tc.want)
		}
	}
}

// A thread that asks for the log while the lock is free takes it, even
// while the thread release() woke to lead waits to run
// (group_commit_lock::acquire): here C asks in the 10 µs B's wake-up
// takes, leads the second round, and B, finding the lock taken, sleeps
// again and is served by C's round as a follower, woken once more.
func TestRedoLeaderBarging(t *testing.T) {
	env, e, _ := newTestEngine(t, DefaultConfig())
	cpu := sim.NewCPU(env, 2)
	e.SetCPU(cpu)
	var a, b, c Timeline
	for _, tl := range []*Timeline{&a, &b, &c} {
		tl.Thread = &sim.CPUThread{}
		tl.Begin(env.Now())
	}
	done := map[*Timeline]int{}
	doneAt := map[*Timeline]sim.Time{}
	cb := func(x any) { tl := x.(*Timeline); done[tl]++; doneAt[tl] = env.Now() }
	e.Redo.Request(e.CommitMTR(1000), true, &a, cb, &a) // leads round 1
	e.Redo.Request(e.CommitMTR(1000), true, &b, cb, &b) // waits
	for !b.leadWake && env.Now() < sim.At(50*time.Millisecond) {
		env.RunUntil(env.Now().Add(time.Microsecond))
	}
	if !b.leadWake || done[&a] != 1 || e.Redo.Syncs != 1 {
		t.Fatalf("after round 1: B waking to lead %v, A done %d, syncs %d", b.leadWake, done[&a], e.Redo.Syncs)
	}
	e.Redo.Request(e.CommitMTR(1000), true, &c, cb, &c)
	if !e.Redo.busy || e.Redo.leaderTL != &c {
		t.Fatalf("C did not take the free lock (busy %v, leader is C: %v)", e.Redo.busy, e.Redo.leaderTL == &c)
	}
	env.RunUntil(sim.At(100 * time.Millisecond))
	if done[&b] != 1 || done[&c] != 1 {
		t.Fatalf("B done %d times, C %d; want once each", done[&b], done[&c])
	}
	if e.Redo.Syncs != 2 || e.Redo.designating != 0 || b.leadWake {
		t.Errorf("syncs %d (want 2: A's and C's), designating %d, B still waking %v", e.Redo.Syncs, e.Redo.designating, b.leadWake)
	}
	if doneAt[&b] < doneAt[&c] {
		t.Errorf("B went on at %v, before C's round ended at %v", doneAt[&b], doneAt[&c])
	}
}
