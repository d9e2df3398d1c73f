package server

import (
	"fmt"
	"time"

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
	if cores < 1 || cores > 4096 {
		return nil, fmt.Errorf("cores: must be in [1, 4096], got %d", cores)
	}
	if err := wl.Validate(); err != nil {
		return nil, fmt.Errorf("workload.%w", err)
	}
	srv, err := New(env, cores, vol, eng, cc, wl.Sysbench)
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

// Metrics returns the metrics block of the measured window.
func (s *Sysbench) Metrics() map[string]any {
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
	breakdown := map[string]any{}
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
	pts := s.tps.Points()
	series := make([]float64, len(pts))
	for i, p := range pts {
		series[i] = p.Rate()
	}
	mb := func(b float64) float64 { return b / 1e6 }
	hit := 1.0
	if t := es.Hits + es.Misses; t > 0 {
		hit = float64(es.Hits) / float64(t)
	}
	redoSyncs := es.RedoSyncs
	out := map[string]any{
		"tps":          tps,
		"qps":          tps * float64(s.wl.StmtsPerTx()+2),
		"transactions": n,
		"latency_ms": map[string]any{
			"avg": s.lat.Mean() / 1e6,
			"p50": float64(s.lat.Quantile(0.50)) / 1e6,
			"p95": float64(s.lat.Quantile(0.95)) / 1e6,
			"p99": float64(s.lat.Quantile(0.99)) / 1e6,
			"max": float64(s.lat.Max()) / 1e6,
		},
		"redo_bytes":     src["redo"],
		"redo_lsn_bytes": int64(es.LSNBytes),
		"binlog_bytes":   ps.BinlogBytes,
		"fsyncs":         io.Flushes,
		"commit_fsyncs": map[string]any{
			"redo":   redoSyncs,
			"binlog": ps.BinlogSyncs,
		},
		"cpu_util_pct": 100 * cs.Utilization,
		"threads": map[string]any{
			"wakes_per_tx":     perTx(cs.Wakes),
			"wake_wait_us_avg": float64(cs.MeanWakeWait) / 1e3,
			"yields_per_tx":    perTx(cs.Yields),
		},
		"write_bytes_per_tx": map[string]any{
			"redo":         perTx(src["redo"]),
			"binlog_file":  perTx(src["binlog_file"]),
			"binlog_pages": perTx(src["binlog_pages"]),
			"page_flush":   perTx(src["page_flush"]),
			"doublewrite":  perTx(src["doublewrite"]),
			"fs_journal":   perTx(src["fs_journal"]),
			"total":        perTx(io.WriteBytes),
		},
		"commit_breakdown_ms": breakdown,
		"checkpoint_age_mb": map[string]any{
			"avg":            es.CheckpointAge.Mean / 1e6,
			"p50":            mb(float64(es.CheckpointAge.P50)),
			"max":            mb(float64(es.CheckpointAgeMax)),
			"capacity":       mb(float64(es.Capacity)),
			"async_point":    mb(float64(es.AsyncPoint)),
			"sync_point":     mb(float64(es.SyncPoint)),
			"stalls":         es.Stalls,
			"checkpoints":    es.Checkpoints,
			"flush_ahead_it": es.FlushAheadIters,
			"furious_it":     es.FuriousIters,
		},
		"dirty_pages": map[string]any{
			"avg": es.DirtyPages.Mean,
			"max": es.DirtyPages.Max,
		},
		"pages_flushed_per_s":  float64(es.PagesFlushed) / secs,
		"pages_flushed_per_tx": perTx(es.PagesFlushed),
		"tx_per_group": map[string]any{
			"redo_sync":   es.RedoGroup.Mean,
			"binlog":      ps.BinlogGroup.Mean,
			"redo_syncs":  redoSyncs,
			"binlog_grps": ps.BinlogGroup.Count,
		},
		"buffer_pool": map[string]any{
			"hit_ratio":  hit,
			"pages":      int64(es.BPFrames),
			"data_pages": int64(es.DataPages),
			"reads":      es.PageReads,
			"lru_writes": es.LRUWrites,
		},
		"series": map[string]any{
			"interval_s": s.tps.Width().Seconds(),
			"tps":        series,
		},
		"disk": dm,
	}
	return out
}

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
