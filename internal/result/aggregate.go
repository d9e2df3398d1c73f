package result

import (
	"math"
	"strings"

	"simrun/sim/stats"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"
)

// CISuffix is appended to a metric's name for the half-width of its 95 %
// confidence interval.
const CISuffix = "_ci95"

// Aggregate combines the metrics of N independent replications of one case.
// Each numeric leaf becomes the mean over the replications (a float64) and,
// when N >= 2, gains a sibling NAME_ci95 with the half-width of the 95 %
// confidence interval of that mean: t(0.975, N-1) * s / sqrt(N), s the
// sample standard deviation, plus the leaf's Resolution (a quantile's
// bucket, which replications cannot average away). Series are averaged
// point by point (over the shortest length) without an interval. Strings
// and booleans keep the first replication's value. A leaf missing from
// some replications is averaged over those that have it.
func Aggregate(reps []Metrics) Metrics {
	switch len(reps) {
	case 0:
		return Metrics{}
	case 1:
		return reps[0]
	}
	maps := make([]map[string]any, len(reps))
	for i, r := range reps {
		maps[i] = r
	}
	return aggregate(maps)
}

func aggregate(reps []map[string]any) Metrics {
	out := Metrics{}
	seen := map[string]bool{}
	for _, r := range reps {
		for k := range r {
			seen[k] = true
		}
	}
	for k := range seen {
		var vals []any
		for _, r := range reps {
			if v, ok := r[k]; ok && v != nil {
				vals = append(vals, v)
			}
		}
		if len(vals) == 0 {
			out[k] = nil
			continue
		}
		switch first := vals[0].(type) {
		case Metrics, map[string]any:
			var subs []map[string]any
			for _, v := range vals {
				switch x := v.(type) {
				case Metrics:
					subs = append(subs, x)
				case map[string]any:
					subs = append(subs, x)
				}
			}
			out[k] = aggregate(subs)
		case []float64, []int64:
			out[k] = meanSeries(vals)
		case string, bool:
			out[k] = first
		default:
			xs := make([]float64, 0, len(vals))
			for _, v := range vals {
				if f, ok := Float(v); ok && !math.IsNaN(f) {
					xs = append(xs, f)
				}
			}
			if len(xs) == 0 {
				out[k] = math.NaN()
				continue
			}
			mean, h := MeanCI95(xs)
			out[k] = mean
			if len(vals) >= 2 && !strings.HasSuffix(k, CISuffix) {
				out[k+CISuffix] = h + Resolution(k, mean)
			}
		}
	}
	return out
}

func meanSeries(vals []any) []float64 {
	var series [][]float64
	n := -1
	for _, v := range vals {
		var s []float64
		switch x := v.(type) {
		case []float64:
			s = x
		case []int64:
			s = make([]float64, len(x))
			for i, e := range x {
				s[i] = float64(e)
			}
		default:
			continue
		}
		series = append(series, s)
		if n < 0 || len(s) < n {
			n = len(s)
		}
	}
	out := make([]float64, max(n, 0))
	for i := range out {
		var sum float64
		for _, s := range series {
			sum += s[i]
		}
		out[i] = sum / float64(len(series))
	}
	return out
}

// Resolution returns how far a metric's value v can be from what it
// estimates whatever the number of replications: for a quantile, the
// histogram bucket it was read from (stats.QuantileBound); for every other
// metric 0. path may be a whole metric path or its last element. Every
// metric named pNN (p50, p99, p999) is a stats.Histogram quantile: the
// latency blocks (Latency) and the checkpoint age's median.
func Resolution(path string, v float64) float64 {
	if isQuantileKey(path[strings.LastIndexByte(path, '.')+1:]) {
		return stats.QuantileBound(v)
	}
	return 0
}

// isQuantileKey reports whether k is p followed by digits only.
func isQuantileKey(k string) bool {
	if len(k) < 2 || k[0] != 'p' {
		return false
	}
	for _, c := range k[1:] {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// MeanCI95 returns the mean of xs and the half-width of its 95 % confidence
// interval (Student's t, N-1 degrees of freedom); the half-width is 0 for
// fewer than two values.
func MeanCI95(xs []float64) (mean, halfWidth float64) {
	if len(xs) == 0 {
		return math.NaN(), math.NaN()
	}
	mean = stat.Mean(xs, nil)
	if len(xs) < 2 {
		return mean, 0
	}
	sd := stat.StdDev(xs, nil)
	t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(len(xs) - 1)}.Quantile(0.975)
	return mean, t * sd / math.Sqrt(float64(len(xs)))
}
