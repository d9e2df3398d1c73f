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

// rampRatio: a checkpoint age that grows from zero in a straight line has a
// mean and median of half its maximum; a held age oscillates below its
// maximum, with a mean well above half of it (0.70-0.80 in the 600 s binlog
// study). Below this ratio the age is taken to be still growing.
const rampRatio = 0.6

// Steady checks whether a row's runs reached steady state, from the
// metrics the models emit and the case's configuration:
//
//   - MSER-5 on the throughput series: the start-up transient, and whether
//     the series settled at all (a minimum in its second half means not);
//   - the checkpoint age: still ramping up from zero (mean and median below
//     0.6 of the maximum), so the page cleaner had not yet balanced it;
//   - the redo log: still in its first pass through a new (fallocated)
//     file, where each log sync also commits the filesystem journal.
//
// Each failed check adds a warning that says how long the run should have
// been. It returns nil when the row has no throughput series.
func Steady(c *Case, m result.Metrics) *result.Steady {
	series, ok := m.Lookup("series.tps")
	xs, isSeries := series.([]float64)
	if !ok || !isSeries || len(xs) == 0 {
		return nil
	}
	interval, _ := metric(m, "series.interval_s")
	if !(interval > 0) {
		interval = 1
	}
	dur := c.Settings.Duration.Seconds()
	elapsed := c.Settings.Warmup.Seconds() + dur
	st := &result.Steady{Series: "series.tps", IntervalS: interval}
	trunc, settled := stats.MSER5(xs)
	st.TransientS, st.Settled = float64(trunc)*interval, settled
	kept := xs[trunc:]
	st.Mean, st.CI95, st.Batches = stats.BatchMeans(kept, max(2, min(steadyBatches, len(kept)/stats.MSERBatch)))
	if math.IsNaN(st.CI95) {
		st.CI95 = 0
	}
	need := 0.0
	warn := func(needed float64, format string, args ...any) {
		st.TooShort = true
		st.Warnings = append(st.Warnings, fmt.Sprintf(format, args...))
		need = math.Max(need, needed)
	}
	switch {
	case len(xs) < 4*stats.MSERBatch:
		warn(4*stats.MSERBatch*interval, "only %d intervals of throughput: MSER-5 needs at least %d to judge the warm-up",
			len(xs), 4*stats.MSERBatch)
	case !settled:
		// The series was still moving over its second half: at least twice
		// as long, so that what MSER-5 cuts is the first half at most.
		warn(2*dur, "throughput still trending: MSER-5 finds no steady state in %gs (its best cut is at %gs, in the second half); run at least %gs",
			dur, st.TransientS, 2*dur)
	}
	if len(xs) < 4*stats.MSERBatch {
		st.Settled = false
	}
	if avg, ok1 := metric(m, "checkpoint_age_mb.avg"); ok1 {
		p50, _ := metric(m, "checkpoint_age_mb.p50")
		peak, _ := metric(m, "checkpoint_age_mb.max")
		capMB, _ := metric(m, "checkpoint_age_mb.capacity")
		async, _ := metric(m, "checkpoint_age_mb.async_point")
		if peak > 0 && avg < rampRatio*peak && p50 < rampRatio*peak {
			// Adaptive flushing scales with the age between the low-water
			// mark and the async point; the age settles where the cleaner's
			// rate matches the redo rate, taken here as the midpoint.
			lwm := c.Config.Engine.Flushing.AdaptiveFlushingLWM / 100 * capMB
			target := (lwm + async) / 2
			rate := peak / elapsed
			needed := math.Ceil(target/rate) - c.Settings.Warmup.Seconds()
			if needed > dur {
				warn(needed, "checkpoint age still growing (mean %.0f MB, half its peak %.0f MB); at %.1f MB/s it reaches the page cleaner's balance (~%.0f MB, between the %g%% low-water mark and the async point) after about %.0fs: run at least that long",
					avg, peak, rate, target, c.Config.Engine.Flushing.AdaptiveFlushingLWM, needed)
			} else {
				// It passed the midpoint without settling there: the cleaner
				// let it ramp on (MariaDB's adaptive rule flushes little below
				// the async point), so the balance came late in the run and
				// the run should be long enough to hold it for a while.
				warn(2*dur, "checkpoint age still growing (mean %.0f MB, half its peak %.0f MB, %.0f MB at the async point): it ramped the whole run and reached the page cleaner's balance only near its end; run at least %gs",
					avg, peak, async, 2*dur)
			}
		}
	}
	if lsn, ok1 := metric(m, "redo_lsn_bytes"); ok1 && lsn > 0 {
		r := c.Config.Engine.Redo
		ring := float64(int64(r.LogFileSize) - 12288)
		base := 0.0
		if r.InitialLog == "after_load" {
			base = float64(int64(c.Config.Workload.Sysbench.Tables)*c.Config.Workload.Sysbench.TableSize) * float64(r.BytesLoadRow)
		}
		if r.InitialLog != "wrapped" && base < ring && base+lsn < ring {
			rate := lsn / dur
			needed := math.Ceil((ring - base) / rate)
			warn(needed, "redo log still in its first pass (%.0f of %.0f MB written): every sync also commits the ext4 journal until it wraps, after about %.0fs at %.1f MB/s: run at least that long",
				(base+lsn)/1e6, ring/1e6, needed, rate/1e6)
		}
	}
	if st.TooShort {
		st.NeededS = need
	}
	return st
}

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
