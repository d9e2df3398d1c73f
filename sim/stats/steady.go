package stats

import (
	"math"

	"gonum.org/v1/gonum/stat/distuv"
)

// MSERBatch is the batch size of MSER-5: observations are averaged in
// groups of five before the truncation rule is applied, which damps the
// rule's sensitivity to single outliers (White, Cobb and Spratt 2000).
const MSERBatch = 5

// MSER5 applies the MSER-5 warm-up truncation rule (White 1997; White, Cobb
// and Spratt, "A comparison of five steady-state truncation heuristics for
// simulation", WSC 2000) to an output series such as TPS per interval.
//
// The series is cut into m batches of five; Z_j is the j-th batch mean. For
// each candidate truncation d (in batches) the rule computes
//
//	MSER(d) = sum_{j>d} (Z_j - mean_{j>d} Z)^2 / (m-d)^2
//
// the squared standard error of the mean of what is kept, and picks the d
// that minimises it: cutting a transient removes its bias faster than the
// shorter remainder raises the variance. It returns the truncation point as
// an index into xs (a multiple of five) and whether it can be trusted: the
// published rule only accepts a minimum in the first half of the batches; a
// minimum later means the run never settled, and is too short. Fewer than
// four batches give (0, false).
func MSER5(xs []float64) (trunc int, ok bool) {
	m := len(xs) / MSERBatch
	if m < 4 {
		return 0, false
	}
	z := make([]float64, m)
	for j := range z {
		s := 0.0
		for _, x := range xs[j*MSERBatch : (j+1)*MSERBatch] {
			s += x
		}
		z[j] = s / MSERBatch
	}
	// Suffix sums give every MSER(d) in one backward pass. The last two
	// candidates keep fewer than three batches, where a zero variance would
	// win by accident, so they are not considered.
	best, bestD := math.Inf(1), 0
	var s, s2 float64
	mser := make([]float64, m)
	for j := m - 1; j >= 0; j-- {
		s += z[j]
		s2 += z[j] * z[j]
		n := float64(m - j)
		mean := s / n
		ss := s2 - n*mean*mean
		if ss < 0 {
			ss = 0
		}
		mser[j] = ss / (n * n)
	}
	for d := 0; d <= m-3; d++ {
		if mser[d] < best {
			best, bestD = mser[d], d
		}
	}
	return bestD * MSERBatch, bestD <= m/2
}

// BatchMeans estimates the mean of a stationary but autocorrelated series
// (one long run, after its warm-up is cut) with a confidence interval: the
// series is cut into k equal batches, whose means are nearly independent
// when each batch is much longer than the correlation time, and the interval
// is the Student-t interval of those k means (Law, Simulation Modeling and
// Analysis, 5th ed., §9.5.3). Observations left over at the start are
// dropped, so that the batches end with the series. It returns the mean of
// the batches, the half-width of the 95 % interval and the number of batches
// used; fewer than two observations per batch or k < 2 give a NaN
// half-width.
func BatchMeans(xs []float64, k int) (mean, halfWidth float64, batches int) {
	if k < 2 || len(xs) < 2*k {
		if len(xs) == 0 {
			return math.NaN(), math.NaN(), 0
		}
		s := 0.0
		for _, x := range xs {
			s += x
		}
		return s / float64(len(xs)), math.NaN(), 0
	}
	b := len(xs) / k
	xs = xs[len(xs)-b*k:]
	means := make([]float64, k)
	for i := range means {
		s := 0.0
		for _, x := range xs[i*b : (i+1)*b] {
			s += x
		}
		means[i] = s / float64(b)
	}
	for _, x := range means {
		mean += x
	}
	mean /= float64(k)
	v := 0.0
	for _, x := range means {
		v += (x - mean) * (x - mean)
	}
	v /= float64(k - 1)
	t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(k - 1)}.Quantile(0.975)
	return mean, t * math.Sqrt(v/float64(k)), k
}
