package bulkload

import (
	"fmt"
	"math"
	"sort"
	"time"

	"simrun/model/disk"
	"simrun/model/engine"
	"simrun/model/server"
	"simrun/sim"
)

// indexSet is one partition's indexes: the clustered index, filled in key
// order, and the two secondaries cl_sortkey and cl_timestamp.
type indexSet struct {
	clust *engine.SeqIndex
	sec   [2]*engine.RandIndex
}

// row is the keys of the row being inserted.
type row struct {
	part int
	key  [2]uint64
}

// Row steps: the waits a row insert can meet, in order.
const (
	stBegin = iota
	stFreeCheck
	stSpace
	stRoom
	stClustered
	stUndo
	stSec0
	stSec1
	stDone
	stCommit
)

// What the thread waits for, for the time breakdown.
const (
	waitNone = iota
	waitCPU
	waitRead
	waitStall
	waitExtend
	waitLRU
	waitMerge
	waitCommit
	waitCSV
	numWaits
)

var waitNames = [numWaits]string{"", "cpu", "page_read", "checkpoint_stall", "autoextend", "lru_flush", "ibuf_merge", "commit", "csv_read"}

// Loader is the client session running the load against the engine, as a
// state machine: it parses and inserts rows one by one, pausing only where
// the server would block the thread (log_free_check, a tablespace
// extension, a free buffer-pool frame, a leaf read, a commit). CPU is
// accumulated and paid as one delay every block of rows or before a wait,
// so the events are per page and per I/O, not per row.
type Loader struct {
	env  *sim.Env
	cfg  Config
	srv  *server.Bulk
	vol  *disk.Volume
	e    *engine.Engine // for results and invariants only
	ts   *engine.Tablespace
	ib   *engine.Ibuf
	undo *engine.UndoLog
	own  *engine.PageOwners
	zip  *engine.Zip // nil unless row_format = compressed
	src  server.BulkSources
	rng  *sim.Stream // "workload/bulkload": keys
	mrng *sim.Stream // "engine/ibuf": contraction positions

	sets   []indexSet
	sec    []*engine.RandIndex // by index id
	cdf    []float64           // category popularity CDF, by popularity rank
	start  []float64           // key-space start of each category (by rank), in name order
	width  []float64
	recSec [2]int

	// the load's position
	phase     int // csv_alter: 0 = CSV load, 1 = ALTER copy
	next      int64
	txLeft    int
	txRows    int
	cur       row
	st        int
	cpu       time.Duration
	rowCPU    time.Duration
	blockRows int
	t         engine.Touched
	wait      [1]int32
	picks     []int32
	path      []int32 // the clustered index's insert path (reused)
	merging   int     // merge reads in flight
	reads     sim.Pool[mergeRead]
	waits     sim.Pool[mergeWait]
	csvOff    int64 // bytes appended to the .CSV file
	csvDone   int64 // bytes of it written
	csvRead_  int64 // bytes of it read back by the ALTER
	csv       *disk.File
	waitKind  int
	justRead  bool // a read was issued: check the LRU free margin when the thread runs next
	waitStart sim.Time
	csvEnd    sim.Time
	finished  bool
	startAt   sim.Time
	endAt     sim.Time
	onDone    func()
	err       error

	resumeCB, mergeCB, committedCB, sampleCB func(any)

	st_ stats
}

// New wires a loader for cfg and the MySQL 5.1 server it drives
// (server.Bulk, built here over vol with the engine and commit settings of
// srv and the 5.1 settings of cfg). cores is the machine's CPU count.
func New(env *sim.Env, cores int, vol *disk.Volume, srv Server, cfg Config) (*Loader, error) {
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("workload.bulkload.%w", err)
	}
	frames, pageBytes := int(int64(srv.Engine.BufferPool.Size)/engine.PageSize), int64(engine.PageSize)
	if cfg.RowFormat == "compressed" {
		frames, pageBytes = engine.ZipFrames(srv.Engine.BufferPool.Size, cfg.KeyBlockSize), int64(cfg.KeyBlockSize)
	}
	opt := server.BulkOptions{
		Pages:             pageBudget(cfg, frames, pageBytes),
		LogFileSize:       cfg.LogFileSize,
		LogFilesInGroup:   cfg.LogFilesInGroup,
		LogBufferSize:     cfg.LogBufferSize,
		ThreadConcurrency: cfg.ThreadConcurrency,
		SupportXA:         cfg.SupportXA,
		Buffered:          cfg.FlushMethod == "fdatasync",
		OSPageCache:       cfg.OSPageCache,
		Tablespace:        cfg.Tablespace,
	}
	if cfg.RowFormat == "compressed" {
		opt.KeyBlockSize = cfg.KeyBlockSize
	}
	b, err := server.NewBulk(env, cores, vol, srv.Engine, srv.Commit, opt)
	if err != nil {
		return nil, err
	}
	l := &Loader{env: env, cfg: cfg, srv: b, vol: vol, e: b.Engine(), src: b.Sources()}
	l.ts, l.undo = b.Tablespace(), b.Undo()
	l.ib = engine.NewIbuf(cfg.Ibuf, opt.Pages, b.Frames16K()) // max_size is half the pool's 16 KiB frames
	if opt.KeyBlockSize > 0 {
		l.zip = engine.NewZip(cfg.KeyBlockSize, cfg.CompressionRatio, opt.Pages, l.e.Frames())
	}
	l.own = engine.NewPageOwners(opt.Pages)
	l.rng = env.Stream("workload/bulkload")
	l.mrng = env.Stream("engine/ibuf")
	l.recSec = [2]int{cfg.sortkeyBytes(), cfg.timestampBytes()}
	l.keySpace()
	l.resumeCB = l.resume
	l.mergeCB = l.onMergeRead
	l.committedCB = l.onCommitted
	l.sampleCB = l.onSample
	l.blockRows = 64
	l.st_.init(cfg.Sample.D())
	return l, nil
}

// pageBudget bounds the tablespace's pages: every index at its worst
// fill (half-full leaves), the insert buffer at its limit, the undo of
// the largest transaction, partitions' minimum pages, the reserved
// extents, and 25 % more.
func pageBudget(c Config, poolPages int, pageBytes int64) int {
	n := float64(c.Rows)
	data := n * float64(c.clusteredBytes()) / (engine.PageUsable * 0.9)
	data += n * float64(c.sortkeyBytes()+c.timestampBytes()) / (engine.PageUsable * 0.5)
	undoRows := n
	if c.Method == MethodDump {
		undoRows = float64(c.rowsPerStatement())
	}
	if c.Method == MethodCSVAlter {
		undoRows = float64(c.AlterCommitRows)
	}
	undo := 2 * undoRows * float64(c.Record.UndoBytes) / float64(engine.PageUsable-300)
	frames := float64(poolPages)
	parts := 1.0
	if c.Partitioning == "month" {
		parts = float64(c.Months)
	}
	total := 1.25*(data*1.05+undo) + frames/2 + 64 + parts*8 + 192 + float64(int64(c.Tablespace.InitialSize)/pageBytes) + 4096
	return int(math.Min(total, 1<<30))
}

// keySpace lays the categories out in name order (a fixed random
// permutation of popularity ranks), each over a stretch of the key space
// proportional to its share of rows, so that a key's position in a
// secondary index is uniform inside its category.
func (l *Loader) keySpace() {
	c := l.cfg.Categories
	w := make([]float64, c)
	var sum float64
	for k := range w {
		w[k] = math.Pow(float64(k+1), -l.cfg.Popularity)
		sum += w[k]
	}
	l.cdf = make([]float64, c)
	acc := 0.0
	for k := range w {
		w[k] /= sum
		acc += w[k]
		l.cdf[k] = acc
	}
	perm := make([]int, c) // perm[rank] = name-order position (Fisher-Yates on the stream)
	for i := range perm {
		perm[i] = i
	}
	for i := c - 1; i > 0; i-- {
		j := l.rng.IntN(i + 1)
		perm[i], perm[j] = perm[j], perm[i]
	}
	order := make([]int, c)
	for rank, pos := range perm {
		order[pos] = rank
	}
	l.start = make([]float64, c)
	l.width = make([]float64, c)
	at := 0.0
	for _, rank := range order {
		l.start[rank] = at
		l.width[rank] = w[rank]
		at += w[rank]
	}
}

// keyScale maps [0, 1) of the key space onto uint64 keys.
const keyScale = float64(1 << 62)

// genRow draws the keys of row i: its category by popularity, a sort key
// uniform in the category, and its timestamp: the page's creation time
// (which grows with cl_from, so with i) or, for timestamp_spread of the
// rows, a later time uniform up to the end of the dump.
func (l *Loader) genRow(i int64) row {
	u := l.rng.Float64()
	rank := sort.Search(len(l.cdf), func(k int) bool { return l.cdf[k] > u })
	if rank >= len(l.cdf) {
		rank = len(l.cdf) - 1
	}
	tau := (float64(i) + 0.5) / float64(l.cfg.Rows)
	if l.cfg.TimestampSpread > 0 && l.rng.Float64() < l.cfg.TimestampSpread {
		tau += l.rng.Float64() * (1 - tau)
	}
	s, w := l.start[rank], l.width[rank]
	var r row
	r.key[0] = uint64((s + w*l.rng.Float64()) * keyScale)
	r.key[1] = uint64((s + w*tau) * keyScale)
	if l.cfg.Partitioning == "month" {
		r.part = min(int(tau*float64(l.cfg.Months)), l.cfg.Months-1)
	}
	return r
}

// NewPage allocates a page of the tablespace and makes it resident
// (engine.PageAllocator). The row's stSpace and stRoom steps reserved it.
func (l *Loader) NewPage() int32 { return l.srv.NewPage() }

// set returns partition p's indexes, creating them on first use.
func (l *Loader) set(p int) *indexSet {
	for len(l.sets) <= p {
		l.sets = append(l.sets, indexSet{})
	}
	s := &l.sets[p]
	if s.clust == nil {
		ptr := l.cfg.Record.NodePtrBytes
		s.clust = engine.NewSeqIndex(l.cfg.clusteredBytes(), 8+ptr+l.cfg.CategoryBytes, l)
		if l.zip != nil {
			s.clust.LimitLeaf(l.zip.Capacity(l.cfg.clusteredBytes()))
		}
		for k := range s.sec {
			id := uint16(len(l.sec))
			s.sec[k] = engine.NewRandIndex(l.recSec[k], l.recSec[k]-5+ptr, l, id, l.own)
			if l.zip != nil {
				s.sec[k].LimitLeaf(l.zip.Capacity(l.recSec[k]))
			}
			l.sec = append(l.sec, s.sec[k])
		}
	}
	return s
}

// Start begins the load now; done runs when its last commit is acknowledged.
func (l *Loader) Start(done func()) {
	l.onDone = done
	l.srv.Start()
	l.startAt = l.env.Now()
	l.st_.start(l, l.startAt)
	l.env.AfterArg(l.cfg.Sample.D(), l.sampleCB, nil)
	l.env.After(10*time.Second, l.backgroundMerge)
	switch l.cfg.Method {
	case MethodDump:
		l.rowCPU = l.cfg.CPU.RowInsert.D()
	case MethodLoadData:
		l.rowCPU = l.cfg.CPU.RowLoadData.D()
	case MethodCSVAlter:
		l.rowCPU = l.cfg.CPU.RowCSV.D()
	}
	l.run()
}

// Err returns the error that stopped the load, if any.
func (l *Loader) Err() error { return l.err }

// Done reports whether the load has finished.
func (l *Loader) Done() bool { return l.finished }

// pay lets the accumulated CPU elapse before the thread goes on; it
// returns true if it did (the thread resumes later in the same step).
func (l *Loader) pay() bool {
	if l.cpu <= 0 {
		return false
	}
	d := l.cpu
	l.cpu = 0
	l.block(waitCPU)
	l.srv.CPU(d, l.resumeCB, nil)
	return true
}

func (l *Loader) resume(any) { l.run() }

// need reports whether page p is resident; if not, the thread reads it
// (after paying its CPU) and resumes the current step.
func (l *Loader) need(p int32, why *int64) bool {
	if l.srv.Touch(p) {
		l.zipAccess(p)
		return true // a read access: its reference bit keeps it from eviction
	}
	if l.pay() {
		return false
	}
	if !l.ts.MakeRoom(1, l.resumeCB, nil) {
		l.block(waitLRU)
		return false
	}
	*why++
	l.justRead = true
	l.wait[0] = p
	l.block(waitRead)
	if l.srv.Read(l.wait[:], l.resumeCB, nil) {
		l.unblock()
		return true
	}
	return false
}

// block records that the thread starts waiting for kind.
func (l *Loader) block(kind int) {
	l.waitKind, l.waitStart = kind, l.env.Now()
}

// unblock charges the wait that just ended.
func (l *Loader) unblock() {
	if l.waitKind != waitNone {
		l.st_.wait[l.waitKind] += l.env.Now() - l.waitStart
		l.waitKind = waitNone
	}
}

// run advances the load until the thread must wait.
func (l *Loader) run() {
	l.unblock()
	if l.justRead && !l.finished {
		// buf_read_page ends with buf_flush_free_margin.
		l.justRead = false
		if n := l.ts.LRURecommendation(); n > 0 && !l.ts.FlushLRU(n, l.resumeCB, nil) {
			l.st_.lruBatches++
			l.block(waitLRU)
			return
		}
	}
	for !l.finished {
		switch l.st {
		case stBegin:
			if l.next >= l.cfg.Rows {
				l.endOfPhase()
				return
			}
			if l.txLeft == 0 {
				l.beginTx()
			}
			if l.cfg.Method == MethodCSVAlter {
				if l.phase == 0 {
					if !l.csvRow() {
						return
					}
					continue
				}
				if !l.csvRead() {
					return
				}
			}
			l.cur = l.genRow(l.next)
			l.st = stFreeCheck
		case stFreeCheck:
			if !l.freeCheck() {
				return
			}
			l.st = stSpace
		case stSpace:
			ok, err := l.ts.Ensure(64, l.resumeCB, nil)
			if err != nil {
				l.fail(err)
				return
			}
			if !ok {
				l.block(waitExtend)
				return
			}
			l.st = stRoom
		case stRoom:
			if !l.ts.MakeRoom(64, l.resumeCB, nil) {
				l.block(waitLRU)
				return
			}
			l.st = stClustered
		case stClustered:
			s := l.set(l.cur.part)
			ok := true
			l.path = s.clust.Tail(l.path[:0])
			for _, p := range l.path {
				if !l.need(p, &l.st_.readsOther) {
					ok = false
					break
				}
			}
			if !ok {
				return
			}
			l.t.Reset()
			s.clust.Insert(l, &l.t)
			if l.zip != nil {
				leaf, n := s.clust.TailLeaf()
				if l.t.New > 0 {
					l.zipOps(l.zip.Split(leaf, s.clust.PerLeaf()*2, l.cfg.clusteredBytes()))
				} else {
					l.zipOps(l.zip.Insert(leaf, n, 1, l.cfg.clusteredBytes()))
				}
			}
			l.mtr()
			l.st = stUndo
		case stUndo:
			if p := l.undo.Last(); p >= 0 && !l.need(p, &l.st_.readsUndo) {
				return
			}
			l.t.Reset()
			l.undo.Append(l.cfg.Record.UndoBytes, l, &l.t)
			l.mtr()
			l.st = stSec0
		case stSec0, stSec1:
			if !l.secondary(l.st - stSec0) {
				return
			}
			l.st++
		case stDone:
			l.cpu += l.rowCPU
			l.next++
			l.txLeft--
			l.st_.rows++
			l.st = stBegin
			if l.txLeft == 0 {
				l.commit()
				return
			}
			if l.next%int64(l.blockRows) == 0 && l.pay() {
				return
			}
		case stCommit:
			l.doCommit()
			return
		}
	}
}

// freeCheck is log_free_check before a row's mini-transactions.
func (l *Loader) freeCheck() bool {
	if l.srv.PastSyncPoint() && l.pay() {
		return false // the CPU first, then the check
	}
	if l.srv.FreeCheck(l.resumeCB, nil) {
		return true
	}
	l.st_.stalls++
	l.block(waitStall)
	return false
}

// mtr commits the mini-transaction in l.t: its redo, then its pages dirty.
func (l *Loader) mtr() {
	l.srv.Mtr(l.t.Redo, l.t.Pages)
}

// secondary inserts the row's entry into secondary index k: directly if
// the leaf is resident, through the insert buffer if it is not and may
// be buffered, otherwise after reading the leaf. It returns false if the
// thread must wait.
func (l *Loader) secondary(k int) bool {
	s := l.set(l.cur.part)
	ix := s.sec[k]
	key := l.cur.key[k]
	ref := ix.Find(key)
	if !l.need(ref.RootPage, &l.st_.readsOther) || !l.need(ref.NodePage, &l.st_.readsOther) {
		return false
	}
	if l.srv.IsResident(ref.Page) {
		if l.ib.Buffered(ref.Page) > 0 {
			l.merge(ref.Page)
			ref = ix.Find(key)
			if !l.srv.IsResident(ref.Page) {
				return l.secondary(k)
			}
		}
		l.zipAccess(ref.Page)
		l.t.Reset()
		ix.Insert(ref, key, 1, l, &l.t)
		l.zipInsert(ref.Page, ix, ref, 1, l.recSec[k])
		l.mtr()
		l.st_.direct++
		return true
	}
	// Not resident: buffer the insert if the insert buffer takes it.
	full := l.ib.Full()
	fits := ix.Count(ref)+l.ib.Buffered(ref.Page)+1 <= ix.PerLeaf()
	if l.ib.On() && full < 3 && fits {
		if full == 2 {
			// ibuf_contract_after_insert, synchronous: merge before going on.
			if !l.contract(true) {
				return false
			}
		}
		tp := l.ib.TreePage(ref.Page, l)
		if !l.need(tp, &l.st_.readsIbuf) {
			return false
		}
		l.t.Reset()
		l.ib.Add(ref.Page, l.recSec[k])
		l.t.Pages = append(l.t.Pages, tp)
		l.t.Redo = uint64(l.ib.RecordBytes(l.recSec[k])) + 20 + 8 // record + bitmap page update
		l.mtr()
		if full == 1 {
			l.contract(false)
		}
		l.st_.buffered++
		return true
	}
	if l.ib.On() && full == 3 {
		l.contract(false)
	}
	l.st_.refused++
	// Read the leaf; the step runs again once it is resident.
	return l.need(ref.Page, &l.st_.readsLeaf) && l.secondary(k)
}

// contract is ibuf_contract: pick up to merge_pages leaves from a random
// position of the insert buffer and read them; each is merged when its
// read completes. sync: the thread waits for the reads (and returns
// false); otherwise they run in the background while fewer than
// async_reads are pending.
func (l *Loader) contract(sync bool) bool {
	if !sync && l.merging >= l.cfg.Ibuf.AsyncReads {
		return true
	}
	var wait *mergeWait
	if sync {
		if l.pay() {
			return false
		}
		wait = l.waits.Get()
		*wait = mergeWait{l: l}
	}
	picks := l.ib.Pick(l.mrng, l.picks[:0])
	for _, p := range picks {
		if l.srv.IsResident(p) {
			l.merge(p)
			continue
		}
		l.merging++
		l.st_.mergeReads++
		l.justRead = true
		mr := l.reads.Get()
		*mr = mergeRead{l: l, page: [1]int32{p}, wait: wait}
		if wait != nil {
			wait.n++
		}
		if l.srv.Read(mr.page[:], l.mergeCB, mr) {
			l.onMergeRead(mr)
		}
	}
	l.picks = picks[:0]
	if wait != nil && wait.n > 0 {
		l.st_.syncContracts++
		l.block(waitMerge)
		return false
	}
	if wait != nil {
		l.waits.Put(wait)
	}
	return true
}

type mergeRead struct {
	l    *Loader
	page [1]int32
	wait *mergeWait
}

type mergeWait struct {
	l *Loader
	n int
}

func (l *Loader) onMergeRead(a any) {
	mr := a.(*mergeRead)
	l.merging--
	if l.srv.IsResident(mr.page[0]) {
		l.merge(mr.page[0])
	}
	w := mr.wait
	*mr = mergeRead{}
	l.reads.Put(mr)
	if w != nil {
		w.n--
		if w.n == 0 {
			*w = mergeWait{}
			l.waits.Put(w)
			l.run()
		}
	}
}

// merge applies page p's buffered records to its leaf (resident).
func (l *Loader) merge(p int32) {
	n := l.ib.Buffered(p)
	if n == 0 {
		return
	}
	id, lo, ok := l.own.Owner(p)
	if !ok {
		panic(fmt.Sprintf("bulkload: insert-buffer records for page %d, which is no secondary leaf", p))
	}
	// Splits need frames; a merge that cannot get them waits for the next read.
	for i := 0; i < 4 && !l.srv.HasFree(); i++ {
		if !l.srv.EvictClean() {
			return
		}
	}
	if !l.srv.HasFree() || !l.srv.IsResident(p) || l.ts.Headroom() < 8 {
		return
	}
	ix := l.sec[id]
	ref := ix.Find(lo)
	if ref.Page != p {
		panic(fmt.Sprintf("bulkload: page %d's range start leads to page %d", p, ref.Page))
	}
	l.ib.Take(p)
	l.zipAccess(p)
	l.t.Reset()
	ix.Insert(ref, lo, n, l, &l.t)
	l.zipInsert(p, ix, ref, n, ix.RecordBytes())
	l.t.Redo += uint64(n) * 12 // the records deleted from the insert buffer
	if tp := l.ib.TreePage(p, l); l.srv.IsResident(tp) {
		l.t.Pages = append(l.t.Pages, tp)
	}
	l.mtr()
	l.st_.merges++
}

// backgroundMerge is the master thread's merge every 10 s.
func (l *Loader) backgroundMerge() {
	if l.finished {
		return
	}
	for n := 0; n < l.cfg.Ibuf.BackgroundPages; n += l.cfg.Ibuf.MergePages {
		l.contract(false)
	}
	l.env.After(10*time.Second, l.backgroundMerge)
}

// beginTx starts the next statement's transaction.
func (l *Loader) beginTx() {
	l.cpu += l.cfg.CPU.Statement.D()
	left := l.cfg.Rows - l.next
	var n int64
	switch {
	case l.cfg.Method == MethodLoadData:
		n = left
	case l.cfg.Method == MethodCSVAlter && l.phase == 1:
		n = int64(l.cfg.AlterCommitRows)
	default:
		n = int64(l.cfg.rowsPerStatement())
	}
	l.txLeft = int(min(n, left))
	l.txRows = l.txLeft
}

// binlogBytes is what a statement-format binlog records for the
// transaction: the INSERT text, the LOAD DATA file (Append_block events),
// or, for the ALTER, the statement alone.
func (l *Loader) binlogBytes() int64 {
	switch {
	case l.cfg.Method == MethodCSVAlter && l.phase == 1:
		return 0
	case l.cfg.Method == MethodLoadData:
		return int64(l.txRows) * int64(l.cfg.CSVRowBytes)
	}
	return int64(l.txRows) * int64(l.cfg.SQLRowBytes)
}

// commit ends the transaction (server.Bulk.Commit: the commit pipeline,
// then 5.1's commit flush and the undo log's cleanup).
func (l *Loader) commit() {
	if l.pay() {
		l.st = stCommit
		return
	}
	l.doCommit()
}

func (l *Loader) doCommit() {
	l.st_.commits++
	l.block(waitCommit)
	l.srv.Commit(l.binlogBytes(), l.committedCB, nil)
}

func (l *Loader) onCommitted(any) {
	l.st = stBegin
	// Resume from the event loop, not inside the pipeline's callback.
	l.env.AfterArg(0, l.resumeCB, nil)
}

// csvPiece is the size of the CSV file's writes and reads: the page
// cache writes back and reads ahead in large sequential pieces.
const csvPiece = 1 << 20

// csvRow is one row of the CSV phase: parse it and append it to the .CSV
// file (buffered writes, never fsynced: ha_tina::write_row), which reach
// the disk in pieces as the page cache writes them back.
// It returns false if the thread must wait (its CPU).
func (l *Loader) csvRow() bool {
	l.cpu += l.rowCPU
	l.next++
	l.txLeft--
	l.st_.rows++
	l.csvOff += int64(l.cfg.CSVRowBytes)
	if l.csvOff-l.csvDone >= csvPiece || l.next == l.cfg.Rows {
		n := l.csvOff - l.csvDone
		l.csvFile().WriteAt(l.csvDone, n, l.src.CSV, nil, nil)
		l.csvDone = l.csvOff
	}
	// A CSV-engine statement ends without an InnoDB commit.
	return l.next%int64(l.blockRows) != 0 || !l.pay()
}

// csvRead makes sure the ALTER's copy has the next row of the .CSV file
// read (sequential reads of csvPiece); false: the thread waits for it.
func (l *Loader) csvRead() bool {
	need := (l.next + 1) * int64(l.cfg.CSVRowBytes)
	if need <= l.csvRead_ {
		return true
	}
	if l.pay() {
		return false
	}
	n := min(int64(csvPiece), l.csvOff-l.csvRead_)
	if n <= 0 {
		return true
	}
	l.block(waitCSV)
	l.csvFile().ReadAt(l.csvRead_, n, l.src.CSV, l.resumeCB, nil)
	l.csvRead_ += n
	return false
}

func (l *Loader) csvFile() *disk.File {
	if l.csv == nil {
		l.csv = l.vol.OpenFile("categorylinks.CSV", false)
	}
	return l.csv
}

// endOfPhase: the CSV load is followed by the ALTER TABLE copy; the last
// phase ends the load.
func (l *Loader) endOfPhase() {
	if l.cfg.Method == MethodCSVAlter && l.phase == 0 {
		l.phase = 1
		l.csvEnd = l.env.Now()
		l.next = 0
		l.txLeft = 0
		l.rowCPU = l.cfg.CPU.RowCopy.D()
		l.run()
		return
	}
	l.finished = true
	l.endAt = l.env.Now()
	if l.onDone != nil {
		l.onDone()
	}
}

func (l *Loader) fail(err error) {
	l.err = err
	l.finished = true
	l.endAt = l.env.Now()
	if l.onDone != nil {
		l.onDone()
	}
}

// zipAccess charges the decompression of a compressed page that lacks its
// uncompressed frame.
func (l *Loader) zipAccess(p int32) {
	if l.zip != nil && l.zip.Access(p) > 0 {
		l.cpu += l.cfg.CPU.Decompress.D()
	}
}

// zipInsert accounts k records inserted into leaf page p of ix (the
// insert just made, recorded in l.t): the modification log, or the
// recompression, or the split's compressions, with their CPU and redo.
func (l *Loader) zipInsert(p int32, ix *engine.RandIndex, ref engine.LeafRef, k, rec int) {
	if l.zip == nil {
		return
	}
	if l.t.New > 0 {
		l.zipOps(l.zip.Split(p, ix.PerLeaf()+k, rec))
		return
	}
	l.zipOps(l.zip.Insert(p, ix.Count(ref), k, rec))
}

func (l *Loader) zipOps(ops int, redo uint64) {
	l.cpu += time.Duration(ops) * l.cfg.CPU.Compress.D()
	l.t.Redo += redo
}
