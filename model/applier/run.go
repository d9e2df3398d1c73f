package applier

import (
	"errors"
	"fmt"
	"time"

	"simrun/model/applier/stream"
	"simrun/model/disk"
	"simrun/sim"
)

// Run simulates one case on env: a replica with cores CPU cores and a
// RAID 0 set of cfg.Storage.Members volumes configured as vol, applying the
// source stream with the applier cfg.Version.
//
// Online mode runs the source and the replica together for warmup +
// duration and measures the last duration. Backlog mode first generates
// cfg.BacklogTrx source transactions (on a separate kernel with the same
// seed), puts them in the relay log, and runs the replica from time 0 until
// it has committed them all (or cfg.BacklogTimeMax passes); warmup and
// duration are not used.
//
// It returns the `applier` metrics block (docs/model-applier.md lists every
// field).
func Run(env *sim.Env, cores int, vol disk.Config, cfg Config, warmup, duration time.Duration) (map[string]any, error) {
	m, _, err := run(env, cores, vol, cfg, warmup, duration, nil)
	return m, err
}

// run is Run with an optional trace of every transaction step (tests); it
// also returns the replica.
func run(env *sim.Env, cores int, vol disk.Config, cfg Config, warmup, duration time.Duration, trace func(traceEvent, int64)) (map[string]any, *replica, error) {
	if err := cfg.Validate(); err != nil {
		return nil, nil, err
	}
	if cores < 1 || cores > 4096 {
		return nil, nil, fmt.Errorf("cores: must be in [1, 4096], got %d", cores)
	}
	if err := vol.Validate(); err != nil {
		return nil, nil, fmt.Errorf("volume: %w", err)
	}
	if cfg.Mode == "online" && (duration <= 0 || warmup < 0) {
		return nil, nil, errors.New("duration: an online run needs duration > 0 and warmup >= 0")
	}
	// Each member draws its own latencies: distinct names give distinct
	// random streams.
	arr, err := disk.NewArray(env, vol, cfg.Storage.Members, int64(cfg.Storage.ChunkSize))
	if err != nil {
		return nil, nil, fmt.Errorf("volume: %w", err)
	}
	r := newReplica(env, cfg, cores, arr)
	r.trace = trace
	r.relay = arr.OpenFile("relay-log.000001", false)
	r.srcRelay = arr.RegisterSource("relay")
	if cfg.Version == "mta" {
		r.sch = newMTA(r)
	} else {
		r.sch = newCSA(r)
	}

	out := map[string]any{
		"version":         cfg.Version,
		"profile":         cfg.Profile,
		"mode":            cfg.Mode,
		"workers":         int64(cfg.Workers),
		"updates_per_trx": int64(cfg.Source.UpdatesPerTrx),
		"trx_bytes":       r.trxBytes,
		"trx_events":      int64(r.nEvents),
	}
	var elapsed time.Duration
	switch cfg.Mode {
	case "backlog":
		n := int(cfg.BacklogTrx)
		trx, group, err := stream.Generate(cfg.Source, env.Seed(), n)
		if err != nil {
			return nil, nil, err
		}
		r.load(trx)
		out["source_group_size_mean"] = group
		out["source_last_committed_gap_mean"] = meanGap(trx)
		r.resetStats()
		r.sch.arrived()
		limit := env.Now() + sim.Time(cfg.BacklogTimeMax)
		env.RunWhile(func() bool { return r.lwmCommitted < int64(n) && env.NextAt() <= limit })
		drained := r.lwmCommitted >= int64(n)
		if !drained {
			env.RunUntil(limit)
		}
		elapsed = time.Duration(env.Now() - r.since)
		out["backlog_trx"] = int64(n)
		out["drained"] = drained
		tps := float64(r.commits) / elapsed.Seconds()
		if drained {
			out["catchup_s"] = elapsed.Seconds()
		} else {
			// Not caught up: project the rest at the rate so far.
			out["catchup_s"] = elapsed.Seconds() + float64(int64(n)-r.lwmCommitted)/max(tps, 1e-9)
		}
	case "online":
		src, err := stream.New(env, cfg.Source, r.sink)
		if err != nil {
			return nil, nil, err
		}
		src.Start()
		env.RunUntil(sim.At(warmup))
		srcStart := src.Committed()
		r.resetStats()
		env.AfterArg(time.Duration(cfg.LagInterval), r.sampleLagFn, nil)
		env.RunUntil(sim.At(warmup + duration))
		elapsed = duration
		out["source_tps"] = float64(src.Committed()-srcStart) / duration.Seconds()
		out["source_group_size_mean"] = src.MeanGroupSize()
		out["max_lag_s"] = r.maxLag.Seconds()
		out["lag_s"] = append([]float64(nil), r.lagSamples...)
		out["final_lag_s"] = r.lag().Seconds()
		out["lag_interval_s"] = time.Duration(cfg.LagInterval).Seconds()
		out["relay_backlog_trx"] = r.ring.len()
		out["tps_series"] = rateSeries(r)
	}
	r.metrics(out, elapsed)
	return out, r, nil
}

// meanGap is the mean of sequence_number - last_committed.
func meanGap(trx []stream.Trx) float64 {
	if len(trx) == 0 {
		return 0
	}
	var s int64
	for _, t := range trx {
		s += t.Seq - t.Last
	}
	return float64(s) / float64(len(trx))
}

func rateSeries(r *replica) []float64 {
	r.commitSer.Advance(r.env.Now() - r.since)
	pts := r.commitSer.Points()
	out := make([]float64, len(pts))
	for i, p := range pts {
		out[i] = p.Rate()
	}
	return out
}

// metrics fills the common part of the applier block.
func (r *replica) metrics(out map[string]any, elapsed time.Duration) {
	sec := elapsed.Seconds()
	out["elapsed_s"] = sec
	out["trx_committed"] = r.commits
	out["tps"] = float64(r.commits) / sec
	cpu := r.cpu.Stats()
	out["cpu_util_pct"] = 100 * cpu.Utilization
	out["cpu_cores"] = int64(r.cpu.Servers())

	now := r.env.Now()
	var acc [wsN]int64
	for _, w := range r.sch.workers() {
		w.set(now, w.state)
		for i, v := range w.acc {
			acc[i] += v
		}
	}
	total := float64(elapsed) * float64(len(r.sch.workers()))
	states := map[string]any{}
	for i, v := range acc {
		states[workerStateNames[i]] = 100 * float64(v) / total
	}
	out["worker_state_pct"] = states
	out["worker_busy_pct"] = 100 * (1 - float64(acc[wsIdle])/total)
	out["worker_apply_pct"] = 100 * float64(acc[wsApply]) / total
	out["parked_s"] = time.Duration(acc[wsParked]).Seconds()
	out["worker_commit_wait_s"] = time.Duration(acc[wsCommit]).Seconds()
	out["lock_wait_s"] = time.Duration(acc[wsLockWait]).Seconds()
	out["latency_ms"] = map[string]any{
		"avg": r.lat.Mean() / 1e6,
		"p50": float64(r.lat.Quantile(0.50)) / 1e6,
		"p95": float64(r.lat.Quantile(0.95)) / 1e6,
		"p99": float64(r.lat.Quantile(0.99)) / 1e6,
		"max": float64(r.lat.Max()) / 1e6,
	}
	out["row_lock_waits"] = r.lockWaits
	out["memory_max_bytes"] = r.maxMemory
	if r.regWaitN > 0 {
		out["commit_turn_wait_ms_avg"] = float64(r.regWaitSum) / float64(r.regWaitN) / 1e6
	}
	if r.depWaitN > 0 {
		out["dependency_wait_ms_avg"] = float64(r.depWaitSum) / float64(r.depWaitN) / 1e6
	}
	if o := r.ordered; o != nil && o.Groups > 0 {
		out["commit_group_size_mean"] = float64(o.GroupTrx) / float64(o.Groups)
	}
	if r.redo != nil {
		out["redo_flushes_per_s"] = float64(r.redo.Flushes) / sec
		if r.redo.Flushes > 0 {
			out["redo_waiters_per_flush"] = float64(r.redo.Waiters) / float64(r.redo.Flushes)
		}
	}
	if o := r.ordered; r.prof.binlog {
		out["binlog_syncs_per_s"] = float64(o.Syncs) / sec
		if o.Syncs > 0 {
			out["binlog_sync_group_mean"] = float64(o.SyncTrx) / float64(o.Syncs)
		}
	}
	v := r.violations
	out["invariant_violations"] = v.doubleCommit + v.depStart + v.commitOrder + v.memory
	r.sch.metrics(out, elapsed)
	out["storage"] = r.arr.Metrics()
}
