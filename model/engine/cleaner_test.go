package engine

import (
	"fmt"
	"testing"
	"time"

	"simrun/model/disk"
	"simrun/model/workload"
	"simrun/sim"
)

// loadDriver runs a closed loop of sysbench write transactions against an
// engine: log_free_check, page reads, the body, the commit mini-transaction
// and a durable log write, with no CPU.
type loadDriver struct {
	t     *testing.T
	env   *sim.Env
	e     *Engine
	vol   *disk.Volume
	src   Sources
	gen   *workload.Generator
	stop  sim.Time
	txs   int64
	check func()
}

type driverThread struct {
	d     *loadDriver
	tx    workload.Tx
	pages []int32
}

func newLoadDriver(t *testing.T, cfg Config, tables int, rows int64) *loadDriver {
	t.Helper()
	wl := workload.DefaultSysbench()
	wl.Tables, wl.TableSize = tables, rows
	env, e, vol, src := newTestEngineWL(t, cfg, wl)
	return &loadDriver{t: t, env: env, e: e, vol: vol, src: src, gen: workload.NewGenerator(wl, env.Stream("w"))}
}

func (d *loadDriver) run(threads int, dur time.Duration) {
	d.e.Start()
	d.stop = d.env.Now().Add(dur)
	for i := 0; i < threads; i++ {
		th := &driverThread{d: d}
		d.env.AfterArg(0, th.begin, nil)
	}
	d.env.RunUntil(d.stop.Add(30 * time.Second)) // let the writes in flight finish
}

func (th *driverThread) begin(any) {
	d := th.d
	if d.check != nil {
		d.check()
	}
	if d.env.Now() >= d.stop {
		return
	}
	if !d.e.FreeCheck(nil, th.begin, nil) {
		return
	}
	d.gen.Next(&th.tx)
	th.pages = d.e.PlanPages(th.tx.Stmts, th.pages[:0])
	if d.e.Resident(th.pages, nil, th.body, nil) {
		th.body(nil)
	}
}

func (th *driverThread) body(any) {
	d := th.d
	d.e.ApplyBody(th.tx.Stmts, th.pages)
	lsn := d.e.CommitMTR(0)
	d.txs++
	if d.e.LogUpTo(lsn, true, nil, th.begin, nil) {
		d.env.AfterArg(0, th.begin, nil)
	}
}

// poolProperties checks, page by page, what the buffer pool must never
// show: a free list shorter than zero, a page that is dirty or being
// written without a frame (its frame was reused before the write), and
// counts that disagree with the pages.
func poolProperties(e *Engine) string {
	b := e.BP
	if b.Free() < 0 {
		return fmt.Sprintf("free list %d < 0", b.Free())
	}
	if all := PoolFrames(e.cfg.BufferPool.Size); b.frames+e.nonLeaf != all || e.nonLeaf <= 0 {
		return fmt.Sprintf("%d data frames + %d non-leaf pages, want the pool's %d frames", b.frames, e.nonLeaf, all)
	}
	dirty, resident := 0, 0
	for p := range b.word {
		w := b.word[p]
		if w&pgResident == 0 {
			if w&(lsnMask|pgIOFix) != 0 {
				return fmt.Sprintf("page %d has no frame but is dirty or being written (word %#x)", p, w)
			}
			continue
		}
		resident++
		if w&lsnMask != 0 {
			dirty++
		}
	}
	if dirty != b.dirty || resident != b.resident {
		return fmt.Sprintf("counted %d dirty %d resident, pool says %d %d", dirty, resident, b.dirty, b.resident)
	}
	return e.Invariants()
}

// TestCleanerProperties drives a pool smaller than the data with a small
// redo log, so that the flush list, the LRU batch, neighbours and
// free-page waits all run, and checks the invariants at every transaction.
func TestCleanerProperties(t *testing.T) {
	for _, tc := range []struct {
		name       string
		pool, redo sim.Bytes
		neighbours int
		rotational bool
		wantLRU    bool
	}{
		{"small pool, neighbours 1", 64 * sim.MiB, 8 * sim.MiB, 1, true, true},
		{"small pool, neighbours 2", 64 * sim.MiB, 8 * sim.MiB, 2, true, true},
		{"small pool, not rotational", 64 * sim.MiB, 8 * sim.MiB, 1, false, true},
		{"pool holds the data", 512 * sim.MiB, 8 * sim.MiB, 1, true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := DefaultConfig()
			cfg.BufferPool.Size = tc.pool
			cfg.Redo.LogFileSize = tc.redo
			cfg.Redo.LogBufferSize = 2 * sim.MiB
			cfg.Flushing.FlushNeighbors = tc.neighbours
			cfg.Flushing.Rotational = tc.rotational
			d := newLoadDriver(t, cfg, 10, 100_000) // 14,890 data pages
			e := d.e
			var failed string
			d.check = func() {
				if failed == "" {
					failed = poolProperties(e)
				}
			}
			d.run(8, 4*time.Second)
			if failed != "" {
				t.Fatal(failed)
			}
			if msg := poolProperties(e); msg != "" {
				t.Fatal(msg)
			}
			if d.txs < 1000 {
				t.Fatalf("only %d transactions", d.txs)
			}
			// Every page the engine wrote reached the volume once, by its source.
			_, w := d.vol.SourceBytes(d.src.PageFlush)
			if got, want := w/PageSize, e.PagesFlushed+e.LRUWrites; got != want {
				t.Errorf("page_flush writes %d pages, sources say %d (flush list %d + LRU batch %d + single %d)",
					got, want, e.FlushListPages, e.LRUBatchPages, e.LRUWrites)
			}
			if e.FlushListPages == 0 {
				t.Error("no flush-list batch ran")
			}
			if got := e.LRUBatchPages+e.LRUEvicted > 0; got != tc.wantLRU {
				t.Errorf("LRU batch active = %v (written %d, freed %d, waits %d), want %v",
					got, e.LRUBatchPages, e.LRUEvicted, e.WaitFree, tc.wantLRU)
			}
			if got := e.NeighborPages > 0; got != tc.rotational {
				t.Errorf("neighbour pages %d on rotational=%v", e.NeighborPages, tc.rotational)
			}
			if e.NeighborPages > e.PagesFlushed {
				t.Errorf("neighbours %d exceed the pages written %d", e.NeighborPages, e.PagesFlushed)
			}
		})
	}
}

// The loop as buf_flush_page_cleaner runs it: every iteration that wrote
// pages ends in a checkpoint (set_almost_idle), and flush-ahead, which
// buf_flush_ahead does not wake from the 1-second wait, starts a batch at
// most once a second while the cleaner stays awake.
func TestCleanerLoopSource(t *testing.T) {
	cfg := DefaultConfig()
	cfg.BufferPool.Size = 512 * sim.MiB // the data fit: no LRU batch
	cfg.Redo.LogFileSize = 64 * sim.MiB // A to M: about a second of this load
	cfg.Redo.LogBufferSize = 2 * sim.MiB
	cfg.Index.Splits = false // the packed index's split redo would take the log past its sync point
	d := newLoadDriver(t, cfg, 10, 100_000)
	e := d.e
	c := e.cl
	type start struct {
		mode  int
		at    sim.Time
		pages int
		ckpts int64
	}
	var starts []start
	var ended, withCkpt int // flush-ahead batches seen ending, and of them those with a checkpoint
	running := false
	d.check = func() {
		if !c.running && running {
			if last := starts[len(starts)-1]; last.pages > 0 && last.mode == modeAsync {
				ended++
				if e.Checkpoints > last.ckpts {
					withCkpt++
				}
			}
		}
		if c.running && (!running || starts[len(starts)-1].at != c.batchAt) {
			starts = append(starts, start{c.mode, c.batchAt, c.nPages, e.Checkpoints})
		}
		running = c.running
	}
	d.run(2, 30*time.Second)
	if e.FlushAheadOn == 0 {
		t.Fatalf("no flush-ahead: the 64 MiB log must pass its async point (tx %d furious %d ckpts %d flushed %d starts %d)", d.txs, e.FuriousOn, e.Checkpoints, e.PagesFlushed, len(starts))
	}
	t.Logf("ahead %d furious %d ckpts %d ended %d", e.FlushAheadOn, e.FuriousOn, e.Checkpoints, ended)
	if ended < 10 || 10*withCkpt < 9*ended {
		t.Errorf("%d of %d flush-ahead batches seen ending were followed by a checkpoint; want (nearly) all", withCkpt, ended)
	}
	for i := 1; i < len(starts); i++ {
		a, b := starts[i-1], starts[i]
		if a.mode == modeAsync && b.mode == modeAsync && b.at-a.at < sim.Time(time.Second) {
			t.Fatalf("flush-ahead batches at %v and %v: less than the 1-second wait apart", a.at, b.at)
		}
	}
}

// The recommendation is MariaDB's: with innodb_max_dirty_pages_pct_lwm = 0
// total_ratio is 1, so io_capacity enters once, whatever pct_for_lsn.
func TestRecommendationTotalRatio(t *testing.T) {
	for _, tc := range []struct {
		lwm      float64
		ageFrac  float64 // of the async point
		avg, pfl int     // avg_page_rate; dirty pages in 3 s of the oldest (x3)
		want     int
	}{
		{0, 0.5, 300, 600, (200 + 300 + 200) / 3},
		{0, 0.9, 300, 600, (200 + 300 + 200) / 3},
		// lwm 10 %: total_ratio = max(pct_for_lsn/100, dirty/max):
		// pct_for_lsn(0.5 async) = 471 -> 4.71 x 200 = 942.
		{10, 0.5, 300, 600, (942 + 300 + 200) / 3},
	} {
		cfg := DefaultConfig()
		cfg.Flushing.MaxDirtyPagesPctLWM = tc.lwm
		cfg.Index.Splits = false // every page id below pfl exists
		env, e, _ := newTestEngine(t, cfg)
		_ = env
		c := e.cl
		_, _, async := e.Redo.Points()
		// pages dirtied at LSN 1..pfl, then the LSN moved to the age asked for
		for p := 0; p < tc.pfl; p++ {
			e.BP.Touch(int32(p), uint64(1+p))
		}
		e.Redo.lsn = 1 + uint64(tc.ageFrac*float64(async))
		c.prevLSN, c.avgPageRate, c.lsnAvgRate = 1, tc.avg, uint64(tc.pfl) // 3 s of the LSN rate cover every dirty page
		got := c.recommendation(1, 1)
		if got != tc.want {
			t.Errorf("lwm %v age %.1f async: n = %d, want %d", tc.lwm, tc.ageFrac, got, tc.want)
		}
	}
}

// buf_flush_try_neighbors with innodb_flush_neighbors = 1 takes the
// contiguous dirty run around the page inside its 64-page area; with 2
// every dirty page of the area.
func TestNeighbours(t *testing.T) {
	for _, tc := range []struct {
		mode  int
		dirty []int32
		page  int32
		room  int // pages the batch may still take besides page
		want  []int32
	}{
		{1, []int32{60, 61, 62, 64, 65, 66, 68}, 65, 100, []int32{64, 66}},
		{1, []int32{63, 64, 65}, 64, 100, []int32{65}}, // 63 is in the previous area
		{2, []int32{64, 70, 100, 127, 128}, 100, 100, []int32{64, 70, 127}},
		{1, []int32{10}, 10, 100, nil},
		// the batch's n counts neighbours: past it only the page itself
		{2, []int32{64, 70, 100, 127, 128}, 100, 2, []int32{64, 70}},
		{1, []int32{64, 65, 66}, 65, 0, nil},
	} {
		_, e, _ := newTestEngine(t, DefaultConfig())
		for _, p := range tc.dirty {
			e.BP.Touch(p, 100)
		}
		e.BP.Clean(tc.page)
		got := e.takeNeighbours(nil, tc.page, tc.mode, false, 0, tc.room)
		if fmt.Sprint(got) != fmt.Sprint(tc.want) {
			t.Errorf("mode %d page %d dirty %v room %d: neighbours %v, want %v", tc.mode, tc.page, tc.dirty, tc.room, got, tc.want)
		}
		for _, p := range got {
			if e.BP.IsDirty(p) {
				t.Errorf("neighbour %d still dirty", p)
			}
		}
	}
}

// Flush-ahead from a clean start, as buf_flush_page_cleaner runs it: once
// the age reaches the async point A, every iteration finds
// buf_flush_async_lsn set again (a second of redo pushes the age past A),
// so page_cleaner_flush_pages_recommendation never writes a page; the real
// server's buffer_flush_adaptive_total_pages is 0 in 47 of 48 capped runs.
// Each batch takes the pages below lsn - A, up to io_capacity_max, so the
// first cohort's burst comes back one span A / LSN rate later (plus the
// time its pages take to be dirtied again), as it does on the server
// (docs/capacity-planning.md, "Is the cycle physical?": 63 and 64 s apart
// at a 64 s span).
func TestFlushAheadEcho(t *testing.T) {
	cfg := DefaultConfig()
	cfg.BufferPool.Size = 512 * sim.MiB // the data fit: no LRU batch
	cfg.Redo.LogFileSize = 64 * sim.MiB // A = 46.9 MB: a span of about 10 s of this load
	cfg.Redo.LogBufferSize = 2 * sim.MiB
	// Aged data: index k's split transient of freshly prepared data (its
	// first ~100,000 transactions at 10 x 100k) is over, so what dirties
	// the tail is the workload's steady mix.
	cfg.Index.Age = 2_000_000
	d := newLoadDriver(t, cfg, 10, 100_000)
	e := d.e
	c := e.cl
	const secs = 60
	var flushed [secs + 31]int // pages of the batches started in each second
	var byMode [4]int
	firstAhead := -1
	var lsnAt [secs + 31]uint64
	var last sim.Time
	running := false
	d.check = func() {
		s := int(d.env.Now() / sim.Time(time.Second))
		if lsnAt[s] == 0 {
			lsnAt[s] = e.Redo.lsn
		}
		if c.running && (!running || last != c.batchAt) {
			last = c.batchAt
			flushed[s] += c.nPages
			if c.mode == modeAsync && firstAhead < 0 {
				firstAhead = s
			}
			if firstAhead >= 0 {
				byMode[c.mode] += c.nPages
			}
		}
		running = c.running
	}
	d.run(2, secs*time.Second)
	if firstAhead < 0 || firstAhead > secs/3 {
		t.Fatalf("flush-ahead started at second %d of %d", firstAhead, secs)
	}
	if byMode[modeAdaptive] != 0 || byMode[modeLRU] != 0 {
		t.Errorf("after flush-ahead began, pages by mode %v: want only flush-ahead and furious batches", byMode)
	}
	_, _, a := e.Redo.Points()
	span := float64(a) / (float64(lsnAt[secs-1]-lsnAt[firstAhead]) / float64(secs-1-firstAhead)) // s
	// A burst: a second with at least half of io_capacity_max, after one
	// with less; the quietest second between two bursts holds less than a
	// fifth of it.
	n := cfg.Flushing.IOCapacityMax
	var bursts []int
	for s := firstAhead; s < secs; s++ {
		if 2*flushed[s] >= n && (s == firstAhead || 2*flushed[s-1] < n) {
			bursts = append(bursts, s)
		}
	}
	if len(bursts) < 4 {
		t.Fatalf("bursts at seconds %v (span %.1f s, flushed %v): want one every span", bursts, span, flushed[:secs])
	}
	for i := 1; i < len(bursts); i++ {
		gap := float64(bursts[i] - bursts[i-1])
		quiet := n
		for s := bursts[i-1] + 2; s < bursts[i]; s++ {
			quiet = min(quiet, flushed[s])
		}
		if gap < span-1 || gap > 1.4*span || 5*quiet >= n {
			t.Errorf("bursts at %d and %d s: %v s apart (span %.1f s), quietest second between %d pages; want one span (+ the re-dirtying) and a quiet gap", bursts[i-1], bursts[i], gap, span, quiet)
		}
	}
	t.Logf("span %.1f s, bursts at %v, pages by mode %v", span, bursts, byMode)
}

// MariaDB's doublewrite (buf/buf0dblwr.cc, 10.11): one batch in flight at
// a time (flush_buffered_writes waits while batch_running), and each
// batch's written tablespaces synced when its page writes complete
// (write_completed -> fil_flush_file_spaces), before the next batch.
func TestDoublewriteBatches(t *testing.T) {
	cfg := DefaultConfig()
	cfg.BufferPool.Size = 512 * sim.MiB
	cfg.Redo.LogFileSize = 64 * sim.MiB // flushing within seconds
	cfg.Redo.LogBufferSize = 2 * sim.MiB
	cfg.Index.Splits = false
	d := newLoadDriver(t, cfg, 10, 100_000)
	c := d.e.cl
	most := 0
	d.check = func() { most = max(most, c.chunks) }
	d.run(4, 20*time.Second)
	chunks := (d.e.PagesFlushed + int64(cfg.Flushing.DoublewriteBatch) - 1) / int64(cfg.Flushing.DoublewriteBatch)
	if chunks < 20 {
		t.Fatalf("only %d pages flushed: the test does not exercise the doublewrite", d.e.PagesFlushed)
	}
	if most != 1 {
		t.Errorf("%d doublewrite batches in flight at once, want 1", most)
	}
	if c.spaceSyncs < chunks {
		t.Errorf("%d tablespace syncs for at least %d batches: each batch syncs the tables it wrote", c.spaceSyncs, chunks)
	}
	t.Logf("pages %d, batches >= %d, tablespace syncs %d", d.e.PagesFlushed, chunks, c.spaceSyncs)
}
