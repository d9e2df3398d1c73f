package applier

import (
	"context"
	"errors"
	"fmt"
	"time"

	"simrun/internal/result"
	"simrun/model/applier/stream"
	"simrun/model/commit"
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
	return RunContext(context.Background(), env, cores, vol, cfg, warmup, duration)
}

// RunContext is Run that returns ctx's error soon after ctx is cancelled
// (checked every 4096 events), so that Ctrl-C stops a long replica run.
func RunContext(ctx context.Context, env *sim.Env, cores int, vol disk.Config, cfg Config, warmup, duration time.Duration) (map[string]any, error) {
	m, _, err := run(ctx, env, cores, vol, cfg, warmup, duration, nil)
	return m, err
}

// checkEvery is how many events run between two looks at the context.
const checkEvery = 4096

// run is RunContext with an optional trace of every transaction step
// (tests); it also returns the replica.
func run(ctx context.Context, env *sim.Env, cores int, vol disk.Config, cfg Config, warmup, duration time.Duration, trace func(traceEvent, int64)) (map[string]any, *replica, error) {
	until := func(t sim.Time) error {
		env.RunUntilEvery(t, checkEvery, func() bool { return ctx.Err() == nil })
		return ctx.Err()
	}
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
	r, err := newReplica(env, cfg, cores, vol)
	if err != nil {
		return nil, nil, err
	}
	r.trace = trace
	arr := r.srv.Array()
	r.relay = arr.OpenFile("relay-log.000001", false)
	r.srcRelay = arr.RegisterSource("relay")
	if cfg.Version == "mta" {
		r.sch = newMTA(r)
	} else {
		r.sch = newCSA(r)
	}

	out := &Metrics{
		Version:       cfg.Version,
		Profile:       cfg.Profile,
		Mode:          cfg.Mode,
		Workers:       int64(cfg.Workers),
		UpdatesPerTrx: int64(cfg.Source.UpdatesPerTrx),
		TrxBytes:      r.trxBytes,
		TrxEvents:     int64(r.nEvents),
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
		out.SourceGroupSizeMean = group
		bm := &BacklogMetrics{SourceLastCommittedGapMean: meanGap(trx), BacklogTrx: int64(n)}
		out.BacklogMetrics = bm
		r.resetStats()
		r.sch.arrived()
		limit := env.Now() + sim.Time(cfg.BacklogTimeMax)
		events := 0
		env.RunWhile(func() bool {
			if events++; events%checkEvery == 0 && ctx.Err() != nil {
				return false
			}
			return r.lwmCommitted < int64(n) && env.NextAt() <= limit
		})
		if err := ctx.Err(); err != nil {
			return nil, nil, err
		}
		bm.Drained = r.lwmCommitted >= int64(n)
		if !bm.Drained {
			if err := until(limit); err != nil {
				return nil, nil, err
			}
		}
		elapsed = time.Duration(env.Now() - r.since)
		tps := float64(r.commits) / elapsed.Seconds()
		bm.CatchupS = elapsed.Seconds()
		if !bm.Drained {
			// Not caught up: project the rest at the rate so far.
			bm.CatchupS += float64(int64(n)-r.lwmCommitted) / max(tps, 1e-9)
		}
	case "online":
		src, err := stream.New(env, cfg.Source, r.sink)
		if err != nil {
			return nil, nil, err
		}
		src.Start()
		if err := until(sim.At(warmup)); err != nil {
			return nil, nil, err
		}
		srcStart := src.Committed()
		r.resetStats()
		env.AfterArg(time.Duration(cfg.LagInterval), r.sampleLagFn, nil)
		if err := until(sim.At(warmup + duration)); err != nil {
			return nil, nil, err
		}
		elapsed = duration
		out.SourceGroupSizeMean = src.MeanGroupSize()
		out.OnlineMetrics = &OnlineMetrics{
			SourceTPS:       float64(src.Committed()-srcStart) / duration.Seconds(),
			MaxLagS:         r.maxLag.Seconds(),
			LagS:            append([]float64{}, r.lagSamples...),
			FinalLagS:       r.lag().Seconds(),
			LagIntervalS:    time.Duration(cfg.LagInterval).Seconds(),
			RelayBacklogTrx: r.ring.len(),
			TPSSeries:       rateSeries(r),
		}
	}
	r.metrics(out, elapsed)
	return result.FromStruct(out), r, nil
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
	pts := r.commitSer.Points(r.env.Now() - r.since)
	out := make([]float64, len(pts))
	for i, p := range pts {
		out[i] = p.Rate()
	}
	return out
}

// metrics fills the common part of the applier block.
func (r *replica) metrics(out *Metrics, elapsed time.Duration) {
	sec := elapsed.Seconds()
	out.ElapsedS = sec
	out.TrxCommitted = r.commits
	out.TPS = float64(r.commits) / sec
	cpu := r.cpu.Stats()
	out.CPUUtilPct = 100 * cpu.Utilization
	out.CPUCores = int64(r.cpu.Servers())
	out.CPUWaitUsAvg = float64(cpu.MeanWait) / 1e3

	now := r.env.Now()
	var acc [wsN]int64
	for _, w := range r.sch.workers() {
		w.set(now, w.state)
		for i, v := range w.acc {
			acc[i] += v
		}
	}
	total := float64(elapsed) * float64(len(r.sch.workers()))
	out.WorkerStatePct = make(map[string]float64, wsN)
	out.WorkerMsPerTrx = make(map[string]float64, wsN)
	for i, v := range acc {
		out.WorkerStatePct[workerStateNames[i]] = 100 * float64(v) / total
		out.WorkerMsPerTrx[workerStateNames[i]] = float64(v) / float64(max(r.commits, 1)) / 1e6
	}
	out.WorkerBusyPct = 100 * (1 - float64(acc[wsIdle])/total)
	out.WorkerApplyPct = 100 * float64(acc[wsApply]) / total
	out.ParkedS = time.Duration(acc[wsParked]).Seconds()
	out.WorkerCommitWaitS = time.Duration(acc[wsCommit]).Seconds()
	out.LockWaitS = time.Duration(acc[wsLockWait]).Seconds()
	out.Latency = result.LatencyMs(&r.lat)
	out.RowLockWaits = r.lockWaits
	out.MemoryMaxBytes = r.maxMemory
	if r.regWaitN > 0 {
		out.CommitTurnWaitMsAvg = ptr(float64(r.regWaitSum) / float64(r.regWaitN) / 1e6)
	}
	if r.depWaitN > 0 {
		out.DependencyWaitMsAvg = ptr(float64(r.depWaitSum) / float64(r.depWaitN) / 1e6)
	}
	if o := r.srv.Ordered(); o != nil && o.Groups > 0 {
		out.CommitGroupSizeMean = ptr(float64(o.GroupTrx) / float64(o.Groups))
		st := o.StageMeans()
		ms := func(i int) float64 { return st[i].Seconds() * 1e3 }
		out.CommitStageMs = &CommitStageMs{
			Queue: ms(commit.StageQueue), Flush: ms(commit.StageFlush), SyncWait: ms(commit.StageSyncWait),
			Sync: ms(commit.StageSync), CommitWait: ms(commit.StageCommitWait), Commit: ms(commit.StageCommit),
		}
	}
	if redo := r.srv.Redo(); redo != nil {
		out.RedoFlushesPerS = ptr(float64(redo.Flushes) / sec)
		if redo.Flushes > 0 {
			out.RedoWaitersPerFlush = ptr(float64(redo.Waiters) / float64(redo.Flushes))
		}
	}
	if o := r.srv.Ordered(); r.prof.binlog {
		out.BinlogSyncsPerS = ptr(float64(o.Syncs) / sec)
		if o.Syncs > 0 {
			out.BinlogSyncGroupMean = ptr(float64(o.SyncTrx) / float64(o.Syncs))
		}
	}
	v := r.violations
	out.InvariantViolations = v.doubleCommit + v.depStart + v.commitOrder + v.memory
	r.sch.metrics(out, elapsed)
	out.Storage = r.srv.Array().Metrics()
}
