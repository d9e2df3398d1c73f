package applier

import (
	"time"

	"simrun/sim"
)

// Coordinator states, for its time accounting.
const (
	csBusy       = iota // reading events or dispatching (CPU)
	csWaitRelay         // the relay log has nothing more
	csWaitDep           // head-of-line: lwm < last_committed of the next transaction
	csWaitWorker        // every worker holds a transaction
	csWaitMem           // replica_pending_jobs_size_max reached
	csWaitGAQ           // GAQ full (replica_checkpoint_group) and its oldest transaction not committed
	csWaitCkpt          // a checkpoint's relay-log info commit waits for the redo flush
	csN
)

var mtaStateNames = [csN]string{"busy", "wait_relay", "hol_blocked", "wait_worker", "wait_memory", "wait_gaq", "wait_checkpoint_flush"}

// mta is the multi-threaded applier with LOGICAL_CLOCK scheduling
// (Mts_submode_logical_clock): one coordinator reads the relay log in
// order; it may hand the next transaction to a worker only once every
// transaction up to its last_committed has committed (lwm >= last), and
// only to a worker with an empty queue. While it waits, nothing behind the
// head is scheduled. A worker applies, then commits; with commit order
// preserved it parks after applying until its predecessor has entered the
// commit, and stays blocked until its group's commit ends.
type mta struct {
	r    *replica
	ws   []*worker
	free []*worker

	next    int64 // next transaction to schedule
	gtidOK  bool  // its GTID event has been read
	busy    bool
	waking  bool
	pending int64 // bytes of events queued to workers, not yet executed

	gaqHead     int64    // oldest transaction holding a GAQ slot
	lastCkpt    sim.Time // when the last checkpoint ran
	checkpoints int64

	burst burst // the coordinator's CPU job
	state uint8
	since sim.Time
	acc   [csN]int64

	gtidDone, dispatchDone, workerStart, applyDone, freeWorker, resume, ckptDone, ckptDurable func(any)
}

func newMTA(r *replica) *mta {
	m := &mta{r: r, next: 1, gaqHead: 1, state: csWaitRelay}
	m.ws, m.free = newWorkers(r.srv, r.cfg.Workers)
	m.gtidDone = m.onGTID
	m.dispatchDone = m.onDispatched
	m.workerStart = m.onWorkerStart
	m.applyDone = m.onApplied
	m.freeWorker = m.onFreeWorker
	m.resume = m.onResume
	m.ckptDone = m.onCheckpoint
	m.ckptDurable = m.onCheckpointDurable
	return m
}

func (m *mta) workers() []*worker { return m.ws }
func (m *mta) memoryLimit() int64 { return int64(m.r.cfg.MTA.PendingJobsSizeMax) }

// commitWorker is never needed: an MTA transaction keeps its worker.
func (m *mta) commitWorker() *worker { return nil }

func (m *mta) set(s uint8) {
	now := m.r.env.Now()
	m.acc[m.state] += int64(now - m.since)
	m.state, m.since = s, now
}

// step runs the coordinator until it must wait.
func (m *mta) step() {
	if m.busy || m.waking {
		return
	}
	r := m.r
	if !m.gtidOK {
		if m.next > r.received {
			m.set(csWaitRelay)
			return
		}
		if m.checkpoint() {
			return
		}
		m.busy = true
		m.set(csBusy)
		r.run(&m.burst, r.gtidCost, m.gtidDone, nil)
		return
	}
	if r.lwmCommitted < r.last(m.next) {
		m.set(csWaitDep)
		return
	}
	if len(m.free) == 0 {
		m.set(csWaitWorker)
		return
	}
	limit := m.memoryLimit()
	if m.pending > 0 && m.pending+r.trxBytes > limit {
		m.set(csWaitMem)
		return
	}
	w := m.free[len(m.free)-1]
	m.free = m.free[:len(m.free)-1]
	alone := m.pending == 0
	m.pending += r.trxBytes
	r.noteMemory(m.pending, alone)
	t := r.ring.at(m.next)
	t.flags |= fStarted
	t.worker = w.id
	w.seq = m.next
	r.checkStart(m.next)
	m.busy = true
	m.set(csBusy)
	r.run(&m.burst, time.Duration(r.cfg.CPU.SchedulePerTrx)+r.restCost, m.dispatchDone, w)
}

// checkpoint runs mta_checkpoint_routine where next_event calls it, before
// the next transaction's GTID event is read: forced when the GAQ is full,
// otherwise once checkpoint_period has passed since the last one. It frees
// the GAQ slots of the committed prefix (move_queue_head stops at the
// first transaction not done). It reports whether the coordinator is now
// busy with it or waiting for the GAQ's oldest transaction to commit.
func (m *mta) checkpoint() bool {
	r := m.r
	now := r.env.Now()
	full := m.next-m.gaqHead >= int64(r.cfg.MTA.CheckpointGroup)
	if !full && now-m.lastCkpt < sim.Time(r.cfg.MTA.CheckpointPeriod) {
		return false
	}
	done := min(r.lwmCommitted, m.next-1)
	if done < m.gaqHead {
		if full {
			m.set(csWaitGAQ)
			return true
		}
		m.lastCkpt = now
		return false
	}
	m.gaqHead = done + 1
	m.lastCkpt = now
	m.checkpoints++
	m.busy = true
	m.set(csBusy)
	r.run(&m.burst, time.Duration(r.cfg.CPU.Checkpoint), m.ckptDone, nil)
	return true
}

// onCheckpoint: the checkpoint's CPU is done. Unless the channel is
// GTID_ONLY, mta_checkpoint_routine then writes the relay-log info row
// (Relay_log_info::flush_info), which System_table_access::close_table
// commits as a transaction of the coordinator's own; with the redo log on
// (innodb_flush_log_at_trx_commit=1) that commit waits in trx_flush_logs
// until its redo is durable, and the coordinator resumes one wake-up
// later.
func (m *mta) onCheckpoint(any) {
	r := m.r
	if redo := r.srv.Redo(); redo != nil && !r.cfg.MTA.GTIDOnly {
		lsn := redo.Append(int64(r.cfg.Storage.RedoPerUpdate) + int64(r.cfg.Storage.RedoPerTrx))
		m.set(csWaitCkpt)
		redo.WaitDurable(lsn, m.ckptDurable, nil)
		return
	}
	m.busy = false
	m.step()
}

func (m *mta) onCheckpointDurable(any) {
	m.busy = false
	m.waking = true
	m.r.cpu.Wake(m.r.wake, m.resume, nil)
}

func (m *mta) onGTID(any) {
	m.busy = false
	m.gtidOK = true
	m.step()
}

func (m *mta) onDispatched(a any) {
	m.busy = false
	m.gtidOK = false
	m.next++
	m.r.cpu.Wake(m.r.wake, m.workerStart, a)
	m.step()
}

// kick wakes the coordinator if what it waits for may have happened; the
// coordinator sleeps on a condition variable, so it resumes one wake-up
// latency later. Waiting for a free worker it does not sleep:
// get_least_occupied_worker polls get_free_worker in a sched_yield loop,
// so it sees a freed worker at once (the spin's CPU is not charged).
func (m *mta) kick() {
	if m.busy || m.waking {
		return
	}
	r := m.r
	switch m.state {
	case csWaitRelay:
		if m.next > r.received {
			return
		}
	case csWaitDep:
		if r.lwmCommitted < r.last(m.next) {
			return
		}
	case csWaitWorker:
		if len(m.free) > 0 {
			m.step()
		}
		return
	case csWaitMem:
		if m.pending > 0 && m.pending+r.trxBytes > m.memoryLimit() {
			return
		}
	case csWaitGAQ:
		if r.lwmCommitted < m.gaqHead {
			return
		}
	default:
		return
	}
	m.waking = true
	r.cpu.Wake(r.wake, m.resume, nil)
}

func (m *mta) onResume(any) {
	m.waking = false
	m.step()
}

// onWorkerStart: the worker applies the transaction. Unless the channel
// is GTID_ONLY, its Xid event also updates the worker's row of
// mysql.slave_worker_info inside the transaction (commit_positions ->
// Slave_worker::flush_info): one more row update, CPU and redo.
func (m *mta) onWorkerStart(a any) {
	w := a.(*worker)
	r := m.r
	w.set(r.env.Now(), wsApply)
	r.execute(w, r.inflateCost, !r.cfg.MTA.GTIDOnly, m.applyDone)
}

func (m *mta) onApplied(a any) {
	w := a.(*worker)
	r := m.r
	m.pending -= r.trxBytes
	if m.state == csWaitMem {
		m.kick()
	}
	r.applied(w.seq)
	if r.prof.rpco {
		w.set(r.env.Now(), wsParked)
		r.waitTurn(w.seq)
		return
	}
	r.commitUnordered(w)
}

func (m *mta) appliedAdvanced() {}

func (m *mta) arrived() {
	if m.state == csWaitRelay {
		m.kick()
	}
}

// committed frees the worker that waited in the commit (it is signalled,
// hence the wake-up latency) and may unblock the coordinator.
func (m *mta) committed(seq int64, w *worker) {
	if w != nil {
		m.r.cpu.Wake(m.r.wake, m.freeWorker, w)
	}
	if m.state == csWaitDep || m.state == csWaitGAQ {
		m.kick()
	}
}

func (m *mta) onFreeWorker(a any) {
	w := a.(*worker)
	w.set(m.r.env.Now(), wsIdle)
	w.seq = 0
	m.free = append(m.free, w)
	m.kick()
}

func (m *mta) resetStats() {
	m.set(m.state)
	m.acc = [csN]int64{}
	m.checkpoints = 0
}

func (m *mta) metrics(out *Metrics, elapsed time.Duration) {
	m.set(m.state)
	el := float64(elapsed)
	out.MTAMetrics = &MTAMetrics{
		CoordinatorBusyPct: 100 * float64(m.acc[csBusy]) / el,
		HOLBlockedS:        time.Duration(m.acc[csWaitDep]).Seconds(),
		HOLBlockedPct:      100 * float64(m.acc[csWaitDep]) / el,
		WaitWorkerS:        time.Duration(m.acc[csWaitWorker]).Seconds(),
		WaitMemoryS:        time.Duration(m.acc[csWaitMem]).Seconds(),
		WaitRelayS:         time.Duration(m.acc[csWaitRelay]).Seconds(),
		GAQWaitS:           time.Duration(m.acc[csWaitGAQ]).Seconds(),
		CheckpointWaitS:    time.Duration(m.acc[csWaitCkpt]).Seconds(),
		Checkpoints:        m.checkpoints,
	}
	out.MemoryLimitBytes = m.memoryLimit()
}
