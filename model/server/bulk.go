package server

import (
	"fmt"
	"time"

	"simrun/model/commit"
	"simrun/model/disk"
	"simrun/model/engine"
	"simrun/sim"
)

// BulkOptions are the MySQL 5.1 (InnoDB plugin) settings a bulk-load server
// has beyond the engine and commit configurations New takes: the redo ring
// as 5.1 sizes it, the tablespace, and the page size of the pool.
type BulkOptions struct {
	Pages             int       // page ids of ibdata1 (the page map)
	LogFileSize       sim.Bytes // innodb_log_file_size
	LogFilesInGroup   int       // innodb_log_files_in_group
	LogBufferSize     sim.Bytes // innodb_log_buffer_size
	ThreadConcurrency int       // innodb_thread_concurrency (log_calc_max_ages)
	SupportXA         bool      // innodb_support_xa
	KeyBlockSize      sim.Bytes // 0: 16 KiB pages; else the pool holds compressed pages of this size
	Buffered          bool      // innodb_flush_method = fdatasync: ibdata1 through the kernel page cache
	OSPageCache       sim.Bytes // the page cache's room for ibdata1's clean pages
	Tablespace        engine.TablespaceConfig
}

// BulkSources are the volume accounting tags of a bulk-load server.
type BulkSources struct {
	Engine     engine.Sources
	Commit     commit.Sources
	Autoextend disk.Source
	CSV        disk.Source
}

// Bulk is a MySQL 5.1 server with the InnoDB plugin serving one loading
// session: the shared Server (vCPUs, volume, engine, commit pipeline) over
// one tablespace, ibdata1, with its page allocator and insert undo log.
// The loader drives it through the methods below: statement work (CPU,
// pages read and created, mini-transactions of redo bytes over dirtied
// pages), commit, and a callback when the commit is durable.
type Bulk struct {
	srv        *Server
	ts         *engine.Tablespace
	undo       *engine.UndoLog
	cache      *disk.PageCache // nil with O_DIRECT
	src        BulkSources
	syncPoint  uint64
	realFrames int
	xaFlush    bool // trx_commit_complete_for_mysql's own flush

	seg  [1]time.Duration
	ctx  commit.Tx
	done func(any)
	arg  any

	committedCB, flushedCB func(any)
}

// NewBulk builds a bulk-load server with cores vCPUs on vol.
func NewBulk(env *sim.Env, cores int, vol *disk.Volume, eng engine.Config, cc commit.Config, opt BulkOptions) (*Bulk, error) {
	if cores < 1 || cores > 4096 {
		return nil, fmt.Errorf("cores: must be in [1, 4096], got %d", cores)
	}
	if cc.BinlogStorageEngine == commit.BinlogInnoDB {
		return nil, fmt.Errorf("commit.binlog_storage_engine: a MySQL 5.1 load has off or file, got %q", cc.BinlogStorageEngine)
	}
	// The redo ring is log_files_in_group files; the engine holds it as one.
	eng.Redo.LogFileSize = opt.LogFileSize * sim.Bytes(opt.LogFilesInGroup)
	eng.Redo.LogBufferSize = opt.LogBufferSize
	// MySQL 5.1 writes the log through the page cache (flush method
	// fdatasync) and its log buffer only sets when the copy happens; the
	// engine's MariaDB check (at most half the capacity) is kept.
	eng.Redo.FileBuffering = "on"
	eng.Redo.BlockSize = 512 // OS_FILE_LOG_BLOCK_SIZE
	eng.Redo.InitialLog = "wrapped"
	capa, _, _ := eng.Redo.Capacity()
	eng.Redo.LogBufferSize = max(2*sim.MiB, min(eng.Redo.LogBufferSize, sim.Bytes(capa/2)))
	eng.BufferPool.Warm = false
	b := &Bulk{realFrames: int(int64(eng.BufferPool.Size) / engine.PageSize)}
	if opt.KeyBlockSize > 0 {
		// The pool holds compressed pages, a tenth with an uncompressed
		// frame too (engine.Zip): the engine's frames are those pages.
		eng.BufferPool.Size = sim.Bytes(engine.ZipFrames(eng.BufferPool.Size, opt.KeyBlockSize)) * engine.PageSize
	}
	es, cs := registerSources(vol)
	b.src = BulkSources{Engine: es, Commit: cs, Autoextend: vol.RegisterSource("autoextend"), CSV: vol.RegisterSource("csv_file")}
	e, err := engine.NewForTablespace(env, eng, opt.Pages, vol, es, cc.FlushLogAtTrxCommit.LogBufferedByDefault())
	if err != nil {
		return nil, err
	}
	c, s, a := engine.LogMaxAges51(opt.LogFileSize, opt.LogFilesInGroup, opt.ThreadConcurrency)
	if s < 64*engine.PageSize {
		return nil, fmt.Errorf("engine.redo.log_file_size: %v x %d files leaves no checkpoint margin", opt.LogFileSize, opt.LogFilesInGroup)
	}
	e.Redo.SetPoints(c, s, a)
	b.syncPoint = s
	if opt.KeyBlockSize > 0 {
		e.SetPageIO(int64(opt.KeyBlockSize))
	}
	if opt.Buffered {
		// The kernel's flusher as the binlog file's (commit.binlog.os_*).
		b.cache = disk.NewPageCache(env, e.DataFile(), es.PageFlush, e.PageIO(), opt.Pages,
			int(int64(opt.OSPageCache)/e.PageIO()), cc.Binlog.OSDirtyExpire.D(), cc.Binlog.OSWritebackPeriod.D())
		e.SetDataCache(b.cache)
	}
	srv := &Server{env: env, vol: vol, eng: e, ecfg: eng}
	srv.cpu = sim.NewCPU(env, cores)
	e.SetCPU(srv.cpu)
	srv.pipe = commit.New(env, e, srv.cpu, vol, cc, cs, eng.CPU.Wakeup.D())
	b.srv = srv
	b.ts = engine.NewTablespace(e, opt.Tablespace, b.src.Autoextend)
	b.undo = engine.NewUndoLog(b.ts)
	// MySQL 5.1 with the binlog and XA flushes the commit record too at
	// trx_commit = 1 (trx_commit_complete_for_mysql), after the pipeline's
	// acknowledgement: two redo fsyncs per transaction.
	b.xaFlush = srv.pipe.Mode() == commit.BinlogFile && opt.SupportXA && cc.FlushLogAtTrxCommit == commit.FlushSyncAtCommit
	b.committedCB, b.flushedCB = b.onCommitted, b.onFlushed
	b.ctx.Done = b.committedCB
	return b, nil
}

// Server returns the shared server (engine, pipeline, volume).
func (b *Bulk) Server() *Server { return b.srv }

// Engine returns the engine.
func (b *Bulk) Engine() *engine.Engine { return b.srv.eng }

// Volume returns the server's volume.
func (b *Bulk) Volume() *disk.Volume { return b.srv.vol }

// Sources returns the accounting tags.
func (b *Bulk) Sources() BulkSources { return b.src }

// Tablespace returns ibdata1's page allocator.
func (b *Bulk) Tablespace() *engine.Tablespace { return b.ts }

// Undo returns the insert undo log of the session's transaction.
func (b *Bulk) Undo() *engine.UndoLog { return b.undo }

// Frames16K returns the pool's size in 16 KiB frames (what the insert
// buffer's limit is computed from), whatever the page size.
func (b *Bulk) Frames16K() int { return b.realFrames }

// PageCache returns the page cache in front of ibdata1, nil with O_DIRECT.
func (b *Bulk) PageCache() *disk.PageCache { return b.cache }

// Binlog reports whether the server writes a binary log.
func (b *Bulk) Binlog() bool { return b.srv.Binlog() }

// Start starts the background threads.
func (b *Bulk) Start() { b.srv.Start() }

// CPU runs d of the session's CPU on the server's processors; done(arg)
// runs when it has. One job at a time (the session is one thread).
func (b *Bulk) CPU(d time.Duration, done func(any), arg any) {
	b.seg[0] = d
	b.srv.cpu.Run(b.seg[:], done, arg)
}

// PastSyncPoint reports whether the checkpoint age is past
// max_modified_age_sync (log_free_check will stall).
func (b *Bulk) PastSyncPoint() bool { return b.srv.eng.Redo.Age() > b.syncPoint }

// FreeCheck is log_free_check: true if the thread may go on, otherwise
// done(arg) runs after the checkpoint stall.
func (b *Bulk) FreeCheck(done func(any), arg any) bool {
	return b.srv.eng.FreeCheck(nil, done, arg)
}

// Touch reports whether page p is resident and marks it accessed.
func (b *Bulk) Touch(p int32) bool { return b.srv.eng.BP.Touch(p, 0) }

// IsResident reports whether page p is in the pool.
func (b *Bulk) IsResident(p int32) bool { return b.srv.eng.BP.IsResident(p) }

// HasFree reports whether a frame is free.
func (b *Bulk) HasFree() bool { return b.srv.eng.BP.HasFree() }

// Read makes pages resident: true if they are, otherwise done(arg) runs
// when their synchronous reads complete. pages must stay unchanged until then.
func (b *Bulk) Read(pages []int32, done func(any), arg any) bool {
	return b.srv.eng.Resident(pages, nil, done, arg)
}

// NewPage allocates a page of ibdata1 and makes it resident without a
// read (buf_page_create). The caller reserved the room (Tablespace.Ensure,
// MakeRoom).
func (b *Bulk) NewPage() int32 {
	p := b.ts.Alloc()
	if !b.HasFree() {
		b.EvictClean()
	}
	b.srv.eng.Create(p)
	return p
}

// EvictClean frees one frame by evicting a clean page, for work that
// cannot wait (a merge that splits after its read).
func (b *Bulk) EvictClean() bool {
	bp := b.srv.eng.BP
	v, dirty, ok := bp.Victim(1 << 20)
	if ok && !dirty {
		bp.Evict(v)
		return true
	}
	return false
}

// Mtr commits a mini-transaction: redo bytes of log, then pages dirty at
// its end LSN.
func (b *Bulk) Mtr(redo uint64, pages []int32) {
	if redo == 0 {
		return
	}
	e := b.srv.eng
	lsn := e.AppendRedo(redo)
	for _, p := range pages {
		e.Dirty(p, lsn)
	}
}

// Commit commits the session's transaction with binlog bytes of events
// (ignored without a binlog): the commit pipeline (XA prepare, binlog,
// redo per innodb_flush_log_at_trx_commit), 5.1's own flush of the commit
// record, then the insert undo log is freed and done(arg) runs.
func (b *Bulk) Commit(binlog int64, done func(any), arg any) {
	b.done, b.arg = done, arg
	b.ctx.BinlogBytes = 0
	if b.Binlog() {
		b.ctx.BinlogBytes = binlog
	}
	b.srv.pipe.Commit(&b.ctx)
}

func (b *Bulk) onCommitted(any) {
	if b.xaFlush {
		r := b.srv.eng.Redo
		if !r.Request(r.LSN(), true, nil, b.flushedCB, nil) {
			return
		}
	}
	b.onFlushed(nil)
}

func (b *Bulk) onFlushed(any) {
	b.undo.Commit()
	b.done(b.arg)
}
