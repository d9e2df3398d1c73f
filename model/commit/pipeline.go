package commit

import (
	"time"

	"simrun/internal/trace"
	"simrun/model/disk"
	"simrun/model/engine"
	"simrun/sim"
	"simrun/sim/stats"
)

// Tx is one transaction's commit as the pipeline sees it. The client
// thread owns it and reuses it; Done(Arg) runs when the commit is
// acknowledged.
type Tx struct {
	TL          engine.Timeline
	BinlogBytes int64
	// CopyRun says the driver's CPU job already ran the copy of this
	// transaction's binlog cache (BinlogCPU; the sysbench sessions do, so
	// that the processors count it); when it leads, LOCK_log is then held
	// for the other members' copies only.
	CopyRun bool
	Done    func(any)
	Arg     any
	// Thread is the client connection's thread, whose lag the scheduler
	// keeps across its sleeps (nil: an anonymous thread).
	Thread   *sim.CPUThread
	lsn      uint64
	prepLSN  uint64
	queuedAt sim.Time // joined the binlog group commit queue (trace arrows)
}

// Engine is what the commit path needs of the storage engine: the
// mini-transactions it writes at prepare and commit, the log's write and
// sync up to an LSN (log_write_up_to) and the durable LSN. *engine.Engine
// satisfies it.
type Engine interface {
	PrepareMTR() uint64
	CommitMTR(extra uint64) uint64
	// CommitBinlogMTR writes the commit mtr with a transaction's binlog
	// bytes into the InnoDB binlog tablespace (OpenBinlogTablespace).
	CommitBinlogMTR(binlog, extra uint64) uint64
	OpenBinlogTablespace(fileSize int64, batch int, src disk.Source)
	LogUpTo(lsn uint64, sync bool, tl *engine.Timeline, fn func(any), arg any) bool
	FlushedLSN() uint64
	// SetLogCPU sets the CPU a commit-path log write and a log sync
	// beyond it cost their leader thread.
	SetLogCPU(write, sync time.Duration)
}

// Sources are the volume accounting tags of the binlog writes.
type Sources struct {
	BinlogFile, BinlogPages disk.Source
}

// Pipeline is MariaDB's commit path for one server:
//
//	off:    commit mtr -> log_write_up_to(commit lsn) per trx_commit
//	file:   XA prepare mtr -> log_write_up_to(prepare lsn) (trx_commit 1, 3;
//	        2 writes only) -> binlog group commit under LOCK_log: the leader
//	        copies every queued binlog cache to the file, fdatasyncs it
//	        every sync_binlog groups, runs commit_ordered (the commit mtr)
//	        for each -> with trx_commit 2 a log write, with 3 a log sync;
//	        with 1 nothing: recovery rebuilds the commit from the binlog
//	innodb: binlog group commit under LOCK_log: the leader writes each
//	        binlog into .ibb pages inside its commit mtr -> one
//	        log_write_up_to(commit lsn) per trx_commit; sync_binlog is ignored
//
// (MariaDB KB "Binary Log Group Commit and InnoDB Flushing Performance",
// "Group Commit for the Binary Log", "InnoDB-Based Binary Log";
// ha_innodb.cc trx_commit_complete_for_mysql, trx0trx.cc trx_prepare.)
type Pipeline struct {
	env *sim.Env
	eng Engine
	cpu *sim.CPU
	// sleeper is the binlog group's leader asleep in fdatasync (LOCK_log
	// held): it wakes from each device wait inside the call.
	sleeper sim.Waker
	vol     *disk.Volume
	cfg     Config
	mode    BinlogMode
	flush   FlushPolicy

	file *binlogFile

	// LOCK_log and the binlog group commit queue
	queue, group, spare []*Tx
	locked              bool
	waitTimer           sim.Timer
	waiting             bool
	phases              engine.Phases
	syncCounter         int
	tWrite              sim.Time
	dqWrite             time.Duration // device queue time of the binlog data write (disk QueueTime)
	wsize               int64
	tLead               sim.Time // the group's leader took LOCK_log
	synced              bool     // the group fdatasynced the binlog

	rec     *trace.Recorder // nil unless tracing
	trGroup trace.TrackID   // commit/binlog group
	trFsync trace.TrackID   // fsync/binlog

	wokeCB     func(any)
	rotatedCB  func(any)
	syncWokeCB func(any)
	shadowCB   func(any)
	writtenCB  func(any)
	orderedCB  func(any)
	leadCB     func(any)
	wakeup     time.Duration

	prepared func(any)
	cpuDone  func(any)
	wrote    func(any)
	syncDone func(any)
	finished func(any)
	waitDone func()

	// statistics since ResetStats
	GroupSize   stats.Histogram // transactions per binlog group commit
	Commits     int64
	BinlogBytes int64
	BinlogSyncs int64
	// Violations counts acknowledged commits whose log record was not yet
	// durable although innodb_flush_log_at_trx_commit required it (a bug
	// if ever non-zero).
	Violations int64
}

// New builds the commit pipeline of cfg (validated) on the engine. cpu is
// the machine's CPU, on which the binlog group leader copies binlog caches;
// wakeup is the CPU a thread needs to resume after sleeping.
func New(env *sim.Env, eng Engine, cpu *sim.CPU, vol *disk.Volume, cfg Config, src Sources, wakeup time.Duration) *Pipeline {
	p := &Pipeline{env: env, eng: eng, cpu: cpu, vol: vol, cfg: cfg, mode: cfg.BinlogStorageEngine, flush: cfg.FlushLogAtTrxCommit}
	switch p.mode {
	case BinlogFile:
		p.file = newBinlogFile(env, vol, cfg.Binlog, src.BinlogFile)
	case BinlogInnoDB:
		eng.OpenBinlogTablespace(int64(cfg.Binlog.MaxBinlogSize), cfg.Binlog.IBBFlushBatch, src.BinlogPages)
	}
	p.prepared = p.onPrepared
	p.cpuDone = p.onLeaderCPU
	p.wrote = p.onBinlogWritten
	p.syncDone = p.onBinlogSynced
	p.finished = p.finish
	p.waitDone = p.onWaitTimer
	p.wokeCB = p.onWoke
	p.rotatedCB = p.onRotated
	p.syncWokeCB = p.onSyncWoke
	p.shadowCB = p.onShadowDone
	p.writtenCB = p.onWriteWoke
	p.orderedCB = p.runCommitOrdered
	p.leadCB = func(any) { p.lead() }
	p.wakeup = wakeup
	eng.SetLogCPU(cfg.CPU.Write.D(), cfg.CPU.Sync.D())
	return p
}

// Start starts the pipeline's background work (the OS write-back of a
// file binlog).
func (p *Pipeline) Start() {
	if p.file != nil {
		p.file.start()
	}
}

// Mode returns the binlog storage mode.
func (p *Pipeline) Mode() BinlogMode { return p.mode }

// CommitCPU returns the CPU the commit path adds to the engine's COMMIT
// statement: with a file binlog, two-phase commit's prepare.
func (p *Pipeline) CommitCPU() time.Duration {
	if p.mode == BinlogFile {
		return p.cfg.CPU.Prepare.D()
	}
	return 0
}

// Commit runs the commit of tx, whose COMMIT statement has been executed.
func (p *Pipeline) Commit(tx *Tx) {
	p.Commits++
	switch p.mode {
	case BinlogOff:
		tx.lsn = p.eng.CommitMTR(0)
		p.durability(tx, p.flush.Syncs(), p.flush.Writes())
	case BinlogInnoDB:
		p.BinlogBytes += tx.BinlogBytes
		p.enqueue(tx)
	case BinlogFile:
		p.BinlogBytes += tx.BinlogBytes
		lsn := p.eng.PrepareMTR()
		tx.prepLSN = lsn
		if p.flush.Waits() {
			if !p.eng.LogUpTo(lsn, p.flush.Syncs(), &tx.TL, p.prepared, tx) {
				return
			}
		}
		p.enqueue(tx)
	}
}

func (p *Pipeline) onPrepared(a any) { p.enqueue(a.(*Tx)) }

// durability waits, per innodb_flush_log_at_trx_commit, for the log up to
// tx.lsn to be durable (or written), then acknowledges the commit.
func (p *Pipeline) durability(tx *Tx, durable, write bool) {
	if durable || write {
		if !p.eng.LogUpTo(tx.lsn, durable, &tx.TL, p.finished, tx) {
			return
		}
	}
	p.finish(tx)
}

func (p *Pipeline) finish(a any) {
	tx := a.(*Tx)
	if p.flush.Syncs() {
		// Durability invariant: an acknowledged commit is in the durable
		// log (with a file binlog: its prepare record, the binlog holding
		// the commit decision).
		l := tx.lsn
		if p.mode == BinlogFile && p.flush == FlushSyncAtCommit {
			l = tx.prepLSN
		}
		if l > p.eng.FlushedLSN() {
			p.Violations++
		}
	}
	tx.Done(tx.Arg)
}

// enqueue is queue_for_group_commit: the first transaction into an empty
// queue while LOCK_log is free becomes the leader.
func (p *Pipeline) enqueue(tx *Tx) {
	tx.queuedAt = p.env.Now()
	if p.waiting {
		p.group = append(p.group, tx)
		if len(p.group) >= p.cfg.Binlog.CommitWaitCount {
			p.env.Cancel(p.waitTimer)
			p.waiting = false
			p.proceed()
		}
		return
	}
	p.queue = append(p.queue, tx)
	if !p.locked {
		p.lead()
	}
}

// lead takes LOCK_log and the whole queue.
func (p *Pipeline) lead() {
	p.locked = true
	p.group, p.queue, p.spare = p.queue, p.spare[:0], nil
	now := p.env.Now()
	p.tLead = now
	p.synced = false
	p.phases.Reset()
	p.phases.Add(now, engine.CatGroupCommitWait)
	if n := p.cfg.Binlog.CommitWaitCount; n > 0 && len(p.group) < n && p.cfg.Binlog.CommitWaitUsec > 0 {
		p.waiting = true
		p.waitTimer = p.env.After(p.cfg.Binlog.CommitWaitUsec.D(), p.waitDone)
		return
	}
	p.proceed()
}

func (p *Pipeline) onWaitTimer() {
	p.waiting = false
	p.proceed()
}

// proceed runs the leader's copy of the group's binlog caches with
// LOCK_log held (MYSQL_BIN_LOG::trx_group_commit_leader writes every
// member's cache; the members sleep), as a delay: the leader is a running
// thread and holds a processor. A sysbench session's CPU job already ran
// the copy of its own cache (Tx.CopyRun), so the processors' busy time
// counts every copy; a leader that ran its own holds the lock for the
// others' copies only, so that a member's latency too counts its group's
// copies once (its own in its job, the rest here).
func (p *Pipeline) proceed() {
	if p.waiting {
		return
	}
	p.phases.Add(p.env.Now(), engine.CatGroupCommitWait)
	var d time.Duration
	for i, tx := range p.group {
		if i > 0 || !tx.CopyRun {
			d += p.BinlogCPU(tx.BinlogBytes)
		}
	}
	p.env.AfterArg(d, p.cpuDone, nil)
}

// BinlogCPU is the CPU to copy n bytes of binlog (to the file or into
// .ibb pages).
func (p *Pipeline) BinlogCPU(n int64) time.Duration {
	per := p.cfg.CPU.BinlogInnoDBKiB
	switch p.mode {
	case BinlogFile:
		per = p.cfg.CPU.BinlogFileKiB
	case BinlogOff:
		return 0
	}
	return time.Duration(float64(per) * float64(n) / 1024)
}

func (p *Pipeline) onLeaderCPU(any) {
	now := p.env.Now()
	p.phases.Add(now, engine.CatBinlogWrite)
	if p.mode == BinlogInnoDB {
		over := uint64(p.cfg.BinlogRedoExtra)
		for _, tx := range p.group {
			tx.lsn = p.eng.CommitBinlogMTR(uint64(tx.BinlogBytes), over)
		}
		p.release()
		return
	}
	for _, tx := range p.group {
		p.file.append(tx.BinlogBytes)
	}
	if p.file.written(p.shadowCB, nil) {
		return
	}
	p.afterWrite()
}

// onShadowDone: the journal write of the binlog's inode block completed;
// the leader, asleep in write(2) with LOCK_log held, needs a processor.
func (p *Pipeline) onShadowDone(any) {
	p.phases.Add(p.env.Now(), engine.CatBinlogWrite)
	p.cpu.WakeAs(p.group[0].Thread, p.wakeup, p.writtenCB, nil)
}

func (p *Pipeline) onWriteWoke(any) {
	p.phases.Add(p.env.Now(), engine.CatCPUWait)
	p.afterWrite()
}

// afterWrite: the group's binlog is in the file; sync it if sync_binlog
// says so, then commit in order.
func (p *Pipeline) afterWrite() {
	now := p.env.Now()
	if s := p.cfg.SyncBinlog; s > 0 {
		p.syncCounter++
		if p.syncCounter >= s {
			p.syncCounter = 0
			p.BinlogSyncs++
			p.tWrite = now
			p.dqWrite = 0
			p.wsize = (p.file.end+osPage-1)/osPage*osPage - p.file.clean/osPage*osPage
			p.synced = true
			p.sleeper = sim.Waker{CPU: p.cpu, Thread: p.group[0].Thread, Cost: p.wakeup}
			p.file.sync(&p.sleeper, p.wrote, p.syncDone, nil)
			return
		}
	}
	p.commitOrdered()
}

func (p *Pipeline) onBinlogWritten(any) {
	p.dqWrite = p.vol.QueueTime()
}

func (p *Pipeline) onBinlogSynced(any) {
	if p.rec != nil {
		p.rec.Span(p.trFsync, "fdatasync binlog", p.tWrite, p.env.Now(), trace.Str("file", p.file.file.Name()), trace.Int("bytes", p.wsize))
	}
	// fdatasync: the data write, then the flush or the journal commit;
	// their queueing in the volume is device queue, the rest binlog fsync.
	p.phases.Add(p.tWrite.Add(p.dqWrite+p.vol.QueueTime()), engine.CatDeviceQueue)
	p.phases.Add(p.env.Now(), engine.CatBinlogFsync)
	p.cpu.WakeAs(p.group[0].Thread, p.wakeup+p.cfg.CPU.BinlogSync.D(), p.syncWokeCB, nil)
}

// onSyncWoke: the leader, back from fdatasync, has a processor again and
// has run the kernel's part of the sync (cpu.binlog_sync).
func (p *Pipeline) onSyncWoke(any) {
	p.phases.Add(p.env.Now(), engine.CatCPUWait)
	p.commitOrdered()
}

// commitOrdered rotates the binlog if it is full, then runs the InnoDB
// commit of each member in binlog order (trx_group_commit_leader: rotate()
// under LOCK_log, then run_commit_ordered under LOCK_commit_ordered).
func (p *Pipeline) commitOrdered() {
	if p.file.rotate(p.rotatedCB, nil) {
		return
	}
	p.runCommitOrdered(nil)
}

// onRotated: the closed file is durable; the leader wakes from its sync.
func (p *Pipeline) onRotated(any) {
	p.phases.Add(p.env.Now(), engine.CatBinlogFsync)
	p.cpu.WakeAs(p.group[0].Thread, p.wakeup, p.orderedCB, nil)
}

func (p *Pipeline) runCommitOrdered(any) {
	p.phases.Add(p.env.Now(), engine.CatCPUWait)
	for _, tx := range p.group {
		tx.lsn = p.eng.CommitMTR(0)
	}
	p.release()
}

// release lets the members go on, then hands LOCK_log to the next leader.
func (p *Pipeline) release() {
	grp := p.group
	ph := p.phases
	p.GroupSize.Record(int64(len(grp)))
	if p.rec != nil {
		p.traceGroup(grp)
	}
	p.group = nil
	for i, tx := range grp {
		grp[i] = nil
		tx.TL.Charge(&ph)
		if i > 0 {
			// A member slept until the leader woke it.
			p.cpu.WakeAs(tx.Thread, p.wakeup, p.wokeCB, tx)
			continue
		}
		p.afterGroup(tx)
	}
	p.spare = grp[:0]
	p.locked = false
	if len(p.queue) > 0 {
		// The next leader slept on LOCK_log.
		p.locked = true
		p.cpu.WakeAs(p.queue[0].Thread, p.wakeup, p.leadCB, nil)
	}
}

// onWoke: a member the leader woke has a processor again.
func (p *Pipeline) onWoke(a any) {
	tx := a.(*Tx)
	tx.TL.MarkCPU(p.env.Now(), int64(p.wakeup))
	p.afterGroup(tx)
}

func (p *Pipeline) afterGroup(tx *Tx) {
	if p.mode == BinlogInnoDB {
		p.durability(tx, p.flush.Syncs(), p.flush.Writes())
		return
	}
	sync, write := p.flush.AfterBinlog()
	p.durability(tx, sync, write)
}

// SetTrace records the binlog group commits on "commit/binlog group"
// (leader takes LOCK_log to release) and the binlog file's fdatasyncs on
// "fsync/binlog" (the engine records the .ibb page writes); nil turns it
// off. Call it before Start.
func (p *Pipeline) SetTrace(rec *trace.Recorder) {
	p.rec = rec
	if rec == nil {
		return
	}
	p.trGroup = rec.Track("commit/binlog group")
	p.trFsync = rec.Track("fsync/binlog")
}

func (p *Pipeline) traceGroup(grp []*Tx) {
	var bytes int64
	for _, tx := range grp {
		bytes += tx.BinlogBytes
		if rec, tr := tx.TL.Trace(); rec != nil {
			rec.Flow("binlog group commit", tr, tx.queuedAt, p.trGroup, p.tLead)
		}
	}
	p.rec.Span(p.trGroup, "binlog group", p.tLead, p.env.Now(), trace.Int("group_size", int64(len(grp))),
		trace.Int("bytes", bytes), trace.Bool("fdatasync", p.synced))
}

// ResetStats starts the measured window.
func (p *Pipeline) ResetStats() {
	p.GroupSize.Reset()
	p.Commits, p.BinlogBytes, p.BinlogSyncs = 0, 0, 0
	if p.file != nil {
		p.file.Syncs, p.file.Bytes, p.file.WBWrites = 0, 0, 0
	}
}

// Stats is the pipeline's report.
type Stats struct {
	Commits         int64
	BinlogBytes     int64
	BinlogSyncs     int64
	BinlogGroup     stats.HistogramSummary
	OSWritebacks    int64
	BinlogRotations int64
}

// Stats returns the statistics of the measured window.
func (p *Pipeline) Stats() Stats {
	s := Stats{Commits: p.Commits, BinlogBytes: p.BinlogBytes, BinlogSyncs: p.BinlogSyncs, BinlogGroup: p.GroupSize.Summary()}
	if p.file != nil {
		s.OSWritebacks = p.file.WBWrites
		s.BinlogRotations = p.file.Rotations
	}
	return s
}
