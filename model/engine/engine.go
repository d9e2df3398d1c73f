package engine

import (
	"fmt"
	"math"
	"time"

	"gonum.org/v1/gonum/stat/distuv"

	"simrun/internal/trace"
	"simrun/model/disk"
	"simrun/model/workload"
	"simrun/sim"
	"simrun/sim/stats"
)

// Sources are the volume accounting tags the engine writes under.
type Sources struct {
	Redo, PageFlush, Doublewrite, PageRead disk.Source
}

// Engine is InnoDB as the sysbench workload sees it: the tables' pages in
// a buffer pool, the redo log, the page cleaner with the doublewrite
// buffer, checkpoints and the stalls of log_free_check.
type Engine struct {
	env *sim.Env
	cfg Config
	vol *disk.Volume
	src Sources

	BP   *BufferPool
	Redo *Redo
	cl   *cleaner

	tables, clustered, secondary, perTable int
	secBuilt                               int         // leaves of k after the sorted build (secondary counts their slots)
	nonLeaf                                int         // non-leaf index pages, resident for good
	ix                                     []*secIndex // index k per table; nil unless index.splits
	ixOp                                   indexOp
	rsegBase                               int32
	rsegNext                               int
	files                                  []*disk.File // per table
	undo, sys                              *disk.File
	written                                []bool // file written since the last checkpoint
	rng                                    *sim.Stream

	cache  *disk.PageCache // files[0] through the page cache (SetDataCache), or nil
	ioPage int64           // bytes of a page on disk (SetPageIO; PageSize unless compressed)

	stmtRedo [workload.NumStmtKinds]uint64
	stmtCPU  [workload.NumStmtKinds]time.Duration
	cpuRNG   *sim.Stream  // "engine/cpu": statement CPU variability
	cpuLN    jobLognormal // of the last set of query means (the same every transaction)

	ibb *ibbLog // the binlog stored in InnoDB, nil without one

	// log_free_check stalls
	stalled      []stallWaiter
	furious      uint64 // buf_flush_sync_lsn
	async        uint64 // buf_flush_async_lsn
	stallRecheck func(any)

	// eviction writes in flight (oldest LSN each) hold back checkpoints
	lruInflight []uint64
	// loader: the engine serves a bulk loader's Tablespace, which models
	// MySQL 5.1's page flushing with its own LRU policy; the page cleaner
	// keeps its timed wake-ups and a checkpoint after every batch and runs
	// no LRU batch and no neighbour flushing
	loader bool
	// user threads waiting in buf_LRU_get_free_block for the page cleaner
	freeWaiters, freeSpare []*pageRead
	readCB                 func(any)
	evictCB                func(any)

	// statistics
	Overruns     int64 // mini-transactions that found the checkpoint age above capacity (must stay 0)
	Stalls       int64
	PagesFlushed int64 // pages written by the page cleaner: FlushListPages + LRUBatchPages
	// FlushListPages are the flush-list batches' pages, LRUBatchPages the
	// LRU batches'; each includes its neighbours, which NeighborPages counts
	// again (innodb_flush_neighbors).
	FlushListPages int64
	LRUBatchPages  int64
	NeighborPages  int64
	NeighborLRU    int64 // of NeighborPages, those the LRU batch wrote
	LRUEvicted     int64 // clean pages the LRU batch freed
	WaitFree       int64 // a user thread found no free page and waited for the cleaner (Innodb_buffer_pool_wait_free)
	LRUWrites      int64 // single pages a user thread wrote to free a frame (a bulk loader's Tablespace)
	IndexRedo      int64 // redo of index k's splits and merges
	PageReads      int64
	Checkpoints    int64
	FlushAheadOn   int64           // cleaner iterations in flush-ahead
	FuriousOn      int64           // cleaner iterations in furious flushing
	ageHist        stats.Histogram // checkpoint age samples, bytes
	dirtyHist      stats.Histogram // dirty page samples
	freeHist       stats.Histogram // free-list length samples
	ageMax         uint64
	sampleCB       func(any)
	samplePeriod   time.Duration
	ageSeries      *stats.GaugeSeries // checkpoint age, bytes, held between samples

	rec *trace.Recorder // nil unless tracing
}

type stallWaiter struct {
	tl  *Timeline
	fn  func(any)
	arg any
}

// New builds the engine for sysbench tables on vol. sources tags its I/O;
// logBuffered is what redo.log_file_buffering "auto" means: whether the
// server starts with the log's file system cache on, which depends on the
// commit policy (commit.FlushPolicy.LogBufferedByDefault).
func New(env *sim.Env, cfg Config, wl workload.Sysbench, vol *disk.Volume, src Sources, logBuffered bool) (*Engine, error) {
	return newEngine(env, cfg, wl, vol, src, logBuffered, true)
}

// newEngine is New; mariadbPool lays the buffer pool out as MariaDB 10.11
// does (PoolFrames, the non-leaf index pages resident), otherwise the pool
// is size/PageSize frames of data pages (a bulk loader's MySQL 5.1 engine,
// whose index trees hold their own non-leaf pages).
func newEngine(env *sim.Env, cfg Config, wl workload.Sysbench, vol *disk.Volume, src Sources, logBuffered, mariadbPool bool) (*Engine, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if err := wl.Validate(); err != nil {
		return nil, err
	}
	e := &Engine{env: env, cfg: cfg, vol: vol, src: src, rng: env.Stream("engine/secondary"), ioPage: PageSize}
	e.tables = wl.Tables
	e.clustered = int((wl.TableSize + int64(cfg.Layout.RowsPerPage) - 1) / int64(cfg.Layout.RowsPerPage))
	e.secondary = int((wl.TableSize + int64(cfg.Layout.SecondaryPerPage) - 1) / int64(cfg.Layout.SecondaryPerPage))
	e.secBuilt = e.secondary
	var shape leafShape
	if mariadbPool && cfg.Index.Splits {
		// Index k's leaves as the sorted build left them, with room for the
		// pages splits add.
		shape = newLeafShape(cfg.Index)
		e.secBuilt = builtLeaves(wl.TableSize, shape)
		e.secondary = indexSlots(e.secBuilt)
	}
	e.perTable = e.clustered + e.secondary
	npages := e.tables*e.perTable + cfg.Layout.RollbackSegments
	if npages > 1<<30 {
		return nil, fmt.Errorf("workload: %d tables x %d rows need %d pages; at most %d are modelled", wl.Tables, wl.TableSize, npages, 1<<30)
	}
	e.rsegBase = int32(e.tables * e.perTable)
	// The non-leaf pages of every index are hot on every lookup and never
	// leave the pool: they hold frames the data pages cannot use.
	frames := int(int64(cfg.BufferPool.Size) / PageSize)
	if mariadbPool {
		e.nonLeaf = e.tables * (nonLeafPages(e.clustered, clusteredNodePtr) + nonLeafPages(e.secBuilt, secondaryNodePtr))
		frames = PoolFrames(cfg.BufferPool.Size) - e.nonLeaf
	}
	if frames < 1 {
		return nil, fmt.Errorf("engine.buffer_pool.size: %v leaves no frame beyond the %d non-leaf index pages", cfg.BufferPool.Size, e.nonLeaf)
	}
	if e.secBuilt != e.secondary {
		e.ix = newIndexes(wl, shape, e.secondary, func(t int) int32 { return int32(t*e.perTable + e.clustered) })
		e.ageIndex(env.Stream("engine/index-age"), wl, cfg.Index.Age)
		for _, x := range e.ix {
			x.Splits, x.Merges, x.MergeAttempts = 0, 0, 0
		}
		e.BP = NewBufferPool(npages, frames, false)
		if cfg.BufferPool.Warm {
			// The pages that exist, in page order, as a warm pool has them.
			for p := 0; p < npages && e.BP.HasFree(); p++ {
				if e.pageExists(int32(p)) {
					e.BP.Preload(int32(p))
				}
			}
		}
	} else {
		e.BP = NewBufferPool(npages, frames, cfg.BufferPool.Warm)
	}
	e.Redo = newRedo(env, cfg.Redo, cfg.Redo.Buffered(logBuffered), vol, src.Redo, int64(wl.Tables)*wl.TableSize)
	e.files = make([]*disk.File, e.tables)
	for t := range e.files {
		e.files[t] = vol.OpenFile(fmt.Sprintf("sbtest%d.ibd", t+1), true)
	}
	e.undo = vol.OpenFile("undo001", true)
	e.sys = vol.OpenFile("ibdata1", true)
	e.written = make([]bool, e.tables+2)
	r := cfg.Redo
	e.stmtRedo = [workload.NumStmtKinds]uint64{uint64(r.UpdateIndex), uint64(r.UpdateNonIndex), uint64(r.Delete), uint64(r.Insert)}
	c := cfg.CPU
	e.stmtCPU = [workload.NumStmtKinds]time.Duration{c.UpdateIndex.D(), c.UpdateNonIndex.D(), c.Delete.D(), c.Insert.D()}
	e.cpuRNG = env.Stream("engine/cpu")
	e.stallRecheck = e.onStallRecheck
	e.readCB = e.onRead
	e.evictCB = e.onEvictWritten
	e.cl = newCleaner(e)
	e.samplePeriod = 100 * time.Millisecond
	e.sampleCB = e.onSample
	e.ageSeries = stats.NewGaugeSeries(time.Second, 3600)
	return e, nil
}

// Node-pointer records of the sysbench indexes (rem0rec.cc layouts): a
// 5-byte compact header, the key and the 4-byte child page number; the key
// of index k's pointers is (k, id), since a non-unique secondary index
// carries the primary key.
const (
	clusteredNodePtr = 5 + 4 + 4
	secondaryNodePtr = 5 + 4 + 4 + 4
)

// nonLeafPages returns the pages above leaves leaves of an index filled in
// key order (sysbench prepare loads by id; index k is a sorted build), whose
// non-leaf pages end 15/16 full as its leaves do (seqReserve).
func nonLeafPages(leaves, ptr int) int {
	per := (PageUsable - seqReserve) / ptr
	n := 0
	for l := leaves; l > 1; {
		l = (l + per - 1) / per
		n += l
	}
	return n
}

// Start starts the background threads: the page cleaner, the once-per-second
// log flush, and the statistics sampler.
func (e *Engine) Start() {
	e.cl.start()
	e.env.After(e.cfg.Redo.FlushTimeout.D(), e.backgroundFlush)
	e.env.AfterArg(e.samplePeriod, e.sampleCB, nil)
}

// Config returns the configuration.
func (e *Engine) Config() Config { return e.cfg }

// SetCPU makes the log's waiters threads that need a processor of cpu to
// resume (Redo.SetCPU).
func (e *Engine) SetCPU(cpu *sim.CPU) { e.Redo.SetCPU(cpu, e.cfg.CPU.Wakeup.D()) }

// SetTrace records the engine's work on rec (nil: off): redo group-commit
// rounds on "commit/redo group", log syncs on "fsync/redo", page-cleaner
// batches and checkpoints on "flush/page cleaner", doublewrite chunks on
// "flush/doublewrite slot 0" and "slot 1", the .ibb page writes of an
// InnoDB binlog on "flush/binlog pages", and the checkpoint age and dirty
// pages as counters. Call it before Start.
func (e *Engine) SetTrace(rec *trace.Recorder) {
	e.rec = rec
	e.Redo.setTrace(rec)
	e.cl.setTrace(rec)
	if e.ibb != nil {
		e.ibb.rec = rec
		if rec != nil {
			e.ibb.track = rec.Track("flush/binlog pages")
		}
	}
}

// OpenBinlogTablespace creates the binary log stored in InnoDB
// (binlog_storage_engine=innodb): preallocated .ibb files of fileSize bytes
// whose pages are written batch full pages at a time once their redo is
// durable, and at every checkpoint with the partial last page, which a
// checkpoint may not pass. src tags its writes. Call it once, before Start.
func (e *Engine) OpenBinlogTablespace(fileSize int64, batch int, src disk.Source) {
	e.ibb = newIBB(e, fileSize, batch, src)
}

// CommitBinlogMTR is the commit mini-transaction of a transaction whose
// binlog goes into the InnoDB binlog tablespace: its binlog bytes (and
// extra bytes of redo framing them) are written in the same mtr, so they
// are redo too, and the .ibb pages they fill are dirtied at its LSN.
func (e *Engine) CommitBinlogMTR(binlog, extra uint64) uint64 {
	lsn := e.CommitMTR(binlog + extra)
	e.ibb.append(int64(binlog), lsn)
	return lsn
}

// BinlogPageWrites returns the .ibb pages written since ResetStats (a
// partial page counts each time it is written).
func (e *Engine) BinlogPageWrites() int64 {
	if e.ibb == nil {
		return 0
	}
	return e.ibb.PageWrites
}

// backgroundFlush is srv_master_callback's once-per-second
// log_buffer_flush_to_disk: write and sync the log whatever the setting.
func (e *Engine) backgroundFlush() {
	e.Redo.Request(e.Redo.lsn, true, nil, nil, nil)
	e.env.After(e.cfg.Redo.FlushTimeout.D(), e.backgroundFlush)
}

// StmtCPU returns the mean server CPU of a statement kind.
func (e *Engine) StmtCPU(k workload.StmtKind) time.Duration { return e.stmtCPU[k] }

// SampleCPU returns one draw of a CPU job made of queries whose mean CPUs
// are means (engine cpu.cv, stream "engine/cpu"): each query's CPU is
// lognormal with its mean and coefficient of variation cv, and the job's
// total is drawn as one lognormal with the same mean and variance as the
// sum of the queries' (Fenton-Wilkinson), which costs one normal quantile
// per job instead of one per query:
//
//	mean = Σ m_i,  variance = cv² Σ m_i²,  CV_job = cv √(Σ m_i²) / Σ m_i
//	sigma² = ln(1 + CV_job²),  total = mean · exp(sigma·z − sigma²/2),  z ~ N(0, 1)
//
// It returns the factor total/mean (1 when cv = 0), by which every query's
// mean is scaled: the mean is kept, so throughput calibrated on the means is
// unchanged to first order; the spread gives CPU-bound runs a latency
// distribution.
func (e *Engine) SampleCPU(means []time.Duration) float64 {
	cv := e.cfg.CPU.CV
	if cv == 0 {
		return 1
	}
	var sum, sq float64
	for _, m := range means {
		f := float64(m)
		sum += f
		sq += f * f
	}
	if sum <= 0 {
		return 1
	}
	if ln := &e.cpuLN; ln.sum != sum || ln.sq != sq {
		c := cv * math.Sqrt(sq) / sum
		s2 := math.Log1p(c * c)
		*ln = jobLognormal{sum, sq, math.Sqrt(s2), s2 / 2}
	}
	z := distuv.UnitNormal.Quantile(e.cpuRNG.OpenFloat64())
	return math.Exp(e.cpuLN.sigma*z - e.cpuLN.half)
}

// jobLognormal is SampleCPU's lognormal for one set of query means: the
// means' sum and sum of squares it was computed from, sigma and sigma²/2.
type jobLognormal struct{ sum, sq, sigma, half float64 }

// PlanPages appends the pages the transaction's statements modify to dst:
// each statement's clustered leaf (row id / rows_per_page) and, for the
// statements that change index k, a leaf of k. A row's k comes from the
// same sysbench distribution as ids, independently of its id, and the
// index holds entries with that distribution, so the leaf holding a given
// entry is uniform over the index's leaves (docs/model-engine.md).
// UPDATE k=k+1 touches one k leaf (delete-mark and insert side by side);
// DELETE delete-marks the old entry and the INSERT adds one with a new k,
// each on a uniform leaf.
func (e *Engine) PlanPages(stmts []workload.Stmt, dst []int32) []int32 {
	rpp := int64(e.cfg.Layout.RowsPerPage)
	for _, s := range stmts {
		base := int32(int(s.Table) * e.perTable)
		dst = append(dst, base+int32((s.Row-1)/rpp))
		switch s.Kind {
		case workload.UpdateIndex, workload.Delete, workload.Insert:
			if e.ix != nil {
				dst = append(dst, base+int32(e.clustered)+int32(e.ix[s.Table].pick(e.rng)))
				continue
			}
			dst = append(dst, base+int32(e.clustered)+int32(e.rng.IntN(e.secondary)))
		}
	}
	return dst
}

// Resident reports whether all pages are in the buffer pool. If not, it
// reads the missing ones one after another (each a synchronous 16 KiB
// random read, evicting a page first when no frame is free) and calls
// fn(arg) when all are resident, charging the time to page reads.
func (e *Engine) Resident(pages []int32, tl *Timeline, fn func(any), arg any) bool {
	for _, p := range pages {
		if !e.BP.IsResident(p) {
			rd := e.newRead(pages, tl, fn, arg)
			e.readNext(rd)
			return false
		}
	}
	return true
}

type pageRead struct {
	pages []int32
	i     int
	tl    *Timeline
	fn    func(any)
	arg   any
	page  int32
}

func (e *Engine) newRead(pages []int32, tl *Timeline, fn func(any), arg any) *pageRead {
	return &pageRead{pages: pages, tl: tl, fn: fn, arg: arg}
}

func (e *Engine) readNext(rd *pageRead) {
	for rd.i < len(rd.pages) && e.BP.IsResident(rd.pages[rd.i]) {
		rd.i++
	}
	if rd.i == len(rd.pages) {
		if rd.tl != nil {
			rd.tl.Mark(e.env.Now(), CatPageRead)
		}
		rd.fn(rd.arg)
		return
	}
	rd.page = rd.pages[rd.i]
	if !e.BP.HasFree() && !e.loader {
		// buf_LRU_get_free_block: free a clean page near the LRU tail
		// (buf_LRU_scan_and_free_block), else wake the page cleaner and wait
		// for its LRU batch (buf_pool.done_free). A user thread writes no
		// page itself (MariaDB >= 10.6).
		if v, dirty, ok := e.BP.Victim(lruSearchScan); ok && !dirty {
			e.BP.Evict(v)
		} else {
			e.WaitFree++
			e.freeWaiters = append(e.freeWaiters, rd)
			e.cl.wakeFree()
			return
		}
	}
	if !e.BP.HasFree() {
		v, dirty, ok := e.BP.Victim(1024)
		if ok && dirty {
			// No clean victim nearby: write the dirty one first (an LRU
			// flush the reading thread waits for).
			l := e.BP.Clean(v)
			e.lruInflight = append(e.lruInflight, l)
			e.LRUWrites++
			f, off := e.pageFile(v)
			bytes := e.ioPage
			if e.cfg.Flushing.Doublewrite {
				e.sys.WriteAt(e.dblwrOffset(0), PageSize, e.src.Doublewrite, nil, nil)
			}
			e.markWritten(v)
			rd.page = v
			f.WriteAt(off, bytes, e.src.PageFlush, e.evictCB, rd)
			return
		}
		if ok {
			e.BP.Evict(v)
		}
	}
	e.issueRead(rd)
}

// lruSearchScan is BUF_LRU_SEARCH_SCAN_THRESHOLD: how far from the LRU
// tail a user thread looks for a clean page to free.
const lruSearchScan = 100

// freeReady lets the threads waiting for a free page retry.
func (e *Engine) freeReady() {
	w := e.freeWaiters
	e.freeWaiters = e.freeSpare[:0]
	for i, rd := range w {
		w[i] = nil
		e.readNext(rd)
	}
	e.freeSpare = w[:0]
}

// neighbourMode is the innodb_flush_neighbors that applies now: 0 on a
// non-rotational device, for a bulk loader's Tablespace, or while the LRU is
// shorter than BUF_LRU_OLD_MIN_LEN (512 pages).
func (e *Engine) neighbourMode(lru bool) int {
	f := e.cfg.Flushing
	if !f.Rotational || e.loader || e.BP.resident < 512 {
		return 0
	}
	return f.FlushNeighbors
}

// takeNeighbours is buf_flush_try_neighbors for page p (already taken):
// the area of min(64, pool pages/16) pages of p's file around it, narrowed
// with mode 1 to the contiguous run of dirty pages around p; every dirty
// page of it that is not being written is marked clean and appended to dst
// with flag, in page order, at most room of them (the batch's n counts
// them; past it only p itself is written, buf_flush_try_neighbors' count +
// n_flushed >= n_to_flush). The LRU batch takes them as the flush list
// does: 10.11 checks only that a neighbour is dirty and not io-fixed,
// whatever its place in the LRU.
func (e *Engine) takeNeighbours(dst []int32, p int32, mode int, lru bool, flag int32, room int) []int32 {
	area := int32(max(1, min(64, e.BP.frames/16)))
	first, end := e.fileRange(p)
	lo := first + (p-first)/area*area
	hi := min(lo+area, end)
	ok := func(q int32) bool {
		bp := e.BP
		return bp.IsDirty(q) && bp.IsResident(q) && !bp.IsIOFixed(q)
	}
	if mode == 1 {
		for q := p - 1; q >= lo; q-- {
			if !ok(q) {
				lo = q + 1
				break
			}
		}
		for q := p + 1; q < hi; q++ {
			if !ok(q) {
				hi = q
				break
			}
		}
	}
	for q := lo; q < hi && room > 0; q++ {
		if q == p || !ok(q) {
			continue
		}
		e.BP.Clean(q)
		e.NeighborPages++
		if lru {
			e.NeighborLRU++
		}
		dst = append(dst, q|flag)
		room--
	}
	return dst
}

// fileRange returns the page ids [first, end) of the file holding page p.
func (e *Engine) fileRange(p int32) (first, end int32) {
	if p >= e.rsegBase {
		return e.rsegBase, int32(e.BP.npages)
	}
	t := p / int32(e.perTable)
	return t * int32(e.perTable), (t + 1) * int32(e.perTable)
}

func (e *Engine) onEvictWritten(a any) {
	rd := a.(*pageRead)
	// drop one in-flight entry (any: they only bound the checkpoint)
	if n := len(e.lruInflight); n > 0 {
		e.lruInflight = e.lruInflight[:n-1]
	}
	if !e.BP.IsDirty(rd.page) {
		e.BP.Evict(rd.page)
	}
	rd.page = rd.pages[rd.i]
	if !e.BP.HasFree() {
		e.readNext(rd)
		return
	}
	e.issueRead(rd)
}

func (e *Engine) issueRead(rd *pageRead) {
	f, off := e.pageFile(rd.page)
	e.PageReads++
	f.ReadAt(off, e.ioPage, e.src.PageRead, e.readCB, rd)
}

func (e *Engine) onRead(a any) {
	rd := a.(*pageRead)
	if !e.BP.IsResident(rd.page) {
		if !e.BP.HasFree() {
			if v, dirty, ok := e.BP.Victim(1 << 20); ok && !dirty {
				e.BP.Evict(v)
			}
		}
		if e.BP.HasFree() {
			e.BP.Load(rd.page)
		}
	}
	rd.i++
	e.readNext(rd)
}

// pageFile returns the file and offset of page p.
func (e *Engine) pageFile(p int32) (dataIO, int64) {
	if p >= e.rsegBase {
		return e.undo, int64(p-e.rsegBase) * e.ioPage
	}
	t := int(p) / e.perTable
	return e.tableIO(t), int64(int(p)-t*e.perTable) * e.ioPage
}

func (e *Engine) markWritten(p int32) {
	if p >= e.rsegBase {
		e.written[e.tables] = true
		return
	}
	e.written[int(p)/e.perTable] = true
}

// takeWritten is fil_system.unflushed_spaces: it appends to dst the data
// files written since their last fdatasync (the tables, then the undo
// tablespace) and counts them as synced from now.
func (e *Engine) takeWritten(dst []dataIO) []dataIO {
	for i, w := range e.written {
		if !w {
			continue
		}
		e.written[i] = false
		if i < e.tables {
			dst = append(dst, e.tableIO(i))
		} else {
			dst = append(dst, e.undo)
		}
	}
	return dst
}

func (e *Engine) dblwrOffset(slot int) int64 {
	// The doublewrite area: two extents of 64 pages in the system
	// tablespace (pages 64..191 of ibdata1).
	return int64(64+slot*64) * PageSize
}

// FreeCheck is log_free_check at the start of a statement: if the
// checkpoint age exceeds the sync point (max_checkpoint_age), the thread
// waits until a checkpoint brings it back below, sleeping 10 ms between
// checks as log_checkpoint_margin does. It returns true if the thread may
// go on at once; otherwise fn(arg) runs when it may, with the wait charged
// to checkpoint stall.
func (e *Engine) FreeCheck(tl *Timeline, fn func(any), arg any) bool {
	r := e.Redo
	if r.lsn-r.checkpoint <= r.syncPoint {
		return true
	}
	e.Stalls++
	e.stalled = append(e.stalled, stallWaiter{tl, fn, arg})
	e.requestFurious(e.marginTarget())
	return false
}

// marginTarget is the oldest modification a stalled thread waits for: a
// bulk loader's engine asks for at most 1 MiB of progress; MariaDB's
// log_t::checkpoint_margin waits in buf_flush_wait for lsn -
// max_checkpoint_age, which brings the age back to the sync point.
func (e *Engine) marginTarget() uint64 {
	r := e.Redo
	if e.loader {
		return min(r.checkpoint+r.syncPoint, r.checkpoint+1<<20)
	}
	return r.lsn - r.syncPoint
}

func (e *Engine) requestFurious(lsn uint64) {
	if !e.cfg.Flushing.FlushSync {
		// Without innodb_flush_sync the cleaner flushes ahead at
		// io_capacity_max instead.
		e.requestAsync(lsn)
		return
	}
	if lsn > e.furious {
		e.furious = lsn
		e.cl.wake()
	}
}

func (e *Engine) requestAsync(lsn uint64) {
	if lsn > e.async {
		e.async = lsn
		if e.loader {
			e.cl.wake()
		} else {
			e.cl.wakeAsync()
		}
	}
}

// checkpointed runs after a checkpoint: stalled threads re-check, a bulk
// loader's after a 10 ms sleep, MariaDB's at once (log_t::checkpoint_margin
// waits on buf_pool.done_flush_list, which the cleaner broadcasts after its
// checkpoint).
func (e *Engine) checkpointed() {
	if len(e.stalled) == 0 {
		return
	}
	d := time.Duration(0)
	if e.loader {
		d = 10 * time.Millisecond
	}
	for i := range e.stalled {
		w := e.stalled[i]
		e.stalled[i] = stallWaiter{}
		e.env.AfterArg(d, e.stallRecheck, &stallWaiter{w.tl, w.fn, w.arg})
	}
	e.stalled = e.stalled[:0]
}

func (e *Engine) onStallRecheck(a any) {
	w := a.(*stallWaiter)
	r := e.Redo
	if r.lsn-r.checkpoint > r.syncPoint {
		e.stalled = append(e.stalled, *w)
		e.requestFurious(e.marginTarget())
		return
	}
	if w.tl != nil {
		w.tl.Mark(e.env.Now(), CatCheckpointStall)
	}
	w.fn(w.arg)
}

// mtrCommit appends n bytes of redo (one mini-transaction) and applies
// log_close's checks: past the async point the page cleaner is asked to
// flush ahead, past the sync point to flush furiously.
func (e *Engine) mtrCommit(n uint64) uint64 {
	r := e.Redo
	lsn := r.append(n)
	age := lsn - r.checkpoint
	if age > r.capacity {
		// The head of the log would overwrite its tail: log_free_check
		// must have prevented this.
		e.Overruns++
	}
	if age > r.asyncPoint {
		// MariaDB's log_close asks buf_flush_ahead for lsn -
		// max_modified_age_async, furiously from max_checkpoint_age on: the
		// age back to the async point. A bulk loader's engine flushes up to
		// the current LSN.
		target := lsn - r.asyncPoint
		if e.loader {
			target = lsn
		}
		if age > r.syncPoint {
			e.requestFurious(target)
		} else {
			e.requestAsync(target)
		}
	}
	return lsn
}

// ApplyBody executes the statements on resident pages: their redo
// (and the purge redo the transaction will cause) is appended and their
// pages are dirtied at the resulting LSN. pages is what PlanPages returned.
func (e *Engine) ApplyBody(stmts []workload.Stmt, pages []int32) uint64 {
	var n uint64
	for _, s := range stmts {
		n += e.stmtRedo[s.Kind]
	}
	n += uint64(e.cfg.Redo.Purge)
	if e.ix != nil {
		n += e.indexOps(stmts, pages)
	}
	lsn := e.mtrCommit(n)
	for _, p := range pages {
		e.dirty(p, lsn)
	}
	if e.ix != nil {
		e.indexPages(lsn)
	}
	e.cl.dirtied()
	return lsn
}

// dirty marks page p modified at lsn. A page that is not resident (evicted
// since it was read, in a tiny pool; a rollback segment page) is loaded
// into a free or clean frame as a re-read hit.
func (e *Engine) dirty(p int32, lsn uint64) {
	if e.BP.Touch(p, lsn) {
		return
	}
	if !e.BP.HasFree() {
		if v, dirty, ok := e.BP.Victim(1 << 20); ok && !dirty {
			e.BP.Evict(v)
		}
	}
	if e.BP.HasFree() {
		e.BP.Load(p)
		e.BP.Touch(p, lsn)
	}
}

// PrepareMTR writes the XA prepare record of two-phase commit and returns
// its end LSN.
func (e *Engine) PrepareMTR() uint64 { return e.mtrCommit(uint64(e.cfg.Redo.Prepare)) }

// CommitMTR writes the commit mini-transaction, with extra bytes of redo
// carried in it (binlog records of an InnoDB-stored binlog), updates a
// rollback segment header page, and returns the end LSN.
func (e *Engine) CommitMTR(extra uint64) uint64 {
	lsn := e.mtrCommit(uint64(e.cfg.Redo.Commit) + extra)
	p := e.rsegBase + int32(e.rsegNext)
	e.rsegNext++
	if e.rsegNext == e.cfg.Layout.RollbackSegments {
		e.rsegNext = 0
	}
	e.dirty(p, lsn)
	return lsn
}

// LogUpTo is log_write_up_to: it asks for the log up to lsn to be written
// and, if sync, durable. It returns true if that is already so; otherwise
// fn(arg) runs when it is, with tl's wait charged (Redo.Request).
func (e *Engine) LogUpTo(lsn uint64, sync bool, tl *Timeline, fn func(any), arg any) bool {
	return e.Redo.Request(lsn, sync, tl, fn, arg)
}

// FlushedLSN returns the durable end of the log.
func (e *Engine) FlushedLSN() uint64 { return e.Redo.flushed }

// CommitCPU returns the mean server CPU of the COMMIT statement in the
// engine (commit mini-transaction, lock release, reply).
func (e *Engine) CommitCPU() time.Duration { return e.cfg.CPU.Commit.D() }

// AppendRedo appends n bytes of redo in their own mini-transaction (an
// out-of-band binlog chunk) and returns the end LSN.
func (e *Engine) AppendRedo(n uint64) uint64 { return e.mtrCommit(n) }

// LogBufferFull reports whether the unwritten log exceeds the log buffer,
// so that a writer must wait for a log write (Innodb_log_waits).
func (e *Engine) LogBufferFull() bool { return e.Redo.bufferFull() }

// oldestForCheckpoint is the LSN a checkpoint may move to now.
func (e *Engine) oldestForCheckpoint() uint64 {
	t := e.BP.OldestLSN()
	if t == 0 {
		t = e.Redo.lsn
	}
	for _, l := range e.lruInflight {
		t = min(t, l)
	}
	if e.ibb != nil {
		if h := e.ibb.oldestLSN(); h != 0 {
			t = min(t, h)
		}
	}
	return t
}

func (e *Engine) onSample(any) {
	r := e.Redo
	age := r.lsn - r.checkpoint
	e.ageHist.Record(int64(age))
	e.ageMax = max(e.ageMax, age)
	e.ageSeries.Set(e.env.Now()-e.cl.resetAt, float64(age))
	e.dirtyHist.Record(int64(e.BP.dirty))
	e.freeHist.Record(int64(e.BP.Free()))
	if e.rec != nil {
		now := e.env.Now()
		e.rec.Counter("engine/checkpoint age MB", now, float64(age)/1e6)
		e.rec.Counter("engine/dirty pages", now, float64(e.BP.dirty))
	}
	e.env.AfterArg(e.samplePeriod, e.sampleCB, nil)
}

// ResetStats starts the measured window.
func (e *Engine) ResetStats() {
	e.Stalls, e.PagesFlushed, e.LRUWrites, e.PageReads, e.Checkpoints = 0, 0, 0, 0, 0
	e.IndexRedo = 0
	for _, x := range e.ix {
		x.Splits, x.Merges, x.MergeAttempts = 0, 0, 0
	}
	e.FlushListPages, e.LRUBatchPages, e.NeighborPages, e.NeighborLRU, e.LRUEvicted, e.WaitFree = 0, 0, 0, 0, 0, 0
	e.FlushAheadOn, e.FuriousOn = 0, 0
	e.ageHist.Reset()
	e.dirtyHist.Reset()
	e.freeHist.Reset()
	e.ageMax = e.Redo.lsn - e.Redo.checkpoint
	e.BP.Hits, e.BP.Misses = 0, 0
	e.Redo.resetStats()
	if e.ibb != nil {
		e.ibb.PageWrites, e.ibb.Bytes = 0, 0
	}
	e.ageSeries = stats.NewGaugeSeries(time.Second, 3600)
	e.ageSeries.Set(0, float64(e.ageMax))
	e.cl.resetAt = e.env.Now()
}

// Stats is the engine's report for the measured window.
type Stats struct {
	CheckpointAge    stats.HistogramSummary // bytes, sampled every 100 ms
	CheckpointAgeMax uint64
	// CheckpointAgeSeries is the mean checkpoint age of each 1 s interval
	// of the window (coarsened past an hour), bytes.
	CheckpointAgeSeries []float64
	DirtyPages          stats.HistogramSummary
	Stalls              int64
	PagesFlushed        int64
	FlushListPages      int64
	LRUBatchPages       int64
	NeighborPages       int64
	NeighborLRU         int64
	LRUEvicted          int64
	WaitFree            int64
	FreePages           stats.HistogramSummary // free-list length samples
	LRUWrites           int64
	PageReads           int64
	Checkpoints         int64
	FlushAheadIters     int64
	FuriousIters        int64
	Index               IndexStats
	Hits, Misses        int64
	BPFrames            int // frames of the pool (PoolFrames), the non-leaf pages' included
	NonLeafPages        int // frames the non-leaf index pages hold
	DataPages           int
	LSNBytes            uint64 // redo generated in the window
	RedoDevBytes        int64
	RedoSyncs           int64
	RedoWrites          int64
	RedoGroup           stats.HistogramSummary
	Capacity            uint64
	SyncPoint           uint64
	AsyncPoint          uint64
}

// Stats returns the statistics of the measured window.
func (e *Engine) Stats() Stats {
	r := e.Redo
	c, s, a := r.Points()
	pts := e.ageSeries.Points(e.env.Now() - e.cl.resetAt)
	ages := make([]float64, len(pts))
	for i, p := range pts {
		ages[i] = p.Mean
	}
	return Stats{
		CheckpointAgeSeries: ages,
		CheckpointAge:       e.ageHist.Summary(),
		CheckpointAgeMax:    e.ageMax,
		DirtyPages:          e.dirtyHist.Summary(),
		Stalls:              e.Stalls,
		PagesFlushed:        e.PagesFlushed,
		FlushListPages:      e.FlushListPages,
		LRUBatchPages:       e.LRUBatchPages,
		NeighborPages:       e.NeighborPages,
		NeighborLRU:         e.NeighborLRU,
		LRUEvicted:          e.LRUEvicted,
		WaitFree:            e.WaitFree,
		FreePages:           e.freeHist.Summary(),
		LRUWrites:           e.LRUWrites,
		PageReads:           e.PageReads,
		Checkpoints:         e.Checkpoints,
		Index:               e.indexStats(),
		FlushAheadIters:     e.FlushAheadOn,
		FuriousIters:        e.FuriousOn,
		Hits:                e.BP.Hits,
		Misses:              e.BP.Misses,
		BPFrames:            e.BP.frames + e.nonLeaf,
		NonLeafPages:        e.nonLeaf,
		DataPages:           e.BP.npages,
		LSNBytes:            r.lsn - r.startLSN,
		RedoDevBytes:        r.DevBytes,
		RedoSyncs:           r.Syncs,
		RedoWrites:          r.Writes,
		RedoGroup:           r.GroupSize.Summary(),
		Capacity:            c,
		SyncPoint:           s,
		AsyncPoint:          a,
	}
}

// Invariants checks the engine's invariants and returns a description of
// the first one that fails, or "".
func (e *Engine) Invariants() string {
	r := e.Redo
	if !(r.checkpoint <= r.flushed+r.block && r.flushed <= r.written && r.written <= r.lsn) {
		return fmt.Sprintf("redo positions out of order: checkpoint %d flushed %d written %d lsn %d", r.checkpoint, r.flushed, r.written, r.lsn)
	}
	if r.lsn-r.checkpoint > r.capacity || e.Overruns > 0 {
		return fmt.Sprintf("checkpoint age %d exceeds the redo capacity %d (%d overruns)", r.lsn-r.checkpoint, r.capacity, e.Overruns)
	}
	if e.BP.dirty < 0 || e.BP.resident > e.BP.frames || e.BP.Free() < 0 {
		return fmt.Sprintf("buffer pool counts broken: dirty %d resident %d frames %d", e.BP.dirty, e.BP.resident, e.BP.frames)
	}
	if e.PagesFlushed != e.FlushListPages+e.LRUBatchPages {
		return fmt.Sprintf("page cleaner writes %d != flush list %d + LRU batch %d", e.PagesFlushed, e.FlushListPages, e.LRUBatchPages)
	}
	return ""
}

// FlushAll writes and syncs the whole log (the end of a run, for the
// "written = generated" invariant) and calls done.
func (e *Engine) FlushAll(done func(any)) bool {
	return e.Redo.Request(e.Redo.lsn, true, nil, done, nil)
}

// RedoCovered returns the LSN range written by log writes since the start
// (each byte once, block rewrites not counted) and the LSN generated.
func (e *Engine) RedoCovered() (written, generated uint64) {
	return e.Redo.coveredLSN, e.Redo.lsn
}

// Env returns the simulation.
func (e *Engine) Env() *sim.Env { return e.env }
