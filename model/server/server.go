package server

import (
	"fmt"
	"math"
	"time"

	"simrun/internal/trace"
	"simrun/model/commit"
	"simrun/model/disk"
	"simrun/model/engine"
	"simrun/model/workload"
	"simrun/sim"
)

// Server is one database server whatever drives it: the machine's vCPUs
// (sim.CPU), its volume, the engine (buffer pool, redo, page cleaner,
// doublewrite) and the commit pipeline. Drivers talk to it through
// Sessions only.
type Server struct {
	env  *sim.Env
	cpu  *sim.CPU
	vol  *disk.Volume
	eng  *engine.Engine
	pipe *commit.Pipeline
	ecfg engine.Config

	flushDispatch   time.Duration // Machine.FlushDispatch
	flushDispatches int64         // flushes dispatched since ResetStats
	bg              *background   // Machine.Background; nil: none
}

// registerSources registers the I/O accounting names on vol.
func registerSources(vol *disk.Volume) (engine.Sources, commit.Sources) {
	return engine.Sources{
			Redo:        vol.RegisterSource("redo"),
			PageFlush:   vol.RegisterSource("page_flush"),
			Doublewrite: vol.RegisterSource("doublewrite"),
			PageRead:    vol.RegisterSource("page_read"),
		}, commit.Sources{
			BinlogFile:  vol.RegisterSource("binlog_file"),
			BinlogPages: vol.RegisterSource("binlog_pages"),
		}
}

// Machine is the hardware a server runs on: its vCPUs (SMT threads count
// as CPU servers) and the operating system's scheduler for them.
type Machine struct {
	Cores int
	CPU   sim.CPUConfig
	// FlushDispatch is the CPU the host's block layer spends on each
	// device cache flush outside the thread that syncs: Linux dispatches
	// every flush request from a kblockd worker (blk-flush's requeue
	// work), on the submitting vCPU, its virtio notification included.
	// The worker is a job of its own on the CPU; the flush's latency is
	// the volume's, which a fio calibration measured with the worker on
	// its path. 0: none.
	FlushDispatch time.Duration
	// Background is the host's kernel work that takes the vCPUs from the
	// threads whatever they do (docs/kernel.md, "Background kernel work").
	Background Background
}

// MaxFlushDispatch bounds Machine.FlushDispatch.
const MaxFlushDispatch = time.Millisecond

// New builds a server with cores vCPUs under sim.CPU's WakeFirst rule on
// vol, holding the tables of data, configured by eng and cc. NewOn chooses
// the scheduler.
func New(env *sim.Env, cores int, vol *disk.Volume, eng engine.Config, cc commit.Config, data workload.Sysbench) (*Server, error) {
	return NewOn(env, Machine{Cores: cores}, vol, eng, cc, data)
}

// NewOn builds a server on machine m.
func NewOn(env *sim.Env, m Machine, vol *disk.Volume, eng engine.Config, cc commit.Config, data workload.Sysbench) (*Server, error) {
	cores := m.Cores
	if cores < 1 || cores > 4096 {
		return nil, fmt.Errorf("cores: must be in [1, 4096], got %d", cores)
	}
	cpu, err := sim.NewCPUWithPolicy(env, cores, m.CPU)
	if err != nil {
		return nil, fmt.Errorf("scheduler: %w", err)
	}
	if m.FlushDispatch < 0 || m.FlushDispatch > MaxFlushDispatch {
		return nil, fmt.Errorf("flush_dispatch: must be in [0, %v], got %v", sim.Duration(MaxFlushDispatch), sim.Duration(m.FlushDispatch))
	}
	if err := m.Background.Validate(); err != nil {
		return nil, err
	}
	if err := eng.Validate(); err != nil {
		return nil, fmt.Errorf("engine: %w", err)
	}
	if err := cc.Validate(); err != nil {
		return nil, fmt.Errorf("commit: %w", err)
	}
	esrc, csrc := registerSources(vol)
	e, err := engine.New(env, eng, data, vol, esrc, cc.FlushLogAtTrxCommit.LogBufferedByDefault())
	if err != nil {
		return nil, err
	}
	s := &Server{env: env, vol: vol, eng: e, ecfg: eng}
	s.cpu = cpu
	if m.CPU.IRQCost > 0 { // the volume's completions interrupt a vCPU
		vol.SetInterrupt(cpu.Interrupt)
	}
	if m.FlushDispatch > 0 { // a kernel worker dispatches each flush
		s.flushDispatch = m.FlushDispatch
		vol.SetFlushDispatch(s.dispatchFlush)
	}
	if m.Background.Burst > 0 {
		s.bg = &background{cfg: m.Background, cpu: cpu}
	}
	e.SetCPU(s.cpu)
	s.pipe = commit.New(env, e, s.cpu, vol, cc, csrc, eng.CPU.Wakeup.D())
	return s, nil
}

// Engine returns the engine (for tests and reports).
func (s *Server) Engine() *engine.Engine { return s.eng }

// Pipeline returns the commit pipeline (for tests and reports).
func (s *Server) Pipeline() *commit.Pipeline { return s.pipe }

// Binlog reports whether the server writes a binary log.
func (s *Server) Binlog() bool { return s.pipe.Mode() != commit.BinlogOff }

// Start starts the background threads (page cleaner, log flush, binlog
// write-back).
func (s *Server) Start() {
	s.eng.Start()
	s.pipe.Start()
	if s.bg != nil {
		s.bg.start(s.env)
	}
}

// SetTrace records the engine's and the pipeline's work, then the volume's
// I/Os, on rec (nil: off), in that track order. Call it before Start.
func (s *Server) SetTrace(rec *trace.Recorder) {
	s.eng.SetTrace(rec)
	s.pipe.SetTrace(rec)
	s.vol.SetTrace(rec)
}

// dispatchFlush runs the kernel worker that dispatches a flush request: an
// anonymous job on the CPU (no lag, no caches), which delays no one's
// flush but takes its processor time from the threads.
func (s *Server) dispatchFlush() {
	s.flushDispatches++
	s.cpu.Wake(s.flushDispatch, nil, nil)
}

// FlushDispatchCPU is the CPU the flush dispatches took since ResetStats.
func (s *Server) FlushDispatchCPU() time.Duration {
	return time.Duration(s.flushDispatches) * s.flushDispatch
}

// BackgroundCPU is the CPU the background thread's bursts took since
// ResetStats (those finished).
func (s *Server) BackgroundCPU() time.Duration {
	if s.bg == nil {
		return 0
	}
	return s.bg.ran
}

// ResetStats starts the measured window.
func (s *Server) ResetStats() {
	s.flushDispatches = 0
	if s.bg != nil {
		s.bg.ran = 0
	}
	s.cpu.ResetStats()
	s.vol.ResetStats()
	s.eng.ResetStats()
	s.pipe.ResetStats()
}

// Work is the statement work of one transaction as a driver hands it to
// the server: the rows its statements change (the server maps them to
// pages, redo and CPU), the binlog bytes its events take, the CPU the
// client spends per query on the same machine and the network round trips.
type Work struct {
	Stmts       []workload.Stmt
	BinlogBytes int64
	ClientCPU   time.Duration // per query (BEGIN, each statement, COMMIT)
	Wire        time.Duration // round trips of all the queries
}

// Session is one connection: a driver thread's transactions run on it one
// at a time. Its Timeline charges every stretch of the current
// transaction to a breakdown category.
type Session struct {
	s     *Server
	w     *Work
	ctx   commit.Tx
	pages []int32
	qcpu  []time.Duration // CPU of each query, client part included
	cpu   time.Duration
	th    sim.CPUThread // the connection's thread, whose lag the scheduler keeps
	// With a client thread (workload.sysbench.client_thread) the client's
	// part of each query runs on cth, the server's on th, one after the
	// other; hop counts the halves run.
	split bool
	cth   sim.CPUThread
	hop   int

	executed func(any)
	arg      any

	freeCB, residentCB, wireCB, cpuCB, hopCB func(any)
}

// NewSession opens a connection. committed(arg) runs when a transaction's
// commit is acknowledged (durable as the commit policy requires).
func (s *Server) NewSession(committed func(any), arg any) *Session {
	ss := &Session{s: s}
	ss.freeCB, ss.residentCB, ss.wireCB, ss.cpuCB = ss.onFree, ss.onResident, ss.onWire, ss.onCPU
	ss.hopCB = func(any) { ss.nextHop() }
	ss.ctx.Done, ss.ctx.Arg, ss.ctx.Thread = committed, arg, &ss.th
	ss.ctx.TL.Thread = &ss.th
	return ss
}

// Timeline returns the current transaction's timeline.
func (ss *Session) Timeline() *engine.Timeline { return &ss.ctx.TL }

// Begin starts a transaction at now.
func (ss *Session) Begin(now sim.Time) { ss.ctx.TL.Begin(now) }

// Queries returns the CPU of each query of the last executed transaction
// (BEGIN, the statements, COMMIT), client part included, and their sum.
func (ss *Session) Queries() ([]time.Duration, time.Duration) { return ss.qcpu, ss.cpu }

// Execute runs w's statements: log_free_check (maybe a checkpoint stall),
// page reads for buffer-pool misses, the round trips, one CPU job holding
// the server and client CPU of every query, then the changes enter the
// buffer pool and the redo log. executed(arg) runs after that, when the
// transaction may commit. w must stay unchanged until then.
func (ss *Session) Execute(w *Work, executed func(any), arg any) {
	ss.w, ss.executed, ss.arg = w, executed, arg
	ss.ctx.BinlogBytes = w.BinlogBytes
	ss.ctx.CopyRun = true // onWire runs it
	if ss.s.eng.FreeCheck(&ss.ctx.TL, ss.freeCB, ss) {
		ss.onFree(ss)
	}
}

// onFree: the pages the statements change must be resident.
func (ss *Session) onFree(any) {
	e := ss.s.eng
	ss.pages = e.PlanPages(ss.w.Stmts, ss.pages[:0])
	if e.Resident(ss.pages, &ss.ctx.TL, ss.residentCB, ss) {
		ss.onResident(ss)
	}
}

// onResident: the round trips of the transaction's queries.
func (ss *Session) onResident(any) { ss.s.env.AfterArg(ss.w.Wire, ss.wireCB, ss) }

// onWire: the CPU of every query, server and client side, as one job. The
// server CPU of the queries is drawn around its mean (Engine.SampleCPU);
// the client's CPU and the binlog copy are taken as constant.
func (ss *Session) onWire(any) {
	s := ss.s
	ss.ctx.TL.Mark(s.env.Now(), engine.CatClient)
	ss.qcpu = append(ss.qcpu[:0], s.ecfg.CPU.Begin.D())
	for _, st := range ss.w.Stmts {
		ss.qcpu = append(ss.qcpu, s.eng.StmtCPU(st.Kind))
	}
	ss.qcpu = append(ss.qcpu, s.eng.CommitCPU()+s.pipe.CommitCPU())
	f := s.eng.SampleCPU(ss.qcpu)
	var d time.Duration
	for i, q := range ss.qcpu {
		q = time.Duration(math.Round(float64(q)*f)) + ss.w.ClientCPU
		if i == len(ss.qcpu)-1 {
			q += s.pipe.BinlogCPU(ss.ctx.BinlogBytes)
		}
		ss.qcpu[i] = q
		d += q
	}
	ss.cpu = d
	if ss.split {
		ss.hop = 0
		ss.nextHop()
		return
	}
	s.cpu.RunAs(&ss.th, ss.qcpu, ss.cpuCB, ss)
}

// nextHop runs the next half of a query with a client thread: the
// client's part on its thread, then the server's part on the
// connection's, each woken by the other's send.
func (ss *Session) nextHop() {
	q := ss.hop / 2
	if q == len(ss.qcpu) {
		ss.onCPU(ss)
		return
	}
	client := ss.w.ClientCPU
	if ss.hop%2 == 0 {
		ss.hop++
		ss.s.cpu.WakeAs(&ss.cth, client, ss.hopCB, nil)
		return
	}
	ss.hop++
	ss.s.cpu.WakeAs(&ss.th, ss.qcpu[q]-client, ss.hopCB, nil)
}

// onCPU: the statements have run; their changes enter the buffer pool and
// the log.
func (ss *Session) onCPU(any) {
	s := ss.s
	ss.ctx.TL.MarkCPU(s.env.Now(), int64(ss.cpu))
	s.eng.ApplyBody(ss.w.Stmts, ss.pages)
	ss.executed(ss.arg)
}

// Commit commits the executed transaction; the session's committed
// callback runs when it is acknowledged.
func (ss *Session) Commit() { ss.s.pipe.Commit(&ss.ctx) }
