package engine

import (
	"math"
	"time"

	"simrun/internal/trace"
	"simrun/sim"
)

// cleaner is MariaDB's single page cleaner thread (buf_flush_page_cleaner,
// MariaDB >= 10.5) with the doublewrite buffer and the checkpoint that
// follows each batch:
//
//   - furious flushing (buf_flush_sync_lsn set, innodb_flush_sync=ON):
//     back-to-back batches of io_capacity_max pages up to the target,
//     ignoring io_capacity, then a checkpoint;
//   - flush-ahead (buf_flush_async_lsn set, checkpoint age past the async
//     point): back-to-back batches of io_capacity_max pages up to the target;
//   - otherwise, if the free list is short (buf_pool.need_LRU_eviction:
//     fewer than lru_scan_depth/2 free pages), an LRU batch of
//     io_capacity_max pages and nothing else;
//   - otherwise once per second: nothing while the checkpoint age is below
//     adaptive_flushing_lwm and dirty pages below max_dirty_pages_pct,
//     else a batch of page_cleaner_flush_pages_recommendation() pages;
//   - after every flush-list batch, the LRU batch (buf_flush_LRU) of
//     max(io_capacity_max - pages just flushed, min(io_capacity_max,
//     lru_scan_depth)) pages, which frees clean pages from the LRU tail and
//     writes dirty ones while the free list is shorter than lru_scan_depth.
//
// A flush-list batch (buf_do_flush_list_batch) takes pages from the head of
// the flush list (oldest modification first), each with its dirty
// neighbours (buf_flush_try_neighbors, innodb_flush_neighbors on a
// rotational device), which count toward the batch's pages. A batch first
// makes the log durable up to the current LSN
// (write-ahead logging: buf_flush_page calls log_write_up_to), then writes
// them in doublewrite batches: one sequential write of the batch to the
// doublewrite area of ibdata1, an fdatasync, then the pages in place; two
// batches can be in flight (two doublewrite slots).
type cleaner struct {
	e *Engine

	running  bool // a batch (or checkpoint) is in progress
	sleeping bool // idle: waiting without a timeout for page_cleaner_wakeup or buf_flush_ahead
	goIdle   bool // the iteration ends in set_idle: checkpoint, then sleep
	timer    sim.Timer
	timed    bool
	nextTick sim.Time
	tickCB   func()
	resetAt  sim.Time

	// page_cleaner_flush_pages_recommendation state
	prevLSN     uint64
	prevSec     int64
	sumPages    int
	avgPageRate int
	nIter       int
	lsnAvgRate  uint64
	lastPages   int

	// the batch
	pages    []int32 // page ids; lruBit marks a page the LRU batch evicts once written
	nFL      int     // pages of the batch taken by the flush list (with their neighbours)
	freeWait bool    // a user thread waits for a free page (buf_LRU_get_free_block)
	next     int     // next page of the batch to put into a chunk
	chunks   int     // chunks in flight
	mode     int
	walCB    func(any)
	dwCB     func(any)
	pageCB   func(any)
	slots    [2]dwSlot
	ckptCB   func()
	ckptStp  int
	ckptN    int
	ckptLSN  uint64
	ckptSub  func(any)

	// trace (rec nil: off)
	rec     *trace.Recorder
	trBatch trace.TrackID    // flush/page cleaner
	trDW    [2]trace.TrackID // flush/doublewrite slot N
	batchAt sim.Time
	ckptAt  sim.Time
	nPages  int
}

var modeNames = [...]string{"adaptive", "flush-ahead", "furious", "LRU"}

const (
	modeAdaptive = iota
	modeAsync
	modeFurious
	modeLRU
)

// lruBit marks a page of the batch that the LRU batch wrote: its frame is
// freed when the write completes, unless it was modified again meanwhile
// (buf_page_write_complete with evict).
const lruBit int32 = 1 << 30

type dwSlot struct {
	busy    bool
	idx     int
	pending int
	synced  bool // the home writes' fsync has run (page cache, doublewrite on)
	pages   []int32
	at      sim.Time // trace: chunk start
	dwDone  sim.Time // trace: doublewrite copy durable
}

func newCleaner(e *Engine) *cleaner {
	c := &cleaner{e: e}
	c.tickCB = c.tick
	c.walCB = c.onWAL
	c.dwCB = c.onDoublewrite
	c.pageCB = c.onPageWritten
	c.ckptCB = c.checkpointNext
	c.ckptSub = c.onCheckpointStep
	for i := range c.slots {
		c.slots[i].idx = i
	}
	return c
}

func (c *cleaner) start() {
	c.nextTick = c.e.env.Now().Add(time.Second)
	c.timer = c.e.env.At(c.nextTick, c.tickCB)
	c.timed = true
}

// wake is pthread_cond_signal(&buf_pool.do_flush_list) from buf_flush_ahead:
// a waiting cleaner runs its next iteration now.
func (c *cleaner) wake() {
	if c.running {
		return // done() looks at the requests when the iteration ends
	}
	if c.sleeping {
		c.sleeping = false
	} else if c.timed {
		c.e.env.Cancel(c.timer)
	} else {
		return
	}
	c.timer = c.e.env.At(c.e.env.Now(), c.tickCB)
	c.timed = true
}

// dirtied is buf_pool.page_cleaner_wakeup() from a page entering the flush
// list: with innodb_max_dirty_pages_pct_lwm = 0 an idle cleaner is woken
// only once the dirty pages reach max_dirty_pages_pct.
func (c *cleaner) dirtied() {
	if !c.sleeping {
		return
	}
	bp := c.e.BP
	if 100*float64(bp.dirty) >= c.e.cfg.Flushing.MaxDirtyPagesPct*float64(bp.frames) {
		c.wake()
	}
}

// wakeFree is buf_pool.page_cleaner_wakeup(true) from
// buf_LRU_get_free_block: a user thread found no free page.
func (c *cleaner) wakeFree() {
	c.freeWait = true
	c.wake()
}

func (c *cleaner) tick() {
	c.timed = false
	e := c.e
	now := e.env.Now()
	c.nextTick = now.Add(time.Second)
	bp, r := e.BP, e.Redo
	oldest := bp.OldestLSN()
	f := e.cfg.Flushing

	if e.furious != 0 {
		if oldest != 0 && oldest < e.furious {
			e.FuriousOn++
			c.batch(c.take(f.IOCapacityMax, e.furious), modeFurious)
			return
		}
		// buf_flush_sync_for_checkpoint is done: checkpoint now.
		e.furious = 0
		c.batch(nil, modeFurious)
		return
	}
	if e.async != 0 && (oldest == 0 || oldest >= e.async) {
		e.async = 0
	}
	if e.async != 0 {
		e.FlushAheadOn++
		c.batch(c.take(f.IOCapacityMax, e.async), modeAsync)
		return
	}
	if oldest == 0 {
		// fully_unemployed: nothing dirty.
		c.idle()
		return
	}
	if c.lruOn() && bp.Free() < f.LRUScanDepth/2 {
		// buf_pool.need_LRU_eviction(): an LRU batch, nothing else.
		c.pages, c.nFL = c.pages[:0], 0
		c.takeLRU(0)
		c.batch(c.pages, modeLRU)
		return
	}
	dirtyPct := 100 * float64(bp.dirty) / float64(bp.frames)
	age := uint64(0)
	if oldest != 0 {
		age = r.lsn - oldest
	}
	capa, _, _ := r.Points()
	lwm := uint64(f.AdaptiveFlushingLWM * float64(capa) / 100)
	// With innodb_max_dirty_pages_pct_lwm = 0 the cleaner is idle below
	// max_dirty_pages_pct unless the checkpoint age needs adaptive flushing
	// (af_needed_for_redo); with a lwm, also while the dirty share is below it.
	if dirtyPct < f.MaxDirtyPagesPct && age <= lwm && (f.MaxDirtyPagesPctLWM == 0 || dirtyPct < f.MaxDirtyPagesPctLWM) {
		c.idle()
		return
	}
	n := c.recommendation(oldest, dirtyPct)
	c.lastPages = 0
	if n <= 0 {
		c.idle()
		return
	}
	pages := c.take(n, 0)
	c.lastPages = c.nFL // n_flushed of the flush list, neighbours included, LRU batch not
	c.batch(pages, modeAdaptive)
}

// idle is set_idle: MariaDB >= 10.5 writes a checkpoint (log_checkpoint)
// and, with innodb_max_dirty_pages_pct_lwm = 0, waits for
// buf_pool.do_flush_list with no timeout: only buf_flush_ahead (the async or
// sync point), a thread short of free pages, or the dirty pages reaching
// max_dirty_pages_pct wake it (buf_pool_t::page_cleaner_wakeup). With a lwm
// it wakes once a second. A bulk loader's engine keeps the timed wake-up
// and no checkpoint here.
func (c *cleaner) idle() {
	if c.e.loader {
		c.timer = c.e.env.At(c.nextTick, c.tickCB)
		c.timed = true
		return
	}
	c.goIdle = true
	c.batch(nil, modeAdaptive)
}

// take is one flush-list batch and the LRU batch after it: up to n pages
// below limit (0 = none) from the head of the flush list, each with its
// dirty neighbours, which count toward n (buf_do_flush_list_batch,
// buf_flush_try_neighbors), then buf_flush_LRU(max(io_capacity_max -
// flushed, min(io_capacity_max, lru_scan_depth))).
func (c *cleaner) take(n int, limit uint64) []int32 {
	e := c.e
	c.pages = c.pages[:0]
	nb := e.neighbourMode(false)
	for len(c.pages) < n {
		before := len(c.pages)
		c.pages, _ = e.BP.TakeOldest(c.pages, 1, limit)
		if len(c.pages) == before {
			break
		}
		if nb != 0 {
			c.pages = e.takeNeighbours(c.pages, c.pages[before], nb, false, 0)
		}
		c.fix(before)
	}
	c.nFL = len(c.pages)
	e.FlushListPages += int64(c.nFL)
	if c.lruOn() {
		f := e.cfg.Flushing
		c.takeLRU(max(f.IOCapacityMax-c.nFL, min(f.IOCapacityMax, f.LRUScanDepth)))
	}
	return c.pages
}

// fix io-fixes the pages taken from index from on: the LRU walk must not
// free their frames before their writes complete (buf_page_t::io_fix).
func (c *cleaner) fix(from int) {
	for _, q := range c.pages[from:] {
		c.e.BP.IOFix(q &^ lruBit)
	}
}

// lruOn reports whether the page cleaner runs LRU batches: always in
// MariaDB; an engine serving a bulk loader's Tablespace runs the loader's
// own LRU policy (MySQL 5.1's buf_flush_LRU_recommendation) instead.
func (c *cleaner) lruOn() bool { return !c.e.loader }

// takeLRU is buf_flush_LRU_list_batch: walking the LRU from its tail while
// the free list is shorter than lru_scan_depth, it frees clean pages and
// takes dirty ones (with their old dirty neighbours) for writing, up to n
// written (0 = io_capacity_max). Taken pages carry lruBit.
func (c *cleaner) takeLRU(n int) {
	e := c.e
	bp := e.BP
	f := e.cfg.Flushing
	if n == 0 {
		n = f.IOCapacityMax
	}
	nb := e.neighbourMode(true)
	written := 0
	for scanned := 0; bp.Free() < f.LRUScanDepth && written < n && scanned < bp.resident; scanned++ {
		p, ok := bp.NextOld()
		if !ok {
			break
		}
		if !bp.IsDirty(p) {
			bp.Evict(p)
			e.LRUEvicted++
			continue
		}
		before := len(c.pages)
		bp.Clean(p)
		c.pages = append(c.pages, p|lruBit)
		if nb != 0 {
			c.pages = e.takeNeighbours(c.pages, p, nb, true, lruBit)
		}
		c.fix(before)
		written += len(c.pages) - before
	}
	e.LRUBatchPages += int64(len(c.pages) - c.nFL)
}

// pctForLSN is af_get_pct_for_lsn.
func (c *cleaner) pctForLSN(age uint64) uint64 {
	e := c.e
	capa, _, async := e.Redo.Points()
	f := e.cfg.Flushing
	lwm := uint64(f.AdaptiveFlushingLWM * float64(capa) / 100)
	if age < lwm {
		return 0
	}
	factor := age * 100 / async
	ratio := uint64(f.IOCapacityMax / f.IOCapacity)
	return uint64(float64(ratio*factor) * math.Sqrt(float64(factor)) / 7.5)
}

// recommendation is page_cleaner_flush_pages_recommendation with
// innodb_max_dirty_pages_pct_lwm = 0 (the MariaDB default). Time is in
// whole seconds, as time() gives it.
func (c *cleaner) recommendation(oldest uint64, dirtyPct float64) int {
	e := c.e
	f := e.cfg.Flushing
	lsn := e.Redo.lsn
	age := lsn - oldest
	pctLSN := c.pctForLSN(age)
	sec := int64(e.env.Now() / sim.Time(time.Second))
	if c.prevLSN == 0 || pctLSN == 0 {
		c.prevSec = sec
		c.prevLSN = lsn
		maxPct := f.MaxDirtyPagesPct
		dp := dirtyPct
		if maxPct > 0 {
			dp /= maxPct
		}
		n := int(dp * float64(f.IOCapacity))
		if n < e.BP.dirty {
			n = min(f.IOCapacity, e.BP.dirty)
		}
		return n
	}
	c.sumPages += c.lastPages
	elapsed := max(sec-c.prevSec, 1)
	c.nIter++
	if c.nIter >= f.FlushingAvgLoops || elapsed >= int64(f.FlushingAvgLoops) {
		c.avgPageRate = (c.sumPages/int(elapsed) + c.avgPageRate) / 2
		lsnRate := (lsn - c.prevLSN) / uint64(elapsed)
		c.lsnAvgRate = (c.lsnAvgRate + lsnRate) / 2
		c.prevLSN = lsn
		c.prevSec = sec
		c.nIter = 0
		c.sumPages = 0
	}
	// total_ratio: 1 with innodb_max_dirty_pages_pct_lwm = 0 (the
	// default), else the larger of pct_for_lsn/100 and the dirty share of
	// max_dirty_pages_pct (MariaDB >= 10.5; MySQL's PCT_IO(max(pct_dirty,
	// pct_for_lsn)) is not what MariaDB runs).
	ratio := 1.0
	if f.MaxDirtyPagesPctLWM != 0 && f.MaxDirtyPagesPct != 0 {
		ratio = max(float64(pctLSN)/100, dirtyPct/f.MaxDirtyPagesPct)
	}
	target := oldest + c.lsnAvgRate*3
	pagesForLSN := e.BP.CountBelow(target, f.IOCapacityMax) / 3
	if pagesForLSN < 1 {
		pagesForLSN = 1
	}
	n := (int(float64(f.IOCapacity)*ratio) + c.avgPageRate + pagesForLSN) / 3
	return min(n, f.IOCapacityMax)
}

// batch writes pages (already taken), then ends the iteration: with a
// checkpoint after furious flushing (buf_flush_sync_for_checkpoint) and in
// set_idle, without one after flush-ahead, adaptive and LRU batches
// (MariaDB >= 10.5; a bulk loader's engine checkpoints after every batch).
func (c *cleaner) batch(pages []int32, mode int) {
	c.running = true
	c.mode = mode
	c.next = 0
	c.chunks = 0
	c.batchAt = c.e.env.Now()
	c.nPages = len(pages)
	if len(pages) == 0 {
		c.endBatch()
		return
	}
	e := c.e
	e.PagesFlushed += int64(len(pages))
	e.flushedSeries.Add(e.env.Now()-c.resetAt, float64(len(pages)))
	if e.Redo.Request(e.Redo.lsn, true, nil, c.walCB, nil) {
		c.onWAL(nil)
	}
}

func (c *cleaner) onWAL(any) {
	if c.rec != nil && c.e.env.Now() > c.batchAt {
		c.rec.Span(c.trBatch, "log_write_up_to (WAL)", c.batchAt, c.e.env.Now())
	}
	for i := range c.slots {
		if c.next < len(c.pages) && !c.slots[i].busy {
			c.startChunk(&c.slots[i])
		}
	}
}

// startChunk puts the next doublewrite batch of pages into slot s.
func (c *cleaner) startChunk(s *dwSlot) {
	e := c.e
	n := min(e.cfg.Flushing.DoublewriteBatch, len(c.pages)-c.next)
	s.pages = append(s.pages[:0], c.pages[c.next:c.next+n]...)
	c.next += n
	s.busy = true
	s.at = e.env.Now()
	c.chunks++
	if e.cfg.Flushing.Doublewrite {
		e.sys.WriteAt(e.dblwrOffset(s.idx), int64(n)*PageSize, e.src.Doublewrite, nil, nil)
		e.sys.Sync(c.dwCB, s)
		return
	}
	c.writePages(s)
}

func (c *cleaner) onDoublewrite(a any) {
	s := a.(*dwSlot)
	s.dwDone = c.e.env.Now()
	c.writePages(s)
}

func (c *cleaner) writePages(s *dwSlot) {
	e := c.e
	s.pending = len(s.pages)
	for _, q := range s.pages {
		p := q &^ lruBit
		f, off := e.pageFile(p)
		e.markWritten(p)
		f.WriteAt(off, e.ioPage, e.src.PageFlush, c.pageCB, s)
	}
}

func (c *cleaner) onPageWritten(a any) {
	s := a.(*dwSlot)
	s.pending--
	if s.pending > 0 {
		return
	}
	if c.batchSync(s) {
		return
	}
	s.busy = false
	c.chunks--
	bp := c.e.BP
	for _, q := range s.pages {
		p := q &^ lruBit
		bp.IOUnfix(p)
		if q&lruBit != 0 && !bp.IsDirty(p) && bp.IsResident(p) {
			bp.Evict(p)
			c.e.LRUEvicted++
		}
	}
	if c.rec != nil {
		c.traceChunk(s)
	}
	if c.next < len(c.pages) {
		c.startChunk(s)
		return
	}
	if c.chunks == 0 {
		c.endBatch()
	}
}

// endBatch checkpoints or ends the iteration.
func (c *cleaner) endBatch() {
	if c.mode == modeFurious || c.goIdle || c.e.loader || c.e.cfg.Flushing.CheckpointPerBatch {
		c.checkpoint()
		return
	}
	c.ckptStp = 0
	c.done()
}

// checkpoint runs log_checkpoint after a batch: the InnoDB binlog's
// pending and partial pages are written, then the data
// files written since the last checkpoint are fdatasynced, the log is made
// durable, and the checkpoint block is written and synced.
func (c *cleaner) checkpoint() {
	c.ckptStp = 0
	c.ckptAt = c.e.env.Now()
	c.checkpointNext()
}

func (c *cleaner) checkpointNext() {
	e := c.e
	c.ckptStp++
	switch c.ckptStp {
	case 1:
		if e.ibb != nil {
			e.ibb.checkpoint(e.Redo.lsn, c.ckptCB)
			return
		}
		c.checkpointNext()
	case 2:
		target := e.oldestForCheckpoint()
		if target <= e.Redo.checkpoint {
			c.done()
			return
		}
		c.ckptLSN = target
		c.ckptN = 1
		for i, w := range e.written {
			if !w {
				continue
			}
			e.written[i] = false
			c.ckptN++
			if i < e.tables {
				e.tableIO(i).Sync(c.ckptSub, nil)
			} else {
				e.undo.Sync(c.ckptSub, nil)
			}
		}
		if e.ibb != nil {
			for _, f := range e.ibb.syncFiles() {
				c.ckptN++
				f.Sync(c.ckptSub, nil)
			}
		}
		c.onCheckpointStep(nil)
	case 3:
		if e.Redo.Request(e.Redo.lsn, true, nil, c.ckptSub, nil) {
			c.checkpointNext()
			return
		}
		c.ckptN = 1
	case 4:
		e.Redo.writeCheckpoint(c.ckptLSN, c.ckptCB)
	default:
		e.Checkpoints++
		e.checkpointed()
		c.done()
	}
}

func (c *cleaner) onCheckpointStep(any) {
	c.ckptN--
	if c.ckptN == 0 {
		c.checkpointNext()
	}
}

// done ends an iteration: furious and flush-ahead work continues at once,
// otherwise the cleaner sleeps until a second after the iteration began.
func (c *cleaner) done() {
	c.running = false
	e := c.e
	now := e.env.Now()
	if c.rec != nil {
		c.traceBatch(now)
	}
	if c.freeWait {
		// buf_pool.done_free: threads waiting in buf_LRU_get_free_block retry.
		c.freeWait = false
		e.freeReady()
	}
	if e.furious != 0 || e.async != 0 || c.freeWait {
		c.goIdle = false
		c.timer = e.env.At(now, c.tickCB)
		c.timed = true
		return
	}
	if c.goIdle {
		c.goIdle = false
		if e.cfg.Flushing.MaxDirtyPagesPctLWM == 0 && !c.freeWait {
			c.sleeping = true
			c.dirtied() // already past max_dirty_pages_pct: no sleep
			return
		}
	}
	c.timer = e.env.At(max(now, c.nextTick), c.tickCB)
	c.timed = true
}

// setTrace records the cleaner's batches, doublewrite chunks and
// checkpoints on rec.
func (c *cleaner) setTrace(rec *trace.Recorder) {
	c.rec = rec
	if rec != nil {
		c.trBatch = rec.Track("flush/page cleaner")
		c.trDW = [2]trace.TrackID{rec.Track("flush/doublewrite slot 0"), rec.Track("flush/doublewrite slot 1")}
	}
}

// traceChunk records a doublewrite chunk on its slot's track: the copy to
// the doublewrite area with its fdatasync, nested in the whole chunk (copy,
// then the pages in place).
func (c *cleaner) traceChunk(s *dwSlot) {
	now := c.e.env.Now()
	c.rec.Span(c.trDW[s.idx], "doublewrite batch", s.at, now, trace.Int("pages", int64(len(s.pages))))
	if c.e.cfg.Flushing.Doublewrite && s.dwDone >= s.at {
		c.rec.Span(c.trDW[s.idx], "doublewrite copy + fdatasync", s.at, s.dwDone, trace.Int("bytes", int64(len(s.pages))*PageSize))
	}
}

// traceBatch records the iteration that just ended and its checkpoint.
func (c *cleaner) traceBatch(now sim.Time) {
	name := "flush batch"
	if c.nPages == 0 {
		name = "checkpoint only"
	}
	c.rec.Span(c.trBatch, name, c.batchAt, now, trace.Int("pages", int64(c.nPages)), trace.Str("mode", modeNames[c.mode]))
	if c.ckptStp > 0 && now > c.ckptAt {
		c.rec.Span(c.trBatch, "checkpoint", c.ckptAt, now, trace.Int("checkpoint_lsn", int64(c.e.Redo.checkpoint)))
	}
}
