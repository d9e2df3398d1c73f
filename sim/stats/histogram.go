package stats

import (
	"fmt"
	"iter"
	"math"
	"math/bits"
)

// Bucket layout (see doc.go for the full argument):
//
//   - values 0..127 each have a bucket of their own (exact);
//   - every octave [2^e, 2^(e+1)) with e >= 7 is split into 64 equal
//     sub-buckets of width 2^(e-6).
//
// A value v >= 64 lands in bucket 64*(e-6) + v>>(e-6), where e = ⌊log2 v⌋;
// for v < 128 that formula reduces to v itself. The top octave, e = 62, ends at
// math.MaxInt64, so every non-negative int64 has a bucket.
const (
	subBits     = 6                         // log2 of the sub-buckets per octave
	subCount    = 1 << subBits              // 64 sub-buckets per octave
	linearMax   = 2 * subCount              // values below this are exact
	numBuckets  = (64 - subBits) * subCount // 3712: the last index is 64*(62-6)+127
	maxRelError = 1.0 / (2 * subCount)      // 1/128 ≈ 0.78 %, see doc.go
)

// Histogram records non-negative int64 values (latencies in ns, sizes in
// bytes) in a fixed set of log-linear buckets. Memory is fixed (about 30 KB)
// whatever the number of values, recording never allocates, and any quantile
// is reported within a relative error of 1/128 (≈ 0.78 %) of the exact
// nearest-rank quantile. Count, Sum, Min and Max are exact.
//
// The zero value is an empty histogram ready to use. Histograms are plain
// values: comparing two with == tells whether they hold the same data.
type Histogram struct {
	count  int64
	min    int64
	max    int64
	sumLo  uint64 // 128-bit sum, so long runs cannot overflow it
	sumHi  uint64
	counts [numBuckets]int64
}

// HistogramSummary is a plain snapshot of a histogram for reports. All values
// are in the histogram's unit (usually ns); quantiles are within 1/128 of the
// exact ones, Count, Mean, Min and Max are exact.
type HistogramSummary struct {
	Count int64
	Mean  float64
	P50   int64
	P95   int64
	P99   int64
	P999  int64
	Max   int64
	Min   int64
}

// Bucket is one non-empty bucket: Count values v with Lo <= v <= Hi.
type Bucket struct {
	Lo, Hi int64
	Count  int64
}

// NewHistogram returns an empty histogram. It is the same as new(Histogram).
func NewHistogram() *Histogram { return new(Histogram) }

// bucketIndex returns the bucket of v >= 0.
func bucketIndex(v int64) int {
	if v < linearMax {
		return int(v)
	}
	shift := bits.Len64(uint64(v)) - 1 - subBits
	return shift<<subBits + int(v>>shift)
}

// bucketBounds returns the smallest value of bucket i and its width.
func bucketBounds(i int) (lo, width int64) {
	if i < linearMax {
		return int64(i), 1
	}
	shift := i>>subBits - 1
	return int64(i&(subCount-1)|subCount) << shift, 1 << shift
}

// Record adds one value. v must be >= 0.
func (h *Histogram) Record(v int64) {
	if v < 0 {
		panicNegative(v)
	}
	h.counts[bucketIndex(v)]++
	if h.count == 0 {
		h.min, h.max = v, v
	} else if v < h.min {
		h.min = v
	} else if v > h.max {
		h.max = v
	}
	h.count++
	var c uint64
	h.sumLo, c = bits.Add64(h.sumLo, uint64(v), 0)
	h.sumHi += c
}

// RecordN adds n copies of v (e.g. n I/Os of the same size). v and n must be
// >= 0.
func (h *Histogram) RecordN(v, n int64) {
	if v < 0 {
		panicNegative(v)
	}
	if n <= 0 {
		if n < 0 {
			panic(fmt.Sprintf("stats: Histogram.RecordN with negative count %d", n))
		}
		return
	}
	h.counts[bucketIndex(v)] += n
	if h.count == 0 {
		h.min, h.max = v, v
	} else if v < h.min {
		h.min = v
	} else if v > h.max {
		h.max = v
	}
	h.count += n
	hi, lo := bits.Mul64(uint64(v), uint64(n))
	var c uint64
	h.sumLo, c = bits.Add64(h.sumLo, lo, 0)
	h.sumHi += hi + c
}

//go:noinline
func panicNegative(v int64) {
	panic(fmt.Sprintf("stats: Histogram records values >= 0, got %d", v))
}

// Count returns the number of values recorded.
func (h *Histogram) Count() int64 { return h.count }

// Sum returns the exact sum of the values recorded, or math.MaxInt64 if the
// sum no longer fits in an int64 (Mean stays correct in that case).
func (h *Histogram) Sum() int64 {
	if h.sumHi != 0 || h.sumLo > math.MaxInt64 {
		return math.MaxInt64
	}
	return int64(h.sumLo)
}

// Mean returns the exact mean (up to float64 rounding), or 0 when empty.
func (h *Histogram) Mean() float64 {
	if h.count == 0 {
		return 0
	}
	return (float64(h.sumHi)*0x1p64 + float64(h.sumLo)) / float64(h.count)
}

// Min returns the smallest value recorded, or 0 when empty.
func (h *Histogram) Min() int64 { return h.min }

// Max returns the largest value recorded, or 0 when empty.
func (h *Histogram) Max() int64 { return h.max }

// Quantile returns the q-quantile, 0 <= q <= 1, by the nearest-rank rule:
// the value of rank ⌈q·Count⌉ (at least 1) in sorted order. Quantile(0) is
// Min and Quantile(1) is Max, exactly; any other quantile is the midpoint of
// the bucket that holds that rank, clamped to [Min, Max], and so within
// 1/128 of the exact value. An empty histogram returns 0. A q outside [0, 1]
// is a programming error and panics.
func (h *Histogram) Quantile(q float64) int64 {
	if !(q >= 0 && q <= 1) {
		panic(fmt.Sprintf("stats: Histogram.Quantile(%v): q must be in [0, 1]", q))
	}
	if h.count == 0 {
		return 0
	}
	rank := int64(math.Ceil(q * float64(h.count)))
	if rank <= 1 {
		return h.min
	}
	if rank >= h.count {
		return h.max
	}
	var seen int64
	for i := range h.counts {
		seen += h.counts[i]
		if seen >= rank {
			lo, w := bucketBounds(i)
			return min(max(lo+w/2, h.min), h.max)
		}
	}
	return h.max // unreachable: the counts add up to h.count
}

// QuantileBound returns how far from the exact quantile a value r that
// Quantile reported can be: the exact x satisfies |r − x| ≤ x/128, so
// |r − x| ≤ |r|/127. It holds in any unit r was scaled to (ms, MB), and for
// a mean of reported quantiles too, so an interval over replications that
// all landed in one bucket is this wide, not zero.
func QuantileBound(r float64) float64 { return math.Abs(r) * maxRelError / (1 - maxRelError) }

// Merge adds every value recorded in o to h, as if they had been recorded
// into h directly. o is not changed (unless it is h, which doubles h).
func (h *Histogram) Merge(o *Histogram) {
	if o.count == 0 {
		return
	}
	if h.count == 0 || o.min < h.min {
		h.min = o.min
	}
	if h.count == 0 || o.max > h.max {
		h.max = o.max
	}
	h.count += o.count
	var c uint64
	h.sumLo, c = bits.Add64(h.sumLo, o.sumLo, 0)
	h.sumHi += o.sumHi + c
	for i := range h.counts {
		h.counts[i] += o.counts[i]
	}
}

// Reset empties the histogram, e.g. at the end of warm-up.
func (h *Histogram) Reset() { *h = Histogram{} }

// Summary returns count, mean, the usual latency quantiles, min and max.
func (h *Histogram) Summary() HistogramSummary {
	return HistogramSummary{
		Count: h.count,
		Mean:  h.Mean(),
		P50:   h.Quantile(0.50),
		P95:   h.Quantile(0.95),
		P99:   h.Quantile(0.99),
		P999:  h.Quantile(0.999),
		Max:   h.max,
		Min:   h.min,
	}
}

// Buckets yields the non-empty buckets in increasing order, for CDF plots and
// exports. For reporting only: the iterator itself may allocate.
func (h *Histogram) Buckets() iter.Seq[Bucket] {
	return func(yield func(Bucket) bool) {
		for i, n := range h.counts {
			if n == 0 {
				continue
			}
			lo, w := bucketBounds(i)
			if !yield(Bucket{Lo: lo, Hi: lo + (w - 1), Count: n}) {
				return
			}
		}
	}
}
