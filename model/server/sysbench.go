package server

import (
	"fmt"
	"time"

	"simrun/internal/result"
	"simrun/internal/trace"
	"simrun/model/commit"
	"simrun/model/disk"
	"simrun/model/engine"
	"simrun/model/workload"
	"simrun/sim"
	"simrun/sim/stats"
)

// Sysbench is sysbench's client threads in a closed loop, a driver of a
// Server: each thread generates a transaction, hands its statements to its
// Session, commits, and starts the next when the commit is acknowledged.
type Sysbench struct {
	env *sim.Env
	srv *Server
	wl  workload.Sysbench
	gen *workload.Generator
	ev  commit.EventBytes

	clients []*client

	// statistics since ResetStats
	since                    sim.Time
	started                  int64
	committed                int64
	startedAll, committedAll int64
	lat                      stats.Histogram
	comp                     [engine.NumCats]int64
	tps                      *stats.Series
	maxRes                   int64 // largest uncharged remainder seen (should be 0)
	stopping                 bool

	rec *trace.Recorder // nil unless tracing
}

type client struct {
	s    *Sysbench
	id   int
	tx   workload.Tx
	w    Work
	sess *Session
	n    int64 // transactions this thread started

	// trace
	track    trace.TrackID
	commitAt sim.Time

	executedCB, doneCB func(any)
}

// NewSysbench wires a server with cores vCPUs on vol, configured by eng
// and cc, and the sysbench clients of wl that drive it.
func NewSysbench(env *sim.Env, cores int, vol *disk.Volume, eng engine.Config, cc commit.Config, wl workload.Config) (*Sysbench, error) {
	return NewSysbenchOn(env, Machine{Cores: cores}, vol, eng, cc, wl)
}

// NewSysbenchOn is NewSysbench on machine m (its scheduler included).
func NewSysbenchOn(env *sim.Env, m Machine, vol *disk.Volume, eng engine.Config, cc commit.Config, wl workload.Config) (*Sysbench, error) {
	if m.Cores < 1 || m.Cores > 4096 {
		return nil, fmt.Errorf("cores: must be in [1, 4096], got %d", m.Cores)
	}
	if err := wl.Validate(); err != nil {
		return nil, fmt.Errorf("workload.%w", err)
	}
	srv, err := NewOn(env, m, vol, eng, cc, wl.Sysbench)
	if err != nil {
		return nil, err
	}
	s := &Sysbench{env: env, srv: srv, wl: wl.Sysbench}
	s.gen = workload.NewGenerator(wl.Sysbench, env.Stream("workload/sysbench"))
	s.ev = commit.Events(wl.Sysbench)
	s.tps = stats.NewSeries(time.Second, 3600)
	q := int64(wl.Sysbench.StmtsPerTx() + 2)
	wire := time.Duration(q) * wl.Sysbench.RoundTrip.D()
	for i := 0; i < wl.Sysbench.Threads; i++ {
		c := &client{s: s, id: i}
		c.executedCB, c.doneCB = c.onExecuted, c.onDone
		c.sess = srv.NewSession(c.doneCB, c)
		// A query's request wakes the server thread and its reply the
		// client (machine.idle_wake).
		c.sess.th.HandOffs = 2
		c.sess.split = wl.Sysbench.ClientThread
		c.w.ClientCPU, c.w.Wire = wl.Sysbench.ClientCPU.D(), wire
		s.clients = append(s.clients, c)
	}
	return s, nil
}

// SetTrace records the run on rec (nil: off); call it before Start. Each
// client thread gets a track "clients/thread NN" (NN is sysbench's 0-based
// thread id) with a span per transaction; inside it, one span per stretch
// of its time named after the breakdown category it was charged to
// (checkpoint stall, client round trips, cpu wait, cpu, group commit wait,
// device queue, redo write, redo fsync, binlog write, binlog fsync, ...),
// the statements inside the cpu span, and a "commit wait" span around the
// commit's stretches. The server records its engine, commit pipeline and
// volume (Server.SetTrace); arrows lead from a transaction to the group
// commits that served it. Tracks are created in that order, so the viewer
// lists clients first and the device last.
func (s *Sysbench) SetTrace(rec *trace.Recorder) {
	s.rec = rec
	for _, c := range s.clients {
		c.track = 0
		if rec != nil {
			c.track = rec.Track(fmt.Sprintf("clients/thread %02d", c.id))
		}
		c.sess.Timeline().SetTrace(rec, c.track)
	}
	s.srv.SetTrace(rec)
}

// Server returns the server the clients drive.
func (s *Sysbench) Server() *Server { return s.srv }

// Start starts the server's background threads and the clients.
func (s *Sysbench) Start() {
	s.srv.Start()
	for _, c := range s.clients {
		c.start()
	}
}

// start begins a transaction and hands its statements to the server.
func (c *client) start() {
	s := c.s
	now := s.env.Now()
	s.started++
	s.startedAll++
	c.n++
	c.sess.Begin(now)
	s.gen.Next(&c.tx)
	c.w.Stmts = c.tx.Stmts
	c.w.BinlogBytes = 0
	if s.srv.Binlog() {
		c.w.BinlogBytes = s.ev.TxBytes(&c.tx)
	}
	c.sess.Execute(&c.w, c.executedCB, c)
}

// onExecuted: the statements have run; COMMIT.
func (c *client) onExecuted(any) {
	s := c.s
	if s.rec != nil {
		c.traceStatements(s.env.Now())
		c.commitAt = s.env.Now()
	}
	c.sess.Commit()
}

// onDone: the commit is acknowledged.
func (c *client) onDone(any) {
	s := c.s
	now := s.env.Now()
	tl := c.sess.Timeline()
	if r := int64(now - tl.Last); r > 0 {
		// Every span should have been charged; keep the books balanced
		// and remember the largest gap for the tests.
		s.maxRes = max(s.maxRes, r)
		tl.Mark(now, engine.CatGroupCommitWait)
	}
	s.committedAll++
	if s.rec != nil {
		if now > c.commitAt {
			s.rec.Span(c.track, "commit wait", c.commitAt, now)
		}
		s.rec.Span(c.track, "transaction", tl.Start, now, trace.Int("thread_tx", c.n),
			trace.Int("statements", int64(c.tx.Queries())), trace.Int("binlog_bytes", c.w.BinlogBytes))
	}
	if tl.Start >= s.since {
		s.committed++
		s.lat.Record(int64(now - tl.Start))
		for i, v := range tl.Comp {
			s.comp[i] += v
		}
		s.tps.Add(now-s.since, 1)
	}
	if s.stopping {
		return
	}
	c.start()
}

// queryNames are the statements as the trace names them.
var queryNames = [workload.NumStmtKinds]string{"UPDATE k=k+1", "UPDATE c=?", "DELETE", "INSERT"}

// traceStatements lays the queries' CPU out as consecutive spans at the end
// of the CPU job that ended at now: the model runs them as one job, in
// this order, so each span is where its CPU would have gone.
func (c *client) traceStatements(now sim.Time) {
	s := c.s
	qcpu, total := c.sess.Queries()
	t := now - sim.Time(total)
	for i, d := range qcpu {
		name := "BEGIN"
		switch {
		case i == len(qcpu)-1:
			name = "COMMIT"
		case i > 0:
			name = queryNames[c.tx.Stmts[i-1].Kind]
		}
		s.rec.Span(c.track, name, t, t+sim.Time(d))
		t += sim.Time(d)
	}
}

// Stop lets the transactions in flight finish and starts no more (sysbench
// at the end of --time).
func (s *Sysbench) Stop() { s.stopping = true }

// ResetStats starts the measured window (the end of the warm-up).
func (s *Sysbench) ResetStats() {
	now := s.env.Now()
	s.since = now
	s.started, s.committed = 0, 0
	s.lat.Reset()
	s.comp = [engine.NumCats]int64{}
	s.tps = stats.NewSeries(time.Second, 3600)
	s.srv.ResetStats()
}

// Counts returns the transactions started and committed since the start
// of the run.
func (s *Sysbench) Counts() (started, committed int64) { return s.startedAll, s.committedAll }

// InFlight returns the number of transactions started but not committed.
func (s *Sysbench) InFlight() int64 { return s.startedAll - s.committedAll }

// MaxUncharged returns the largest span of a transaction that no component
// charged (0 when the latency breakdown is complete).
func (s *Sysbench) MaxUncharged() time.Duration { return time.Duration(s.maxRes) }

// Metrics is the sysbench workload's result block (simrun.result/v1; the
// json tags are the contract, docs/results.md documents every field).
type Metrics struct {
	TPS           float64            `json:"tps"`
	QPS           float64            `json:"qps"`
	Transactions  int64              `json:"transactions"`
	Latency       result.Latency     `json:"latency_ms"`
	RedoBytes     int64              `json:"redo_bytes"`
	RedoLSNBytes  int64              `json:"redo_lsn_bytes"`
	BinlogBytes   int64              `json:"binlog_bytes"`
	Fsyncs        int64              `json:"fsyncs"`
	CommitFsyncs  CommitFsyncs       `json:"commit_fsyncs"`
	CPUUtilPct    float64            `json:"cpu_util_pct"`
	Threads       Threads            `json:"threads"`
	WritePerTx    WriteBytesPerTx    `json:"write_bytes_per_tx"`
	Breakdown     map[string]float64 `json:"commit_breakdown_ms"` // one key per engine.Cat, and "sum"
	CheckpointAge CheckpointAge      `json:"checkpoint_age_mb"`
	DirtyPages    DirtyPages         `json:"dirty_pages"`
	FlushedPerS   float64            `json:"pages_flushed_per_s"`
	FlushedPerTx  float64            `json:"pages_flushed_per_tx"`
	PagesWritten  PagesWrittenPerTx  `json:"pages_written_per_tx"`
	TxPerGroup    TxPerGroup         `json:"tx_per_group"`
	BufferPool    BufferPool         `json:"buffer_pool"`
	Index         IndexPerTx         `json:"index"`
	Series        TPSSeries          `json:"series"`
	Disk          map[string]any     `json:"disk"` // disk.Volume.Metrics
}

// CommitFsyncs counts the fsyncs on the commit path.
type CommitFsyncs struct {
	Redo   int64 `json:"redo"`
	Binlog int64 `json:"binlog"`
}

// Threads is what the threads' wake-ups cost (sim.CPU).
type Threads struct {
	WakesPerTx    float64 `json:"wakes_per_tx"`
	WakeWaitUsAvg float64 `json:"wake_wait_us_avg"`
	YieldsPerTx   float64 `json:"yields_per_tx"`
	// RefillUsPerTx is the CPU the caches' refills took a transaction
	// (machine.cache_refill; 0 without it).
	RefillUsPerTx float64 `json:"refill_us_per_tx"`
	// IdleWakeUsPerTx is the CPU of wake-ups onto idle vCPUs a
	// transaction (machine.idle_wake; 0 without it).
	IdleWakeUsPerTx float64 `json:"idle_wake_us_per_tx"`
	// IRQUsPerTx is the CPU the volume's completion interrupts took from
	// running threads a transaction (machine.irq_cost; 0 without it).
	IRQUsPerTx float64 `json:"irq_us_per_tx"`
	// FlushDispatchUsPerTx is the CPU a transaction of the kernel worker
	// that dispatches each device flush (machine.flush_dispatch; 0 without
	// it). It is in cpu_util_pct and in no thread's: a process's CPU, as
	// /proc counts it, leaves it out.
	FlushDispatchUsPerTx float64 `json:"flush_dispatch_us_per_tx"`
	// BackgroundUsPerTx is the CPU a transaction of the host's background
	// kernel thread (Machine.Background): its bursts over the window's
	// transactions.
	BackgroundUsPerTx float64 `json:"background_us_per_tx"`
}

// WriteBytesPerTx is the device write bytes per committed transaction, by
// source.
type WriteBytesPerTx struct {
	Redo        float64 `json:"redo"`
	BinlogFile  float64 `json:"binlog_file"`
	BinlogPages float64 `json:"binlog_pages"`
	PageFlush   float64 `json:"page_flush"`
	Doublewrite float64 `json:"doublewrite"`
	FSJournal   float64 `json:"fs_journal"`
	Total       float64 `json:"total"`
}

// CheckpointAge is the redo ring's occupancy (MB = 10^6 bytes) and the page
// cleaner's modes.
type CheckpointAge struct {
	Avg          float64 `json:"avg"`
	P50          float64 `json:"p50"`
	Max          float64 `json:"max"`
	Capacity     float64 `json:"capacity"`
	AsyncPoint   float64 `json:"async_point"`
	SyncPoint    float64 `json:"sync_point"`
	Stalls       int64   `json:"stalls"`
	Checkpoints  int64   `json:"checkpoints"`
	FlushAheadIt int64   `json:"flush_ahead_it"`
	FuriousIt    int64   `json:"furious_it"`
}

// PagesWrittenPerTx is the data pages written per committed transaction
// by who wrote them; the four sources are disjoint and add up to Total
// (InnoDB's buffer_flush_* / buffer_LRU_* counters of INNODB_METRICS).
type PagesWrittenPerTx struct {
	FlushList  float64 `json:"flush_list"`  // the page cleaner's flush-list batches, neighbours aside
	Neighbours float64 `json:"neighbours"`  // dirty neighbours written with a page (innodb_flush_neighbors), either batch
	LRU        float64 `json:"lru"`         // the LRU batch's dirty pages from the LRU tail, neighbours aside
	SinglePage float64 `json:"single_page"` // written by a user thread to free a frame
	Total      float64 `json:"total"`
}

// DirtyPages samples the buffer pool's dirty pages.
type DirtyPages struct {
	Avg float64 `json:"avg"`
	Max int64   `json:"max"`
}

// TxPerGroup is the group commits' sizes and counts.
type TxPerGroup struct {
	RedoSync   float64 `json:"redo_sync"`
	Binlog     float64 `json:"binlog"`
	RedoSyncs  int64   `json:"redo_syncs"`
	BinlogGrps int64   `json:"binlog_grps"`
}

// BufferPool is the buffer pool's size and traffic.
type BufferPool struct {
	HitRatio  float64 `json:"hit_ratio"`
	Pages     int64   `json:"pages"`
	DataPages int64   `json:"data_pages"`
	Reads     int64   `json:"reads"`
	LRUWrites int64   `json:"lru_writes"`
	FreeAvg   float64 `json:"free_pages_avg"`   // mean free-list length, pages
	WaitFree  float64 `json:"wait_free_per_tx"` // a user thread found no free page and waited (Innodb_buffer_pool_wait_free)
	LRUFreed  float64 `json:"lru_freed_per_tx"` // clean pages the page cleaner's LRU batch freed (buffer_LRU_batch_evict_total_pages)
}

// IndexPerTx is what the leaves of index k did (engine.IndexStats):
// splits, merges and merge attempts per transaction (INNODB_METRICS
// index_page_splits, index_page_merge_successful, _attempts), the redo they
// wrote per transaction, and the leaves at the end against the sorted build.
type IndexPerTx struct {
	Splits        float64 `json:"splits_per_tx"`
	Merges        float64 `json:"merges_per_tx"`
	MergeAttempts float64 `json:"merge_attempts_per_tx"`
	Redo          float64 `json:"redo_bytes_per_tx"`
	Leaves        int     `json:"leaves"`
	BuiltLeaves   int     `json:"built_leaves"`
}

// TPSSeries is the TPS per interval, like sysbench --report-interval, and
// the mean checkpoint age of each interval (MB = 10^6 bytes).
type TPSSeries struct {
	IntervalS       float64   `json:"interval_s"`
	TPS             []float64 `json:"tps"`
	CheckpointAgeMB []float64 `json:"checkpoint_age_MB"`
}

// ageMB converts checkpoint ages in bytes to MB (10^6 bytes).
func ageMB(b []float64) []float64 {
	out := make([]float64, len(b))
	for i, v := range b {
		out[i] = v / 1e6
	}
	return out
}

// Report returns the typed result of the measured window.
func (s *Sysbench) Report() Metrics {
	now := s.env.Now()
	secs := now.Sub(s.since).Seconds()
	n := s.committed
	es := s.srv.eng.Stats()
	ps := s.srv.pipe.Stats()
	cs := s.srv.cpu.Stats()
	dm := s.srv.vol.Metrics()
	io := s.srv.vol.Iostat()
	perTx := func(b int64) float64 {
		if n == 0 {
			return 0
		}
		return float64(b) / float64(n)
	}
	src := map[string]int64{}
	if m, ok := dm["write_bytes_by_source"].(map[string]any); ok {
		for k, v := range m {
			if b, ok := v.(int64); ok {
				src[k] = b
			}
		}
	}
	tps := float64(n) / secs
	breakdown := make(map[string]float64, engine.NumCats+1)
	var sum float64
	for i, v := range s.comp {
		ms := 0.0
		if n > 0 {
			ms = float64(v) / float64(n) / 1e6
		}
		breakdown[engine.Cat(i).String()] = ms
		sum += ms
	}
	breakdown["sum"] = sum
	// The last interval ends with the window, not at the last commit:
	// its rate is the commits over its whole width.
	pts := s.tps.Points(now - s.since)
	series := make([]float64, len(pts))
	for i, p := range pts {
		series[i] = p.Rate()
	}
	mb := func(b float64) float64 { return b / 1e6 }
	hit := 1.0
	if t := es.Hits + es.Misses; t > 0 {
		hit = float64(es.Hits) / float64(t)
	}
	return Metrics{
		TPS:          tps,
		QPS:          tps * float64(s.wl.StmtsPerTx()+2),
		Transactions: n,
		Latency:      result.LatencyMs(&s.lat),
		RedoBytes:    src["redo"],
		RedoLSNBytes: int64(es.LSNBytes),
		BinlogBytes:  ps.BinlogBytes,
		Fsyncs:       io.Flushes,
		CommitFsyncs: CommitFsyncs{Redo: es.RedoSyncs, Binlog: ps.BinlogSyncs},
		CPUUtilPct:   100 * cs.Utilization,
		Threads: Threads{
			WakesPerTx:           perTx(cs.Wakes),
			WakeWaitUsAvg:        float64(cs.MeanWakeWait) / 1e3,
			YieldsPerTx:          perTx(cs.Yields),
			RefillUsPerTx:        perTx(int64(cs.RefillCPU)) / 1e3,
			IdleWakeUsPerTx:      perTx(int64(cs.IdleWakeCPU)) / 1e3,
			IRQUsPerTx:           perTx(int64(cs.IRQCPU)) / 1e3,
			FlushDispatchUsPerTx: perTx(int64(s.srv.FlushDispatchCPU())) / 1e3,
			BackgroundUsPerTx:    perTx(int64(s.srv.BackgroundCPU())) / 1e3,
		},
		WritePerTx: WriteBytesPerTx{
			Redo:        perTx(src["redo"]),
			BinlogFile:  perTx(src["binlog_file"]),
			BinlogPages: perTx(src["binlog_pages"]),
			PageFlush:   perTx(src["page_flush"]),
			Doublewrite: perTx(src["doublewrite"]),
			FSJournal:   perTx(src["fs_journal"]),
			Total:       perTx(io.WriteBytes),
		},
		Breakdown: breakdown,
		CheckpointAge: CheckpointAge{
			Avg:          es.CheckpointAge.Mean / 1e6,
			P50:          mb(float64(es.CheckpointAge.P50)),
			Max:          mb(float64(es.CheckpointAgeMax)),
			Capacity:     mb(float64(es.Capacity)),
			AsyncPoint:   mb(float64(es.AsyncPoint)),
			SyncPoint:    mb(float64(es.SyncPoint)),
			Stalls:       es.Stalls,
			Checkpoints:  es.Checkpoints,
			FlushAheadIt: es.FlushAheadIters,
			FuriousIt:    es.FuriousIters,
		},
		DirtyPages:   DirtyPages{Avg: es.DirtyPages.Mean, Max: es.DirtyPages.Max},
		FlushedPerS:  float64(es.PagesFlushed) / secs,
		FlushedPerTx: perTx(es.PagesFlushed),
		PagesWritten: PagesWrittenPerTx{
			FlushList:  perTx(es.FlushListPages - (es.NeighborPages - es.NeighborLRU)),
			Neighbours: perTx(es.NeighborPages),
			LRU:        perTx(es.LRUBatchPages - es.NeighborLRU),
			SinglePage: perTx(es.LRUWrites),
			Total:      perTx(es.PagesFlushed + es.LRUWrites),
		},
		TxPerGroup: TxPerGroup{
			RedoSync:   es.RedoGroup.Mean,
			Binlog:     ps.BinlogGroup.Mean,
			RedoSyncs:  es.RedoSyncs,
			BinlogGrps: ps.BinlogGroup.Count,
		},
		BufferPool: BufferPool{
			HitRatio:  hit,
			Pages:     int64(es.BPFrames),
			DataPages: int64(es.DataPages),
			Reads:     es.PageReads,
			LRUWrites: es.LRUWrites,
			FreeAvg:   es.FreePages.Mean,
			WaitFree:  perTx(es.WaitFree),
			LRUFreed:  perTx(es.LRUEvicted),
		},
		Index: IndexPerTx{
			Splits:        perTx(es.Index.Splits),
			Merges:        perTx(es.Index.Merges),
			MergeAttempts: perTx(es.Index.MergeAttempts),
			Redo:          perTx(es.Index.Redo),
			Leaves:        es.Index.Leaves,
			BuiltLeaves:   es.Index.BuiltLeaves,
		},
		Series: TPSSeries{IntervalS: s.tps.Width().Seconds(), TPS: series, CheckpointAgeMB: ageMB(es.CheckpointAgeSeries)},
		Disk:   dm,
	}
}

// Metrics returns the result block of the measured window as the generic
// tree the reporting code walks (Report's fields under their json names).
func (s *Sysbench) Metrics() map[string]any { return result.FromStruct(s.Report()) }

// RunSysbench runs sysbench against a server with cores vCPUs on vol for
// warmup + duration of virtual time and returns the metrics of the
// measured window (after the warm-up).
func RunSysbench(env *sim.Env, cores int, vol *disk.Volume, eng engine.Config, cc commit.Config, wl workload.Config, warmup, duration time.Duration) (map[string]any, error) {
	return RunSysbenchTraced(env, cores, vol, eng, cc, wl, warmup, duration, nil)
}

// RunSysbenchTraced is RunSysbench that also records the run on rec (nil:
// no trace), the volume's I/Os included; see Sysbench.SetTrace.
func RunSysbenchTraced(env *sim.Env, cores int, vol *disk.Volume, eng engine.Config, cc commit.Config, wl workload.Config, warmup, duration time.Duration, rec *trace.Recorder) (map[string]any, error) {
	if duration <= 0 {
		return nil, fmt.Errorf("duration: must be > 0, got %v", duration)
	}
	if warmup < 0 {
		return nil, fmt.Errorf("warmup: must be >= 0, got %v", warmup)
	}
	s, err := NewSysbench(env, cores, vol, eng, cc, wl)
	if err != nil {
		return nil, err
	}
	if rec != nil {
		s.SetTrace(rec)
	}
	s.Start()
	env.RunUntil(env.Now().Add(warmup))
	s.ResetStats()
	env.RunUntil(env.Now().Add(duration))
	return s.Metrics(), nil
}
