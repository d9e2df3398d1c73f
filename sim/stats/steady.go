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
	mser := mser5(xs)
	m := len(mser)
	if m < 4 {
		return 0, false
	}
	// The last two candidates keep fewer than three batches, where a zero
	// variance would win by accident, so they are not considered.
	d := argmin(mser[:m-2])
	return d * MSERBatch, d <= m/2
}

// MSER5FirstHalf is MSER-5's best truncation among the cuts its rule
// accepts, those in the first half of the batches: the warm-up to take off
// when the series is then searched for what else it holds (a cycle). Fewer
// than four batches give 0.
func MSER5FirstHalf(xs []float64) int {
	mser := mser5(xs)
	if len(mser) < 4 {
		return 0
	}
	return argmin(mser[:len(mser)/2+1]) * MSERBatch
}

// argmin is the index of the first smallest value.
func argmin(xs []float64) int {
	best := 0
	for i, x := range xs {
		if x < xs[best] {
			best = i
		}
	}
	return best
}

// mser5 returns MSER(d) for every truncation d of xs in batches of five.
func mser5(xs []float64) []float64 {
	const b = MSERBatch
	m := len(xs) / b
	if m < 1 {
		return nil
	}
	z := make([]float64, m)
	for j := range z {
		s := 0.0
		for _, x := range xs[j*b : (j+1)*b] {
			s += x
		}
		z[j] = s / float64(b)
	}
	// Suffix sums give every MSER(d) in one backward pass.
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
	return mser
}

// MSERCycle is MSER for a series that repeats a cycle of p intervals in
// steady state (found by Period). MSER(d) is the squared standard error of
// the mean of what is kept; MSER-5 estimates it from five-interval batch
// means as if they were independent, which holds only when the series'
// correlation time is shorter than a batch. A recurrent cycle keeps the
// series correlated across the whole cycle, and MSER-5 then reads the phase
// at which the run happens to end as a trend. Here the standard error is
// estimated with batches one cycle long, overlapping (Meketon and Schmeiser
// 1984, overlapping batch means): every window of p intervals in the kept
// part, so that no phase is favoured,
//
//	MSER(d) = p · Σ_t (W_t − mean_d)² / (L · (L − p + 1)),   L = n − d,
//
// with W_t the mean of the p intervals from t. Averaging over a cycle is
// how a steady-state cycle process is observed (Law, Simulation Modeling
// and Analysis, steady-state cycle parameters): the window means of a
// steady periodic process vary only by noise, while a transient or a trend
// still shows in them. The candidates are every fifth interval, as in
// MSER-5; at least three cycles are kept, and as in MSER-5 only a minimum
// in the first half of the series is accepted. It returns (0, false) when
// the series is too short for the cycle (CycleUsable).
func MSERCycle(xs []float64, p int) (trunc int, ok bool) {
	n := len(xs)
	if !CycleUsable(n, p) {
		return 0, false
	}
	sum := make([]float64, n+1) // prefix sums
	for i, x := range xs {
		sum[i+1] = sum[i] + x
	}
	best, bestD := math.Inf(1), 0
	for d := 0; n-d >= 3*p; d += MSERBatch {
		l := n - d
		mean := (sum[n] - sum[d]) / float64(l)
		ss := 0.0
		for t := d; t+p <= n; t++ {
			w := (sum[t+p]-sum[t])/float64(p) - mean
			ss += w * w
		}
		if v := float64(p) * ss / (float64(l) * float64(l-p+1)); v < best {
			best, bestD = v, d
		}
	}
	return bestD, bestD <= n/2
}

// CycleUsable reports whether MSERCycle can judge a series of n intervals
// with a cycle of p: its last candidate, which keeps three cycles, must lie
// in the second half. MinCycleRun is the shortest such n.
func CycleUsable(n, p int) bool {
	return p >= 1 && (n-3*p)/MSERBatch*MSERBatch > n/2
}

// MinCycleRun is the shortest series, in intervals, that MSERCycle can
// judge with a cycle of p intervals.
func MinCycleRun(p int) int {
	n := 6 * p
	for !CycleUsable(n, p) {
		n++
	}
	return n
}

// DriftCut judges a series repeating a cycle of p intervals that MSER
// with cycle-long batches found unsettled (its cut in the second half). A
// slow drift of the level, a fraction of a per cent over the run, moves
// MSER's minimum there as surely as a transient does, and ever later as
// the run grows: MSER has no notion of a drift too small to matter. The
// level is read phase-free from the overlapping cycle-long window means
// W_t (as in MSERCycle), and its drift across what a cut d keeps is the
// least-squares slope of W_t over t ≥ d times the kept length, relative to
// the mean. DriftCut returns the earliest cut in the first half (a multiple
// of five, keeping at least three cycles) across whose kept part the level
// drifts by at most tol (a fraction), and whether there is one. A start-up
// transient inside the kept part shows as a drift, so the cut falls after
// it; a trend of a few per cent over the run has no such cut.
func DriftCut(xs []float64, p int, tol float64) (int, bool) {
	n := len(xs)
	if p < 1 || n-3*p < 0 {
		return 0, false
	}
	// Prefix sums of the window means and of t times them give each cut's
	// regression in O(1).
	sum := make([]float64, n+1)
	for i, x := range xs {
		sum[i+1] = sum[i] + x
	}
	m := n - p + 1 // windows W_0 .. W_{n-p}
	sw := make([]float64, m+1)
	stw := make([]float64, m+1)
	for t := 0; t < m; t++ {
		w := (sum[t+p] - sum[t]) / float64(p)
		sw[t+1] = sw[t] + w
		stw[t+1] = stw[t] + float64(t)*w
	}
	for d := 0; d <= n/2 && n-d >= 3*p; d += MSERBatch {
		k := float64(m - d) // windows kept: t = d .. m-1
		sW, sTW := sw[m]-sw[d], stw[m]-stw[d]
		tBar := float64(d+m-1) / 2
		mean := sW / k
		sxx := k * (k*k - 1) / 12 // Σ (t − t̄)² over k consecutive t
		slope := (sTW - tBar*sW) / sxx
		if mean != 0 && math.Abs(slope*float64(n-d)/mean) <= tol {
			return d, true
		}
	}
	return 0, false
}

// Period finds a recurrent cycle in a series from its sample
// autocorrelation r(k) (Box and Jenkins, Time Series Analysis): the
// lag of the highest local peak of r past its first zero crossing, when
// that peak is significant, above Bartlett's 95 % band for a correlation
// that is zero beyond the crossing, 1.96·sqrt((1 + 2·Σ_{j<q} r(j)²)/n)
// (Bartlett 1946; q the crossing). Lags run from 2·MSERBatch (shorter
// cycles are averaged within MSER-5's batches) to n/3, so that the cycle
// repeats at least three times in the series. It returns 0 when there is
// no significant cycle; a trend has no peak past its crossing, so it is
// never read as a cycle.
func Period(xs []float64) int { return PeriodReps(xs, 3) }

// PeriodReps is Period with lags up to n/reps, so that the cycle repeats
// at least reps times in the series. With reps = 2 a peak is a cycle seen
// twice: enough to say that a run holds a slow cycle and how long a run
// would judge it, not to judge the run by it.
func PeriodReps(xs []float64, reps int) int {
	n := len(xs)
	if reps < 2 {
		reps = 2
	}
	maxLag := n / reps
	if maxLag < 2*MSERBatch+1 {
		return 0
	}
	mean, c0 := meanSS(xs)
	if !(c0 > 0) {
		return 0
	}
	r := make([]float64, maxLag+2)
	for k := range r {
		c := 0.0
		for i := 0; i+k < n; i++ {
			c += (xs[i] - mean) * (xs[i+k] - mean)
		}
		r[k] = c / c0
	}
	q := 1
	for q <= maxLag && r[q] >= 0 {
		q++
	}
	if q > maxLag {
		return 0
	}
	sum := 0.0
	for j := 1; j < q; j++ {
		sum += r[j] * r[j]
	}
	band := 1.96 * math.Sqrt((1+2*sum)/float64(n))
	best, lag := band, 0
	for k := max(q, 2*MSERBatch); k <= maxLag; k++ {
		if r[k] > r[k-1] && r[k] >= r[k+1] && r[k] > best {
			best, lag = r[k], k
		}
	}
	return lag
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
	means, _ := batchMeans(xs, k)
	mean, ss := meanSS(means)
	v := ss / float64(k-1)
	t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(k - 1)}.Quantile(0.975)
	return mean, t * math.Sqrt(v/float64(k)), k
}

// batchMeans cuts xs into k equal batches that end with the series (the
// observations left over at the start dropped) and returns their means
// and the batch length.
func batchMeans(xs []float64, k int) ([]float64, int) {
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
	return means, b
}

// Trend is the least-squares slope of xs, per element, fitted to the means
// of k batches (as BatchMeans cuts them, so that a series that wanders
// within a batch does not pass for a trend), and the half-width of its
// 95 % interval: Student's t with k-2 degrees of freedom times the slope's
// standard error from the residuals. A queue that grows without bound has
// an interval above zero; one that only fluctuates has one around zero.
// Fewer than one observation per batch or k < 3 give NaNs.
func Trend(xs []float64, k int) (slope, halfWidth float64) {
	if k < 3 || len(xs) < k {
		return math.NaN(), math.NaN()
	}
	ys, b := batchMeans(xs, k)
	// Batch i's centre is at element i*b + (b-1)/2 of the kept series;
	// the slope per element is the slope per batch divided by b.
	xbar := float64(k-1) / 2
	ybar, _ := meanSS(ys)
	var sxy, sxx float64
	for i, y := range ys {
		dx := float64(i) - xbar
		sxy += dx * (y - ybar)
		sxx += dx * dx
	}
	beta := sxy / sxx
	var rss float64
	for i, y := range ys {
		r := y - ybar - beta*(float64(i)-xbar)
		rss += r * r
	}
	se := math.Sqrt(rss / float64(k-2) / sxx)
	t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(k - 2)}.Quantile(0.975)
	return beta / float64(b), t * se / float64(b)
}

// meanSS returns the mean of xs and the sum of squared deviations from it.
func meanSS(xs []float64) (mean, ss float64) {
	for _, x := range xs {
		mean += x
	}
	mean /= float64(len(xs))
	for _, x := range xs {
		ss += (x - mean) * (x - mean)
	}
	return mean, ss
}
