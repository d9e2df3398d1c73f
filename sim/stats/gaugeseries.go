package stats

import (
	"time"

	"simrun/sim"
)

// GaugeSeries is a TimeAvg per interval: the time-weighted mean and the peak
// of a gauge (queue depth, busy channels, dirty pages) in each interval of
// virtual time, as iostat prints avgqu-sz per report.
//
// Intervals are aligned to time 0 and closed on the left: interval k covers
// [k·w, (k+1)·w), because a value set at t holds from t on. Memory is fixed
// at construction and is downsampled exactly like Series: when time passes
// maxPoints intervals, adjacent pairs merge (integrals add, peaks take the
// larger) and the width doubles.
//
// The gauge is 0 from time 0 until the first Set. Times passed to Set, Add
// and Advance must not decrease.
type GaugeSeries struct {
	width time.Duration
	area  []float64 // ∫ value dt over the interval, value·ns; len == maxPoints
	peak  []float64 // largest value held in the interval; valid for i < n
	n     int       // intervals whose peak has been initialised
	value float64
	last  sim.Time // time up to which area is integrated
	// The interval index found last and its span [lo, hi), as in Series.
	ci     int
	lo, hi sim.Time // empty (hi <= lo) when no index is cached
}

// GaugePoint is one interval of a GaugeSeries, [Start, Start+Width). Width is
// the series' width except for the last point, which ends at the latest time
// passed to Set, Add or Advance.
type GaugePoint struct {
	Start sim.Time
	Width time.Duration
	Mean  float64 // time-weighted mean over the interval
	Max   float64 // largest value held in the interval, or set within it
}

// NewGaugeSeries returns a gauge series with the given starting interval that
// keeps at most maxPoints intervals. interval must be > 0 and maxPoints >= 2;
// a bad one panics, as for NewSeries.
func NewGaugeSeries(interval time.Duration, maxPoints int) *GaugeSeries {
	checkSeriesArgs("NewGaugeSeries", interval, maxPoints)
	return &GaugeSeries{
		width: interval,
		area:  make([]float64, maxPoints),
		peak:  make([]float64, maxPoints),
	}
}

// Set changes the value at time now.
func (g *GaugeSeries) Set(now sim.Time, v float64) {
	g.Advance(now)
	i := g.index(now)
	g.initTo(i, v)
	if v > g.peak[i] {
		g.peak[i] = v
	}
	g.value = v
}

// Add changes the value by delta at time now.
func (g *GaugeSeries) Add(now sim.Time, delta float64) { g.Set(now, g.value+delta) }

// Value returns the current value.
func (g *GaugeSeries) Value() float64 { return g.value }

// Width returns the current interval width.
func (g *GaugeSeries) Width() time.Duration { return g.width }

// Advance integrates the current value up to now, so that Points covers
// [0, now). Call it at the end of a run.
func (g *GaugeSeries) Advance(now sim.Time) {
	if now < g.last {
		panicBackwards("GaugeSeries", now, g.last)
	}
	if now == g.last {
		return
	}
	// Make room for the interval holding now first, so that the loop below
	// works at one fixed width.
	for g.index(now) >= len(g.area) {
		g.halve()
	}
	for t := g.last; t < now; {
		i := g.index(t)
		g.initTo(i, g.value) // the value held from before has positive time here
		end := min(now, g.hi)
		g.area[i] += g.value * float64(end-t)
		t = end
	}
	g.last = now
}

// initTo gives the intervals up to i, not yet initialised, the peak v: the
// value that is held on entering them.
func (g *GaugeSeries) initTo(i int, v float64) {
	for ; g.n <= i; g.n++ {
		g.peak[g.n] = v
	}
}

func (g *GaugeSeries) halve() {
	n := len(g.peak)
	h := (g.n + 1) / 2
	for i := range h {
		p := g.peak[2*i]
		if 2*i+1 < g.n {
			p = max(p, g.peak[2*i+1])
		}
		g.peak[i] = p
	}
	clear(g.peak[h:n])
	g.n = h
	halve(g.area)
	g.width *= 2
	g.lo, g.hi = 0, 0
}

// index returns the interval that holds t (t >= 0) and caches its span.
func (g *GaugeSeries) index(t sim.Time) int {
	if t >= g.lo && t < g.hi {
		return g.ci
	}
	w := sim.Time(g.width)
	k := t / w
	g.ci, g.lo, g.hi = int(k), k*w, (k+1)*w
	return g.ci
}

// Len returns the number of points Points would return: the intervals with
// some time in [0, last).
func (g *GaugeSeries) Len() int {
	w := sim.Time(g.width)
	return int((g.last + w - 1) / w)
}

// Points returns the intervals from time 0 to end, after advancing the
// series to end (Advance): the last interval ends at end. For reporting:
// it allocates; AppendPoints reuses a slice.
func (g *GaugeSeries) Points(end sim.Time) []GaugePoint { return g.AppendPoints(nil, end) }

// AppendPoints appends the points up to end to dst and returns it.
func (g *GaugeSeries) AppendPoints(dst []GaugePoint, end sim.Time) []GaugePoint {
	g.Advance(end)
	n := g.Len()
	for i := range n {
		start := sim.Time(i) * sim.Time(g.width)
		width := min(g.width, g.last.Sub(start))
		dst = append(dst, GaugePoint{
			Start: start,
			Width: width,
			Mean:  g.area[i] / float64(width),
			Max:   g.peak[i],
		})
	}
	return dst
}
