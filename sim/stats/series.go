package stats

import (
	"fmt"
	"time"

	"simrun/sim"
)

// Series accumulates a quantity per fixed interval of virtual time, the way
// sysbench --report-interval prints transactions per second: Add(now, 1) per
// commit, then Points gives the count in each interval and Point.Rate the
// rate per second.
//
// Intervals are aligned to time 0 and closed on the right: interval k covers
// (k·w, (k+1)·w], and the first one also holds time 0. An event at exactly
// 1s therefore counts in the first second, as a report printed at 1s would
// show it.
//
// Memory is fixed at construction. When time reaches past maxPoints
// intervals, adjacent pairs of intervals are merged (0+1, 2+3, ...) and the
// interval width doubles; repeated as often as needed. Sums are never lost,
// only coarsened, and boundaries stay aligned to multiples of the new width.
// A run of length T thus ends with a width of interval·2^k, the smallest such
// that T fits in maxPoints intervals, and between maxPoints/2 and maxPoints
// points.
type Series struct {
	width   time.Duration
	sums    []float64 // len == maxPoints; entries past the last point are 0
	end     sim.Time  // latest time passed to Add or Advance
	touched bool      // whether Add or Advance was ever called
	// The interval index found last and the times it holds, [lo, hi]:
	// most calls fall in the same interval as the one before, and a
	// 64-bit division costs more than the rest of Add.
	ci     int
	lo, hi sim.Time // empty (hi < lo) when no index is cached
}

// Point is one interval of a Series: Sum accumulated over (Start, Start+Width].
// Every point has the series' current width except the last, which ends at
// the latest time passed to Add or Advance.
type Point struct {
	Start sim.Time
	Width time.Duration
	Sum   float64
}

// Rate returns Sum per second of the point's width, or 0 for a point of zero
// width (a series whose only time so far is 0).
func (p Point) Rate() float64 {
	if p.Width <= 0 {
		return 0
	}
	return p.Sum / p.Width.Seconds()
}

// NewSeries returns a series with the given starting interval that keeps at
// most maxPoints intervals. interval must be > 0 and maxPoints >= 2; these are
// programmer-chosen constants (a scenario value must be validated before it
// gets here), so a bad one panics.
func NewSeries(interval time.Duration, maxPoints int) *Series {
	checkSeriesArgs("NewSeries", interval, maxPoints)
	return &Series{width: interval, sums: make([]float64, maxPoints), lo: 1}
}

func checkSeriesArgs(fn string, interval time.Duration, maxPoints int) {
	if interval <= 0 {
		panic(fmt.Sprintf("stats: %s: interval must be > 0, got %v", fn, interval))
	}
	if maxPoints < 2 {
		panic(fmt.Sprintf("stats: %s: maxPoints must be >= 2, got %d", fn, maxPoints))
	}
}

// Add adds v to the interval that contains now. now must be >= 0; it may be
// earlier than a previous Add (the interval is still there, perhaps merged).
func (s *Series) Add(now sim.Time, v float64) {
	s.Advance(now)
	s.sums[s.index(now)] += v
}

// Advance records that virtual time has reached now without adding anything,
// so that the intervals up to now appear in Points with a zero sum (a stall)
// and the last point ends at now. Call it at the end of a run.
func (s *Series) Advance(now sim.Time) {
	if now < 0 {
		panic(fmt.Sprintf("stats: Series time must be >= 0, got %d", now))
	}
	s.touched = true
	if now <= s.end {
		return
	}
	s.end = now
	for s.index(now) >= len(s.sums) {
		s.sums = halve(s.sums)
		s.width *= 2
		s.lo, s.hi = 1, 0
	}
}

// index returns the interval that holds t, under the right-closed rule.
func (s *Series) index(t sim.Time) int {
	if t <= 0 {
		return 0
	}
	if t >= s.lo && t <= s.hi {
		return s.ci
	}
	w := sim.Time(s.width)
	k := (t - 1) / w
	s.ci, s.lo, s.hi = int(k), k*w+1, (k+1)*w
	return s.ci
}

// halve merges adjacent pairs in place: x[i] = x[2i] + x[2i+1]. Entry 2i and
// 2i+1 are read before entry i is written, since i <= 2i.
func halve(x []float64) []float64 {
	n := len(x)
	h := (n + 1) / 2
	for i := range h {
		v := x[2*i]
		if 2*i+1 < n {
			v += x[2*i+1]
		}
		x[i] = v
	}
	clear(x[h:])
	return x
}

// Width returns the current interval width: the starting interval times
// 2^(number of downsamplings so far).
func (s *Series) Width() time.Duration { return s.width }

// Len returns the number of points Points would return.
func (s *Series) Len() int {
	if !s.touched {
		return 0
	}
	return s.index(s.end) + 1
}

// Total returns the sum of every value added.
func (s *Series) Total() float64 {
	var t float64
	for _, v := range s.sums[:s.Len()] {
		t += v
	}
	return t
}

// Points returns the intervals from time 0 to end, in order, after
// advancing the series to end (Advance): the last interval ends at end,
// not at the last Add, so a run whose events stopped early reads as the
// stall it was. For reporting: it allocates the result; AppendPoints
// reuses a slice.
func (s *Series) Points(end sim.Time) []Point { return s.AppendPoints(nil, end) }

// AppendPoints appends the points up to end to dst and returns it.
func (s *Series) AppendPoints(dst []Point, end sim.Time) []Point {
	if end > 0 { // a series nothing touched and no time has passed has no points
		s.Advance(end)
	}
	n := s.Len()
	for i, v := range s.sums[:n] {
		p := Point{Start: sim.Time(i) * sim.Time(s.width), Width: s.width, Sum: v}
		if i == n-1 {
			p.Width = s.end.Sub(p.Start)
		}
		dst = append(dst, p)
	}
	return dst
}
