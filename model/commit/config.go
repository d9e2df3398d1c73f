package commit

import (
	"errors"
	"fmt"
	"strconv"
	"time"

	"simrun/sim"
)

// BinlogMode is where the binary log lives (binlog_storage_engine).
type BinlogMode string

// The binlog modes.
const (
	BinlogOff    BinlogMode = "off"    // log_bin off
	BinlogFile   BinlogMode = "file"   // the classic binlog file, two-phase commit
	BinlogInnoDB BinlogMode = "innodb" // MariaDB 12.3 binlog_storage_engine=innodb
)

// FlushPolicy is innodb_flush_log_at_trx_commit: what a commit waits for of
// the redo log. Its meaning is decided here, once, by its methods.
type FlushPolicy int

// The flush policies.
const (
	FlushPerSecond    FlushPolicy = 0 // write+sync once per second
	FlushSyncAtCommit FlushPolicy = 1 // write+sync at commit (at prepare with a file binlog)
	FlushWriteCommit  FlushPolicy = 2 // write at commit, sync once per second
	FlushSyncTwice    FlushPolicy = 3 // MariaDB: sync at prepare and at commit
)

// String is the setting's value.
func (f FlushPolicy) String() string { return strconv.Itoa(int(f)) }

// Syncs reports whether a commit waits for its redo to be durable (1, 3).
func (f FlushPolicy) Syncs() bool { return f == FlushSyncAtCommit || f == FlushSyncTwice }

// Writes reports whether a commit waits for its redo to be written to the
// OS but not synced (2).
func (f FlushPolicy) Writes() bool { return f == FlushWriteCommit }

// LogBufferedByDefault reports whether MariaDB starts with the redo log's
// file system cache on (innodb_log_file_buffering, default OFF: O_DIRECT)
// under this policy: on Linux innodb_init_params turns it on for 2 only
// ("Do not disable the file system cache if
// innodb_flush_log_at_trx_commit=2", storage/innobase/handler/ha_innodb.cc,
// MariaDB 10.11.18). A SET GLOBAL of the policy later does not change it.
func (f FlushPolicy) LogBufferedByDefault() bool { return f == FlushWriteCommit }

// Waits reports whether a commit waits for the log at all.
func (f FlushPolicy) Waits() bool { return f.Syncs() || f.Writes() }

// AfterBinlog is what a transaction with a file binlog waits for after the
// binlog group commit: with 1 nothing (recovery rebuilds the commit from
// the binlog and the prepared transaction), with 3 a sync, with 2 a write.
func (f FlushPolicy) AfterBinlog() (sync, write bool) {
	return f == FlushSyncTwice, f == FlushWriteCommit
}

// Config is the [commit] section: the server's commit path, the binary log
// and the durability policy of the redo log at commit.
type Config struct {
	BinlogStorageEngine BinlogMode  `toml:"binlog_storage_engine" unit:"" enum:"off|file|innodb" doc:"where the binary log lives: off (log_bin off), file (classic binlog file with two-phase commit) or innodb (MariaDB 12.3 binlog_storage_engine=innodb, MDEV-34705)"`
	SyncBinlog          int         `toml:"sync_binlog" unit:"groups" doc:"file binlog: fdatasync the binlog every N group commits (0 = never, leave it to the OS); ignored with binlog_storage_engine=innodb (MariaDB KB 'InnoDB-Based Binary Log')"`
	FlushLogAtTrxCommit FlushPolicy `toml:"innodb_flush_log_at_trx_commit" unit:"" doc:"0: write+sync the redo log once per second; 1: write+sync at commit (at prepare with a file binlog); 2: write at commit, sync once per second; 3 (MariaDB): sync at prepare and at commit"`
	BinlogRedoExtra     sim.Bytes   `toml:"binlog_redo_extra" unit:"bytes/tx" doc:"binlog_storage_engine=innodb: redo per transaction beyond the binlog bytes themselves (which are redo too). Calibrated: the published redo volumes give 2.9 KB/tx more redo with the InnoDB binlog than with the file binlog, against 2.15 KB of binlog events; WRITE record headers, chunk headers and mtr framing explain about 200 B, the rest is not explained by known layouts (docs/model-commit.md)"`

	Binlog BinlogConfig `toml:"binlog" unit:"" doc:"binary log files, group commit waits and the OS write-back of a file binlog"`
	CPU    CPUConfig    `toml:"cpu" unit:"" doc:"server CPU of the commit path beyond the engine's COMMIT"`
}

// BinlogConfig is [commit.binlog].
type BinlogConfig struct {
	MaxBinlogSize     sim.Bytes    `toml:"max_binlog_size" unit:"bytes" doc:"max_binlog_size (default 1GiB): size of each preallocated .ibb file; a file binlog rotates at this size"`
	OSDirtyExpire     sim.Duration `toml:"os_dirty_expire" unit:"s" doc:"Linux vm.dirty_expire_centisecs (default 30s): a dirty inode older than this is written back by the flusher thread"`
	OSWritebackPeriod sim.Duration `toml:"os_writeback_interval" unit:"s" doc:"Linux vm.dirty_writeback_centisecs (default 5s): period of the flusher thread"`
	FSCommitInterval  sim.Duration `toml:"fs_commit_interval" unit:"s" doc:"ext4 journal commit interval (commit=5 mount default): the block allocations of written-back binlog data are committed this often"`
	IBBFlushBatch     int          `toml:"ibb_flush_batch" unit:"pages" doc:"binlog_storage_engine=innodb: full .ibb pages the binlog flush thread writes in one sequential write once their redo is durable; assumption: 16 (256 KiB, one maximum-size I/O), consistent with the 35-70 KB average write of the published Case2 (with 1 it is about 29 KB)"`
	CommitWaitCount   int          `toml:"binlog_commit_wait_count" unit:"transactions" doc:"binlog_commit_wait_count (default 0 = no wait): a group leader waits for this many commits"`
	CommitWaitUsec    sim.Duration `toml:"binlog_commit_wait_usec" unit:"s" doc:"binlog_commit_wait_usec (default 100ms): the most a leader waits when binlog_commit_wait_count > 0"`
}

// CPUConfig is [commit.cpu]: CPU of the commit path on one vCPU.
type CPUConfig struct {
	Prepare         sim.Duration `toml:"prepare" unit:"s" doc:"extra CPU of two-phase commit with a file binlog: XA prepare mini-transaction, TC log bookkeeping, the second log_write_up_to call"`
	BinlogFileKiB   sim.Duration `toml:"binlog_file_per_kib" unit:"s per KiB" doc:"file binlog: leader CPU to copy one KiB of a binlog cache to the binlog file (my_b_write + write(2))"`
	BinlogInnoDBKiB sim.Duration `toml:"binlog_innodb_per_kib" unit:"s per KiB" doc:"innodb binlog: CPU to copy one KiB of binlog into .ibb pages through mini-transactions"`
	Write           sim.Duration `toml:"write" unit:"s per write" doc:"server CPU of one write of the redo log to the device on the commit path (the redo group leader's pwrite at trx_commit 1, 2 and 3 with the log unbuffered): the system call, the block layer's submission, the completion interrupt and the wake-up; charged to the writing thread when it resumes. Default 0, for the reason given at sync; simrun calibrate --harness measures it from flush=2 against flush=0 (binlog off, 1 thread): 44us per write on a 2-vCPU KVM guest (docs/realdb.md)"`
	Sync            sim.Duration `toml:"sync" unit:"s per sync" doc:"server CPU of one fdatasync of the redo log on the commit path (the redo group leader's) beyond its write (cpu.write): the system call, the filesystem's sync, the flush request and its completion; charged to the syncing thread when it resumes. Default 0: a machine's sync CPU is known only from a measurement, and the study volumes' sync latencies (derived from the published figures, docs/model-disk.md) carry the whole sync as a thread sees it. simrun calibrate --harness measures it: flush=1 against flush=2 (binlog off, 1 thread), or against flush=0 when the harness ran no flush=2 (then it carries the write's CPU too: 145us on a 2-vCPU KVM guest while other builds shared its vCPUs, 48.3us alone, docs/realdb.md); docs/validation.md gives the binlog study with 57us and 145us"`
	BinlogSync      sim.Duration `toml:"binlog_sync" unit:"s per sync" doc:"server CPU of one fdatasync of the binlog file (the binlog group leader's, under LOCK_log), charged like sync; an appending file's sync also writes its inode, so it costs more than the redo log's. Default 0 for the reason given at sync; simrun calibrate --harness measures it (sync_binlog=1 against 0 on a 2-vCPU KVM guest: 198us and 267us while other builds shared its vCPUs, 92us alone, docs/realdb.md)"`
}

// DefaultConfig is the commit path of the MariaDB 12.3 binlog study's
// default case (InnoDB binlog, trx_commit 1); every value is documented in
// docs/model-commit.md.
func DefaultConfig() Config {
	us := func(n float64) sim.Duration { return sim.Duration(n * float64(time.Microsecond)) }
	return Config{
		BinlogStorageEngine: BinlogInnoDB,
		SyncBinlog:          0,
		FlushLogAtTrxCommit: FlushSyncAtCommit,
		BinlogRedoExtra:     950,
		Binlog: BinlogConfig{
			MaxBinlogSize:     1 * sim.GiB,
			OSDirtyExpire:     sim.Duration(30 * time.Second),
			OSWritebackPeriod: sim.Duration(5 * time.Second),
			FSCommitInterval:  sim.Duration(5 * time.Second),
			IBBFlushBatch:     16,
			CommitWaitCount:   0,
			CommitWaitUsec:    sim.Duration(100 * time.Millisecond),
		},
		CPU: CPUConfig{
			Prepare:         us(25),
			BinlogFileKiB:   us(8),
			BinlogInnoDBKiB: us(4),
			Sync:            0,
		},
	}
}

// Validate checks every field; each message names the toml key and its
// allowed range.
func (c Config) Validate() error {
	var errs []error
	bad := func(format string, a ...any) { errs = append(errs, fmt.Errorf(format, a...)) }
	switch c.BinlogStorageEngine {
	case BinlogOff, BinlogFile, BinlogInnoDB:
	default:
		bad("binlog_storage_engine: must be one of off, file, innodb, got %q", string(c.BinlogStorageEngine))
	}
	if c.SyncBinlog < 0 || c.SyncBinlog > 1_000_000 {
		bad("sync_binlog: must be in [0, 1000000], got %d", c.SyncBinlog)
	}
	if c.FlushLogAtTrxCommit < FlushPerSecond || c.FlushLogAtTrxCommit > FlushSyncTwice {
		bad("innodb_flush_log_at_trx_commit: must be 0, 1, 2 or 3, got %d", int(c.FlushLogAtTrxCommit))
	}
	if c.BinlogRedoExtra < 0 || c.BinlogRedoExtra > 1*sim.MiB {
		bad("binlog_redo_extra: must be in [0, 1MiB], got %v", c.BinlogRedoExtra)
	}
	b := c.Binlog
	if b.MaxBinlogSize < 64*sim.KiB || b.MaxBinlogSize > 1*sim.TiB {
		bad("binlog.max_binlog_size: must be in [64KiB, 1TiB], got %v", b.MaxBinlogSize)
	}
	if b.OSDirtyExpire < 0 || b.OSDirtyExpire > sim.Duration(24*time.Hour) {
		bad("binlog.os_dirty_expire: must be in [0, 24h], got %v", b.OSDirtyExpire)
	}
	if b.OSWritebackPeriod < sim.Duration(10*time.Millisecond) || b.OSWritebackPeriod > sim.Duration(time.Hour) {
		bad("binlog.os_writeback_interval: must be in [10ms, 1h], got %v", b.OSWritebackPeriod)
	}
	if b.FSCommitInterval < sim.Duration(10*time.Millisecond) || b.FSCommitInterval > sim.Duration(time.Hour) {
		bad("binlog.fs_commit_interval: must be in [10ms, 1h], got %v", b.FSCommitInterval)
	}
	if b.IBBFlushBatch < 1 || b.IBBFlushBatch > 65536 {
		bad("binlog.ibb_flush_batch: must be in [1, 65536], got %d", b.IBBFlushBatch)
	}
	if b.CommitWaitCount < 0 || b.CommitWaitCount > 1_000_000 {
		bad("binlog.binlog_commit_wait_count: must be in [0, 1000000], got %d", b.CommitWaitCount)
	}
	if b.CommitWaitUsec < 0 || b.CommitWaitUsec > sim.Duration(time.Second) {
		bad("binlog.binlog_commit_wait_usec: must be in [0, 1s], got %v", b.CommitWaitUsec)
	}
	p := c.CPU
	for _, x := range []struct {
		k string
		v sim.Duration
	}{{"prepare", p.Prepare}, {"binlog_file_per_kib", p.BinlogFileKiB}, {"binlog_innodb_per_kib", p.BinlogInnoDBKiB}, {"write", p.Write}, {"sync", p.Sync}, {"binlog_sync", p.BinlogSync}} {
		if x.v < 0 || x.v > sim.Duration(time.Second) {
			bad("cpu.%s: must be in [0, 1s], got %v", x.k, x.v)
		}
	}
	return errors.Join(errs...)
}
