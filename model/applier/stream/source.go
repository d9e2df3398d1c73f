package stream

import (
	"fmt"
	"time"

	"simrun/sim"
)

// Trx is one source transaction as its GTID event describes it.
type Trx struct {
	Seq       int64    // sequence_number, 1-based, in binlog order
	Last      int64    // last_committed: the replica may start it once every Seq <= Last is done
	RowDep    int64    // latest earlier transaction writing one of its rows (0: none)
	Committed sim.Time // when the source committed it (original_commit_timestamp)
}

// Source is the source server and its clients, wired to an Env. Every
// committed transaction is handed to the sink in sequence order.
type Source struct {
	env  *sim.Env
	cfg  Config
	sink func(Trx)
	keys keyGen
	rng  *sim.Stream
	sync sim.Dist
	cpu  *sim.Station

	threads []*thread
	rowsN   int
	stopped bool

	locks *lockTable // row -> holder
	woken []*thread

	queue     []*thread // prepared, waiting for the group commit
	group     []*thread // the group being synced
	gcBusy    bool
	seq       int64 // last sequence number assigned
	committed int64 // commit parent: last sequence number committed

	history      *genTable
	historyStart int64
	writers      []writer // direct-mapped last-writer table for RowDep

	groups     int64
	groupTrx   int64
	lockWaits  int64
	deadlocks  int64
	syncDone   func(any)
	onExecuted func(any)
	onCPUDone  func(any)
	onRestart  func(any)
}

type writer struct {
	key uint64 // row key + 1 (0 = empty)
	seq int64
}

// writersBits sizes the last-writer table: 64Ki rows, enough to remember
// every row written by the last few thousand transactions (older writers
// have long committed on any replica that matters).
const writersBits = 16

type thread struct {
	s         *Source
	table     uint64
	rows      []uint64
	next      int     // next statement to execute
	runTo     int     // statements [next, runTo) are executing
	waitingOn *thread // holder of the row lock it waits for
	last      int64   // commit parent at prepare
	seq       int64
	rowDep    int64
	lastW     int64 // writeset last_committed candidate
	wait      []*thread
}

// New builds the source on env; committed transactions go to sink.
func New(env *sim.Env, cfg Config, sink func(Trx)) (*Source, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	d, err := cfg.SyncLatency.Dist()
	if err != nil {
		return nil, fmt.Errorf("sync_latency: %w", err)
	}
	if sink == nil {
		panic("stream: nil sink")
	}
	s := &Source{
		env:     env,
		cfg:     cfg,
		sink:    sink,
		keys:    newKeyGen(cfg, env.Stream("applier/source/keys")),
		rng:     env.Stream("applier/source/sync"),
		sync:    d,
		cpu:     sim.NewStation(env, cfg.Cores),
		rowsN:   cfg.UpdatesPerTrx,
		locks:   newLockTable(cfg.Threads * cfg.UpdatesPerTrx),
		history: newGenTable(min(cfg.HistorySize, 1<<16)), // grows with the rows it holds
		writers: make([]writer, 1<<writersBits),
	}
	s.syncDone = s.onSyncDone
	s.onExecuted = s.executed
	s.onCPUDone = s.cpuDone
	s.onRestart = s.restart
	for range cfg.Threads {
		s.threads = append(s.threads, &thread{s: s, rows: make([]uint64, cfg.UpdatesPerTrx)})
	}
	return s, nil
}

// Start starts every client thread at the current time.
func (s *Source) Start() {
	for _, t := range s.threads {
		s.begin(t)
	}
}

// Stop makes threads stop after their current transaction.
func (s *Source) Stop() { s.stopped = true }

// Committed returns the number of transactions committed so far.
func (s *Source) Committed() int64 { return s.committed }

// Stats are the source's counters since the start.
type Stats struct {
	Trx       int64
	Groups    int64
	LockWaits int64
	Deadlocks int64
}

// Stats returns the counters.
func (s *Source) Stats() Stats {
	return Stats{Trx: s.committed, Groups: s.groups, LockWaits: s.lockWaits, Deadlocks: s.deadlocks}
}

// begin draws the transaction's rows and starts executing it.
func (s *Source) begin(t *thread) {
	if s.stopped {
		return
	}
	t.table = uint64(s.keys.table())
	for i := range t.rows {
		t.rows[i] = t.table<<40 | s.keys.row()
	}
	t.next = 0
	s.proceed(t)
}

// proceed takes the locks of the statements from t.next on, up to the
// first row another transaction holds, and executes those statements: a
// round trip each, then their CPU. Statements before a conflict run; the
// conflicting one waits (blocked) for the holder to commit, as InnoDB row
// locks make it.
func (s *Source) proceed(t *thread) {
	n := len(t.rows)
	k := t.next
	for ; k < n; k++ {
		if h := s.locks.get(t.rows[k]); h != nil && h != t {
			break
		}
		s.locks.set(t.rows[k], t)
	}
	t.runTo = k
	stmts := k - t.next
	if t.next == 0 {
		stmts++ // BEGIN
	}
	if stmts == 0 {
		s.blocked(t)
		return
	}
	s.env.AfterArg(time.Duration(stmts)*time.Duration(s.cfg.RoundTrip), s.onExecuted, t)
}

// executed: the statements' round trips are over; now their CPU (and the
// COMMIT statement's, when this is the last part).
func (s *Source) executed(a any) {
	t := a.(*thread)
	stmts := t.runTo - t.next
	if t.next == 0 {
		stmts++
	}
	if t.runTo == len(t.rows) {
		stmts++ // COMMIT
	}
	s.cpu.Submit(time.Duration(stmts)*time.Duration(s.cfg.CPUPerStmt), s.onCPUDone, t)
}

// cpuDone: either the transaction reaches COMMIT and queues for the binlog
// group commit with its commit parent, or it reached a locked row.
func (s *Source) cpuDone(a any) {
	t := a.(*thread)
	t.next = t.runTo
	if t.next < len(t.rows) {
		s.blocked(t)
		return
	}
	t.last = s.committed
	s.queue = append(s.queue, t)
	if !s.gcBusy {
		s.startGroup()
	}
}

// blocked makes t wait for the holder of its next row, unless that would
// close a cycle of waits: then InnoDB's deadlock detector rolls t back and
// the client retries with a new transaction (sysbench ignores error 1213).
func (s *Source) blocked(t *thread) {
	h := s.locks.get(t.rows[t.next])
	if h == nil || h == t {
		s.proceed(t)
		return
	}
	for x := h; x != nil; x = x.waitingOn {
		if x == t {
			s.deadlocks++
			s.release(t)
			s.env.AfterArg(time.Duration(s.cfg.RoundTrip), s.onRestart, t)
			return
		}
	}
	s.lockWaits++
	t.waitingOn = h
	h.wait = append(h.wait, t)
}

func (s *Source) startGroup() {
	s.gcBusy = true
	s.group, s.queue = s.queue, s.group[:0]
	for _, t := range s.group {
		s.seq++
		t.seq = s.seq
		s.track(t)
	}
	s.env.AfterArg(sim.SampleDuration(s.sync, s.rng), s.syncDone, nil)
}

// track computes last_committed and RowDep at sequence assignment, in
// binlog order (the flush stage, as MySQL does).
func (s *Source) track(t *thread) {
	seq := t.seq
	rowDep := int64(0)
	for _, r := range t.rows {
		w := &s.writers[mix(r)&(1<<writersBits-1)]
		if w.key == r+1 && w.seq < seq && w.seq > rowDep {
			rowDep = w.seq
		}
		w.key, w.seq = r+1, seq
	}
	t.rowDep = rowDep
	last := t.last
	if s.cfg.Dependency == "writeset" {
		exceeds := s.history.len()+len(t.rows) > s.cfg.HistorySize
		parent := s.historyStart
		for _, r := range t.rows {
			if prev, ok := s.history.get(r); ok {
				if prev > parent && prev < seq {
					parent = prev
				}
				s.history.set(r, seq)
			} else if !exceeds {
				s.history.set(r, seq)
			}
		}
		last = min(last, parent)
		if exceeds {
			s.historyStart = seq
			s.history.clear()
		}
	}
	t.lastW = last
}

func (s *Source) onSyncDone(any) {
	now := s.env.Now()
	s.groups++
	s.groupTrx += int64(len(s.group))
	s.committed = s.group[len(s.group)-1].seq
	for _, t := range s.group {
		s.sink(Trx{Seq: t.seq, Last: t.lastW, RowDep: t.rowDep, Committed: now})
	}
	for _, t := range s.group {
		s.release(t)
		s.env.AfterArg(time.Duration(s.cfg.RoundTrip), s.onRestart, t)
	}
	clear(s.group)
	s.group = s.group[:0]
	s.gcBusy = false
	if len(s.queue) > 0 {
		s.startGroup()
	}
}

// release frees t's row locks and lets the transactions waiting for t
// retry, in the order they started waiting.
func (s *Source) release(t *thread) {
	for _, r := range t.rows {
		s.locks.del(r, t)
	}
	s.woken = append(s.woken[:0], t.wait...)
	clear(t.wait)
	t.wait = t.wait[:0]
	for _, x := range s.woken {
		x.waitingOn = nil
	}
	for _, x := range s.woken {
		s.blocked(x)
	}
	clear(s.woken)
}

func (s *Source) restart(a any) { s.begin(a.(*thread)) }

// mix is a 64-bit finaliser (splitmix64) spreading row keys over the
// last-writer table.
func mix(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}

// MeanGroupSize returns the mean number of transactions per binlog group.
func (s *Source) MeanGroupSize() float64 {
	if s.groups == 0 {
		return 0
	}
	return float64(s.groupTrx) / float64(s.groups)
}

// Generate runs a source on its own Env (seeded with seed) until n
// transactions have committed and returns them in sequence order, with
// the source's mean binlog group size. It is how a backlog relay log is
// filled before the replica starts.
func Generate(cfg Config, seed uint64, n int) ([]Trx, float64, error) {
	env := sim.New(seed)
	out := make([]Trx, 0, n)
	s, err := New(env, cfg, func(t Trx) {
		if len(out) < n {
			out = append(out, t)
		}
	})
	if err != nil {
		return nil, 0, err
	}
	s.Start()
	env.RunWhile(func() bool { return len(out) < n })
	return out, s.MeanGroupSize(), nil
}
