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
//   - otherwise once per second: nothing while the checkpoint age is below
//     adaptive_flushing_lwm and dirty pages below max_dirty_pages_pct,
//     else a batch of page_cleaner_flush_pages_recommendation() pages.
//
// A batch takes pages from the head of the flush list (oldest
// modification first), first makes the log durable up to the current LSN
// (write-ahead logging: buf_flush_page calls log_write_up_to), then writes
// them in doublewrite batches: one sequential write of the batch to the
// doublewrite area of ibdata1, an fdatasync, then the pages in place; two
// batches can be in flight (two doublewrite slots).
type cleaner struct {
	e *Engine

	running  bool // a batch (or checkpoint) is in progress
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
	pages   []int32
	next    int // next page of the batch to put into a chunk
	chunks  int // chunks in flight
	mode    int
	walCB   func(any)
	dwCB    func(any)
	pageCB  func(any)
	slots   [2]dwSlot
	ckptCB  func()
	ckptStp int
	ckptN   int
	ckptLSN uint64
	ckptSub func(any)

	// trace (rec nil: off)
	rec     *trace.Recorder
	trBatch trace.TrackID    // flush/page cleaner
	trDW    [2]trace.TrackID // flush/doublewrite slot N
	batchAt sim.Time
	ckptAt  sim.Time
	nPages  int
}

var modeNames = [...]string{"adaptive", "flush-ahead", "furious"}

const (
	modeAdaptive = iota
	modeAsync
	modeFurious
)

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
	if c.running || !c.timed {
		return
	}
	c.e.env.Cancel(c.timer)
	c.timed = false
	c.timer = c.e.env.At(c.e.env.Now(), c.tickCB)
	c.timed = true
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
	dirtyPct := 100 * float64(bp.dirty) / float64(bp.frames)
	age := uint64(0)
	if oldest != 0 {
		age = r.lsn - oldest
	}
	capa, _, _ := r.Points()
	lwm := uint64(f.AdaptiveFlushingLWM * float64(capa) / 100)
	if dirtyPct < f.MaxDirtyPagesPct && age <= lwm {
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
	c.lastPages = len(pages)
	c.batch(pages, modeAdaptive)
}

func (c *cleaner) idle() {
	c.timer = c.e.env.At(c.nextTick, c.tickCB)
	c.timed = true
}

// take removes up to n pages below limit from the flush list.
func (c *cleaner) take(n int, limit uint64) []int32 {
	c.pages, _ = c.e.BP.TakeOldest(c.pages[:0], n, limit)
	return c.pages
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
	var pctDirty uint64
	if dirtyPct >= f.MaxDirtyPagesPct {
		pctDirty = 100
	}
	pctTotal := max(pctDirty, pctLSN)
	target := oldest + c.lsnAvgRate*3
	pagesForLSN := e.BP.CountBelow(target, f.IOCapacityMax) / 3
	if pagesForLSN < 1 {
		pagesForLSN = 1
	}
	n := (int(float64(f.IOCapacity)*float64(pctTotal)/100) + c.avgPageRate + pagesForLSN) / 3
	return min(n, f.IOCapacityMax)
}

// batch writes pages (already taken from the flush list), then
// checkpoints.
func (c *cleaner) batch(pages []int32, mode int) {
	c.running = true
	c.mode = mode
	c.next = 0
	c.chunks = 0
	c.batchAt = c.e.env.Now()
	c.nPages = len(pages)
	if len(pages) == 0 {
		c.checkpoint()
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
	for _, p := range s.pages {
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
	if c.rec != nil {
		c.traceChunk(s)
	}
	if c.next < len(c.pages) {
		c.startChunk(s)
		return
	}
	if c.chunks == 0 {
		c.checkpoint()
	}
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
	if e.furious != 0 || e.async != 0 {
		c.timer = e.env.At(now, c.tickCB)
		c.timed = true
		return
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
