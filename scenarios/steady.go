package scenarios

import (
	"fmt"
	"math"

	"simrun/internal/result"
	"simrun/sim/stats"
)

// steadyBatches is the number of batches of the batch-means interval: 20
// is Law's recommendation for 10-30 batches (Simulation Modeling and
// Analysis, §9.5.3), and keeps each batch 30 s long in a 600 s run.
const steadyBatches = 20

// heldTol is what "held" means for the checkpoint age: its mean over the
// last eighth of the run within 5 % of its mean over the eighth before
// (not still growing), and "reached" its held level within 5 % of it. Held
// ages stay inside this band in the 600 s binlog study (Case2 3,060-3,062
// MB, Case1 3,080-3,290 MB in 25 s means); a ramp grows by the redo rate,
// tens of MB/s, and crosses it in seconds, so the value only moves the
// estimated end of the ramp by about 5 %.
const heldTol = 0.05

// driftTol is the largest drift of a cyclic series' level that a cut in
// its first half may leave in the mean it keeps (stats.DriftCut): 1 %,
// below what separates two runs of a real benchmark (the binlog study's
// trx_commit 0 and 2 pairs, which the model cannot tell apart, differ by
// 2-6 %). Case7's level rises by 2 % over 3,600 s as index k's splits fall
// with the data's age; MSER reads any such drift as a trend, and moves its
// cut later with every longer run.
const driftTol = 0.01

// Steady checks whether a row's runs reached steady state, from the
// metrics the models emit and the case's configuration:
//
//   - MSER-5 on the throughput series: the start-up transient, and whether
//     the series settled at all (a minimum in its second half means not).
//     A series that MSER-5 finds unsettled but that repeats a cycle (the
//     page cleaner's flush bursts recur once the checkpoint age is held,
//     docs/capacity-planning.md) is judged again with cycle-long batches,
//     and a cut those put in the second half is taken back to the first
//     half when the level drifts by at most driftTol after it; a cycle
//     seen only twice names the run that would judge it;
//   - the checkpoint age series: still growing at the end, or held only
//     from the second half of the run on;
//   - the redo log's first pass through a new (fallocated) file, where each
//     log sync also commits the filesystem journal, when commits wait for
//     the redo sync (innodb_flush_log_at_trx_commit 1 or 3; with 0 and 2
//     the syncs are off the commit path and the 600 s study's throughput
//     does not change at the wrap): not yet over, or over only in the
//     second half of the run;
//   - for an online replica, the lag over the second half: an applier
//     that commits less than its source grows its lag for as long as the
//     source writes (applierLag), so no run length is steady.
//
// Each failed check adds a warning that says how long the run should have
// been: long enough that the transient it found is at most its first
// half, the acceptance rule of MSER-5. It returns nil when the row has no
// throughput series (series.tps, or a replica's applier.tps_series).
func Steady(c *Case, m result.Metrics) *result.Steady {
	dur := c.Settings.Duration.Seconds()
	switch c.Config.Workload.Kind {
	case "bulkload":
		return loadCutOff(c, m)
	case "fio":
		return fioEmpty(c, m)
	}
	path := "series.tps"
	xs := floats(m, path)
	interval, _ := metric(m, "series.interval_s")
	if len(xs) == 0 {
		// A replica: the applier's commit rate, its points spread over
		// the measured window.
		path = "applier.tps_series"
		if xs = floats(m, path); len(xs) > 0 {
			interval = dur / float64(len(xs))
		}
	}
	if len(xs) == 0 {
		return nil
	}
	if !(interval > 0) {
		interval = 1
	}
	warm := c.Settings.Warmup.Seconds()
	n := len(xs)
	st := &result.Steady{Series: path, IntervalS: interval, Rule: "mser-5"}
	need := 0.0
	warn := func(needed float64, format string, args ...any) {
		st.TooShort = true
		st.Warnings = append(st.Warnings, fmt.Sprintf(format, args...))
		need = math.Max(need, needed)
	}
	// twice reads a transient of t seconds into the measured window as the
	// run it asks for: t at most half of it.
	twice := func(t float64) float64 { return math.Ceil(2*t/interval) * interval }

	if tx, ok := metric(m, "transactions"); ok && tx == 0 {
		warn(math.Max(2*dur, 20), "no transaction completed in the %gs measured: every figure is empty", dur)
	}
	trunc, settled := stats.MSER5(xs)
	batch, cycle, seen := stats.MSERBatch, 0, "its second half"
	if n >= 4*stats.MSERBatch && !settled {
		// A cycle short enough to repeat three times in the second half;
		// else one that repeats three times after the warm-up MSER-5
		// accepts (a cycle of a third of the run needs the longer series);
		// else one seen twice there, too slow to judge the run by but
		// enough to say how long a run would be.
		warm := stats.MSER5FirstHalf(xs)
		p := stats.Period(xs[n/2:])
		if p == 0 {
			p, seen = stats.Period(xs[warm:]), afterWarm(float64(warm)*interval)
		}
		if p == 0 {
			p = stats.PeriodReps(xs[warm:], 2)
		}
		if p > 0 {
			cycle, batch = p, p
			st.CycleS = float64(p) * interval
			if stats.CycleUsable(n, p) {
				st.Rule = "mser-cycle"
				trunc, settled = stats.MSERCycle(xs, p)
				if !settled {
					if d, ok := stats.DriftCut(xs, p, driftTol); ok {
						st.Rule, trunc, settled = "mser-cycle-drift", d, true
					}
				}
			}
		}
	}
	st.TransientS, st.Settled = float64(trunc)*interval, settled
	kept := xs[trunc:]
	st.Mean, st.CI95, st.Batches = stats.BatchMeans(kept, max(2, min(steadyBatches, len(kept)/batch)))
	if math.IsNaN(st.CI95) {
		st.CI95 = 0
	}
	switch {
	case n < 4*stats.MSERBatch:
		st.Settled = false
		warn(4*stats.MSERBatch*interval, "only %s of throughput: MSER-5 needs at least %d to judge the warm-up",
			plural(n, "interval"), 4*stats.MSERBatch)
	case cycle > 0 && !stats.CycleUsable(n, cycle):
		st.Settled = false
		runs := float64(stats.MinCycleRun(cycle)) * interval
		warn(runs, "throughput repeats a ~%gs cycle (the autocorrelation of %s peaks there): MSER-5 reads it as a trend, and judging it with cycle-long batches needs more than six cycles; run at least %gs",
			st.CycleS, seen, runs)
	case !settled:
		what := "MSER-5 finds no steady state"
		if cycle > 0 {
			what = fmt.Sprintf("across its ~%gs cycle, MSER with cycle-long batches finds no steady state", st.CycleS)
		}
		warn(twice(st.TransientS), "throughput still trending: %s in %gs (its best cut is at %gs, in the second half; the %.0f TPS after it are %+.1f %% from the run's %.0f); run at least %gs",
			what, dur, st.TransientS, mean(kept), 100*(mean(kept)/mean(xs)-1), mean(xs), twice(st.TransientS))
	}

	if age := floats(m, "series.checkpoint_age_MB"); len(age) >= 8 {
		// The level it is held at, if held: the last eighth of the run;
		// still growing when that is above the eighth before it.
		e := len(age) / 8
		level, before := mean(age[len(age)-e:]), mean(age[len(age)-2*e:len(age)-e])
		async, _ := metric(m, "checkpoint_age_mb.async_point")
		end := float64(len(age)) * interval
		last := age[len(age)-1]
		growing := level > (1+heldTol)*before
		if growing && last >= async && last <= (1+heldTol)*async {
			// Back at the async point, where flush-ahead holds it: the end
			// of a dip of a held age's cycle (Case5's), not a ramp.
			growing, level = false, async
		}
		if growing {
			// At its present rate it reaches the async point, where the
			// page cleaner's flush-ahead holds it (all nine cases of the
			// 600 s study hold it there).
			slope := (level - before) / (float64(e) * interval)
			if last < async {
				reach := end + (async-last)/slope
				warn(twice(reach), "checkpoint age still growing (%.0f MB at the end, %+.1f MB/s over the last quarter); at that rate it reaches the async point (%.0f MB), where the page cleaner's flush-ahead holds it, after about %.0fs; run at least %gs",
					last, slope, async, reach, twice(reach))
			} else {
				warn(twice(end), "checkpoint age still growing past the async point (%.0f MB at the end, %.0f MB the async point, %+.1f MB/s over the last quarter); run at least %gs",
					last, async, slope, twice(end))
			}
		} else {
			i := 0
			for i < len(age) && age[i] < (1-heldTol)*level {
				i++
			}
			st.AgeHeldS = float64(i) * interval
			if st.AgeHeldS > dur/2 {
				warn(twice(st.AgeHeldS), "checkpoint age ramped for %.0fs of the %gs run before the page cleaner held it at ~%.0f MB; run at least %gs",
					st.AgeHeldS, dur, level, twice(st.AgeHeldS))
			}
		}
	}

	if lsn, ok1 := metric(m, "redo_lsn_bytes"); ok1 && lsn > 0 && c.Config.Commit.FlushLogAtTrxCommit.Syncs() {
		r := c.Config.Engine.Redo
		ring := float64(int64(r.LogFileSize) - 12288)
		base := 0.0
		if r.InitialLog == "after_load" {
			base = float64(int64(c.Config.Workload.Sysbench.Tables)*c.Config.Workload.Sysbench.TableSize) * float64(r.BytesLoadRow)
		}
		if r.InitialLog != "wrapped" && base < ring {
			// Where the log wraps: the redo per transaction over the
			// window, accumulated along the throughput series (its rate
			// rises at the wrap), the warm-up at the first interval's rate.
			perTx := lsn / (sum(xs) * interval)
			pos := base + warm*xs[0]*perTx
			wrap := -1.0
			for i, x := range xs {
				if pos += x * interval * perTx; pos >= ring {
					wrap = float64(i+1) * interval
					break
				}
			}
			switch {
			case wrap < 0:
				rate := lsn / dur
				wrap = dur + (ring-pos)/rate
				warn(twice(wrap), "redo log still in its first pass (%.0f of %.0f MB written): every sync also commits the ext4 journal until it wraps, after about %.0fs at %.1f MB/s; run at least %gs",
					pos/1e6, ring/1e6, wrap, rate/1e6, twice(wrap))
			case wrap > dur/2:
				warn(twice(wrap), "redo log's first pass ended at %.0fs, in the second half of the run (until then every sync also commits the ext4 journal); run at least %gs",
					wrap, twice(wrap))
			}
			st.FirstPassEndS = wrap
		}
	}
	if q := floats(m, "disk.series.aqu_sz"); len(q) > 0 {
		qi, _ := metric(m, "disk.series.interval_s")
		if !(qi > 0) {
			qi = dur / float64(len(q))
		}
		if r, ok := risingHalf(q, qi); ok {
			// A closed workload bounds the queue by its threads, so a
			// queue still growing is a load still ramping up (the page
			// cleaner's flushing, a log's groups): where it levels off is
			// not known, so the run should be twice as long.
			warn(twice(dur), "volume queue still growing (%+.3f ± %.3f a second over the second half, %.2f at the end): the I/O load is still ramping up; run at least %gs",
				r.slope, r.hw, r.end, twice(dur))
		}
	}
	applierLag(st, m, xs, warn)
	if st.TooShort {
		st.NeededS = need
	}
	return st
}

// trendBatches is the batches a queue's trend is fitted to over the second
// half of a run (stats.Trend): 8 leave 6 degrees of freedom and, in the
// shortest run judged (16 samples), one sample each.
const trendBatches = 8

// halfTrend is a queue's trend over the second half of a run: slope ± hw
// per second, the rise it makes over the half, its level at the end (the
// last batch's mean).
type halfTrend struct{ slope, hw, rise, end float64 }

// risingHalf reports whether xs, sampled every interval seconds, rises
// over its second half: its trend's 95 % interval lies above zero, fitted
// to trendBatches batch means so that a series that only wanders is not a
// trend, and the rise is more than heldTol of the level at the end (a
// material rise, as for the checkpoint age). Fewer than 2·trendBatches
// samples are not judged.
func risingHalf(xs []float64, interval float64) (halfTrend, bool) {
	if len(xs) < 2*trendBatches {
		return halfTrend{}, false
	}
	half := xs[len(xs)/2:]
	slope, hw := stats.Trend(half, trendBatches)
	r := halfTrend{slope: slope / interval, hw: hw / interval}
	r.rise = r.slope * float64(len(half)) * interval
	r.end = mean(half[len(half)-len(half)/trendBatches:])
	return r, r.slope-r.hw > 0 && r.rise > heldTol*r.end
}

// applierLag judges an online replica's lag over the second half of the
// run: a queue whose applier cannot keep up with its source grows for as
// long as the source writes, so max_lag_s and final_lag_s measure the run's
// length, not the replica. It diverges when the lag rises (risingHalf) and
// the applier's commit rate over the same half is below the source's by
// more than its own batch-means interval (the deficit that feeds the
// queue: a lag that rises while the applier keeps the source's rate is a
// drain still catching up). Fewer than 2·trendBatches samples cannot be
// judged.
func applierLag(st *result.Steady, m result.Metrics, tps []float64, warn func(float64, string, ...any)) {
	lag := floats(m, "applier.lag_s")
	if len(lag) == 0 {
		return
	}
	li, _ := metric(m, "applier.lag_interval_s")
	if !(li > 0) {
		li = 1
	}
	if len(lag) < 2*trendBatches {
		warn(float64(2*trendBatches)*li, "only %s of replication lag: its trend needs at least %d", plural(len(lag), "sample"), 2*trendBatches)
		return
	}
	r, ok := risingHalf(lag, li)
	if !ok {
		return
	}
	src, _ := metric(m, "applier.source_tps")
	th := tps[len(tps)/2:]
	applied, ahw, _ := stats.BatchMeans(th, min(trendBatches, len(th)/2))
	if math.IsNaN(ahw) || !(applied+ahw < src) {
		return
	}
	st.Settled = false
	st.Diverging = true
	st.Unbounded = []string{"applier.max_lag_s", "applier.final_lag_s", "applier.relay_backlog_trx"}
	st.Warnings = append(st.Warnings, fmt.Sprintf("replication lag still growing (%+.3f ± %.3f s a second over the second half, %.2f s at the end): the applier committed %.0f TPS there against the source's %.0f, so its backlog grows for as long as the source writes, and max_lag_s, final_lag_s and relay_backlog_trx grow with the run; no run length is steady",
		r.slope, r.hw, lag[len(lag)-1], applied, src))
}

// floats reads a numeric series by path.
func floats(m result.Metrics, path string) []float64 {
	v, _ := m.Lookup(path)
	xs, _ := result.Floats(v) // a decoded result's whole-number series are []int64
	return xs
}

func sum(xs []float64) float64 {
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s
}

func mean(xs []float64) float64 { return sum(xs) / float64(len(xs)) }

// metric reads a numeric metric by path.
func metric(m result.Metrics, path string) (float64, bool) {
	v, ok := m.Lookup(path)
	if !ok {
		return 0, false
	}
	return result.Float(v)
}

// Analyse fills a row's optional analysis from its metrics: the
// steady-state check, the bottleneck and the analytical twin.
func Analyse(c *Case, rc *result.Case) {
	rc.Steady = Steady(c, rc.Metrics)
	rc.Bottleneck = Bottleneck(c, rc.Metrics)
	rc.Twin = Twin(c, rc.Metrics)
}

// afterWarm names the part of a series after a warm-up of w seconds.
func afterWarm(w float64) string {
	if w == 0 {
		return "the whole run"
	}
	return fmt.Sprintf("the run after its first %gs", w)
}

// plural is "1 interval", "10 intervals".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// loadCutOff judges a bulk load: a load is steady when it finished, since
// its figure is the load's wall time; one the run's duration cut off gets a
// warning and the run its rows so far say it needs (at the rate they came
// at, a lower bound: a load slows as its indexes outgrow the buffer pool).
func loadCutOff(c *Case, m result.Metrics) *result.Steady {
	done, ok := m.Lookup("done")
	if !ok || done != false {
		return nil
	}
	dur := c.Settings.Duration.Seconds()
	st := &result.Steady{Series: "done", TooShort: true, NeededS: 2 * dur}
	rows, _ := metric(m, "rows")
	total := float64(c.Config.Workload.Bulkload.Rows)
	if !(rows > 0) {
		// No rate to project from: say only that it must be longer.
		st.Warnings = append(st.Warnings, fmt.Sprintf("the load did not finish: no row was loaded in the %gs measured (the load's set-up takes longer); run at least %gs, likely much longer",
			dur, st.NeededS))
		return st
	}
	if total > rows {
		st.NeededS = math.Ceil(dur * total / rows)
	}
	st.Warnings = append(st.Warnings, fmt.Sprintf("the load did not finish: %.0f of %.0f rows in the %gs measured; run at least %gs (a lower bound: the load slows as it grows)",
		rows, total, dur, st.NeededS))
	return st
}

// fioEmpty warns about a fio job that completed no I/O in its runtime:
// every figure of it is empty.
func fioEmpty(c *Case, m result.Metrics) *result.Steady {
	reads, _ := metric(m, "read.total_ios")
	writes, _ := metric(m, "write.total_ios")
	if reads+writes > 0 {
		return nil
	}
	dur := c.Settings.Duration.Seconds()
	return &result.Steady{Series: "read.total_ios", TooShort: true, NeededS: math.Max(2*dur, 1),
		Warnings: []string{fmt.Sprintf("no I/O completed in the %gs measured: every figure is empty", dur)}}
}
