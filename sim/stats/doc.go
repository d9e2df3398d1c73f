// Package stats holds the streaming statistics that simrun's models record
// while a simulation runs: counters, time-weighted gauges, latency and size
// histograms, and per-interval series.
//
// Every type here has memory that is fixed when it is created, whatever the
// length of the run, and every Record, Add and Set is allocation-free, so a
// model can record per event without disturbing the kernel's steady state.
// Nothing here reads a clock: the caller passes virtual time (sim.Time, in
// integer nanoseconds) with each update, so results depend only on the events.
// Float sums are accumulated in event order, which the kernel fixes, so they
// are reproducible bit for bit.
//
// # The types
//
//   - Counter: an int64 count.
//   - TimeAvg: a gauge that holds its value between updates (queue length,
//     busy servers). It integrates value × time, so Mean is weighted by how
//     long each value held. Reset(now) starts a new window at the end of
//     warm-up but keeps the current value.
//   - Histogram: the distribution of non-negative int64 values (ns, bytes)
//     with exact Count, Sum, Min and Max and quantiles within 0.78 %.
//     Histograms merge, so per-thread or per-case histograms can be combined.
//   - Series and GaugeSeries: the same quantities per interval of virtual
//     time, like sysbench --report-interval or iostat's periodic reports.
//
// After a run, steady.go reads such series: MSER-5 and its cycle-long form
// for the warm-up, BatchMeans for the interval of a long run's mean, Trend
// for whether a queue still rises, and the autocorrelation's cycle
// (docs/capacity-planning.md). QuantileBound turns a reported quantile
// into the width of the bucket it came from.
//
// # Histogram buckets and error bound
//
// The histogram is log-linear, like HdrHistogram (DDSketch reaches the same
// kind of bound with purely logarithmic buckets): each power of two is split
// into 64 equal sub-buckets.
//
//	values 0..127                 one bucket per value (exact)
//	octave [2^e, 2^(e+1)), e ≥ 7  64 buckets of width 2^(e-6)
//
// A value v ≥ 64 goes to bucket 64·(e−6) + v>>(e−6) with e = ⌊log2 v⌋, which
// is a shift and a count of leading zeros; for v < 128 this is v itself.
// Octaves run up to e = 62, so every non-negative int64 has a bucket: 3,712
// buckets of 8 bytes, about 30 KB per histogram. There are no maps, and the
// zero value is an empty histogram.
//
// A bucket starting at lo ≥ 128 has width w = 2^(e−6) ≤ lo/64. Quantile
// finds the bucket holding the wanted rank and returns its midpoint lo + w/2
// (clamped to the exact [Min, Max]); the true value x lies in [lo, lo+w−1],
// so |reported − x| ≤ w/2 ≤ x/128. The relative error is therefore at most
// 1/128 ≈ 0.78 % for every value ≥ 128 and zero below 128 (including 0) — in
// particular it is under 1 % over the whole range from 1 ns to an hour
// (3.6·10^12 ns ≈ 2^41.7) and beyond. Quantile(0) and Quantile(1) return the
// exact Min and Max. Quantiles follow the nearest-rank rule: Quantile(q) is
// the value of rank ⌈q·n⌉ in sorted order.
//
// The sum is kept in 128 bits, so it cannot overflow in any feasible run;
// Sum saturates at math.MaxInt64 if it no longer fits in an int64.
//
// # Series downsampling
//
// A Series (and a GaugeSeries) is created with a starting interval w and a
// maximum number of points m, and preallocates m slots. Intervals are aligned
// to time 0. When an update arrives at a time beyond the m-th interval, the
// series merges adjacent pairs of intervals — slots 0+1, 2+3, … — and doubles
// w, repeating until the time fits. Sums (and GaugeSeries integrals) add up
// exactly, so the total is preserved; GaugeSeries peaks take the larger of the
// two. Boundaries stay aligned to multiples of the new width, so a run of
// length T ends with the width w·2^k, the smallest that fits T into m
// intervals, whatever the order of events. Choose m as the number of points
// you want to plot (e.g. 600 points at 1s covers 10 minutes at full
// resolution; a 1-hour run then reports at 8s).
//
// Series intervals are closed on the right, (k·w, (k+1)·w], so an event at
// exactly 1s is reported in the first second; GaugeSeries intervals are
// closed on the left, [k·w, (k+1)·w), because a gauge value set at t holds
// from t on. In both, the last point ends at the latest time the series was
// given; call Advance(end) at the end of the run so that a final stall shows
// up as zeros and the last point's rate is not diluted.
//
// # Misuse
//
// Recording a negative value in a histogram, moving a gauge's time
// backwards, or constructing a series with a non-positive interval are
// programming errors and panic with a message prefixed "stats:". Scenario
// values must be validated before they reach this package.
package stats
