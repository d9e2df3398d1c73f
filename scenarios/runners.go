package scenarios

import (
	"context"
	"simrun/internal/trace"
	"time"

	"simrun/internal/result"
	replica "simrun/model/applier"
	"simrun/model/demo"
	"simrun/model/disk"
	"simrun/model/fio"
	"simrun/model/server"
	"simrun/model/workload"
	"simrun/sim"
	"simrun/sim/stats"
)

// Runner runs one case once: it builds its own sim.New(rc.Seed), wires the
// models from rc.Config, runs rc.Warmup, resets statistics, runs
// rc.Duration, and returns the metrics of the measured window. It must be
// deterministic in (Config, Seed, Duration, Warmup) and must not share
// mutable state with other runs: runs execute in parallel.
type Runner func(rc RunContext) (result.Metrics, error)

// RunContext is what a Runner gets.
type RunContext struct {
	Context     context.Context // cancelled on Ctrl-C: return promptly (RunUntil does)
	Case        string
	Config      Config
	Seed        uint64 // this replication's seed
	Replication int    // 0-based
	Duration    time.Duration
	Warmup      time.Duration
	Trace       *trace.Recorder // nil unless simrun trace records this run
	// Tick, if set, is called now and then from RunUntil with the virtual
	// time reached, for a progress display; it must not touch the run.
	Tick func(now sim.Time)
}

// runners maps workload.kind to its runner, in a fixed order. To add a
// workload, add one line.
var runners = []struct {
	kind     string
	run      Runner
	sections []string // the model sections the runner reads, for explain
}{
	{"demo", runDemo, []string{"machine"}},
	{"fio", runFio, []string{"volume"}},
	{"sysbench", runSysbench, []string{"machine", "volume", "engine", "commit"}},
	{"replication", runReplication, []string{"machine", "volume", "applier"}},
	{"bulkload", runBulkload, []string{"machine", "volume", "engine", "commit"}},
}

// usesSection reports whether a workload kind's runner reads a top-level
// model section; explain leaves out the sections a run never looks at.
func usesSection(kind, section string) bool {
	for _, r := range runners {
		if r.kind != kind {
			continue
		}
		for _, s := range r.sections {
			if s == section {
				return true
			}
		}
		return false
	}
	return true // unknown kind: show everything
}

// isModelSection reports whether a top-level key is a model section that
// some runner reads (as opposed to workload or the run settings).
func isModelSection(key string) bool {
	for _, r := range runners {
		for _, s := range r.sections {
			if s == key {
				return true
			}
		}
	}
	return false
}

// Kinds lists the registered workload kinds.
func Kinds() []string {
	out := make([]string, len(runners))
	for i, r := range runners {
		out[i] = r.kind
	}
	return out
}

func runnerFor(kind string) Runner {
	for _, r := range runners {
		if r.kind == kind {
			return r.run
		}
	}
	return nil
}

// End returns the virtual time at which the run ends: warm-up + duration.
func (rc RunContext) End() sim.Time { return sim.At(rc.Warmup + rc.Duration) }

// RunUntil runs env up to t like env.RunUntil, but returns early with the
// context's error when the run is cancelled (checked every 4096 events).
func (rc RunContext) RunUntil(env *sim.Env, t sim.Time) error {
	ctx := rc.Context
	if ctx == nil {
		env.RunUntil(t)
		return nil
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	env.RunUntilEvery(t, 4096, func() bool {
		if ctx.Err() != nil {
			return false
		}
		if rc.Tick != nil {
			rc.Tick(env.Now())
		}
		return true
	})
	if err := ctx.Err(); err != nil {
		return err
	}
	env.RunUntil(t)
	return nil
}

// runDemo runs the M/M/c demo queue.
func runDemo(rc RunContext) (result.Metrics, error) {
	cfg := rc.Config.Workload.Demo
	env := sim.New(rc.Seed)
	m, err := demo.New(env, cfg)
	if err != nil {
		return nil, err
	}
	m.SetTrace(rc.Trace)
	m.Start()
	if err := rc.RunUntil(env, sim.At(rc.Warmup)); err != nil {
		return nil, err
	}
	m.ResetStats()
	if err := rc.RunUntil(env, rc.End()); err != nil {
		return nil, err
	}
	st := m.Stats()
	secs := st.Elapsed.Seconds()
	out := result.Metrics{
		"arrivals":         st.Arrived,
		"completed":        st.Completed,
		"throughput_per_s": float64(st.Completed) / secs,
		"util_pct":         100 * st.Utilization,
		"queue_len_avg":    st.MeanQueue,
		"queue_len_max":    int64(st.MaxQueue),
		"latency_ms":       latencyMs(st.Response),
		"wait_ms":          latencyMs(st.Wait),
	}
	if th, ok := demo.MMC(cfg); ok {
		out["erlang_c"] = result.Metrics{
			"wait_probability": th.WaitProbability,
			"wait_ms_avg":      ms(th.MeanWait),
			"latency_ms_avg":   ms(th.MeanResponse),
			"util_pct":         100 * th.Utilization,
		}
	}
	return out, nil
}

// latencyMs reports a nanosecond histogram summary in milliseconds.
func latencyMs(s stats.HistogramSummary) result.Metrics {
	return result.Metrics{
		"avg": s.Mean / 1e6,
		"p50": float64(s.P50) / 1e6,
		"p95": float64(s.P95) / 1e6,
		"p99": float64(s.P99) / 1e6,
		"max": float64(s.Max) / 1e6,
	}
}

func ms(d time.Duration) float64 { return float64(d) / 1e6 }

// runFio runs a fio job on the scenario's volume.
func runFio(rc RunContext) (result.Metrics, error) {
	env := sim.New(rc.Seed)
	vol, err := disk.New(env, rc.Config.Volume)
	if err != nil {
		return nil, err
	}
	vol.SetTrace(rc.Trace)
	b, err := fio.Start(env, vol, rc.Config.Workload.Fio)
	if err != nil {
		return nil, err
	}
	if err := rc.RunUntil(env, sim.At(rc.Warmup)); err != nil {
		return nil, err
	}
	vol.ResetStats()
	b.ResetStats()
	if err := rc.RunUntil(env, rc.End()); err != nil {
		return nil, err
	}
	m := result.Metrics(b.Metrics())
	m["disk"] = vol.Metrics()
	return m, nil
}

// runReplication runs a replica's parallel applier against its source
// stream (online) or a relay-log backlog.
func runReplication(rc RunContext) (result.Metrics, error) {
	env := sim.New(rc.Seed)
	ctx := rc.Context
	if ctx == nil {
		ctx = context.Background()
	}
	m, err := replica.RunContext(ctx, env, rc.Config.Machine.Cores, rc.Config.Volume, rc.Config.Applier, rc.Warmup, rc.Duration)
	if err != nil {
		return nil, err
	}
	// The applier's figures form the `applier` block; tps and latency_ms
	// also stand at the top level, where every workload reports its
	// throughput and latency (the sweep chart reads them there).
	return result.Metrics{"tps": m["tps"], "latency_ms": m["latency_ms"], "applier": result.Metrics(m)}, nil
}

// runSysbench runs sysbench client threads against the database server
// (engine, commit pipeline, CPU) on the scenario's volume.
func runSysbench(rc RunContext) (result.Metrics, error) {
	env := sim.New(rc.Seed)
	vol, err := disk.New(env, rc.Config.Volume)
	if err != nil {
		return nil, err
	}
	wl := workload.Config{Kind: "sysbench", Sysbench: rc.Config.Workload.Sysbench}
	cpu, err := rc.Config.Machine.CPU()
	if err != nil {
		return nil, err
	}
	s, err := server.NewSysbenchOn(env, server.Machine{Cores: rc.Config.Machine.Cores, CPU: cpu, FlushDispatch: rc.Config.Machine.FlushDispatch.D(), Background: rc.Config.Machine.Background()}, vol, rc.Config.Engine, rc.Config.Commit, wl)
	if err != nil {
		return nil, err
	}
	if rc.Trace != nil {
		s.SetTrace(rc.Trace) // the server records the volume's I/Os too, after its own tracks
	}
	s.Start()
	// rc.RunUntil, not env.RunUntil: Ctrl-C stops a long case promptly.
	if err := rc.RunUntil(env, sim.At(rc.Warmup)); err != nil {
		return nil, err
	}
	s.ResetStats()
	if err := rc.RunUntil(env, rc.End()); err != nil {
		return nil, err
	}
	return result.Metrics(s.Metrics()), nil
}
