package stats

import (
	"testing"
	"time"

	"simrun/sim"
)

// TestZeroAllocs checks that every per-event call is allocation-free,
// including calls that trigger series downsampling.
func TestZeroAllocs(t *testing.T) {
	vals := sample("lognormal-wide", 1024, 5)
	var (
		c     Counter
		ta    TimeAvg
		h, h2 Histogram
		s     = NewSeries(time.Millisecond, 16)
		g     = NewGaugeSeries(time.Millisecond, 16)
		now   sim.Time
		i     int
		sum   HistogramSummary
		dst   = make([]Point, 0, 16)
		gdst  = make([]GaugePoint, 0, 16)
	)
	h2.Record(12345)
	tests := []struct {
		name string
		f    func()
	}{
		{"Counter.Add", func() { c.Add(1) }},
		{"TimeAvg.Set", func() { now += 100; ta.Set(now, float64(i)) }},
		{"TimeAvg.Add", func() { now += 100; ta.Add(now, 1) }},
		{"TimeAvg.Reset", func() { now += 100; ta.Reset(now) }},
		{"Histogram.Record", func() { i++; h.Record(vals[i&1023]) }},
		{"Histogram.RecordN", func() { i++; h.RecordN(vals[i&1023], 3) }},
		{"Histogram.Quantile", func() { _ = h.Quantile(0.99) }},
		{"Histogram.Summary", func() { sum = h.Summary() }},
		{"Histogram.Merge", func() { h.Merge(&h2) }},
		{"Histogram.Reset", func() { h2.Reset() }},
		// A step of a tenth of a second on a 16-point 1ms series downsamples
		// often, and the run goes on long enough to double many times.
		{"Series.Add", func() { now += sim.Time(100 * time.Microsecond); s.Add(now, 1) }},
		{"Series.Advance", func() { now += 1000; s.Advance(now) }},
		{"Series.AppendPoints", func() { dst = s.AppendPoints(dst[:0], now) }},
		{"GaugeSeries.Set", func() { now += sim.Time(100 * time.Microsecond); g.Set(now, float64(i%7)) }},
		{"GaugeSeries.Add", func() { now += 1000; g.Add(now, 1) }},
		{"GaugeSeries.AppendPoints", func() { gdst = g.AppendPoints(gdst[:0], now) }},
	}
	for _, tt := range tests {
		if a := testing.AllocsPerRun(1000, tt.f); a != 0 {
			t.Errorf("%s: %v allocs per call, want 0", tt.name, a)
		}
	}
	_ = sum
	if s.Width() == time.Millisecond || g.Width() == time.Millisecond {
		t.Errorf("series never downsampled (widths %v, %v): the test does not cover it", s.Width(), g.Width())
	}
}

func BenchmarkTimeAvgSet(b *testing.B) {
	var a TimeAvg
	now := sim.Time(0)
	b.ReportAllocs()
	for b.Loop() {
		now += 10
		a.Set(now, float64(now&7))
	}
}

func BenchmarkSeriesAdd(b *testing.B) {
	s := NewSeries(time.Second, 600)
	now := sim.Time(0)
	b.ReportAllocs()
	for b.Loop() {
		now += 1000 // 1µs apart: a million events per interval
		s.Add(now, 1)
	}
}

func BenchmarkGaugeSeriesSet(b *testing.B) {
	g := NewGaugeSeries(time.Second, 600)
	now := sim.Time(0)
	b.ReportAllocs()
	for b.Loop() {
		now += 1000
		g.Set(now, float64(now&7))
	}
}
