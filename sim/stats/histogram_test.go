package stats

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"unsafe"

	"github.com/google/go-cmp/cmp"
)

// sample draws n values from a named distribution with a fixed PCG seed.
func sample(dist string, n int, seed uint64) []int64 {
	r := rand.New(rand.NewPCG(seed, 0x5eed))
	out := make([]int64, n)
	for i := range out {
		var x float64
		switch dist {
		case "lognormal": // median 250µs, p99 ≈ 2ms: a device fsync latency
			x = 250e3 * math.Exp(0.9*r.NormFloat64())
		case "lognormal-wide": // spans ns to about an hour
			x = 1e6 * math.Exp(4*r.NormFloat64())
		case "uniform-hour": // 1ns .. 1h
			x = 1 + r.Float64()*3.6e12
		case "uniform-small": // 0..1000, exercises the exact buckets and 0
			x = float64(r.IntN(1001))
		case "exponential": // mean 1ms
			x = 1e6 * r.ExpFloat64()
		case "bytes": // I/O sizes, 512B .. 1MiB in powers of two
			x = float64(int64(512) << r.IntN(12))
		default:
			panic("unknown dist " + dist)
		}
		out[i] = min(max(int64(math.Round(x)), 0), 3_600_000_000_000)
	}
	return out
}

// exactQuantile is the nearest-rank quantile of sorted data.
func exactQuantile(sorted []int64, q float64) int64 {
	rank := int(math.Ceil(q * float64(len(sorted))))
	rank = min(max(rank, 1), len(sorted))
	return sorted[rank-1]
}

func relErr(got, want int64) float64 {
	if want == 0 {
		if got == 0 {
			return 0
		}
		return math.Inf(1)
	}
	return math.Abs(float64(got-want)) / float64(want)
}

var testQuantiles = []float64{0, 0.001, 0.01, 0.1, 0.25, 0.5, 0.75, 0.9, 0.95, 0.99, 0.999, 0.9999, 1}

func TestHistogramQuantileError(t *testing.T) {
	n := 200_000
	if testing.Short() {
		n = 20_000
	}
	tests := []struct {
		dist   string
		reason string
	}{
		{"lognormal", "typical device latency"},
		{"lognormal-wide", "eight decades, most octaves in use"},
		{"uniform-hour", "the top of the promised range"},
		{"uniform-small", "the exact linear region, including 0"},
		{"exponential", "memoryless service times"},
		{"bytes", "values on bucket edges"},
	}
	worstAll := 0.0
	for _, tt := range tests {
		t.Run("dist="+tt.dist, func(t *testing.T) {
			data := sample(tt.dist, n, 42)
			var h Histogram
			for _, v := range data {
				h.Record(v)
			}
			slices.Sort(data)
			worst := 0.0
			for _, q := range testQuantiles {
				want := exactQuantile(data, q)
				got := h.Quantile(q)
				e := relErr(got, want)
				worst = max(worst, e)
				if e > 0.01 {
					t.Errorf("%s: Quantile(%v) = %d, exact %d, relative error %.4f%% > 1%%", tt.reason, q, got, want, 100*e)
				}
				if e > maxRelError {
					t.Errorf("%s: Quantile(%v) = %d, exact %d: error %.5f above the documented bound %.5f", tt.reason, q, got, want, e, maxRelError)
				}
			}
			if h.Min() != data[0] || h.Max() != data[len(data)-1] {
				t.Errorf("min/max = %d/%d, want exact %d/%d", h.Min(), h.Max(), data[0], data[len(data)-1])
			}
			var sum int64
			for _, v := range data {
				sum += v
			}
			if h.Sum() != sum || h.Count() != int64(len(data)) {
				t.Errorf("sum/count = %d/%d, want %d/%d", h.Sum(), h.Count(), sum, len(data))
			}
			if want := float64(sum) / float64(len(data)); math.Abs(h.Mean()-want) > 1e-9*want {
				t.Errorf("mean = %v, want %v", h.Mean(), want)
			}
			t.Logf("worst relative error %.4f%%", 100*worst)
			worstAll = max(worstAll, worst)
		})
	}
	t.Logf("worst relative error over all distributions: %.4f%% (bound %.4f%%)", 100*worstAll, 100*maxRelError)
}

// TestHistogramEveryRank checks every rank of a data set, not just the usual
// quantiles, against the bound.
func TestHistogramEveryRank(t *testing.T) {
	data := sample("lognormal-wide", 5000, 7)
	var h Histogram
	for _, v := range data {
		h.Record(v)
	}
	slices.Sort(data)
	for r := 1; r <= len(data); r++ {
		q := float64(r) / float64(len(data))
		want := exactQuantile(data, q)
		got := h.Quantile(q)
		if relErr(got, want) > maxRelError {
			t.Fatalf("rank %d: Quantile(%v) = %d, exact %d", r, q, got, want)
		}
		// The bound a reader can compute from the reported value alone,
		// also after scaling it to another unit.
		for _, scale := range []float64{1, 1e-6} {
			v := float64(got) * scale
			if d := math.Abs(v - float64(want)*scale); d > QuantileBound(v)*(1+1e-12) {
				t.Fatalf("rank %d: Quantile(%v) = %g, exact %g: off by %g, QuantileBound %g", r, q, v, float64(want)*scale, d, QuantileBound(v))
			}
		}
	}
}

func TestBucketLayout(t *testing.T) {
	// Buckets tile [0, MaxInt64] without gaps, each within the width bound.
	next := int64(0)
	for i := range numBuckets {
		lo, w := bucketBounds(i)
		if lo != next {
			t.Fatalf("bucket %d starts at %d, want %d", i, lo, next)
		}
		hi := lo + (w - 1)
		if bucketIndex(lo) != i || bucketIndex(hi) != i {
			t.Fatalf("bucket %d = [%d, %d] but index(lo)=%d index(hi)=%d", i, lo, hi, bucketIndex(lo), bucketIndex(hi))
		}
		if lo >= linearMax && w > lo/subCount {
			t.Fatalf("bucket %d = [%d, %d]: width %d > lo/64", i, lo, hi, w)
		}
		if i == numBuckets-1 {
			if hi != math.MaxInt64 {
				t.Fatalf("last bucket ends at %d, want MaxInt64", hi)
			}
			break
		}
		next = hi + 1
	}
	// Random values fall in a bucket that holds them.
	r := rand.New(rand.NewPCG(1, 2))
	for range 100_000 {
		v := int64(r.Uint64() >> (1 + r.IntN(63)))
		lo, w := bucketBounds(bucketIndex(v))
		if v < lo || v > lo+(w-1) {
			t.Fatalf("value %d in bucket [%d, %d]", v, lo, lo+w-1)
		}
	}
}

func TestHistogramEdges(t *testing.T) {
	var h Histogram
	if got := h.Summary(); got != (HistogramSummary{}) {
		t.Errorf("empty summary = %+v, want zero", got)
	}
	h.Record(0)
	h.Record(0)
	if h.Quantile(0.5) != 0 || h.Max() != 0 || h.Count() != 2 {
		t.Errorf("zeros: p50=%d max=%d count=%d", h.Quantile(0.5), h.Max(), h.Count())
	}
	h.Reset()
	h.Record(math.MaxInt64)
	h.Record(math.MaxInt64)
	if h.Quantile(0.5) != math.MaxInt64 {
		t.Errorf("p50 of MaxInt64s = %d", h.Quantile(0.5))
	}
	if h.Sum() != math.MaxInt64 {
		t.Errorf("overflowing sum = %d, want saturated MaxInt64", h.Sum())
	}
	if got, want := h.Mean(), float64(math.MaxInt64); got != want {
		t.Errorf("mean = %v, want %v", got, want)
	}
	h.Reset()
	h.RecordN(3_000_000_000_000_000_000, 5) // 1.5e19 overflows int64, not the 128-bit sum
	h.RecordN(7, 0)
	if got, want := h.Mean(), 3e18; got != want {
		t.Errorf("mean = %v, want %v", got, want)
	}
	if h.Count() != 5 || h.Min() != 3_000_000_000_000_000_000 {
		t.Errorf("RecordN(…, 0) changed the histogram: count %d min %d", h.Count(), h.Min())
	}
}

func TestHistogramPanics(t *testing.T) {
	for name, f := range map[string]func(h *Histogram){
		"negative value": func(h *Histogram) { h.Record(-1) },
		"negative n":     func(h *Histogram) { h.RecordN(1, -1) },
		"q > 1":          func(h *Histogram) { h.Quantile(1.5) },
		"q NaN":          func(h *Histogram) { h.Quantile(math.NaN()) },
	} {
		t.Run(name, func(t *testing.T) {
			defer func() {
				r := recover()
				if s, ok := r.(string); !ok || len(s) < 7 || s[:7] != "stats: " {
					t.Errorf("panic = %v, want a message starting with %q", r, "stats: ")
				}
			}()
			f(new(Histogram))
		})
	}
}

func TestHistogramRecordN(t *testing.T) {
	var a, b Histogram
	for i, v := range sample("exponential", 1000, 3) {
		n := int64(i%4 + 1)
		a.RecordN(v, n)
		for range n {
			b.Record(v)
		}
	}
	if a != b {
		t.Errorf("RecordN(v, n) differs from n × Record(v): %s", cmp.Diff(b.Summary(), a.Summary()))
	}
}

// TestHistogramMerge: recording into parts and merging equals recording
// everything into one histogram, for any split, including empty parts.
func TestHistogramMerge(t *testing.T) {
	for _, parts := range []int{1, 2, 3, 8} {
		data := sample("lognormal-wide", 20_000, uint64(parts))
		r := rand.New(rand.NewPCG(uint64(parts), 9))
		var all Histogram
		hs := make([]Histogram, parts+1) // the extra one stays empty
		for _, v := range data {
			all.Record(v)
			hs[r.IntN(parts)].Record(v)
		}
		var merged Histogram
		for i := range hs {
			merged.Merge(&hs[i])
		}
		if merged != all {
			t.Errorf("parts=%d: merged differs: %s", parts, cmp.Diff(all.Summary(), merged.Summary()))
		}
		// Merging into a non-empty one, in another order, gives the same.
		m2 := hs[parts-1]
		for i := parts - 2; i >= 0; i-- {
			m2.Merge(&hs[i])
		}
		if m2 != all {
			t.Errorf("parts=%d: reverse merge differs: %s", parts, cmp.Diff(all.Summary(), m2.Summary()))
		}
	}
	// Merge with itself doubles every count.
	var h, twice Histogram
	for _, v := range sample("bytes", 100, 1) {
		h.Record(v)
		twice.RecordN(v, 2)
	}
	h.Merge(&h)
	if h != twice {
		t.Errorf("h.Merge(h) is not h recorded twice: %s", cmp.Diff(twice.Summary(), h.Summary()))
	}
}

func TestHistogramSummaryAndBuckets(t *testing.T) {
	h := NewHistogram()
	for v := int64(1); v <= 1000; v++ {
		h.Record(v * 1000) // 1µs .. 1ms
	}
	got := h.Summary()
	want := HistogramSummary{Count: 1000, Mean: 500500, P50: 500000, P95: 950000, P99: 990000, P999: 999000, Max: 1000000, Min: 1000}
	// Quantiles are bucket midpoints: compare within the bound.
	for _, c := range []struct {
		name      string
		got, want int64
	}{{"P50", got.P50, want.P50}, {"P95", got.P95, want.P95}, {"P99", got.P99, want.P99}, {"P999", got.P999, want.P999}} {
		if relErr(c.got, c.want) > maxRelError {
			t.Errorf("%s = %d, want %d within %.2f%%", c.name, c.got, c.want, 100*maxRelError)
		}
	}
	got.P50, got.P95, got.P99, got.P999 = want.P50, want.P95, want.P99, want.P999
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Summary() mismatch (-want +got):\n%s", diff)
	}
	var n int64
	prev := int64(-1)
	for b := range h.Buckets() {
		if b.Lo <= prev || b.Hi < b.Lo || b.Count <= 0 {
			t.Fatalf("bad bucket %+v after %d", b, prev)
		}
		prev = b.Hi
		n += b.Count
	}
	if n != h.Count() {
		t.Errorf("buckets hold %d values, want %d", n, h.Count())
	}
}

// BenchmarkHistogramRecord measures one Record of a lognormal latency.
func BenchmarkHistogramRecord(b *testing.B) {
	for _, dist := range []string{"lognormal", "uniform-hour"} {
		b.Run("dist="+dist, func(b *testing.B) {
			data := sample(dist, 1<<16, 1)
			h := NewHistogram()
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				h.Record(data[i&(1<<16-1)])
				i++
			}
			b.ReportMetric(float64(unsafe.Sizeof(*h)), "B/histogram")
		})
	}
}

func BenchmarkHistogramSummary(b *testing.B) {
	h := NewHistogram()
	for _, v := range sample("lognormal-wide", 1<<16, 1) {
		h.Record(v)
	}
	b.ReportAllocs()
	for b.Loop() {
		_ = h.Summary()
	}
}

func BenchmarkHistogramMerge(b *testing.B) {
	var x, y Histogram
	for _, v := range sample("lognormal-wide", 1<<12, 1) {
		y.Record(v)
	}
	b.ReportAllocs()
	for b.Loop() {
		x.Merge(&y)
	}
}
