package engine

import (
	"errors"
	"fmt"
	"time"

	"simrun/sim"
)

// PageSize is the InnoDB page size (innodb_page_size default, 16 KiB); the
// .ibb binlog pages have the same size (MariaDB Docs/replication/binlog.md).
const PageSize = 16 * 1024

// Config is the [engine] section: InnoDB in a MariaDB server, its buffer
// pool, redo log, page cleaner and statement costs. The commit path (the
// binary log, sync_binlog, innodb_flush_log_at_trx_commit) is the [commit]
// section of package commit.
type Config struct {
	BufferPool BufferPoolConfig `toml:"buffer_pool" unit:"" doc:"buffer pool"`
	Layout     LayoutConfig     `toml:"layout" unit:"" doc:"how sysbench tables map to InnoDB pages"`
	Index      IndexConfig      `toml:"index" unit:"" doc:"index k's leaves: the sorted build, splits, merges and their redo"`
	Redo       RedoConfig       `toml:"redo" unit:"" doc:"redo log: size, buffer, write granularity and bytes per operation"`
	Flushing   FlushingConfig   `toml:"flushing" unit:"" doc:"page cleaner and doublewrite buffer"`
	CPU        CPUConfig        `toml:"cpu" unit:"" doc:"server CPU per statement"`
}

// BufferPoolConfig is [engine.buffer_pool].
type BufferPoolConfig struct {
	Size sim.Bytes `toml:"size" unit:"bytes" doc:"innodb_buffer_pool_size; not stated by the study. Assumption: 8GiB, half of the 16 GB VM; the 10 x 1M-row data set (about 2.3 GB) fits, so any size above that gives the same result"`
	Warm bool      `toml:"warm" unit:"" doc:"start with the data pages resident and clean, as after sysbench prepare and a buffer-pool load at startup (innodb_buffer_pool_load_at_startup=ON)"`
}

// LayoutConfig is [engine.layout].
type LayoutConfig struct {
	RowsPerPage      int `toml:"rows_per_page" unit:"rows" doc:"clustered-index rows per 16 KiB leaf page: a sysbench row is about 207 B in InnoDB (5 B header + 6 trx_id + 7 roll_ptr + 4 id + 4 k + 120 c + 60 pad, plus directory slots) and sequential loading fills pages 15/16; 16,252 x 15/16 / 211 = 72"`
	SecondaryPerPage int `toml:"secondary_entries_per_page" unit:"entries" doc:"entries of index k per leaf page: (k, id) is 8 B + 5 B header; a sorted build fills about 1,150 per page and random insert/purge churn lowers the fill; assumption: 1,000"`
	RollbackSegments int `toml:"rollback_segments" unit:"pages" doc:"rollback-segment header pages that commits update round-robin (innodb_undo_log slots: 128 rsegs); they stay hot and dirty. Undo log pages themselves are freed by purge within about a second and are not written (MariaDB >= 10.5 skips writes of freed pages, MDEV-15528)"`
}

// RedoConfig is [engine.redo].
type RedoConfig struct {
	LogFileSize    sim.Bytes    `toml:"log_file_size" unit:"bytes" doc:"innodb_log_file_size; not stated by the study (MariaDB default 96MiB). Capacity = (size - 12288) x 0.9; see docs/validation.md for the sensitivity"`
	LogBufferSize  sim.Bytes    `toml:"log_buffer_size" unit:"bytes" doc:"innodb_log_buffer_size (MariaDB default 16MiB); a writer waits when the unwritten log exceeds it"`
	BlockSize      sim.Bytes    `toml:"block_size" unit:"bytes" doc:"physical block of the redo log device: an O_DIRECT log write covers whole blocks and rewrites the last partial block next time (log_t::write_buf); 4KiB for a network volume"`
	FileBuffering  string       `toml:"log_file_buffering" unit:"" doc:"innodb_log_file_buffering: off (O_DIRECT, every write reaches the device), on (page cache: writes are copies, fsync writes the dirty pages), auto = the server's startup default: on when innodb_flush_log_at_trx_commit = 2, else off (MariaDB innodb_init_params on Linux, ha_innodb.cc 10.11.18)"`
	InitialLog     string       `toml:"initial_log" unit:"" doc:"state of ib_logfile0 when the run starts. MariaDB creates the log with posix_fallocate, so until it has been written through once ext4 holds unwritten extents there and every log sync that converts some commits the filesystem journal (docs/model-engine.md). wrapped: written through at least once (a server that has run a while); after_load (default, as in the binlog study, which needs a new data directory per case): created just before the initial data load (sysbench prepare), whose redo, rows x bytes_load_row, filled the start of the first pass; new: created just before the run"`
	BytesLoadRow   sim.Bytes    `toml:"bytes_load_row" unit:"bytes/row" doc:"redo of one row of the initial load (sysbench prepare: multi-row INSERTs into an empty table in key order, then CREATE INDEX k): the ~206-byte clustered record in an insert record (~218 B), its undo record (~22 B), its share of new pages and its entry in the sorted build of index k (~17 B). Estimate from the record layouts: 260B"`
	FlushTimeout   sim.Duration `toml:"flush_log_at_timeout" unit:"s" doc:"innodb_flush_log_at_timeout: period of the background log write+sync (srv_master_callback), default 1s"`
	UpdateIndex    sim.Bytes    `toml:"bytes_update_index" unit:"bytes/statement" doc:"redo of UPDATE SET k=k+1: undo record (PK + old k) and its page write, clustered in-place update of k, secondary delete-mark + insert. Estimate from MDEV-14425 record layouts, scaled (see docs/model-engine.md)"`
	UpdateNonIndex sim.Bytes    `toml:"bytes_update_non_index" unit:"bytes/statement" doc:"redo of UPDATE SET c=?: undo record carrying the 120-byte old c, the in-place write of the new c with trx_id/roll_ptr. Estimate, see docs/model-engine.md"`
	Delete         sim.Bytes    `toml:"bytes_delete" unit:"bytes/statement" doc:"redo of DELETE: undo record, clustered and secondary delete-marks. Estimate, see docs/model-engine.md"`
	Insert         sim.Bytes    `toml:"bytes_insert" unit:"bytes/statement" doc:"redo of INSERT of the just-deleted id: insert-by-modify of the delete-marked record (full before-image in undo, full new record), secondary insert. Estimate, see docs/model-engine.md"`
	Commit         sim.Bytes    `toml:"bytes_commit" unit:"bytes/tx" doc:"redo of the commit mini-transaction: undo log header state, rollback segment history list"`
	Prepare        sim.Bytes    `toml:"bytes_prepare" unit:"bytes/tx" doc:"redo of the XA prepare of two-phase commit (file binlog only): undo header state TRX_PREPARED and the XID"`
	Purge          sim.Bytes    `toml:"bytes_purge" unit:"bytes/tx" doc:"redo written later by purge per transaction: removal of delete-marked secondary entries, undo log truncation, page reorganisations"`
}

// FlushingConfig is [engine.flushing].
type FlushingConfig struct {
	IOCapacity          int     `toml:"io_capacity" unit:"pages/s" doc:"innodb_io_capacity: background flushing rate; MariaDB default 200; not stated by the study"`
	IOCapacityMax       int     `toml:"io_capacity_max" unit:"pages/s" doc:"innodb_io_capacity_max: cap of adaptive flushing and the flush-ahead batch size; MariaDB default max(2000, 2 x io_capacity)"`
	AdaptiveFlushingLWM float64 `toml:"adaptive_flushing_lwm" unit:"% of redo capacity" doc:"innodb_adaptive_flushing_lwm: checkpoint age below which no adaptive flushing happens (default 10)"`
	MaxDirtyPagesPct    float64 `toml:"max_dirty_pages_pct" unit:"%" doc:"innodb_max_dirty_pages_pct (MariaDB default 90): above it the page cleaner flushes at io_capacity regardless of the redo"`
	FlushingAvgLoops    int     `toml:"flushing_avg_loops" unit:"iterations" doc:"innodb_flushing_avg_loops: iterations over which the page and LSN rates are averaged (default 30)"`
	FlushSync           bool    `toml:"flush_sync" unit:"" doc:"innodb_flush_sync: at the sync point flush furiously, ignoring io_capacity (default ON)"`
	Doublewrite         bool    `toml:"doublewrite" unit:"" doc:"innodb_doublewrite: every page is first written to the doublewrite area (one sequential write + fdatasync per batch), then in place (default ON)"`
	DoublewriteBatch    int     `toml:"doublewrite_batch" unit:"pages" doc:"pages per doublewrite batch: two blocks of one extent (64 pages) each (buf_dblwr_t, MariaDB >= 10.5)"`
	MaxDirtyPagesPctLWM float64 `toml:"max_dirty_pages_pct_lwm" unit:"%" doc:"innodb_max_dirty_pages_pct_lwm (MariaDB default 0): 0 makes page_cleaner_flush_pages_recommendation's total_ratio 1; otherwise total_ratio = max(pct_for_lsn/100, dirty_pct/max_dirty_pages_pct)"`
	FlushNeighbors      int     `toml:"flush_neighbors" unit:"" doc:"innodb_flush_neighbors (MariaDB default 1): with 1 a page write also writes the contiguous dirty pages around it inside its area of min(64, pool pages/16) pages (buf_flush_try_neighbors), with 2 every dirty page of the area, with 0 none; only for files on a device that reports itself rotational"`
	Rotational          bool    `toml:"rotational" unit:"" doc:"the data files' block device reports itself rotational (/sys/block/DEV/queue/rotational = 1), so innodb_flush_neighbors applies. Default true: virtio and virtio-scsi/iSCSI network volumes report 1 (the realdb host's vda does, docs/realdb.md); set false for a device that reports 0"`
	LRUScanDepth        int     `toml:"lru_scan_depth" unit:"pages" doc:"innodb_lru_scan_depth (MariaDB default 1536): the page cleaner's LRU batch after each iteration frees pages from the LRU tail while the free list is shorter than this (buf_flush_LRU)"`
}

// CPUConfig is [engine.cpu]: server CPU per statement on one vCPU of the
// machine. Assumption: calibrated so that the cases with no sync in the
// commit path (CPU-bound) reach the published TPS; see docs/model-engine.md.
type CPUConfig struct {
	Begin          sim.Duration `toml:"begin" unit:"s" doc:"BEGIN: parse, start the transaction"`
	UpdateIndex    sim.Duration `toml:"update_index" unit:"s" doc:"UPDATE SET k=k+1 WHERE id=? (primary-key lookup, clustered update, secondary delete-mark + insert)"`
	UpdateNonIndex sim.Duration `toml:"update_non_index" unit:"s" doc:"UPDATE SET c=? WHERE id=?"`
	Delete         sim.Duration `toml:"delete" unit:"s" doc:"DELETE WHERE id=?"`
	Insert         sim.Duration `toml:"insert" unit:"s" doc:"INSERT of one row"`
	Commit         sim.Duration `toml:"commit" unit:"s" doc:"COMMIT: InnoDB commit mini-transaction, lock release, reply"`
	Wakeup         sim.Duration `toml:"wakeup" unit:"s" doc:"CPU a thread spends to resume after sleeping on a lock, a condition or an I/O (scheduler switch, futex and syscall return); it runs only when the thread gets a processor. Assumption: 10us on a VM; simrun calibrate takes it from the harness's wake probe, the same-vCPU figure when the probe has both pinnings (the IPI to an idle vCPU is machine.idle_wake; docs/model-engine.md)"`
	CV             float64      `toml:"cv" unit:"" doc:"coefficient of variation (standard deviation / mean) of each statement's server CPU: every BEGIN, statement and COMMIT draws its CPU from a lognormal with the mean above and this CV (0 = constant). Assumption: 0.5; a statement's instructions are nearly fixed, its cycles vary with cache misses on the B-tree path, latch spins, interrupts and the load on its SMT sibling (docs/model-engine.md)"`
}

// DefaultConfig returns the engine used to reproduce the MariaDB 12.3
// binlog study; every value is documented in docs/model-engine.md.
func DefaultConfig() Config {
	us := func(n float64) sim.Duration { return sim.Duration(n * float64(time.Microsecond)) }
	return Config{
		BufferPool: BufferPoolConfig{
			Size: 8 * sim.GiB,
			Warm: true,
		},
		Layout: LayoutConfig{
			RowsPerPage:      72,
			SecondaryPerPage: 1000,
			RollbackSegments: 128,
		},
		Index: DefaultIndex(),
		Redo: RedoConfig{
			LogFileSize:   4 * sim.GiB,
			LogBufferSize: 16 * sim.MiB,
			BlockSize:     4 * sim.KiB,
			FileBuffering: "auto",
			InitialLog:    "after_load",
			BytesLoadRow:  260,
			FlushTimeout:  sim.Duration(time.Second),
			// The statements' record estimate scaled to the binlog study's
			// published redo with a file binlog (3,300 B a transaction)
			// less what the model's index k splits and merges write there
			// (1,100 B in Case4's window): the statement and purge bytes
			// x 0.627 of their values before issue 13's index model, the
			// commit and XA prepare records unchanged (docs/validation.md,
			// calibrated constants).
			UpdateIndex:    251,
			UpdateNonIndex: 376,
			Delete:         219,
			Insert:         564,
			Commit:         150,
			Prepare:        200,
			Purge:          439,
		},
		Flushing: FlushingConfig{
			IOCapacity:          200,
			IOCapacityMax:       2000,
			AdaptiveFlushingLWM: 10,
			MaxDirtyPagesPct:    90,
			FlushingAvgLoops:    30,
			FlushSync:           true,
			Doublewrite:         true,
			DoublewriteBatch:    128,
			MaxDirtyPagesPctLWM: 0,
			FlushNeighbors:      1,
			Rotational:          true,
			LRUScanDepth:        1536,
		},
		CPU: CPUConfig{
			Begin:          us(15),
			UpdateIndex:    us(95),
			UpdateNonIndex: us(90),
			Delete:         us(80),
			Insert:         us(100),
			Commit:         us(50),
			Wakeup:         us(10),
			CV:             0.5,
		},
	}
}

// Buffered reports whether the redo log goes through the page cache;
// byDefault is what "auto" means: the server's startup default, which
// MariaDB turns on for innodb_flush_log_at_trx_commit = 2 only
// (commit.FlushPolicy.LogBufferedByDefault).
func (r RedoConfig) Buffered(byDefault bool) bool {
	switch r.FileBuffering {
	case "on":
		return true
	case "off":
		return false
	}
	return byDefault
}

// Capacity returns the redo capacity, the sync point (max_checkpoint_age)
// and the async point (max_modified_age_async) as MariaDB's
// log_t::set_capacity computes them.
func (r RedoConfig) Capacity() (capacity, syncPoint, asyncPoint uint64) {
	c := float64(int64(r.LogFileSize)-12288) * 0.9
	m := (c - 48*PageSize) * 0.9
	return uint64(c), uint64(m), uint64(m - m/8)
}

// Validate checks every field; each message names the toml key and its
// allowed range.
func (c Config) Validate() error {
	var errs []error
	bad := func(format string, a ...any) { errs = append(errs, fmt.Errorf(format, a...)) }
	if c.BufferPool.Size < 64*sim.MiB || c.BufferPool.Size > 64*sim.TiB {
		bad("buffer_pool.size: must be in [64MiB, 64TiB], got %v", c.BufferPool.Size)
	}
	if c.Layout.RowsPerPage < 1 || c.Layout.RowsPerPage > 8192 {
		bad("layout.rows_per_page: must be in [1, 8192], got %d", c.Layout.RowsPerPage)
	}
	if c.Layout.SecondaryPerPage < 1 || c.Layout.SecondaryPerPage > 8192 {
		bad("layout.secondary_entries_per_page: must be in [1, 8192], got %d", c.Layout.SecondaryPerPage)
	}
	if c.Layout.RollbackSegments < 1 || c.Layout.RollbackSegments > 128 {
		bad("layout.rollback_segments: must be in [1, 128], got %d", c.Layout.RollbackSegments)
	}
	if err := c.Index.validate(); err != nil {
		errs = append(errs, err)
	}
	r := c.Redo
	if r.LogFileSize < 4*sim.MiB || r.LogFileSize > 512*sim.GiB {
		bad("redo.log_file_size: must be in [4MiB, 512GiB], got %v", r.LogFileSize)
	}
	if r.LogBufferSize < 2*sim.MiB || r.LogBufferSize > 4*sim.GiB {
		bad("redo.log_buffer_size: must be in [2MiB, 4GiB], got %v", r.LogBufferSize)
	}
	if r.BlockSize < 512 || r.BlockSize > 64*sim.KiB || r.BlockSize&(r.BlockSize-1) != 0 {
		bad("redo.block_size: must be a power of two in [512B, 64KiB], got %v", r.BlockSize)
	}
	switch r.InitialLog {
	case "wrapped", "after_load", "new":
	default:
		bad("redo.initial_log: must be wrapped, after_load or new, got %q", r.InitialLog)
	}
	if r.BytesLoadRow < 0 || r.BytesLoadRow > 64*sim.KiB {
		bad("redo.bytes_load_row: must be in [0B, 64KiB], got %v", r.BytesLoadRow)
	}
	switch r.FileBuffering {
	case "auto", "on", "off":
	default:
		bad("redo.log_file_buffering: must be auto, on or off, got %q", r.FileBuffering)
	}
	if r.FlushTimeout < sim.Duration(time.Millisecond) || r.FlushTimeout > sim.Duration(time.Hour) {
		bad("redo.flush_log_at_timeout: must be in [1ms, 1h], got %v", r.FlushTimeout)
	}
	for _, x := range []struct {
		k string
		v sim.Bytes
	}{{"bytes_update_index", r.UpdateIndex}, {"bytes_update_non_index", r.UpdateNonIndex}, {"bytes_delete", r.Delete},
		{"bytes_insert", r.Insert}, {"bytes_commit", r.Commit}, {"bytes_prepare", r.Prepare}, {"bytes_purge", r.Purge}} {
		if x.v < 0 || x.v > 1*sim.MiB {
			bad("redo.%s: must be in [0, 1MiB], got %v", x.k, x.v)
		}
	}
	if r.Commit < 1 {
		bad("redo.bytes_commit: must be >= 1B (a commit always writes redo), got %v", r.Commit)
	}
	if r.LogFileSize >= 4*sim.MiB {
		capa, sync, _ := r.Capacity()
		if c.Redo.LogBufferSize > 0 && uint64(c.Redo.LogBufferSize) > capa/2 {
			bad("redo.log_buffer_size: must be at most half the redo capacity (%v), got %v", sim.Bytes(capa/2), c.Redo.LogBufferSize)
		}
		if sync < 4*PageSize {
			bad("redo.log_file_size: too small for a sync point, got %v", r.LogFileSize)
		}
	}
	f := c.Flushing
	if f.IOCapacity < 100 || f.IOCapacity > 1<<30 {
		bad("flushing.io_capacity: must be in [100, %d], got %d", 1<<30, f.IOCapacity)
	}
	if f.IOCapacityMax < f.IOCapacity || f.IOCapacityMax > 1<<30 {
		bad("flushing.io_capacity_max: must be in [io_capacity=%d, %d], got %d", f.IOCapacity, 1<<30, f.IOCapacityMax)
	}
	if !(f.AdaptiveFlushingLWM >= 0 && f.AdaptiveFlushingLWM <= 70) {
		bad("flushing.adaptive_flushing_lwm: must be in [0, 70], got %v", f.AdaptiveFlushingLWM)
	}
	if !(f.MaxDirtyPagesPct >= 0 && f.MaxDirtyPagesPct <= 99.999) {
		bad("flushing.max_dirty_pages_pct: must be in [0, 99.999], got %v", f.MaxDirtyPagesPct)
	}
	if f.FlushingAvgLoops < 1 || f.FlushingAvgLoops > 1000 {
		bad("flushing.flushing_avg_loops: must be in [1, 1000], got %d", f.FlushingAvgLoops)
	}
	if !(f.MaxDirtyPagesPctLWM >= 0 && f.MaxDirtyPagesPctLWM <= f.MaxDirtyPagesPct) {
		bad("flushing.max_dirty_pages_pct_lwm: must be in [0, max_dirty_pages_pct=%v], got %v", f.MaxDirtyPagesPct, f.MaxDirtyPagesPctLWM)
	}
	if f.FlushNeighbors < 0 || f.FlushNeighbors > 2 {
		bad("flushing.flush_neighbors: must be 0, 1 or 2, got %d", f.FlushNeighbors)
	}
	if f.LRUScanDepth < 100 || f.LRUScanDepth > 1<<30 {
		bad("flushing.lru_scan_depth: must be in [100, %d], got %d", 1<<30, f.LRUScanDepth)
	}
	if f.DoublewriteBatch < 1 || f.DoublewriteBatch > 1024 {
		bad("flushing.doublewrite_batch: must be in [1, 1024], got %d", f.DoublewriteBatch)
	}
	p := c.CPU
	for _, x := range []struct {
		k string
		v sim.Duration
	}{{"begin", p.Begin}, {"update_index", p.UpdateIndex}, {"update_non_index", p.UpdateNonIndex}, {"delete", p.Delete},
		{"insert", p.Insert}, {"commit", p.Commit}} {
		if x.v < 0 || x.v > sim.Duration(time.Second) {
			bad("cpu.%s: must be in [0, 1s], got %v", x.k, x.v)
		}
	}
	if !(p.CV >= 0 && p.CV <= 4) {
		bad("cpu.cv: must be in [0, 4], got %v", p.CV)
	}
	return errors.Join(errs...)
}
