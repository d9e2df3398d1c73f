package engine

import (
	"fmt"
	"time"

	"simrun/internal/trace"
	"simrun/model/disk"
	"simrun/sim"
	"simrun/sim/stats"
)

// redoHeader is the size of ib_logfile0's header blocks (MariaDB >= 10.8:
// the file header and two checkpoint blocks; log records start at 12288).
const redoHeader = 12288

// Redo is the InnoDB redo log: a fixed-size ring file, a log buffer, and
// MariaDB's group commit of log writes (log_write_up_to with its
// write_lock/flush_lock): one round at a time writes everything generated
// so far and, if any waiter needs durability, fdatasyncs; requests that
// arrive during a round are served together by the next one.
//
// Positions (LSNs, byte counts from the start of the run):
//
//	checkpoint <= flushed <= written <= lsn
//
// With an O_DIRECT log (log_file_buffering off) a round writes whole
// device blocks: [floor(written), ceil(lsn)) rounded to block_size, so the
// last partial block is written again by the next round. With a buffered
// log a write is a copy into the page cache (no device I/O, no wait); the
// fsync then writes the dirty pages since the last sync.
type Redo struct {
	env      *sim.Env
	cfg      RedoConfig
	vol      *disk.Volume
	file     *disk.File
	src      disk.Source
	buffered bool
	block    uint64
	ring     uint64 // bytes of the ring after the header
	base     uint64 // ring offset of lsn 0 (the redo written before the run)

	lsn, written, flushed, checkpoint uint64

	capacity, syncPoint, asyncPoint uint64

	busy    bool
	waiters []redoWaiter
	ready   []redoWaiter
	target  uint64
	doSync  bool
	// startOfRound is the log position the round writes from (written,
	// or flushed for a buffered log).
	startOfRound uint64
	pending      int // device writes of the round still in flight
	tStart       sim.Time
	tWrite       sim.Time
	dqWrite      time.Duration // device queue time of the round's last write (disk QueueTime)
	dqSync       time.Duration // device queue time of the round's flush
	wsize        int64
	phases       Phases
	writeCB      func(any)
	syncCB       func(any)
	ckptCB       func(any)
	ckptDone     func()
	ckptLSN      uint64
	ckptN        int64
	ckptAt       sim.Time

	rec     *trace.Recorder // nil unless tracing
	trGroup trace.TrackID   // commit/redo group
	trFsync trace.TrackID   // fsync/redo

	// onFlushed, if set, runs after every round that advanced the durable
	// LSN (the InnoDB binlog's page writer waits for its redo this way).
	onFlushed func()

	// Threads (SetCPU): a log_write_up_to caller sleeps in the group
	// commit lock or in the leader's I/O and needs a processor to go on.
	cpu      *sim.CPU
	wakeup   time.Duration
	writeCPU time.Duration // CPU of one round's log write (SetLogCPU)
	syncCPU  time.Duration // CPU of one fdatasync beyond its write (SetLogCPU)
	wrote    bool          // this round wrote the log to the device
	wokeCB   func(any)
	finishCB func(any)
	leadCB   func(any)
	leaderTL *Timeline // the round's leader, if a client thread
	// designating counts the threads woken to lead the next round that
	// have not run yet nor been served (Timeline.leadWake).
	designating int
	sleeper     sim.Waker // the leader, asleep in its pwrite and fdatasync
	tIO         sim.Time  // the round's I/O completed

	// statistics (since ResetStats)
	DevBytes    int64 // bytes written to the device by log writes
	LSNWritten  uint64
	Syncs       int64
	Writes      int64
	GroupSize   stats.Histogram // durable waiters per sync round (tx per group)
	TotalDevB   int64           // whole run, for invariants
	startLSN    uint64          // lsn at the last ResetStats
	coveredLSN  uint64          // whole run: LSN range written exactly once
	requestsTx  int
	ResetAtTime sim.Time
}

type redoWaiter struct {
	lsn     uint64
	at      sim.Time // when it asked (for the trace's flow arrows)
	durable bool
	tl      *Timeline
	fn      func(any)
	arg     any
}

// newRedo builds the redo log on vol.
func newRedo(env *sim.Env, cfg RedoConfig, buffered bool, vol *disk.Volume, src disk.Source, loadRows int64) *Redo {
	r := &Redo{env: env, cfg: cfg, vol: vol, src: src, buffered: buffered}
	r.file = vol.OpenFile("ib_logfile0", true)
	r.block = uint64(cfg.BlockSize)
	r.ring = uint64(cfg.LogFileSize) - redoHeader
	// A log not yet written through has unwritten extents beyond what was
	// written since its creation; the run continues the first pass there.
	switch cfg.InitialLog {
	case "new":
		r.file.Fallocate(redoHeader)
	case "after_load":
		if load := uint64(loadRows) * uint64(cfg.BytesLoadRow); load < r.ring {
			r.base = load / r.block * r.block
			r.file.Fallocate(int64(redoHeader + r.base))
		}
	}
	r.capacity, r.syncPoint, r.asyncPoint = cfg.Capacity()
	r.writeCB = r.onWrite
	r.syncCB = r.onSync
	r.ckptCB = r.onCheckpointSynced
	r.wokeCB = r.onWoke
	r.finishCB = func(any) { r.finishRound() }
	r.leadCB = r.onLeadWoke
	return r
}

// SetCPU makes the log's callers threads on cpu: the leader that wakes
// from its write or sync, each follower it wakes and the next leader each
// need a processor for wakeup before they go on (group_commit_lock in
// log0log.cc: release() wakes the followers and one new leader).
func (r *Redo) SetCPU(cpu *sim.CPU, wakeup time.Duration) {
	r.cpu, r.wakeup = cpu, wakeup
}

// SetLogCPU sets the CPU a commit-path round of the log costs the thread
// that leads it: write for the round's write of the log to the device
// (commit.cpu.write: pwrite's system call, the block layer's submission,
// the completion interrupt), sync for its fdatasync beyond that
// (commit.cpu.sync: ext4's sync, the flush request). The model runs it with
// the leader's wake-up after the I/O; on Linux part of it runs before the
// I/O is submitted, so the model issues each I/O that much earlier. Rounds
// without a client thread (the once-per-second flush) charge nothing.
func (e *Engine) SetLogCPU(write, sync time.Duration) { e.Redo.writeCPU, e.Redo.syncCPU = write, sync }

func (r *Redo) onWoke(a any) {
	tl := a.(*Timeline)
	fn, arg := tl.wakeFn, tl.wakeArg
	tl.wakeFn, tl.wakeArg = nil, nil
	tl.MarkCPU(r.env.Now(), int64(r.wakeup))
	fn(arg)
}

// LSN returns the current log sequence number (bytes generated).
func (r *Redo) LSN() uint64 { return r.lsn }

// Written returns the LSN up to which the log has been written (to the OS
// or the device).
func (r *Redo) Written() uint64 { return r.written }

// Flushed returns the durable LSN.
func (r *Redo) Flushed() uint64 { return r.flushed }

// Checkpoint returns the last checkpoint LSN.
func (r *Redo) Checkpoint() uint64 { return r.checkpoint }

// Age returns the checkpoint age lsn - checkpoint.
func (r *Redo) Age() uint64 { return r.lsn - r.checkpoint }

// Points returns the capacity, the sync point and the async point.
func (r *Redo) Points() (capacity, syncPoint, asyncPoint uint64) {
	return r.capacity, r.syncPoint, r.asyncPoint
}

// Buffered reports whether the log goes through the page cache.
func (r *Redo) Buffered() bool { return r.buffered }

// append adds n bytes of log (one mini-transaction commit) and returns the
// new end LSN.
func (r *Redo) append(n uint64) uint64 {
	r.lsn += n
	if !r.buffered && r.lsn-r.written > uint64(r.cfg.LogBufferSize)/2 && !r.busy {
		// log_t::append_prepare: more than half the buffer is unwritten.
		r.Request(r.lsn, false, nil, nil, nil)
	} else if r.buffered && r.lsn-r.written > uint64(r.cfg.LogBufferSize)/2 {
		r.written = r.lsn // a copy into the page cache
	}
	return r.lsn
}

// bufferFull reports whether the unwritten log exceeds the log buffer.
func (r *Redo) bufferFull() bool { return r.lsn-r.written > uint64(r.cfg.LogBufferSize) }

// Request asks for the log to be written (durable = false) or written and
// synced (durable = true) up to lsn. It returns true if that is already so
// (fn is then not called); otherwise fn(arg) runs when it is, after tl (if
// any) has been charged for the wait. Requests must come in non-decreasing
// lsn order per kind; waiters are served in arrival order.
func (r *Redo) Request(lsn uint64, durable bool, tl *Timeline, fn func(any), arg any) bool {
	if lsn > r.lsn {
		panic(fmt.Sprintf("engine: redo request for lsn %d beyond the end %d", lsn, r.lsn))
	}
	if durable && r.flushed >= lsn || !durable && r.written >= lsn {
		return true
	}
	if !durable && r.buffered {
		r.written = r.lsn
		return true
	}
	r.waiters = append(r.waiters, redoWaiter{lsn, r.env.Now(), durable, tl, fn, arg})
	if !r.busy {
		// The lock is free: the caller takes it, even while a thread
		// release() woke to lead waits for a processor
		// (group_commit_lock::acquire takes a free lock at once).
		r.startRound(tl)
	}
	return false
}

// onLeadWoke: a thread release() woke to lead the next round runs. If a
// round served it meanwhile it goes on as a follower; if the lock is free
// it leads a round of everyone waiting; if another thread took the lock
// it sleeps again among the waiters (group_commit_lock::acquire).
func (r *Redo) onLeadWoke(a any) {
	tl := a.(*Timeline)
	tl.leadWake = false
	if tl.wakeFn != nil {
		r.onWoke(tl)
		return
	}
	r.designating--
	if !r.busy {
		r.startRound(tl)
	}
}

// startRound starts a round led by leader (nil: no client thread).
func (r *Redo) startRound(leader *Timeline) {
	now := r.env.Now()
	r.busy = true
	r.target = r.lsn
	r.doSync = false
	r.leaderTL = leader
	for i := range r.waiters {
		if r.waiters[i].durable {
			r.doSync = true
			break
		}
	}
	r.tStart, r.tWrite, r.dqWrite, r.dqSync = now, now, 0, 0
	r.startOfRound = r.written
	if r.buffered {
		r.startOfRound = r.flushed
	}
	r.phases.Reset()
	r.phases.Add(now, CatGroupCommitWait)
	var from uint64
	write := false
	if r.buffered {
		r.written = r.target
		if r.doSync && r.target > r.flushed {
			from, write = r.flushed, true
		}
	} else if r.target > r.written {
		from, write = r.written, true
	}
	r.wrote = write
	r.pending = 0
	r.wsize = 0
	if write {
		start := from / r.block * r.block
		end := (r.target + r.block - 1) / r.block * r.block
		r.LSNWritten += r.target - from
		r.coveredLSN += r.target - from
		for start < end {
			off := (r.base + start) % r.ring
			n := min(end-start, r.ring-off)
			r.pending++
			r.wsize += int64(n)
			r.file.WriteAt(int64(redoHeader+off), int64(n), r.src, r.writeCB, nil)
			start += n
		}
		r.DevBytes += r.wsize
		r.TotalDevB += r.wsize
		r.Writes++
	}
	if r.doSync {
		if r.cpu != nil && r.leaderTL != nil {
			// The leader sleeps in its pwrite and in fdatasync's inode
			// write, and wakes from each before the next step.
			r.sleeper = sim.Waker{CPU: r.cpu, Thread: r.leaderTL.Thread, Cost: r.wakeup}
			r.file.SyncBy(&r.sleeper, r.syncCB, nil)
			return
		}
		r.file.Sync(r.syncCB, nil)
		return
	}
	if r.pending == 0 {
		r.tIO = now
		r.finishRound()
	}
}

func (r *Redo) onWrite(any) {
	r.pending--
	if r.pending > 0 {
		return
	}
	now := r.env.Now()
	r.tWrite = now
	r.dqWrite = r.vol.QueueTime()
	if !r.doSync {
		r.leaderWakes()
	}
}

// leaderWakes: the round's I/O is done; a leader thread needs a processor
// to release the lock.
func (r *Redo) leaderWakes() {
	r.tIO = r.env.Now()
	if r.cpu != nil && r.leaderTL != nil {
		d := r.wakeup
		if r.wrote {
			d += r.writeCPU
		}
		if r.doSync {
			d += r.syncCPU
		}
		r.cpu.WakeAs(r.leaderTL.Thread, d, r.finishCB, nil)
		return
	}
	r.finishRound()
}

func (r *Redo) onSync(any) {
	r.dqSync = r.vol.QueueTime()
	r.Syncs++
	r.leaderWakes()
}

func (r *Redo) finishRound() {
	now := r.env.Now()
	if r.target > r.written {
		r.written = r.target
	}
	if r.pending == 0 && r.tWrite > r.tStart {
		r.phases.Add(r.tStart.Add(r.dqWrite), CatDeviceQueue)
		r.phases.Add(r.tWrite, CatRedoWrite)
	}
	if r.doSync {
		r.flushed = r.target
		// The flush was submitted when the writes completed (tWrite, or
		// the round's start if it wrote nothing).
		r.phases.Add(r.tWrite.Add(r.dqSync), CatDeviceQueue)
		r.phases.Add(r.tIO, CatRedoFsync)
	} else {
		r.phases.Add(r.tIO, CatRedoWrite)
	}
	r.phases.Add(now, CatCPUWait) // the leader woke to release the lock
	// Collect the satisfied waiters, keep the rest in order.
	ready := r.ready[:0]
	r.ready = nil // owned by this call until the callbacks are done
	keep := r.waiters[:0]
	ntx := 0
	for _, w := range r.waiters {
		if w.durable && r.flushed >= w.lsn || !w.durable && r.written >= w.lsn {
			ready = append(ready, w)
			if w.tl != nil && w.durable {
				ntx++
			}
		} else {
			keep = append(keep, w)
		}
	}
	clear(r.waiters[len(keep):])
	r.waiters = keep
	if r.doSync && ntx > 0 {
		r.GroupSize.Record(int64(ntx))
	}
	for _, w := range ready {
		if w.tl != nil && w.tl.leadWake {
			r.designating-- // served before it ran: it will not lead
		}
	}
	if r.rec != nil {
		r.traceRound(now, ready)
	}
	r.busy = false
	synced := r.doSync
	ph := r.phases
	leader := r.leaderTL
	if len(r.waiters) > 0 {
		if r.cpu != nil && r.waiters[0].tl != nil {
			// release() frees the lock and wakes one waiter to lead, the
			// one at the head of its list (the last to arrive), unless one
			// woken before is still on its way; it runs when it gets a
			// processor, and a thread that asks first takes the lock.
			if r.designating == 0 {
				r.designate()
			}
		} else {
			r.startRound(r.waiters[0].tl)
		}
	}
	if synced && r.onFlushed != nil {
		r.onFlushed()
	}
	// Callbacks last: they may append and request again.
	for i := range ready {
		w := ready[i]
		ready[i] = redoWaiter{}
		if w.tl != nil {
			w.tl.Charge(&ph)
		}
		if r.cpu != nil && w.tl != nil && w.tl != leader && w.fn != nil {
			w.tl.wakeFn, w.tl.wakeArg = w.fn, w.arg
			if w.tl.leadWake {
				continue // already waking (onLeadWoke goes on)
			}
			r.cpu.WakeAs(w.tl.Thread, r.wakeup, r.wokeCB, w.tl)
			continue
		}
		if w.fn != nil {
			w.fn(w.arg)
		}
	}
	r.ready = ready[:0]
}

// designate wakes the last waiter not already waking to lead the next
// round (group_commit_lock::release: the head of m_waiters_list, which
// acquire pushes each sleeper onto).
func (r *Redo) designate() {
	for i := len(r.waiters) - 1; i >= 0; i-- {
		tl := r.waiters[i].tl
		if tl == nil || tl.leadWake {
			continue
		}
		tl.leadWake = true
		r.designating++
		r.cpu.WakeAs(tl.Thread, r.wakeup, r.leadCB, tl)
		return
	}
}

// setTrace records the log's group-commit rounds and syncs on rec.
func (r *Redo) setTrace(rec *trace.Recorder) {
	r.rec = rec
	if rec != nil {
		r.trGroup = rec.Track("commit/redo group")
		r.trFsync = rec.Track("fsync/redo")
	}
}

// traceRound records the round that just ended: its span from the leader's
// start to durable (or written), its fdatasync, and an arrow from each
// transaction it served to it.
func (r *Redo) traceRound(now sim.Time, ready []redoWaiter) {
	n := 0
	for i := range ready {
		if tl := ready[i].tl; tl != nil {
			n++
			if rec, tr := tl.Trace(); rec != nil {
				rec.Flow("log_write_up_to", tr, ready[i].at, r.trGroup, r.tStart)
			}
		}
	}
	name := "redo write"
	if r.doSync {
		name = "redo sync"
	}
	r.rec.Span(r.trGroup, name, r.tStart, now, trace.Int("group_size", int64(n)), trace.Int("bytes", r.wsize),
		trace.Int("lsn_bytes", int64(r.target-r.startOfRound)))
	if r.doSync {
		from := r.tWrite
		if r.buffered || r.wsize == 0 {
			from = r.tStart // a buffered log's fsync writes the data itself
		}
		r.rec.Span(r.trFsync, "fdatasync ib_logfile0", from, now, trace.Int("bytes", r.wsize))
	}
}

// writeCheckpoint makes lsn the checkpoint: it writes the checkpoint block
// of ib_logfile0 and syncs it, then calls done.
func (r *Redo) writeCheckpoint(lsn uint64, done func()) {
	r.ckptDone = done
	r.ckptLSN = lsn
	r.ckptAt = r.env.Now()
	r.file.WriteAt(int64(4096+(r.ckptN%2)*4096), 4096, r.src, nil, nil)
	r.ckptN++
	r.TotalDevB += 4096
	r.file.Sync(r.ckptCB, nil)
}

func (r *Redo) onCheckpointSynced(any) {
	if r.rec != nil {
		r.rec.Span(r.trFsync, "checkpoint block write + fdatasync", r.ckptAt, r.env.Now(), trace.Int("checkpoint_lsn", int64(r.ckptLSN)))
	}
	if r.ckptLSN > r.checkpoint {
		r.checkpoint = r.ckptLSN
	}
	d := r.ckptDone
	r.ckptDone = nil
	if d != nil {
		d()
	}
}

// resetStats starts the measured window.
func (r *Redo) resetStats() {
	r.DevBytes, r.LSNWritten, r.Syncs, r.Writes = 0, 0, 0, 0
	r.GroupSize.Reset()
	r.startLSN = r.lsn
}

// SetPoints replaces the capacity, sync point and async point that New
// computed with MariaDB's rule, for a server whose log_calc_max_ages
// differs (MySQL 5.1; see LogMaxAges51).
func (r *Redo) SetPoints(capacity, syncPoint, asyncPoint uint64) {
	r.capacity, r.syncPoint, r.asyncPoint = capacity, syncPoint, asyncPoint
}
