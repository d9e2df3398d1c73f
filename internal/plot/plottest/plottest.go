// Package plottest makes small synthetic result documents with every
// metric the charts and exports read, so their tests need no model. The
// numbers are made up (shaped like the published binlog study, not equal
// to it) and computed with integer arithmetic, so they are the same on
// every platform.
package plottest

import (
	"simrun/internal/result"
)

// noise is a tiny deterministic generator: the same sequence everywhere.
type noise uint64

// next returns a value in [-1, 1).
func (n *noise) next() float64 {
	*n = *n*6364136223846793005 + 1442695040888963407
	return float64(int64(uint64(*n)>>11)%2000-1000) / 1000
}

func round(f float64, digits int) float64 {
	p := 1.0
	for range digits {
		p *= 10
	}
	x := f * p
	if x < 0 {
		return -float64(int64(-x+0.5)) / p
	}
	return float64(int64(x+0.5)) / p
}

func seriesAround(n *noise, points int, level, jitter float64, digits int) []float64 {
	s := make([]float64, points)
	for i := range s {
		s[i] = round(level*(1+jitter*n.next()), digits)
	}
	return s
}

// Run returns a run of six cases named "binlog/trx=N" with TPS, QPS,
// latency percentiles, a commit breakdown, iostat figures and per-second
// series.
func Run() *result.Document {
	d := result.New("binlog-demo")
	d.Description = "Synthetic test data shaped like a binlog comparison: the binlog stored in InnoDB against the classic binlog file, at three settings of innodb_flush_log_at_trx_commit."
	d.Seed = 42
	d.Duration = 20
	d.Warmup = 2
	type row struct {
		binlog                    string
		trx                       int
		tps                       float64
		redo, binlog1, binlog2    float64 // commit breakdown, ms
		queue, cpu, wkB, util, aq float64
		ckpt                      float64
	}
	rows := []row{
		{"innodb", 0, 6941, 0, 0, 0, 0.15, 1.9, 98000, 41, 1.2, 40},
		{"innodb", 1, 5313, 1.1, 0, 0, 0.45, 1.9, 118000, 78, 2.6, 55},
		{"innodb", 2, 7107, 0.05, 0, 0, 0.15, 1.9, 99000, 43, 1.3, 41},
		{"file", 0, 3817, 0, 1.4, 0, 0.9, 1.9, 52000, 49, 1.8, 22},
		{"file", 1, 2849, 1.1, 1.5, 0, 1.4, 1.9, 47000, 71, 2.9, 18},
		{"file", 2, 3762, 0.05, 1.45, 0, 0.95, 1.9, 51000, 50, 1.9, 21},
	}
	var n noise = 7
	for _, r := range rows {
		lat := 16 / r.tps * 1000 // Little's law with 16 clients, ms
		m := result.Metrics{
			"tps": r.tps,
			"qps": 6 * r.tps,
			"latency_ms": result.Metrics{
				"avg": round(lat, 3), "p50": round(lat*0.9, 3), "p95": round(lat*1.9, 3),
				"p99": round(lat*2.8, 3), "p999": round(lat*4.5, 3), "max": round(lat*9, 3),
			},
			"commit_breakdown_ms": result.Metrics{
				"cpu": r.cpu, "queue": r.queue, "redo_fsync": r.redo, "binlog_fsync": r.binlog1,
				"total": round(r.cpu+r.queue+r.redo+r.binlog1, 3),
			},
			"disk": result.Metrics{
				"write_kB_per_s": r.wkB, "util_pct": r.util, "aqu_sz": r.aq, "writes_per_s": round(r.wkB/40, 1),
				"series": result.Metrics{
					"interval_s":     1.0,
					"write_kB_per_s": seriesAround(&n, 20, r.wkB, 0.08, 0),
					"util_pct":       seriesAround(&n, 20, r.util, 0.05, 1),
					"aqu_sz":         seriesAround(&n, 20, r.aq, 0.2, 2),
				},
			},
			"series": result.Metrics{
				"interval_s":        1.0,
				"tps":               seriesAround(&n, 20, r.tps, 0.04, 0),
				"checkpoint_age_MB": seriesAround(&n, 20, r.ckpt, 0.1, 1),
			},
			"binlog_storage": r.binlog,
			"fsyncs":         int64(r.tps * 20 / 4),
		}
		d.Cases = append(d.Cases, result.Case{Name: r.binlog + "/trx=" + string(rune('0'+r.trx)), Metrics: m})
	}
	return d
}

// Sweep returns a sweep of client threads for two cases, with TPS that
// saturates and p99 latency that climbs past the knee, and replications
// (so metrics carry _ci95 intervals).
func Sweep() *result.Document {
	d := result.New("threads-sweep")
	d.Description = "Synthetic test data: a closed-loop sweep of client threads against a volume that saturates."
	d.Seed = 7
	d.Duration = 10
	d.Warmup = 1
	d.Replications = 3
	threads := []int64{1, 2, 4, 8, 16, 32, 64, 128}
	vals := make([]any, len(threads))
	for i, t := range threads {
		vals[i] = t
	}
	d.Sweep = []result.Axis{{Key: "workload.threads", Values: vals}}
	var n noise = 11
	for _, c := range []struct {
		name      string
		z, s, cap float64 // think ms, service ms per commit group, max TPS
	}{{"file", 0.8, 3.0, 3000}, {"innodb", 0.8, 1.6, 5400}} {
		for _, t := range threads {
			// Closed loop: X = N / (Z + R) below the cap, then flat while R grows.
			x := float64(t) / (c.z + c.s) * 1000
			if x > c.cap {
				x = c.cap
			}
			r := float64(t)/x*1000 - c.z
			m := result.Metrics{
				"tps":      round(x, 1),
				"tps_ci95": round(x*0.01*(1.5+n.next()), 2),
				"latency_ms": result.Metrics{
					"avg": round(r, 3), "p50": round(r*0.9, 3), "p95": round(r*1.8, 3), "p99": round(r*2.5+0.002*float64(t*t), 3),
					"p99_ci95": round(r*0.05, 3), "max": round(r*6, 3),
				},
			}
			d.Cases = append(d.Cases, result.Case{Name: c.name, Point: map[string]any{"workload.threads": t}, Metrics: m})
		}
	}
	return d
}

// placeholderNote opens the description of every placeholder tutorial
// result, so no reader mistakes it for a simulation.
const placeholderNote = "**Placeholder data: synthetic numbers, not a simulation run.** They show the shape of the charts until the scenario runs; regenerate as docs/tutorials/README.md says. "

// Placeholder returns synthetic data for the tutorial with this slug, or
// nil. The numbers only have the expected shape; the real ones come from
// running the tutorial's scenario.
func Placeholder(slug string) *result.Document {
	switch slug {
	case "two-fsyncs":
		d := Run()
		d.Scenario = "two-fsyncs"
		d.Description = placeholderNote + "Six cases: binlog in InnoDB or in a file (sync_binlog=1), each at innodb_flush_log_at_trx_commit 0, 1 and 2."
		return d
	case "thin-volume":
		return thinVolume()
	case "applier-hol":
		return applier()
	}
	return nil
}

func thinVolume() *result.Document {
	d := result.New("thin-volume")
	d.Description = placeholderNote + "The binlog in InnoDB and in a file, both durable, on a 120 MB/s volume and on a 54 MB/s one."
	d.Seed = 1
	d.Duration = 30
	d.Warmup = 5
	var n noise = 3
	for _, r := range []struct {
		name           string
		tps, wkB, util float64
		aq, ckpt       float64
		capKB          float64 // the volume's byte cap in iostat kB/s
	}{
		{"120MBps/innodb", 5300, 100000, 81, 3, 60, 117187},
		{"120MBps/file", 2850, 56000, 72, 2.8, 25, 117187},
		{"54MBps/innodb", 2500, 52500, 100, 24, 80, 52734},
		{"54MBps/file", 2600, 48000, 96, 9, 24, 52734},
	} {
		m := result.Metrics{
			"tps": r.tps, "qps": 6 * r.tps,
			"latency_ms": result.Metrics{"avg": round(16000/r.tps, 3), "p99": round(16000/r.tps*3, 3)},
			"disk": result.Metrics{
				"write_kB_per_s": r.wkB, "util_pct": r.util, "aqu_sz": r.aq,
				"series": result.Metrics{
					"interval_s":     1.0,
					"write_kB_per_s": clampSeries(seriesAround(&n, 30, r.wkB, 0.05, 0), r.capKB),
					"util_pct":       clampSeries(seriesAround(&n, 30, r.util, 0.03, 1), 100),
					"aqu_sz":         seriesAround(&n, 30, r.aq, 0.15, 2),
				},
			},
			"series": result.Metrics{
				"interval_s":        1.0,
				"tps":               seriesAround(&n, 30, r.tps, 0.04, 0),
				"checkpoint_age_MB": seriesAround(&n, 30, r.ckpt, 0.08, 1),
			},
		}
		d.Cases = append(d.Cases, result.Case{Name: r.name, Metrics: m})
	}
	return d
}

func clampSeries(s []float64, hi float64) []float64 {
	for i, v := range s {
		s[i] = min(v, hi)
	}
	return s
}

func applier() *result.Document {
	d := result.New("applier-hol")
	d.Description = placeholderNote + "A replica applying a backlog with the multi-threaded applier (MTA) and the change stream applier (CSA), sweeping the number of workers."
	d.Seed = 1
	d.Duration = 20
	d.Warmup = 2
	workers := []int64{1, 2, 4, 8, 16, 32, 64}
	vals := make([]any, len(workers))
	for i, w := range workers {
		vals[i] = w
	}
	d.Sweep = []result.Axis{{Key: "applier.workers", Values: vals}}
	for _, c := range []struct {
		name     string
		per, cap float64
	}{{"mta", 9000, 48000}, {"csa", 9500, 56000}} {
		for _, w := range workers {
			x := min(float64(w)*c.per, c.cap)
			lat := float64(w) / x * 1000
			if float64(w)*c.per > c.cap {
				lat *= 1 + 0.3*(float64(w)*c.per/c.cap-1)
			}
			d.Cases = append(d.Cases, result.Case{Name: c.name, Point: map[string]any{"applier.workers": w}, Metrics: result.Metrics{
				"tps": round(x, 0),
				"latency_ms": result.Metrics{
					"avg": round(lat, 3), "p50": round(lat*0.8, 3), "p95": round(lat*2, 3), "p99": round(lat*3.2, 3), "max": round(lat*8, 3),
				},
			}})
		}
	}
	return d
}

// CategorySweep is Sweep over a parameter of named values: two cases at
// binlog_storage_engine innodb and file.
func CategorySweep() *result.Document {
	d := Sweep()
	d.Sweep = []result.Axis{{Key: "commit.binlog_storage_engine", Values: []any{"innodb", "file"}}}
	var cases []result.Case
	for i, c := range d.Cases[:4] {
		c.Name = []string{"Case2", "Case3"}[i/2]
		c.Point = map[string]any{"commit.binlog_storage_engine": []string{"innodb", "file"}[i%2]}
		cases = append(cases, c)
	}
	d.Cases = cases
	return d
}
