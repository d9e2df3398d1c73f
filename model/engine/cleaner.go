package engine

import (
	"math"
	"time"

	"simrun/internal/trace"
	"simrun/sim"
)

// cleaner is MariaDB's single page cleaner thread (buf_flush_page_cleaner
// in buf0flu.cc, MariaDB >= 10.5; read in 10.11.18) with the doublewrite
// buffer. One iteration:
//
//   - furious flushing (buf_flush_sync_lsn set, innodb_flush_sync=ON;
//     buf_flush_sync_for_checkpoint): an LRU batch of io_capacity pages if
//     the free list is short, a flush-list batch of io_capacity_max pages
//     below the target, then a checkpoint; the next iteration starts at once;
//   - otherwise, with the free list short (buf_pool.need_LRU_eviction:
//     fewer than lru_scan_depth/2 free pages) and no flush-ahead target, an
//     LRU batch of io_capacity_max pages;
//   - otherwise flush-ahead (buf_flush_async_lsn set) takes io_capacity_max
//     pages below the target; below max_dirty_pages_pct with the checkpoint
//     age under adaptive_flushing_lwm the cleaner goes idle (set_idle); else
//     it takes page_cleaner_flush_pages_recommendation() pages;
//   - after a flush-list batch, the LRU batch (buf_flush_LRU) of
//     max(io_capacity_max - pages just flushed, min(io_capacity_max,
//     lru_scan_depth)) pages, which frees clean pages from the LRU tail and
//     writes dirty ones while the free list is shorter than lru_scan_depth;
//   - every non-furious iteration ends at the labels LRU_flush ->
//     check_oldest_and_set_idle -> set_almost_idle (or set_idle), where
//     buf_dblwr.flush_buffered_writes() and log_checkpoint() run: MariaDB
//     checkpoints after every batch. The cleaner then waits on
//     buf_pool.do_flush_list until one second after the previous wait ended
//     (my_cond_timedwait), without a timeout when idle, and not at all while
//     the free list is short or furious flushing is pending. buf_flush_ahead
//     for the async point wakes only an idle cleaner ("we will not disturb
//     the regular 1-second sleep"), so flush-ahead runs at most one batch
//     per second.
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
	idle     bool // buf_pool.page_cleaner_idle(): set by set_idle, cleared by any batch
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
	freed    int     // clean pages the iteration's LRU batch freed
	next     int     // next page of the batch to put into a chunk
	chunks   int     // chunks in flight
	mode     int
	walCB    func(any)
	dwCB     func(any)
	pageCB   func(any)
	slots    [2]dwSlot
	// fil_flush_file_spaces after a doublewrite batch: the files to sync
	// one after another, and the next of them.
	syncFiles  []dataIO
	syncNext   int
	syncCB     func(any)
	spaceSyncs int64    // tablespace fdatasyncs after doublewrite batches (tests)
	ckptFiles  []dataIO // the checkpoint's fil_flush_file_spaces
	ckptCB     func()
	ckptStp    int
	ckptN      int
	ckptLSN    uint64
	ckptSub    func(any)

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
	c.syncCB = c.onSpaceSynced
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

// wake is pthread_cond_signal(&buf_pool.do_flush_list) with
// page_cleaner_set_idle(false), from buf_flush_ahead for the sync point
// (furious) and page_cleaner_wakeup(true): a waiting cleaner runs its next
// iteration now, even from its 1-second timed wait.
func (c *cleaner) wake() {
	c.idle = false // page_cleaner_set_idle(false), even if no one waits for the signal
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

// wakeAsync is buf_flush_ahead for the async point: it wakes only an idle
// cleaner and leaves the regular 1-second wait alone.
func (c *cleaner) wakeAsync() {
	if c.idle {
		c.wake()
	}
}

// dirtied is buf_pool.page_cleaner_wakeup() from a page entering the flush
// list: with innodb_max_dirty_pages_pct_lwm = 0 an idle cleaner is woken
// only once the dirty pages reach max_dirty_pages_pct.
func (c *cleaner) dirtied() {
	if !c.idle {
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

// needLRU is buf_pool.need_LRU_eviction(): a thread waits for a free page,
// or the free list is shorter than lru_scan_depth/2 while the LRU holds more
// than BUF_LRU_MIN_LEN (256) pages.
func (c *cleaner) needLRU() bool {
	bp := c.e.BP
	return c.lruOn() && (c.freeWait || bp.resident > 256 && bp.Free() < c.e.cfg.Flushing.LRUScanDepth/2)
}

func (c *cleaner) tick() {
	c.timed = false
	e := c.e
	now := e.env.Now()
	c.nextTick = now.Add(time.Second) // set_timespec(abstime, 1)
	bp, r := e.BP, e.Redo
	oldest := bp.OldestLSN()
	f := e.cfg.Flushing
	c.pages, c.nFL, c.freed = c.pages[:0], 0, 0
	if e.loader {
		c.tickLoader(oldest)
		return
	}

	if e.furious != 0 {
		// furious_flush: buf_flush_sync_for_checkpoint.
		e.FuriousOn++
		c.idle = false
		if c.needLRU() {
			c.takeLRU(f.IOCapacity)
		}
		c.takeFL(f.IOCapacityMax, e.furious)
		c.lastPages = 0
		c.batch(c.pages, modeFurious)
		return
	}
	if oldest == 0 {
		// fully_unemployed: nothing dirty.
		c.setIdle()
		return
	}
	soft := e.async
	if soft != 0 {
		if oldest >= soft {
			e.async, soft = 0, 0
		}
	} else if c.needLRU() {
		// An LRU batch, nothing else.
		c.idle = false
		c.lastPages += c.takeLRU(f.IOCapacityMax)
		c.batch(c.pages, modeLRU)
		return
	}
	dirtyPct := 100 * float64(bp.dirty) / float64(bp.frames)
	capa, _, _ := r.Points()
	lwm := uint64(f.AdaptiveFlushingLWM * float64(capa) / 100)
	// possibly_unemployed: with innodb_max_dirty_pages_pct_lwm = 0 the
	// cleaner goes idle below max_dirty_pages_pct unless the checkpoint age
	// needs adaptive flushing (af_needed_for_redo) or flush-ahead is
	// pending; with a lwm, also while the dirty share is below it.
	if soft == 0 && dirtyPct < f.MaxDirtyPagesPct && r.lsn-oldest <= lwm && (f.MaxDirtyPagesPctLWM == 0 || dirtyPct < f.MaxDirtyPagesPctLWM) {
		c.setIdle()
		return
	}
	c.idle = false
	mode := modeAdaptive
	if soft != 0 {
		// background_flush
		e.FlushAheadOn++
		mode = modeAsync
		c.takeFL(f.IOCapacityMax, soft)
	} else if n := c.recommendation(oldest, dirtyPct); n > 0 {
		c.lastPages = c.takeFL(n, 0)
	} else if !c.needLRU() {
		// check_oldest_and_set_idle: a checkpoint, no batch.
		c.batch(nil, modeAdaptive)
		return
	}
	if c.lruOn() {
		c.lastPages += c.takeLRU(max(f.IOCapacityMax-c.nFL, min(f.IOCapacityMax, f.LRUScanDepth)))
	}
	c.batch(c.pages, mode)
}

// tickLoader is the iteration of a bulk loader's engine (MySQL 5.1's
// srv_master_thread flushing as model/bulkload needs it): back-to-back
// batches toward the sync and async targets, then a recommendation once a
// second; every batch ends with a checkpoint.
func (c *cleaner) tickLoader(oldest uint64) {
	e := c.e
	f := e.cfg.Flushing
	if e.furious != 0 {
		if oldest != 0 && oldest < e.furious {
			e.FuriousOn++
			c.takeFL(f.IOCapacityMax, e.furious)
			c.batch(c.pages, modeFurious)
			return
		}
		e.furious = 0
		c.batch(nil, modeFurious)
		return
	}
	if e.async != 0 && (oldest == 0 || oldest >= e.async) {
		e.async = 0
	}
	if e.async != 0 {
		e.FlushAheadOn++
		c.takeFL(f.IOCapacityMax, e.async)
		c.batch(c.pages, modeAsync)
		return
	}
	if oldest == 0 {
		c.setIdle()
		return
	}
	dirtyPct := 100 * float64(e.BP.dirty) / float64(e.BP.frames)
	capa, _, _ := e.Redo.Points()
	lwm := uint64(f.AdaptiveFlushingLWM * float64(capa) / 100)
	if dirtyPct < f.MaxDirtyPagesPct && e.Redo.lsn-oldest <= lwm && (f.MaxDirtyPagesPctLWM == 0 || dirtyPct < f.MaxDirtyPagesPctLWM) {
		c.setIdle()
		return
	}
	n := c.recommendation(oldest, dirtyPct)
	c.lastPages = 0
	if n <= 0 {
		c.setIdle()
		return
	}
	c.lastPages = c.takeFL(n, 0)
	c.batch(c.pages, modeAdaptive)
}

// setIdle is set_idle: MariaDB >= 10.5 writes a checkpoint (log_checkpoint)
// and, with innodb_max_dirty_pages_pct_lwm = 0, waits for
// buf_pool.do_flush_list with no timeout: only buf_flush_ahead (the async or
// sync point), a thread short of free pages, or the dirty pages reaching
// max_dirty_pages_pct wake it (buf_pool_t::page_cleaner_wakeup). With a lwm
// it wakes once a second. A bulk loader's engine keeps the timed wake-up
// and no checkpoint here.
func (c *cleaner) setIdle() {
	if c.e.loader {
		c.timer = c.e.env.At(c.nextTick, c.tickCB)
		c.timed = true
		return
	}
	c.idle = true
	c.goIdle = true
	c.batch(nil, modeAdaptive)
}

// takeFL is buf_do_flush_list_batch: up to n pages below limit (0 = none)
// from the head of the flush list, each with its dirty neighbours, which
// count toward n (buf_flush_try_neighbors). It returns the pages taken.
func (c *cleaner) takeFL(n int, limit uint64) int {
	e := c.e
	start := len(c.pages)
	nb := e.neighbourMode(false)
	for len(c.pages)-start < n {
		before := len(c.pages)
		c.pages, _ = e.BP.TakeOldest(c.pages, 1, limit)
		if len(c.pages) == before {
			break
		}
		if nb != 0 {
			c.pages = e.takeNeighbours(c.pages, c.pages[before], nb, false, 0, n-(before-start)-1)
		}
		c.fix(before)
	}
	c.nFL = len(c.pages) - start
	e.FlushListPages += int64(c.nFL)
	return c.nFL
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

// takeLRU is buf_flush_LRU: walking the LRU from its tail while the free
// list is shorter than lru_scan_depth (buf_flush_LRU_list_batch), it frees
// clean pages and takes dirty ones for writing, up to n written, with their
// dirty neighbours only once the free list holds half of lru_scan_depth. If
// it wrote n it walks on freeing clean pages up to the first dirty one
// (buf_do_LRU_batch(0)). Taken pages carry lruBit; it returns how many.
func (c *cleaner) takeLRU(n int) int {
	e := c.e
	bp := e.BP
	depth := e.cfg.Flushing.LRUScanDepth
	nb := e.neighbourMode(true)
	start := len(c.pages)
	written := 0
	scanned := 0
	for ; bp.Free() < depth && written < n && scanned < bp.resident; scanned++ {
		p, ok := bp.NextOld()
		if !ok {
			break
		}
		if !bp.IsDirty(p) {
			bp.Evict(p)
			e.LRUEvicted++
			c.freed++
			continue
		}
		before := len(c.pages)
		bp.Clean(p)
		c.pages = append(c.pages, p|lruBit)
		if nb != 0 && 2*bp.Free() >= depth {
			c.pages = e.takeNeighbours(c.pages, p, nb, true, lruBit, n-written-1)
		}
		c.fix(before)
		written += len(c.pages) - before
	}
	if written >= n {
		for ; bp.Free() < depth && scanned < bp.resident; scanned++ {
			p, ok := bp.NextOld()
			if !ok || bp.IsDirty(p) {
				break
			}
			bp.Evict(p)
			e.LRUEvicted++
			c.freed++
		}
	}
	e.LRUBatchPages += int64(len(c.pages) - start)
	return len(c.pages) - start
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
		dirty := e.BP.dirty
		if e.loader {
			// the bulk loader's engine keeps the rule it was validated with
			dp := dirtyPct
			if maxPct > 0 {
				dp /= maxPct
			}
			n := int(dp * float64(f.IOCapacity))
			if n < dirty {
				n = min(f.IOCapacity, dirty)
			}
			return n
		}
		if f.IOCapacity >= dirty {
			return dirty
		}
		dp := dirtyPct
		if maxPct > 1 {
			dp /= maxPct
		}
		if int(dp*float64(f.IOCapacity)) < dirty {
			return f.IOCapacity
		}
		return min(f.IOCapacityMax, dirty)
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

// batch writes pages (already taken), then ends the iteration with a
// checkpoint (endBatch).
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
	if e.Redo.Request(e.Redo.lsn, true, nil, c.walCB, nil) {
		c.onWAL(nil)
	}
}

func (c *cleaner) onWAL(any) {
	if c.rec != nil && c.e.env.Now() > c.batchAt {
		c.rec.Span(c.trBatch, "log_write_up_to (WAL)", c.batchAt, c.e.env.Now())
	}
	if !c.e.loader && c.e.cfg.Flushing.Doublewrite {
		// MariaDB runs one doublewrite batch at a time: the other slot
		// only fills while it runs (buf_dblwr_t::flush_buffered_writes
		// waits while batch_running), and the next batch starts when
		// this one's tablespaces are synced (onPageWritten).
		if c.next < len(c.pages) && c.chunks == 0 {
			c.startChunk(&c.slots[0])
		}
		return
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
	if c.batchSync(s) || c.spacesSync(s) {
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
		if !c.e.loader && c.e.cfg.Flushing.Doublewrite {
			s = &c.slots[1-s.idx] // the slot that filled meanwhile
		}
		c.startChunk(s)
		return
	}
	if c.chunks == 0 {
		c.endBatch()
	}
}

// spacesSync is fil_flush_file_spaces at the end of a MariaDB doublewrite
// batch: when the batch's last page write completes
// (buf_dblwr_t::write_completed), every tablespace written since its last
// fdatasync is synced, one after another (the loop over
// fil_system.unflushed_spaces), before the batch ends and the next may
// start. It returns true while the slot waits for those syncs. A bulk
// loader's engine (MySQL 5.1) syncs in batchSync instead.
func (c *cleaner) spacesSync(s *dwSlot) bool {
	e := c.e
	if e.loader || !e.cfg.Flushing.Doublewrite {
		return false
	}
	if s.synced {
		s.synced = false
		return false
	}
	c.syncFiles = e.takeWritten(c.syncFiles[:0])
	if len(c.syncFiles) == 0 {
		return false
	}
	s.synced = true
	c.syncNext = 0
	c.onSpaceSynced(s)
	return true
}

// onSpaceSynced syncs the next file of the batch's list, or, when all are
// synced, lets the batch end.
func (c *cleaner) onSpaceSynced(a any) {
	s := a.(*dwSlot)
	if c.syncNext < len(c.syncFiles) {
		f := c.syncFiles[c.syncNext]
		c.syncNext++
		c.spaceSyncs++
		f.Sync(c.syncCB, s)
		return
	}
	s.pending = 1
	c.onPageWritten(s)
}

// endBatch ends the iteration's page writes: threads waiting for a free
// page retry (buf_pool.done_free), and the checkpoint follows: MariaDB's
// cleaner ends every iteration in log_checkpoint (set_almost_idle, or
// buf_flush_sync_for_checkpoint when furious), as a bulk loader's engine
// does too.
func (c *cleaner) endBatch() {
	e := c.e
	if c.freeWait {
		c.freeWait = false
		e.freeReady()
	}
	if !e.loader && c.mode != modeFurious {
		// check_oldest_and_set_idle
		if o := e.BP.OldestLSN(); o == 0 || o >= e.async {
			e.async = 0
		}
	}
	c.checkpoint()
}

// fileCheckpointBytes is the redo a checkpoint appends before it is
// written (fil_names_clear in log_checkpoint_low): a FILE_MODIFY record
// per tablespace modified since the last checkpoint (type and length, space
// id, page 0 and a name like ./sbtest/sbtest1.ibd: about 24 bytes) and the
// FILE_CHECKPOINT record (SIZE_OF_FILE_CHECKPOINT = 16 bytes).
func (e *Engine) fileCheckpointBytes() uint64 { return uint64(16 + 24*e.tables) }

// checkpoint runs log_checkpoint: the InnoDB binlog's pending and partial
// pages are written; the data files written since their last fdatasync are
// synced (fil_flush_file_spaces: innodb_flush_method O_DIRECT, MariaDB
// 10.11's default, still syncs; only O_DIRECT_NO_FSYNC skips it); then, if
// the oldest modification moved, the FILE_MODIFY and FILE_CHECKPOINT
// records are appended and the log made durable up to them
// (log_write_up_to(flush_lsn, true)), and the checkpoint block is written
// and synced (log_t::write_checkpoint). A bulk loader's engine (MySQL 5.1)
// syncs only when the checkpoint moves and appends no record.
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
		if e.loader {
			target := e.oldestForCheckpoint()
			if target <= e.Redo.checkpoint {
				c.done()
				return
			}
			c.ckptLSN = target
		}
		c.ckptN = 1
		c.ckptFiles = e.takeWritten(c.ckptFiles[:0])
		for _, f := range c.ckptFiles {
			c.ckptN++
			f.Sync(c.ckptSub, nil)
		}
		if e.ibb != nil {
			for _, f := range e.ibb.syncFiles() {
				c.ckptN++
				f.Sync(c.ckptSub, nil)
			}
		}
		c.onCheckpointStep(nil)
	case 3:
		r := e.Redo
		if !e.loader {
			// log_checkpoint_low: nothing logged since the last checkpoint
			// but its own records, or the oldest modification did not move.
			target := e.oldestForCheckpoint()
			rec := e.fileCheckpointBytes()
			if target <= r.checkpoint || target == r.lsn && r.lsn <= r.checkpoint+rec {
				c.done()
				return
			}
			c.ckptLSN = target
			r.append(rec)
		}
		if r.Request(r.lsn, true, nil, c.ckptSub, nil) {
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

// done ends an iteration. After furious flushing the target is checked
// against the oldest modification (buf_flush_sync_for_checkpoint). The next
// iteration starts at once while furious flushing is pending or the free
// list is short (no wait at the top of the loop), after an idle checkpoint
// the cleaner sleeps until woken, and otherwise it waits until a second
// after the previous iteration began.
func (c *cleaner) done() {
	c.running = false
	e := c.e
	now := e.env.Now()
	if c.rec != nil {
		c.traceBatch(now)
	}
	if e.loader {
		if e.furious != 0 || e.async != 0 {
			c.timer = e.env.At(now, c.tickCB)
		} else {
			c.timer = e.env.At(max(now, c.nextTick), c.tickCB)
		}
		c.timed = true
		return
	}
	if c.mode == modeFurious {
		measure := e.BP.OldestLSN()
		if measure == 0 {
			measure = math.MaxUint64
		}
		if measure >= e.furious {
			e.furious = 0
		} else if measure >= e.async {
			e.async = 0
		}
		c.nextTick = now.Add(time.Second)
	}
	// A short free list sends the cleaner round again at once, unless its
	// LRU batch could neither write nor free a page (all io-fixed): then the
	// regular wait, as the real thread gets no further by spinning.
	if e.furious != 0 || c.needLRU() && (c.mode != modeLRU || c.nPages+c.freed > 0) {
		c.goIdle = false
		c.idle = false
		c.timer = e.env.At(now, c.tickCB)
		c.timed = true
		return
	}
	if c.goIdle {
		c.goIdle = false
		// Still idle (no buf_flush_ahead or page_cleaner_wakeup cleared it
		// during the checkpoint): wait without a timeout.
		if e.cfg.Flushing.MaxDirtyPagesPctLWM == 0 && c.idle {
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
