package commit

import (
	"errors"
	"fmt"
	"time"

	"simrun/model/disk"
	"simrun/sim"
)

// This file is the MySQL 8.4/9.x commit flavour: InnoDB's redo log as its
// log_writer and log_flusher threads write it, and the ordered commit of
// MYSQL_BIN_LOG::ordered_commit (binlog group commit) or, without a binlog
// but with replica_preserve_commit_order, the commit order manager's
// COMMIT_ORDER_FLUSH_STAGE. The MariaDB flavour is Pipeline.

// Redo is InnoDB's redo log with innodb_flush_log_at_trx_commit=1 as MySQL
// 8.0+ runs it (storage/innobase/log/log0write.cc): the log_writer thread
// writes whatever the log buffer holds beyond the written LSN, one write
// at a time, and the log_flusher thread fsyncs the (preallocated) log file
// whenever flushed_to_disk_lsn < write_lsn. Neither waits for a committer
// to ask: they run as long as transactions produce redo. A committer waits
// until the flushed LSN passes its own. ALTER INSTANCE DISABLE INNODB
// REDO_LOG is a server without a Redo.
type Redo struct {
	file        *disk.File
	src         disk.Source
	lsn         int64
	written     int64 // acknowledged writes end here
	writeTarget int64 // end of the write in flight
	flushed     int64
	target      int64 // the flush in flight makes the log durable up to here
	writing     bool
	busy        bool // a flush (fsync) is in flight
	waiters     []redoWait
	ready       []redoWait

	// Flushes and Waiters (summed over flushes) since ResetStats.
	Flushes, Waiters int64
	synced, wrote    func(any)
}

type redoWait struct {
	lsn  int64
	done func(any)
	arg  any
}

// NewRedo returns the redo log writing to file (preallocated) under src.
func NewRedo(file *disk.File, src disk.Source) *Redo {
	l := &Redo{file: file, src: src}
	l.synced, l.wrote = l.onSynced, l.onWritten
	return l
}

// Append adds n bytes of redo and returns the new LSN; the log writer
// picks them up.
func (l *Redo) Append(n int64) int64 {
	l.lsn += n
	l.write()
	return l.lsn
}

// LSN returns the end of the log.
func (l *Redo) LSN() int64 { return l.lsn }

// WaitDurable runs done(arg) once the log up to lsn is durable: at once if
// it is, else after the flush that covers it.
func (l *Redo) WaitDurable(lsn int64, done func(any), arg any) {
	if lsn <= l.flushed {
		done(arg)
		return
	}
	l.waiters = append(l.waiters, redoWait{lsn, done, arg})
	l.write()
	l.flush()
}

// write is the log writer: one write of everything not yet written.
func (l *Redo) write() {
	if l.writing || l.lsn <= l.written {
		return
	}
	l.writing = true
	l.writeTarget = l.lsn
	l.file.Append(l.writeTarget-l.written, l.src, l.wrote, nil)
	l.flush()
}

func (l *Redo) onWritten(any) {
	l.written = l.writeTarget
	l.writing = false
	l.write()
	l.flush()
}

// flush is the log flusher: an fsync whenever something written (or being
// written: the fsync waits for the file's earlier writes) is not durable.
func (l *Redo) flush() {
	end := l.written
	if l.writing {
		end = l.writeTarget
	}
	if l.busy || end <= l.flushed {
		return
	}
	l.busy = true
	l.target = end
	l.file.Sync(l.synced, nil)
}

func (l *Redo) onSynced(any) {
	l.flushed = l.target
	l.busy = false
	l.Flushes++
	l.ready = l.ready[:0]
	n := 0
	for _, w := range l.waiters {
		if w.lsn <= l.flushed {
			l.ready = append(l.ready, w)
		} else {
			l.waiters[n] = w
			n++
		}
	}
	clear(l.waiters[n:])
	l.waiters = l.waiters[:n]
	l.Waiters += int64(len(l.ready))
	// The flusher loops on its own: the next flush starts before the
	// waiters of this one are told.
	l.flush()
	for i, w := range l.ready {
		l.ready[i] = redoWait{}
		w.done(w.arg)
	}
}

// ResetStats starts the measured window.
func (l *Redo) ResetStats() { l.Flushes, l.Waiters = 0, 0 }

// MySQLConfig is the binlog group commit's waits of the MySQL flavour.
type MySQLConfig struct {
	SyncDelay    sim.Duration `toml:"binlog_group_commit_sync_delay" unit:"duration" doc:"binlog_group_commit_sync_delay: the sync stage's leader waits this long before the binlog fsync so that more groups join it (MySQL default 0 = no wait)"`
	NoDelayCount int          `toml:"binlog_group_commit_sync_no_delay_count" unit:"transactions" doc:"binlog_group_commit_sync_no_delay_count: the leader stops waiting once this many transactions wait for the sync (0 = wait the whole delay; MySQL default 0)"`
}

// Validate checks the settings; each message names its key.
func (c MySQLConfig) Validate() error {
	var errs []error
	if c.SyncDelay < 0 || c.SyncDelay > sim.Duration(time.Second) {
		errs = append(errs, fmt.Errorf("binlog_group_commit_sync_delay: must be in [0, 1s] (MySQL: 0..1000000 us), got %v", c.SyncDelay))
	}
	if c.NoDelayCount < 0 || c.NoDelayCount > 100_000 {
		errs = append(errs, fmt.Errorf("binlog_group_commit_sync_no_delay_count: must be in [0, 100000], got %d", c.NoDelayCount))
	}
	return errors.Join(errs...)
}

// OrderedCommit commits transactions in their registration order, as
// MySQL does for a replica with replica_preserve_commit_order=ON.
//
// With a binlog it is MYSQL_BIN_LOG::ordered_commit (sync_binlog=1,
// binlog_order_commits=ON): three stages, each with its own queue and
// leader, work on contiguous ranges of registered transactions:
//
//	flush:  one redo flush (write + fsync) covering every prepared
//	        transaction of the group, then the group's binlog caches are
//	        written to the binlog file (page cache);
//	sync:   one fsync of the binlog (a growing file: data plus the
//	        filesystem journal), covering every flushed group waiting;
//	commit: the leader commits each transaction in the engine, in order
//	        (commit_cpu each, serially on a processor), then signals them.
//
// The stages pipeline: group k+1 flushes while group k syncs. Without a
// binlog it is the commit order manager's COMMIT_ORDER_FLUSH_STAGE: the
// leader flushes the redo log once for the group (if the log is on), then
// commits each transaction in order.
type OrderedCommit struct {
	env       *sim.Env
	cfg       MySQLConfig
	cpu       *sim.CPU
	redo      *Redo      // nil: redo disabled
	file      *disk.File // nil: no binlog
	src       disk.Source
	commitCPU time.Duration
	committed func(seq int64)

	regHi, flushHi, syncHi, commitHi int64
	curFlush, curSync, curCommit     int64
	flushBusy, syncBusy, commitBusy  bool
	regBytes, flushBytes, curBytes   int64 // binlog bytes registered / flushed / of the flushing group
	unwritten                        int64
	burst                            [1]time.Duration // the commit leader's CPU job
	delaying                         bool             // the sync leader waits binlog_group_commit_sync_delay
	delayTimer                       sim.Timer

	// Groups and GroupTrx count flush-stage groups and their transactions,
	// Syncs and SyncTrx the binlog syncs, since ResetStats.
	Groups, GroupTrx, Syncs, SyncTrx int64

	// stamp[seq & (len-1)] is when seq entered its current stage's queue
	// (or the stage itself): the per-transaction stage times below.
	stamp    []sim.Time
	stage    [stageN]int64 // ns summed over transactions, since ResetStats
	stageTrx [stageN]int64 // transactions that finished each stage

	redoFlushedCB, synced, commitDone        func(any)
	delayDone                                func()
	startFlushFn, startSyncFn, startCommitFn func()
}

// The parts of a transaction's time in the ordered commit, in order.
const (
	StageQueue      = iota // registered, waiting for the flush stage's leader to take it
	StageFlush             // the flush stage: the redo flush covering the group's prepares (and the binlog write)
	StageSyncWait          // flushed, waiting for the sync stage (a binlog fsync in progress)
	StageSync              // the binlog fsync
	StageCommitWait        // synced, waiting for the commit stage
	StageCommit            // the engine commits of its range, in order
	stageN
)

// StageNames names the stages for the metrics.
var StageNames = [stageN]string{"queue", "flush", "sync_wait", "sync", "commit_wait", "commit"}

// StageMeans returns the mean time per transaction of each stage since
// ResetStats (0 for a stage no transaction finished).
func (o *OrderedCommit) StageMeans() [stageN]time.Duration {
	var out [stageN]time.Duration
	for i := range out {
		if o.stageTrx[i] > 0 {
			out[i] = time.Duration(o.stage[i] / o.stageTrx[i])
		}
	}
	return out
}

// endStage adds the time since each transaction of (lo, hi] entered stage
// s and stamps now as their entry into the next one.
func (o *OrderedCommit) endStage(s int, lo, hi int64) {
	now := o.env.Now()
	m := int64(len(o.stamp) - 1)
	for q := lo + 1; q <= hi; q++ {
		o.stage[s] += int64(now - o.stamp[q&m])
		o.stamp[q&m] = now
	}
	o.stageTrx[s] += hi - lo
}

// stampRegister records seq's registration, growing the ring (a power of
// two) when more transactions are in the ordered commit than it holds.
func (o *OrderedCommit) stampRegister(seq int64) {
	if n := seq - o.commitHi; n >= int64(len(o.stamp)) {
		c := max(64, len(o.stamp))
		for int64(c) <= n {
			c *= 2
		}
		st := make([]sim.Time, c)
		om, nm := int64(len(o.stamp)-1), int64(c-1)
		for q := o.commitHi + 1; q < seq && len(o.stamp) > 0; q++ {
			st[q&nm] = o.stamp[q&om]
		}
		o.stamp = st
	}
	o.stamp[seq&int64(len(o.stamp)-1)] = o.env.Now()
}

// NewOrderedCommit returns the ordered commit on cpu. redo is the redo log
// (nil when disabled); binlog the binlog file (nil without a binlog) with
// its source tag; commitCPU the engine commit of one transaction;
// committed(seq) runs for each transaction, in order, when its commit is
// done.
func NewOrderedCommit(env *sim.Env, cfg MySQLConfig, cpu *sim.CPU, redo *Redo, binlog *disk.File, src disk.Source, commitCPU time.Duration, committed func(seq int64)) *OrderedCommit {
	o := &OrderedCommit{env: env, cfg: cfg, cpu: cpu, redo: redo, file: binlog, src: src, commitCPU: commitCPU, committed: committed}
	o.delayDone = o.onDelay
	o.redoFlushedCB = o.onRedoFlushed
	o.synced = o.onSynced
	o.commitDone = o.onCommitted
	o.startFlushFn, o.startSyncFn, o.startCommitFn = o.startFlush, o.startSync, o.startCommit
	return o
}

// Register queues transaction seq (the next in order) with binlogBytes of
// binlog events; it joins the flush stage's queue.
func (o *OrderedCommit) Register(seq, binlogBytes int64) {
	o.stampRegister(seq)
	o.regHi = seq
	o.regBytes += binlogBytes
	if !o.flushBusy {
		o.startFlush()
	}
}

func (o *OrderedCommit) startFlush() {
	o.flushBusy = true
	o.endStage(StageQueue, o.flushHi, o.regHi)
	o.curFlush, o.curBytes = o.regHi, o.regBytes
	o.Groups++
	o.GroupTrx += o.curFlush - o.flushHi
	if o.redo != nil {
		o.redo.WaitDurable(o.redo.LSN(), o.redoFlushedCB, nil)
		return
	}
	o.onRedoFlushed(nil)
}

// onRedoFlushed: the group's prepares are durable.
func (o *OrderedCommit) onRedoFlushed(any) {
	o.endStage(StageFlush, o.flushHi, o.curFlush)
	if o.file == nil {
		o.flushHi = o.curFlush
		o.startCommit()
		return
	}
	o.unwritten += o.curBytes - o.flushBytes
	o.flushBytes = o.curBytes
	o.flushHi = o.curFlush
	if o.delaying && o.delayCountReached() {
		o.env.Cancel(o.delayTimer)
		o.onDelay()
	}
	handOff(&o.flushBusy, o.syncBusy, o.startSyncFn, o.regHi > o.flushHi, o.startFlushFn)
}

// handOff ends a stage leader's round: the stage is free, the next stage
// starts on what it handed over if that stage is idle, and the stage starts
// again if more has queued behind it (each stage has its own leader and
// queue, as in MYSQL_BIN_LOG::ordered_commit).
func handOff(busy *bool, nextBusy bool, startNext func(), more bool, again func()) {
	*busy = false
	if !nextBusy {
		startNext()
	}
	if more {
		again()
	}
}

// startSync is the sync stage's leader: with binlog_group_commit_sync_delay
// it first waits for more groups to join (the sync stage's wait in
// MYSQL_BIN_LOG::ordered_commit), stopping early once
// binlog_group_commit_sync_no_delay_count transactions wait.
func (o *OrderedCommit) startSync() {
	o.syncBusy = true
	if o.cfg.SyncDelay > 0 && !o.delayCountReached() {
		o.delaying = true
		o.delayTimer = o.env.After(o.cfg.SyncDelay.D(), o.delayDone)
		return
	}
	o.sync()
}

func (o *OrderedCommit) delayCountReached() bool {
	return o.cfg.NoDelayCount > 0 && o.flushHi-o.syncHi >= int64(o.cfg.NoDelayCount)
}

func (o *OrderedCommit) onDelay() {
	o.delaying = false
	o.sync()
}

func (o *OrderedCommit) sync() {
	o.endStage(StageSyncWait, o.syncHi, o.flushHi)
	o.curSync = o.flushHi
	o.Syncs++
	o.SyncTrx += o.curSync - o.syncHi
	if o.unwritten > 0 {
		o.file.Append(o.unwritten, o.src, nil, nil)
		o.unwritten = 0
	}
	o.file.Sync(o.synced, nil)
}

func (o *OrderedCommit) onSynced(any) {
	o.endStage(StageSync, o.syncHi, o.curSync)
	o.syncHi = o.curSync
	handOff(&o.syncBusy, o.commitBusy, o.startCommitFn, o.flushHi > o.syncHi, o.startSyncFn)
}

// startCommit runs the engine commits of the next range: with a binlog
// the synced one, without the group the flush stage just took.
func (o *OrderedCommit) startCommit() {
	o.commitBusy = true
	o.curCommit = o.syncHi
	if o.file == nil {
		o.curCommit = o.flushHi
	}
	o.endStage(StageCommitWait, o.commitHi, o.curCommit)
	o.burst[0] = time.Duration(o.curCommit-o.commitHi) * o.commitCPU
	o.cpu.Run(o.burst[:], o.commitDone, nil)
}

func (o *OrderedCommit) onCommitted(any) {
	hi := o.curCommit
	o.endStage(StageCommit, o.commitHi, hi)
	for s := o.commitHi + 1; s <= hi; s++ {
		o.committed(s)
	}
	o.commitHi = hi
	o.commitBusy = false
	if o.file == nil {
		// One stage: the leader goes on with whoever registered meanwhile.
		o.flushBusy = false
		if o.regHi > o.commitHi {
			o.startFlush()
		}
		return
	}
	if o.syncHi > o.commitHi {
		o.startCommit()
	}
}

// ResetStats starts the measured window.
func (o *OrderedCommit) ResetStats() {
	o.Groups, o.GroupTrx, o.Syncs, o.SyncTrx = 0, 0, 0, 0
	o.stage, o.stageTrx = [stageN]int64{}, [stageN]int64{}
}
