package applier

import (
	"time"

	"simrun/sim"
)

// csa is the Change Stream Applier (APPLIER_VERSION=2). A scheduler
// thread reads only GTID events (their transaction_length lets it skip the
// rest) into a window of pending transactions. A transaction is ready once
// every transaction up to its last_committed has been applied; any ready
// transaction may be handed to a free worker, lowest sequence number
// first, even past earlier ones still waiting. The worker reads the
// transaction's events from the relay log just before executing them and
// frees them after use; the events held never exceed event_memory_limit.
// Applying and committing are decoupled: with commit order preserved an
// applied transaction waits for its turn without holding its worker (the
// worker takes the next ready transaction); when its turn comes, a free
// worker runs its commit, before any new transaction is dispatched. A transaction that really conflicts on a row with an
// earlier one that has applied but not committed waits on the row lock,
// holding its worker.
type csa struct {
	r    *replica
	ws   []*worker
	free []*worker

	readHead int64 // last transaction whose GTID event was read
	burst    burst // the scheduler's CPU job
	busy     bool
	waking   bool
	ready    *sim.Heap[int64]   // sequence numbers ready to apply
	blocked  *sim.Heap[depItem] // waiting for their dependencies
	memory   int64              // all event bytes held: window GTID events + events being executed
	execMem  int64              // event bytes of transactions being executed
	memWait  []*worker
	memHead  int

	busyNs   int64
	busyFrom sim.Time

	readDone, dispatchDone, workerStart, eventsRead, applyDone, resume, memGranted func(any)
}

func newCSA(r *replica) *csa {
	c := &csa{r: r, ready: sim.NewHeap(func(a, b int64) bool { return a < b }), blocked: sim.NewHeap(depItem.less)}
	c.ws, c.free = newWorkers(r.srv, r.cfg.Workers)
	c.readDone = c.onRead
	c.dispatchDone = c.onDispatched
	c.workerStart = c.onWorkerStart
	c.eventsRead = c.onEventsRead
	c.applyDone = c.onApplied
	c.resume = c.onResume
	c.memGranted = c.onMemGranted
	return c
}

func (c *csa) workers() []*worker { return c.ws }
func (c *csa) memoryLimit() int64 { return int64(c.r.cfg.CSA.EventMemoryLimit) }

func (c *csa) setBusy(b bool) {
	now := c.r.env.Now()
	if c.busy {
		c.busyNs += int64(now - c.busyFrom)
	}
	c.busy, c.busyFrom = b, now
}

// step runs the scheduler until it has nothing to do: dispatch a ready
// transaction to a free worker first, else read the next GTID event.
func (c *csa) step() {
	if c.busy || c.waking {
		return
	}
	r := c.r
	now := r.env.Now()
	if c.ready.Len() > 0 && len(c.free) > 0 {
		seq := c.ready.Pop()
		w := c.free[len(c.free)-1]
		c.free = c.free[:len(c.free)-1]
		t := r.ring.at(seq)
		t.flags |= fStarted
		t.worker = w.id
		r.depWaitSum += int64(now - t.mark)
		r.depWaitN++
		w.seq = seq
		r.checkStart(seq)
		c.setBusy(true)
		r.run(&c.burst, time.Duration(r.cfg.CPU.SchedulePerTrx), c.dispatchDone, w)
		return
	}
	gtid := int64(r.cfg.Events.GTID)
	if c.readHead < r.received && c.readHead-r.lwmCommitted < int64(r.cfg.CSA.Window) &&
		(c.memory == 0 || c.memory+gtid <= c.memoryLimit()) {
		// The GTID event's memory is taken when the read starts, so that
		// a transaction admitted meanwhile cannot push it over the limit.
		alone := c.memory == 0
		c.memory += gtid
		r.noteMemory(c.memory, alone)
		c.setBusy(true)
		r.run(&c.burst, r.gtidCost, c.readDone, nil)
	}
}

func (c *csa) onRead(any) {
	r := c.r
	c.setBusy(false)
	c.readHead++
	seq := c.readHead
	t := r.ring.at(seq)
	t.mark = r.env.Now()
	if last := r.last(seq); last <= r.lwmApplied {
		c.ready.Push(seq)
	} else {
		c.blocked.Push(depItem{last, seq})
	}
	c.step()
}

func (c *csa) onDispatched(a any) {
	c.setBusy(false)
	c.r.cpu.Wake(c.r.wake, c.workerStart, a)
	c.step()
}

func (c *csa) kick() {
	if c.busy || c.waking {
		return
	}
	c.waking = true
	c.r.cpu.Wake(c.r.wake, c.resume, nil)
}

func (c *csa) onResume(any) {
	c.waking = false
	c.step()
}

// onWorkerStart: the worker reads its transaction's events (all but the
// GTID event, which the scheduler holds) once memory allows.
func (c *csa) onWorkerStart(a any) {
	w := a.(*worker)
	r := c.r
	need := r.trxBytes - int64(r.cfg.Events.GTID)
	if c.memHead < len(c.memWait) || !c.fits(need) {
		w.set(r.env.Now(), wsMemWait)
		c.memWait = append(c.memWait, w)
		return
	}
	c.admit(w)
}

// fits says whether a transaction's events (need bytes) may be read now:
// within the limit, or alone (no other transaction executing) so that a
// transaction larger than the limit, or a window full of GTID events,
// cannot stall the applier.
func (c *csa) fits(need int64) bool {
	return c.execMem == 0 || c.memory+need <= c.memoryLimit()
}

func (c *csa) admit(w *worker) {
	r := c.r
	need := r.trxBytes - int64(r.cfg.Events.GTID)
	alone := c.execMem == 0
	c.memory += need
	c.execMem += need
	r.noteMemory(c.memory, alone)
	w.set(r.env.Now(), wsApply)
	r.run(&w.burst, r.restCost+r.inflateCost, c.eventsRead, w)
}

// grantMemory admits waiting workers in order while memory allows.
func (c *csa) grantMemory() {
	r := c.r
	need := r.trxBytes - int64(r.cfg.Events.GTID)
	for c.memHead < len(c.memWait) {
		if !c.fits(need) {
			return
		}
		w := c.memWait[c.memHead]
		c.memWait[c.memHead] = nil
		c.memHead++
		c.memory += need // reserved now, counted at admission
		c.execMem += need
		r.cpu.Wake(r.wake, c.memGranted, w)
	}
	c.memWait = c.memWait[:0]
	c.memHead = 0
}

func (c *csa) onMemGranted(a any) {
	w := a.(*worker)
	r := c.r
	need := r.trxBytes - int64(r.cfg.Events.GTID)
	c.memory -= need
	c.execMem -= need
	c.admit(w)
}

func (c *csa) onEventsRead(a any) {
	w := a.(*worker)
	r := c.r
	if r.lockBlocked(w.seq) {
		r.waitLock(w)
		return
	}
	r.execute(w, 0, false, c.applyDone)
}

// lockGranted resumes a worker whose row lock was released.
func (c *csa) lockGranted(a any) {
	w := a.(*worker)
	w.set(c.r.env.Now(), wsApply)
	c.r.execute(w, 0, false, c.applyDone)
}

func (c *csa) onApplied(a any) {
	w := a.(*worker)
	r := c.r
	c.memory -= r.trxBytes
	c.execMem -= r.trxBytes - int64(r.cfg.Events.GTID)
	if c.memHead < len(c.memWait) {
		c.grantMemory()
	}
	seq := w.seq
	r.applied(seq)
	if r.prof.rpco {
		// The transaction waits for its turn without its worker.
		r.ring.at(seq).worker = -1
		r.waitTurn(seq)
		c.release(w)
		return
	}
	r.commitUnordered(w)
}

// release returns w to the pool. A commit waiting for a thread takes it
// first; otherwise the scheduler may hand it a new transaction.
func (c *csa) release(w *worker) {
	w.set(c.r.env.Now(), wsIdle)
	w.seq = 0
	c.free = append(c.free, w)
	c.r.tryRegister()
	c.kick()
}

func (c *csa) commitWorker() *worker {
	if len(c.free) == 0 {
		return nil
	}
	w := c.free[len(c.free)-1]
	c.free = c.free[:len(c.free)-1]
	return w
}

// appliedAdvanced moves transactions whose dependencies are now applied
// to the ready set.
func (c *csa) appliedAdvanced() {
	r := c.r
	moved := false
	for c.blocked.Len() > 0 && c.blocked.Min().last <= r.lwmApplied {
		c.ready.Push(c.blocked.Pop().seq)
		moved = true
	}
	if moved {
		c.kick()
	}
}

func (c *csa) arrived() { c.kick() }

func (c *csa) committed(seq int64, w *worker) {
	if w != nil {
		c.release(w)
		return
	}
	c.kick() // the window may have room
}

func (c *csa) resetStats() {
	c.setBusy(c.busy)
	c.busyNs = 0
}

func (c *csa) metrics(out *Metrics, elapsed time.Duration) {
	c.setBusy(c.busy)
	out.CSAMetrics = &CSAMetrics{SchedulerBusyPct: 100 * float64(c.busyNs) / float64(elapsed), Window: int64(c.r.cfg.CSA.Window)}
	out.MemoryLimitBytes = c.memoryLimit()
}
