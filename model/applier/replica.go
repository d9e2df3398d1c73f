package applier

import (
	"fmt"
	"time"

	"simrun/model/applier/stream"
	"simrun/model/disk"
	"simrun/model/server"
	"simrun/sim"
	"simrun/sim/stats"
)

// scheduler is what the replica needs from an applier (MTA or CSA).
type scheduler interface {
	arrived()                       // new transactions are in the relay log
	appliedAdvanced()               // the applied watermark moved
	committed(seq int64, w *worker) // seq committed; w is the worker that waited for it, if any
	commitWorker() *worker          // a free worker to run an ordered commit (CSA), or nil
	workers() []*worker
	resetStats()
	metrics(m *Metrics, elapsed time.Duration)
	memoryLimit() int64
}

// Worker states, for the time accounting of worker_busy_pct and parked_s.
const (
	wsIdle     = iota // no transaction
	wsApply           // reading events and applying rows (CPU, including waiting for a core)
	wsLockWait        // blocked on a row lock held by an earlier, uncommitted transaction
	wsMemWait         // waiting for event memory
	wsParked          // applied, waiting for its turn to commit (commit order)
	wsCommit          // in the commit: engine commit, ordered stages, durability wait
	wsN
)

var workerStateNames = [wsN]string{"idle", "apply", "lock_wait", "mem_wait", "parked", "commit"}

// worker is one applier worker thread.
// newWorkers returns n workers and the free stack that hands out worker 0
// first (both appliers take free workers from the end of the stack).
func newWorkers(srv *server.Replica, n int) (ws, free []*worker) {
	ws = make([]*worker, n)
	free = make([]*worker, n)
	for i := range ws {
		ws[i] = &worker{id: int32(i), sess: srv.NewSession()}
		free[n-1-i] = ws[i]
	}
	return ws, free
}

type worker struct {
	burst burst                  // reading events (CSA)
	sess  *server.ReplicaSession // its connection: statement work and commit
	id    int32
	seq   int64 // transaction held, 0 if none
	state uint8
	since sim.Time
	acc   [wsN]int64
}

func (w *worker) set(now sim.Time, s uint8) {
	w.acc[w.state] += int64(now - w.since)
	w.state, w.since = s, now
}

// replica is the replication side of the replica: relay log,
// transaction states, watermarks and the statistics. It drives a
// server.Replica, which owns the processors, the RAID 0 set, the redo log
// and the ordered commit.
type replica struct {
	env  *sim.Env
	cfg  Config
	prof profile
	srv  *server.Replica
	cpu  *sim.CPU // srv's processors
	sch  scheduler

	nUpd             int
	nEvents          int
	trxBytes         int64
	wake             time.Duration
	applyTrx         time.Duration
	updDist          sim.Dist
	updRNG           *sim.Stream
	gtidCost         time.Duration // read + parse the GTID event
	restCost         time.Duration // read + parse the other events in the relay log
	inflateCost      time.Duration // compressed: decompress and decode the payload's events (worker)
	trxParseAllBytes time.Duration

	ring         *trxRing
	received     int64 // highest seq in the relay log
	lwmCommitted int64 // every seq <= it committed
	lwmApplied   int64 // every seq <= it applied
	regNext      int64 // next seq allowed to register for ordered commit
	regWaking    bool  // MTA: a parked worker is being woken to register

	// lock waiters (CSA): workers blocked on a row lock of an uncommitted trx
	lockWaiters []*worker

	// receiver (online)
	relay       *disk.File
	srcRelay    disk.Source
	inbox       []stream.Trx
	groupSizes  []int
	inboxHead   int
	groupHead   int
	recvBusy    bool
	recvBurst   burst
	recvGroup   int
	sinceSync   int
	lastSinkAt  sim.Time
	arrive      func(any)
	recvDone    func(any)
	relaySynced func(any)

	// statistics of the measured window
	since       sim.Time
	commits     int64
	commitSer   *stats.Series
	lagSer      *stats.GaugeSeries
	lagSamples  []float64
	maxLag      time.Duration
	maxMemory   int64
	regWaitSum  int64 // ns transactions waited between applied and registered
	regWaitN    int64
	depWaitSum  int64 // ns transactions waited for their dependencies (CSA window)
	depWaitN    int64
	lockWaitSum int64
	lockWaits   int64
	lat         stats.Histogram // ns from a worker taking a transaction to its commit

	// invariant counters (tests read them; they must stay zero)
	violations violations
	// trace, when set (tests), sees every start, apply and commit.
	trace func(ev traceEvent, seq int64)

	durable     func(any) // an unordered commit is durable (arg: its worker)
	sampleLagFn func(any)
	regWokenFn  func(any)
	lockGrantFn func(any)
}

// traceEvent is a step of a transaction's life, for invariant tests.
type traceEvent uint8

const (
	evStart traceEvent = iota
	evApplied
	evCommitted
)

// violations counts breaches of the model's invariants.
type violations struct {
	doubleCommit int64 // a transaction committed twice
	depStart     int64 // started before its dependencies were applied
	commitOrder  int64 // with commit order preserved, committed out of order
	memory       int64 // event memory above its limit
}

// newReplica builds the replica server (cores vCPUs, a RAID 0 set of
// cfg.Storage.Members volumes configured as vol) and the replication side
// that drives it.
func newReplica(env *sim.Env, cfg Config, cores int, vol disk.Config) (*replica, error) {
	p := profiles[cfg.Profile]
	r := &replica{
		env:  env,
		cfg:  cfg,
		prof: p,
		nUpd: cfg.Source.UpdatesPerTrx,
		wake: time.Duration(cfg.CPU.Wakeup),
	}
	srv, err := server.NewReplica(env, server.ReplicaConfig{
		Cores:               cores,
		Member:              vol,
		Members:             cfg.Storage.Members,
		Chunk:               int64(cfg.Storage.ChunkSize),
		Redo:                p.redo,
		Binlog:              p.binlog,
		PreserveCommitOrder: p.rpco,
		RedoPerRow:          int64(cfg.Storage.RedoPerUpdate),
		RedoPerTrx:          int64(cfg.Storage.RedoPerTrx),
		CommitCPU:           time.Duration(cfg.CPU.CommitPerTrx),
		Commit:              cfg.Commit,
	}, r.finishCommit)
	if err != nil {
		return nil, err
	}
	r.srv, r.cpu = srv, srv.CPU()
	r.nEvents, r.trxBytes, _ = cfg.relay(r.nUpd)
	r.applyTrx = time.Duration(cfg.CPU.ApplyPerTrx)
	r.updDist, _ = cfg.CPU.ApplyPerUpdate.Dist() // validated
	r.updRNG = env.Stream("applier/apply")
	r.gtidCost, r.restCost, r.inflateCost = cfg.parseCosts(r.nUpd)
	r.ring = newTrxRing(1024)
	r.regNext = 1
	r.durable = func(a any) { r.finishCommit(a.(*worker).seq) }
	r.arrive = r.onArrive
	r.recvDone = r.onReceived
	r.relaySynced = r.onRelaySynced
	r.sampleLagFn = r.sampleLag
	r.regWokenFn = r.regWoken
	r.lockGrantFn = r.lockGranted
	r.commitSer = stats.NewSeries(time.Duration(cfg.LagInterval), 4096)
	r.lagSer = stats.NewGaugeSeries(time.Duration(cfg.LagInterval), 4096)
	return r, nil
}

// burst is a thread's CPU job: sim.CPU reads it until the job is done, and
// a thread runs one job at a time, so each thread owns one.
type burst [1]time.Duration

// run runs d of the thread's CPU on the machine's processors.
func (r *replica) run(b *burst, d time.Duration, done func(any), arg any) {
	b[0] = d
	r.cpu.Run(b[:], done, arg)
}

// applyCost draws the CPU time of applying one transaction's rows.
func (r *replica) applyCost() time.Duration {
	d := r.applyTrx
	for range r.nUpd {
		d += sim.SampleDuration(r.updDist, r.updRNG)
	}
	return d
}

// bytesTime is the time to process n bytes at rate.
func bytesTime(n int64, rate sim.Rate) time.Duration {
	return time.Duration((n*int64(time.Second) + int64(rate) - 1) / int64(rate))
}

// load fills the relay log with a backlog.
func (r *replica) load(trx []stream.Trx) {
	for _, t := range trx {
		r.pushTrx(t)
	}
}

func (r *replica) pushTrx(t stream.Trx) {
	if t.Seq != r.received+1 {
		panic(fmt.Sprintf("applier: relay log got trx %d after %d", t.Seq, r.received))
	}
	st := trxState{lastGap: int32(t.Seq - t.Last), src: t.Committed, worker: -1}
	if t.RowDep > 0 {
		st.rowGap = int32(t.Seq - t.RowDep)
	}
	r.ring.push(st)
	r.received = t.Seq
}

// last returns last_committed of seq.
func (r *replica) last(seq int64) int64 { return seq - int64(r.ring.at(seq).lastGap) }

// rowDep returns the RowDep of seq (0 = none).
func (r *replica) rowDep(seq int64) int64 {
	g := r.ring.at(seq).rowGap
	if g == 0 {
		return 0
	}
	return seq - int64(g)
}

func (r *replica) isCommitted(seq int64) bool {
	return seq < r.ring.base || r.ring.at(seq).flags&fCommitted != 0
}

// ---- source side (online) ----

// sink receives the source's committed transactions; a group ships to the
// replica as one batch after the network latency.
func (r *replica) sink(t stream.Trx) {
	r.inbox = append(r.inbox, t)
	n := len(r.groupSizes)
	if n > r.groupHead && r.lastSinkAt == r.env.Now() {
		r.groupSizes[n-1]++
		return
	}
	r.lastSinkAt = r.env.Now()
	r.groupSizes = append(r.groupSizes, 1)
	r.env.AfterArg(time.Duration(r.cfg.NetworkLatency), r.arrive, nil)
}

func (r *replica) onArrive(any) {
	r.recvGroup++
	if !r.recvBusy {
		r.receiveNext()
	}
}

// receiveNext runs the receiver thread on the next batch: CPU per event,
// an append to the relay log, and every sync_relay_log events an fsync the
// receiver waits for.
func (r *replica) receiveNext() {
	if r.recvGroup == 0 {
		return
	}
	r.recvGroup--
	r.recvBusy = true
	n := r.groupSizes[r.groupHead]
	r.run(&r.recvBurst, time.Duration(n*r.nEvents)*time.Duration(r.cfg.CPU.ReceivePerEvent), r.recvDone, nil)
}

func (r *replica) onReceived(any) {
	n := r.groupSizes[r.groupHead]
	r.groupHead++
	for i := 0; i < n; i++ {
		r.pushTrx(r.inbox[r.inboxHead])
		r.inboxHead++
	}
	r.compactInbox()
	r.relay.Append(int64(n)*r.trxBytes, r.srcRelay, nil, nil)
	r.sch.arrived()
	r.sinceSync += n * r.nEvents
	if k := r.cfg.Storage.SyncRelayLog; k > 0 && r.sinceSync >= k {
		r.sinceSync = 0
		r.relay.Sync(r.relaySynced, nil)
		return
	}
	r.recvBusy = false
	r.receiveNext()
}

func (r *replica) onRelaySynced(any) {
	r.recvBusy = false
	r.receiveNext()
}

func (r *replica) compactInbox() {
	if r.inboxHead > 4096 && r.inboxHead*2 > len(r.inbox) {
		m := copy(r.inbox, r.inbox[r.inboxHead:])
		r.inbox = r.inbox[:m]
		r.inboxHead = 0
	}
	if r.groupHead > 4096 && r.groupHead*2 > len(r.groupSizes) {
		m := copy(r.groupSizes, r.groupSizes[r.groupHead:])
		r.groupSizes = r.groupSizes[:m]
		r.groupHead = 0
	}
}

// ---- apply and commit ----

// checkStart records a breach if seq starts before its dependencies are
// applied (CSA) or committed (MTA: the stricter rule it uses).
func (r *replica) checkStart(seq int64) {
	r.ring.at(seq).start = r.env.Now()
	if r.last(seq) > r.lwmApplied {
		r.violations.depStart++
	}
	if r.trace != nil {
		r.trace(evStart, seq)
	}
}

// applied marks seq's rows done (their redo is in the server's log): the
// applied watermark advances.
func (r *replica) applied(seq int64) {
	t := r.ring.at(seq)
	t.flags |= fApplied
	if r.trace != nil {
		r.trace(evApplied, seq)
	}
	if seq == r.lwmApplied+1 {
		for r.lwmApplied < r.ring.top && r.ring.at(r.lwmApplied+1).flags&fApplied != 0 {
			r.lwmApplied++
		}
		r.sch.appliedAdvanced()
	}
}

// waitTurn queues an applied transaction for the ordered commit (commit
// order preserved). parked says whether a worker thread waits with it
// (MTA): waking that thread costs a wake-up latency in the chain.
func (r *replica) waitTurn(seq int64) {
	t := r.ring.at(seq)
	t.flags |= fWaitReg
	t.mark = r.env.Now()
	r.tryRegister()
}

// tryRegister registers transactions in sequence order as long as the next
// one is waiting for its turn. A parked MTA worker must be woken first
// (one wake-up latency each, serially: Commit_order_manager signals the
// next worker's condition variable); the CSA commit-order manager enqueues
// the next session itself.
func (r *replica) tryRegister() {
	if !r.prof.rpco {
		return
	}
	for !r.regWaking && r.regNext <= r.ring.top {
		t := r.ring.at(r.regNext)
		if t.flags&fWaitReg == 0 {
			return
		}
		now := r.env.Now()
		if t.worker < 0 {
			// CSA: the commit runs in a worker thread; commits take the
			// next free worker before any new transaction does.
			w := r.sch.commitWorker()
			if w == nil {
				return
			}
			t.worker = w.id
			w.seq = r.regNext
			w.set(now, wsCommit)
		}
		if t.mark != now {
			// The thread that will commit is asleep (a parked MTA worker,
			// an idle CSA worker): it needs a processor to wake up.
			r.regWaking = true
			r.cpu.Wake(r.wake, r.regWokenFn, nil)
			return
		}
		r.register(r.regNext)
	}
}

func (r *replica) regWoken(any) {
	r.regWaking = false
	if r.regNext <= r.ring.top && r.ring.at(r.regNext).flags&fWaitReg != 0 {
		r.register(r.regNext)
	}
	r.tryRegister()
}

func (r *replica) register(seq int64) {
	t := r.ring.at(seq)
	now := r.env.Now()
	t.flags = t.flags&^fWaitReg | fRegistered
	r.regWaitSum += int64(now - t.mark)
	r.regWaitN++
	if w := r.sch.workers()[t.worker]; w.state != wsCommit {
		w.set(now, wsCommit)
	}
	r.regNext++
	r.srv.CommitInOrder(seq, r.trxBytes)
}

// execute runs the statement work of w's transaction on its session: the
// rows' CPU (after pre, the worker's own CPU before them), then their
// redo; done(w) runs after. extraRow adds one more row updated in the same
// transaction (the MTA worker's mysql.slave_worker_info row) at the cost
// of a sysbench row.
func (r *replica) execute(w *worker, pre time.Duration, extraRow bool, done func(any)) {
	cost, rows := pre+r.applyCost(), r.nUpd
	if extraRow {
		cost += sim.SampleDuration(r.updDist, r.updRNG)
		rows++
	}
	w.sess.Execute(cost, rows, done, w)
}

// commitUnordered commits w's transaction on its session (no commit
// order): the engine commit's CPU, then, with the redo log on, the wait
// for durability (log_write_up_to in the committing thread).
func (r *replica) commitUnordered(w *worker) {
	w.set(r.env.Now(), wsCommit)
	w.sess.Commit(r.durable, w)
}

// finishCommit marks seq committed and tells the scheduler.
func (r *replica) finishCommit(seq int64) {
	t := r.ring.at(seq)
	if t.flags&fCommitted != 0 {
		r.violations.doubleCommit++
		return
	}
	t.flags |= fCommitted
	if r.trace != nil {
		r.trace(evCommitted, seq)
	}
	now := r.env.Now()
	if r.prof.rpco && seq != r.lwmCommitted+1 {
		r.violations.commitOrder++
	}
	r.commits++
	r.commitSer.Add(now-r.since, 1)
	if t.start >= r.since {
		r.lat.Record(int64(now - t.start))
	}
	var w *worker
	if t.worker >= 0 {
		w = r.sch.workers()[t.worker]
	}
	if seq == r.lwmCommitted+1 {
		for r.ring.len() > 0 && r.ring.at(r.ring.base).flags&fCommitted != 0 {
			r.lwmCommitted = r.ring.base
			r.ring.popFront()
		}
	}
	if len(r.lockWaiters) > 0 {
		r.wakeLockWaiters()
	}
	r.sch.committed(seq, w)
}

// ---- row locks (CSA) ----

// lockBlocked reports whether seq must wait for a row lock: its RowDep has
// not committed yet (it is applied, since RowDep <= last_committed).
func (r *replica) lockBlocked(seq int64) bool {
	d := r.rowDep(seq)
	return d > 0 && !r.isCommitted(d)
}

func (r *replica) waitLock(w *worker) {
	w.set(r.env.Now(), wsLockWait)
	r.ring.at(w.seq).mark = r.env.Now()
	r.lockWaits++
	r.lockWaiters = append(r.lockWaiters, w)
}

func (r *replica) wakeLockWaiters() {
	n := 0
	for _, w := range r.lockWaiters {
		if r.lockBlocked(w.seq) {
			r.lockWaiters[n] = w
			n++
			continue
		}
		r.lockWaitSum += int64(r.env.Now() - r.ring.at(w.seq).mark)
		r.cpu.Wake(r.wake, r.lockGrantFn, w)
	}
	clear(r.lockWaiters[n:])
	r.lockWaiters = r.lockWaiters[:n]
}

// lockGranted is bound by the CSA (its worker's apply step).
func (r *replica) lockGranted(a any) { r.sch.(*csa).lockGranted(a) }

// ---- statistics ----

func (r *replica) resetStats() {
	now := r.env.Now()
	r.since = now
	r.commits = 0
	r.maxLag = 0
	r.lagSamples = r.lagSamples[:0]
	r.maxMemory = 0
	r.regWaitSum, r.regWaitN = 0, 0
	r.depWaitSum, r.depWaitN = 0, 0
	r.lockWaitSum, r.lockWaits = 0, 0
	r.lat.Reset()
	r.commitSer = stats.NewSeries(time.Duration(r.cfg.LagInterval), 4096)
	r.lagSer = stats.NewGaugeSeries(time.Duration(r.cfg.LagInterval), 4096)
	for _, w := range r.sch.workers() {
		w.set(now, w.state)
		w.acc = [wsN]int64{}
	}
	r.sch.resetStats()
	r.srv.ResetStats()
}

// lag returns the replication lag now: the age (since its source commit)
// of the oldest transaction received and not yet committed.
func (r *replica) lag() time.Duration {
	if r.ring.len() == 0 {
		return 0
	}
	return time.Duration(r.env.Now() - r.ring.at(r.ring.base).src)
}

func (r *replica) sampleLag(any) {
	l := r.lag()
	r.maxLag = max(r.maxLag, l)
	r.lagSamples = append(r.lagSamples, l.Seconds())
	r.env.AfterArg(time.Duration(r.cfg.LagInterval), r.sampleLagFn, nil)
}

// noteMemory records the memory held by events against the limit.
func (r *replica) noteMemory(held int64, alone bool) {
	r.maxMemory = max(r.maxMemory, held)
	if held > r.sch.memoryLimit() && !alone {
		r.violations.memory++
	}
}
