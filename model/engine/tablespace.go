package engine

import (
	"errors"
	"fmt"

	"simrun/model/disk"
	"simrun/model/workload"
	"simrun/sim"
)

// TablespaceConfig is the system tablespace of a MySQL 5.1 server
// (innodb_data_file_path = ibdata1:10M:autoextend, innodb_file_per_table
// OFF): every index, the insert buffer and the undo logs live in it.
type TablespaceConfig struct {
	InitialSize         sim.Bytes `toml:"initial_size" unit:"bytes" doc:"size of ibdata1 when the load starts (innodb_data_file_path default ibdata1:10M:autoextend)"`
	AutoextendIncrement sim.Bytes `toml:"autoextend_increment" unit:"bytes" doc:"innodb_autoextend_increment: how much ibdata1 grows when it is full (5.1 default 8 MiB); each extension writes the new pages with zeros and fsyncs the file (fil_extend_space_to_desired_size)"`
	ExtendWrite         sim.Bytes `toml:"extend_write" unit:"bytes" doc:"size of each zero-filling write of an extension: fil_extend_space_to_desired_size writes at most 64 pages (1 MiB) per os_file_write"`
}

// DefaultTablespace returns the MySQL 5.1 defaults.
func DefaultTablespace() TablespaceConfig {
	return TablespaceConfig{InitialSize: 10 * sim.MiB, AutoextendIncrement: 8 * sim.MiB, ExtendWrite: 1 * sim.MiB}
}

// Validate checks the settings.
func (c TablespaceConfig) Validate() error {
	var errs []error
	if c.InitialSize < 1*sim.MiB || c.InitialSize > 1*sim.TiB {
		errs = append(errs, fmt.Errorf("initial_size: must be in [1MiB, 1TiB], got %v", c.InitialSize))
	}
	if c.AutoextendIncrement < 1*sim.MiB || c.AutoextendIncrement > 1000*sim.MiB {
		errs = append(errs, fmt.Errorf("autoextend_increment: must be in [1MiB, 1000MiB] (the sysvar's range), got %v", c.AutoextendIncrement))
	}
	if c.ExtendWrite < PageSize || c.ExtendWrite > 64*sim.MiB {
		errs = append(errs, fmt.Errorf("extend_write: must be in [16KiB, 64MiB], got %v", c.ExtendWrite))
	}
	return errors.Join(errs...)
}

// tsReserved is the first page a segment may use: the file-space header,
// the insert-buffer header and root, the transaction system and the
// doublewrite area take the first extents of ibdata1 (pages 0..191).
const tsReserved = 192

// NewForTablespace builds the engine over one tablespace of pages page ids
// instead of sysbench tables: page p is at offset p x 16 KiB of the data
// file. The engine's redo log, buffer pool, page cleaner, doublewrite
// buffer and checkpoints are the ones every workload uses; a bulk loader
// decides which pages it reads and dirties.
func NewForTablespace(env *sim.Env, cfg Config, pages int, vol *disk.Volume, src Sources, logBuffered bool) (*Engine, error) {
	if pages < tsReserved+64 || pages > 1<<30 {
		return nil, fmt.Errorf("engine: a tablespace of %d pages; must be in [%d, %d]", pages, tsReserved+64, 1<<30)
	}
	cfg.Layout.RowsPerPage = 1
	cfg.Layout.SecondaryPerPage = 8192
	wl := workload.DefaultSysbench()
	wl.Tables, wl.TableSize = 1, int64(pages)
	e, err := newEngine(env, cfg, wl, vol, src, logBuffered, false)
	if e != nil {
		e.loader = true // the loader's FlushLRU/MakeRoom replace the cleaner's LRU batch
	}
	return e, err
}

// Tablespace allocates pages of the data file in order and grows the file
// by autoextend_increment when it is full. Freed pages (undo logs of
// committed transactions) are reused first, most recently freed first, as
// the file-space free list does.
type Tablespace struct {
	e     *Engine
	cfg   TablespaceConfig
	src   disk.Source
	limit int32 // page ids that exist (the page map)
	size  int32 // pages in the file
	next  int32 // first page never allocated
	free  []int32

	extending bool
	pending   int
	done      func(any)
	arg       any
	wroteCB   func(any)
	syncedCB  func(any)

	Extensions  int64 // autoextend operations
	ExtendBytes int64 // bytes written by them

	rooms   sim.Pool[roomWait]
	batches sim.Pool[lruBatch]
}

// NewTablespace returns the allocator over the engine's pages; src tags
// the extension writes.
func NewTablespace(e *Engine, cfg TablespaceConfig, src disk.Source) *Tablespace {
	t := &Tablespace{e: e, cfg: cfg, src: src, limit: int32(e.perTable), next: tsReserved}
	t.size = int32(int64(cfg.InitialSize) / e.ioPage)
	t.size = max(t.size, tsReserved)
	t.wroteCB = t.onWrote
	t.syncedCB = t.onSynced
	return t
}

// Headroom returns how many pages can be allocated without extending.
func (t *Tablespace) Headroom() int { return len(t.free) + int(t.size-t.next) }

// Size returns the file size in pages.
func (t *Tablespace) Size() int { return int(t.size) }

// Used returns the pages ever allocated (the high-water mark).
func (t *Tablespace) Used() int { return int(t.next) }

// Alloc returns a free page. The caller made sure of Headroom (Ensure);
// allocating beyond it is a programming error and panics.
func (t *Tablespace) Alloc() int32 {
	if n := len(t.free); n > 0 {
		p := t.free[n-1]
		t.free = t.free[:n-1]
		return p
	}
	if t.next >= t.size {
		panic("engine: tablespace Alloc beyond its size (call Ensure first)")
	}
	p := t.next
	t.next++
	return p
}

// Free returns page p to the free list.
func (t *Tablespace) Free(p int32) { t.free = append(t.free, p) }

// Ensure makes at least n pages allocatable. It returns true if they
// already are; otherwise it extends the file (zero-filling writes of the
// increment, then an fsync, all waited for by the caller as
// fsp_try_extend_data_file does under the space latch) and calls
// done(arg) when they are. It errors when the page map is exhausted.
func (t *Tablespace) Ensure(n int, done func(any), arg any) (bool, error) {
	if t.Headroom() >= n {
		return true, nil
	}
	inc := int32(int64(t.cfg.AutoextendIncrement) / t.e.ioPage)
	newSize := t.size + inc
	if int(newSize-t.next)+len(t.free) < n {
		newSize = t.next + int32(n-len(t.free))
	}
	if newSize > t.limit {
		return false, fmt.Errorf("engine: tablespace full: %d pages needed, the page map holds %d", newSize, t.limit)
	}
	t.done, t.arg = done, arg
	t.extending = true
	t.Extensions++
	f := t.e.files[0]
	chunk := int64(t.cfg.ExtendWrite)
	end := int64(newSize) * t.e.ioPage
	for off := int64(t.size) * t.e.ioPage; off < end; off += chunk {
		sz := min(chunk, end-off)
		t.pending++
		t.ExtendBytes += sz
		f.WriteAt(off, sz, t.src, t.wroteCB, nil)
	}
	t.size = newSize
	return false, nil
}

func (t *Tablespace) onWrote(any) {
	t.pending--
	if t.pending == 0 {
		t.e.tableIO(0).Sync(t.syncedCB, nil)
	}
}

func (t *Tablespace) onSynced(any) {
	t.extending = false
	d, a := t.done, t.arg
	t.done, t.arg = nil, nil
	if d != nil {
		d(a)
	}
}

// LogMaxAges51 returns the redo capacity points MySQL 5.1's
// log_calc_max_ages computes for n_files log files of fileSize bytes and
// innodb_thread_concurrency threads (0 in the plugin):
//
//	capacity = (file_size - 2048) x n_files, minus 10 %
//	margin   = capacity - 64 KiB x (10 + threads) - 128 KiB, minus 10 %
//	async preflush = margin - margin/8, sync preflush = margin - margin/16
//
// It returns margin (max_checkpoint_age), the sync preflush point
// (max_modified_age_sync) and the async one (max_modified_age_async).
func LogMaxAges51(fileSize sim.Bytes, nFiles, threads int) (capacity, syncPoint, asyncPoint uint64) {
	c := (int64(fileSize) - 2048) * int64(nFiles)
	c -= c / 10
	free := int64(4*PageSize)*int64(10+threads) + 8*PageSize
	m := c - free
	m -= m / 10
	if m < 0 {
		m = 0
	}
	return uint64(m), uint64(m - m/16), uint64(m - m/8)
}

// MakeRoom makes sure n frames are free in the buffer pool. It returns
// true if they are; otherwise it evicts clean pages and, where only dirty
// ones are near the clock hand, writes one first (an LRU flush the thread
// waits for, through the doublewrite buffer if it is on) and calls
// done(arg) when n frames are free.
func (t *Tablespace) MakeRoom(n int, done func(any), arg any) bool {
	e := t.e
	bp := e.BP
	for bp.frames-bp.resident < n {
		v, dirty, ok := bp.Victim(1024)
		if !ok {
			return true // nothing resident: every frame is free
		}
		if !dirty {
			bp.Evict(v)
			continue
		}
		l := bp.Clean(v)
		e.lruInflight = append(e.lruInflight, l)
		e.LRUWrites++
		f, off := e.pageFile(v)
		if e.cfg.Flushing.Doublewrite {
			e.sys.WriteAt(e.dblwrOffset(0), PageSize, e.src.Doublewrite, nil, nil)
		}
		e.markWritten(v)
		w := t.rooms.Get()
		*w = roomWait{t: t, page: v, n: n, done: done, arg: arg}
		f.WriteAt(off, e.ioPage, e.src.PageFlush, onRoomWritten, w)
		return false
	}
	return true
}

type roomWait struct {
	t    *Tablespace
	page int32
	n    int
	done func(any)
	arg  any
}

func onRoomWritten(a any) {
	w := a.(*roomWait)
	t := w.t
	e := t.e
	if k := len(e.lruInflight); k > 0 {
		e.lruInflight = e.lruInflight[:k-1]
	}
	if !e.BP.IsDirty(w.page) && e.BP.IsResident(w.page) {
		e.BP.Evict(w.page)
	}
	n, done, arg := w.n, w.done, w.arg
	*w = roomWait{}
	t.rooms.Put(w)
	if t.MakeRoom(n, done, arg) {
		done(arg)
	}
}

// Create makes page p resident without reading it (buf_page_create: a
// new page of a segment). A frame must be free (MakeRoom).
func (e *Engine) Create(p int32) { e.BP.Load(p) }

// Dirty marks resident page p modified at lsn.
func (e *Engine) Dirty(p int32, lsn uint64) { e.dirty(p, lsn) }

// Frames returns the buffer pool size in pages.
func (e *Engine) Frames() int { return e.BP.frames }

// MySQL 5.1's free-margin flushing (buf0flu.c): after a page read the
// reading thread checks the tail of the LRU list and, when fewer than
// BUF_FLUSH_FREE_BLOCK_MARGIN pages there are replaceable, flushes dirty
// ones from it itself (buf_flush_free_margin -> buf_flush_batch(LRU)).
const (
	lruFreeMargin  = 5 + 64                         // BUF_FLUSH_FREE_BLOCK_MARGIN
	lruExtraMargin = lruFreeMargin/4 + 100          // BUF_FLUSH_EXTRA_MARGIN
	lruSearchLen   = 5 + 2*64                       // BUF_LRU_FREE_SEARCH_LEN
	lruWant        = lruFreeMargin + lruExtraMargin // replaceable pages a batch aims for
	lruScanMax     = 4096                           // page ids the tail scans look at, at most
)

// LRURecommendation is buf_flush_LRU_recommendation: the number of dirty
// pages to flush from the tail of the LRU list, 0 if enough of it is
// replaceable. The tail is the unreferenced pages just ahead of the clock
// hand, the ones CLOCK evicts next.
func (t *Tablespace) LRURecommendation() int {
	bp := t.e.BP
	n := bp.frames - bp.resident
	seen := 0
	// The scan is bounded as the LRU list's tail is: referenced pages
	// ahead of the hand are not in it.
	for i, h := 0, bp.hand; i < bp.npages && i < lruScanMax && seen < lruSearchLen && n < lruWant; i++ {
		w := bp.word[h]
		if w&pgResident != 0 && w&pgRef == 0 {
			seen++
			if w&lsnMask == 0 {
				n++
			}
		}
		if h++; h == bp.npages {
			h = 0
		}
	}
	if n >= lruFreeMargin {
		return 0
	}
	return lruWant - n
}

// FlushLRU writes up to n dirty pages from the tail of the LRU list as
// 5.1's buf_flush_batch(BUF_FLUSH_LRU) does, through
// buf_flush_buffered_writes: with the doublewrite buffer the batch is
// written to the doublewrite area and ibdata1 is fsynced, then the pages go
// home, and the flushing thread waits until they are written and fsyncs
// the data file; without it the writes are posted and the thread goes on.
// It returns true if the caller may go on at once; otherwise done(arg)
// runs when the batch is complete.
func (t *Tablespace) FlushLRU(n int, done func(any), arg any) bool {
	e := t.e
	bp := e.BP
	b := t.batches.Get()
	if b.pageCB == nil {
		b.pageCB, b.dwCB, b.syncCB = b.onPage, b.onDoublewrite, b.onSynced
	}
	b.t, b.pages, b.pending, b.wait, b.done, b.arg = t, b.pages[:0], 0, false, done, arg
	for i, h := 0, bp.hand; i < bp.npages && len(b.pages) < n && i < 2*lruScanMax; i++ {
		w := bp.word[h]
		if w&pgResident != 0 && w&pgRef == 0 && w&lsnMask != 0 {
			b.pages = append(b.pages, int32(h))
		}
		if h++; h == bp.npages {
			h = 0
		}
	}
	if len(b.pages) == 0 {
		t.batches.Put(b)
		return true
	}
	e.LRUWrites += int64(len(b.pages))
	for _, p := range b.pages {
		e.lruInflight = append(e.lruInflight, bp.Clean(p))
	}
	if !e.cfg.Flushing.Doublewrite {
		b.writeHome()
		return true
	}
	e.sys.WriteAt(e.dblwrOffset(0), int64(len(b.pages))*PageSize, e.src.Doublewrite, nil, nil)
	e.sys.Sync(b.dwCB, nil)
	b.wait = true
	return false
}

type lruBatch struct {
	t       *Tablespace
	pages   []int32
	pending int
	wait    bool
	done    func(any)
	arg     any

	pageCB, dwCB, syncCB func(any) // bound once per batch object
}

func (b *lruBatch) onDoublewrite(any) { b.writeHome() }

func (b *lruBatch) writeHome() {
	e := b.t.e
	b.pending = len(b.pages)
	for _, p := range b.pages {
		f, off := e.pageFile(p)
		e.markWritten(p)
		f.WriteAt(off, e.ioPage, e.src.PageFlush, b.pageCB, nil)
	}
}

func (b *lruBatch) onPage(any) {
	e := b.t.e
	if k := len(e.lruInflight); k > 0 {
		e.lruInflight = e.lruInflight[:k-1]
	}
	b.pending--
	if b.pending > 0 {
		return
	}
	if !b.wait {
		b.release()
		return
	}
	e.tableIO(0).Sync(b.syncCB, nil)
}

func (b *lruBatch) onSynced(any) {
	done, arg := b.done, b.arg
	b.release()
	done(arg)
}

// release returns the batch to its tablespace's free list.
func (b *lruBatch) release() {
	t := b.t
	b.done, b.arg = nil, nil
	t.batches.Put(b)
}

// dataIO is a data file as the engine reads and writes its pages: the
// file itself (O_DIRECT) or the kernel's page cache in front of it.
type dataIO interface {
	WriteAt(off, size int64, src disk.Source, done func(any), arg any)
	ReadAt(off, size int64, src disk.Source, done func(any), arg any)
	Sync(done func(any), arg any)
}

// tableIO returns how table file t's pages are read and written.
func (e *Engine) tableIO(t int) dataIO {
	if t == 0 && e.cache != nil {
		return e.cache
	}
	return e.files[t]
}

// DataFile returns the tablespace's data file (NewForTablespace).
func (e *Engine) DataFile() *disk.File { return e.files[0] }

// SetDataCache puts the kernel's page cache in front of the tablespace's
// data file: innodb_flush_method's default on Linux (MySQL 5.1: "fdatasync",
// SRV_UNIX_FSYNC in srv0start.c; os_file_create opens data files without
// O_DIRECT), so page writes are copies into the cache and reads of cached
// pages copies from it. Call it before the load starts.
func (e *Engine) SetDataCache(c *disk.PageCache) { e.cache = c }

// batchSync is the end of a doublewrite batch in MySQL 5.1's
// buf_flush_buffered_writes: after the pages' home writes,
// fil_flush_file_spaces(FIL_TABLESPACE) fsyncs the data files before the
// doublewrite area is reused. With O_DIRECT the home writes have reached
// the device already; through the page cache this fsync is what writes
// them. Without doublewrite 5.1 returns after posting the writes (no
// fsync): the pages stay in the cache until a checkpoint or the kernel
// writes them back. It returns true if the slot waits for the fsync.
func (c *cleaner) batchSync(s *dwSlot) bool {
	e := c.e
	if e.cache == nil || !e.cfg.Flushing.Doublewrite {
		return false
	}
	if s.synced {
		s.synced = false
		return false
	}
	s.synced = true
	s.pending = 1
	e.cache.Sync(c.pageCB, s)
	return true
}

// SetPageIO sets the bytes of a page on disk: a compressed table's pages
// are read and written in their KEY_BLOCK_SIZE (buf_page_t.zip, the
// fil_io of zip_size bytes), and the file holds them at that size. The
// doublewrite buffer keeps 16 KiB slots (5.1 copies zip_size bytes into
// each). Call it before NewTablespace and SetDataCache.
func (e *Engine) SetPageIO(n int64) { e.ioPage = n }

// PageIO returns the bytes of a page on disk.
func (e *Engine) PageIO() int64 { return e.ioPage }
