package stats

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"simrun/sim"
)

func TestSeriesTable(t *testing.T) {
	type add struct {
		at sim.Time
		v  float64
	}
	s := sim.Time(time.Second)
	tests := []struct {
		name    string
		max     int
		adds    []add
		advance sim.Time
		want    []Point
		reason  string
	}{
		{
			name: "empty", max: 4,
			want:   nil,
			reason: "no Add or Advance: no points",
		},
		{
			name: "right-closed", max: 4,
			adds: []add{{0, 1}, {s, 2}, {s + 1, 4}, {2 * s, 8}},
			want: []Point{
				{Start: 0, Width: time.Second, Sum: 3},
				{Start: s, Width: time.Second, Sum: 12},
			},
			reason: "times 0 and 1s are in the first interval, 1s+1ns and 2s in the second",
		},
		{
			name: "partial last point and stall", max: 8,
			adds:    []add{{s / 2, 5}},
			advance: 3*s + s/2,
			want: []Point{
				{Start: 0, Width: time.Second, Sum: 5},
				{Start: s, Width: time.Second, Sum: 0},
				{Start: 2 * s, Width: time.Second, Sum: 0},
				{Start: 3 * s, Width: time.Second / 2, Sum: 0},
			},
			reason: "Advance shows a stall as zeros; the last point ends at the advance",
		},
		{
			name: "downsample once", max: 4,
			adds: []add{{s, 1}, {2 * s, 2}, {3 * s, 3}, {4 * s, 4}, {5 * s, 5}},
			want: []Point{
				{Start: 0, Width: 2 * time.Second, Sum: 3},
				{Start: 2 * s, Width: 2 * time.Second, Sum: 7},
				{Start: 4 * s, Width: 1 * time.Second, Sum: 5},
			},
			reason: "the 5th interval does not fit in 4: pairs merge, width 2s, last point ends at 5s",
		},
		{
			name: "downsample three times at once", max: 2,
			adds: []add{{1, 1}, {7*s + 1, 2}},
			want: []Point{
				{Start: 0, Width: 4 * time.Second, Sum: 1},
				{Start: 4 * s, Width: 3*time.Second + 1, Sum: 2},
			},
			reason: "7s+1ns needs 8 intervals of 1s; 2 points need width 4s",
		},
		{
			name: "late add into merged interval", max: 2,
			adds: []add{{3 * s, 1}, {s / 2, 10}},
			want: []Point{
				{Start: 0, Width: 2 * time.Second, Sum: 10},
				{Start: 2 * s, Width: time.Second, Sum: 1},
			},
			reason: "an Add earlier than the latest time lands in its (merged) interval",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sr := NewSeries(time.Second, tt.max)
			for _, a := range tt.adds {
				sr.Add(a.at, a.v)
			}
			if diff := cmp.Diff(tt.want, sr.Points(tt.advance)); diff != "" {
				t.Errorf("%s: Points() mismatch (-want +got):\n%s", tt.reason, diff)
			}
			if sr.Len() != len(tt.want) {
				t.Errorf("Len() = %d, want %d", sr.Len(), len(tt.want))
			}
		})
	}
}

func TestPointRate(t *testing.T) {
	p := Point{Width: 500 * time.Millisecond, Sum: 100}
	if p.Rate() != 200 {
		t.Errorf("Rate() = %v, want 200", p.Rate())
	}
	if (Point{Sum: 1}).Rate() != 0 {
		t.Error("zero-width Rate() should be 0")
	}
}

// TestSeriesProperty: for random adds (integer values, so float sums are
// exact), the total is preserved across downsampling, every point holds
// exactly the values whose times fall in it at the final width, and the
// point count stays within maxPoints.
func TestSeriesProperty(t *testing.T) {
	iters := 300
	if testing.Short() {
		iters = 30
	}
	r := rand.New(rand.NewPCG(2024, 1))
	for it := range iters {
		maxPoints := 2 + r.IntN(40)
		interval := time.Duration(1 + r.IntN(1000))
		horizon := sim.Time(interval) * sim.Time(1+r.IntN(2000))
		s := NewSeries(interval, maxPoints)
		type ev struct {
			at sim.Time
			v  float64
		}
		var evs []ev
		var total float64
		now := sim.Time(0)
		for range r.IntN(500) {
			if r.IntN(4) == 0 {
				// occasionally an Add at an earlier time
				e := ev{sim.Time(r.Int64N(int64(now) + 1)), float64(r.IntN(100))}
				s.Add(e.at, e.v)
				evs = append(evs, e)
				total += e.v
				continue
			}
			now += sim.Time(r.Int64N(int64(horizon)/100 + 1))
			e := ev{now, float64(r.IntN(100))}
			s.Add(e.at, e.v)
			evs = append(evs, e)
			total += e.v
		}
		pts := s.Points(now)
		if len(pts) > maxPoints {
			t.Fatalf("iter %d: %d points > maxPoints %d", it, len(pts), maxPoints)
		}
		if s.Total() != total {
			t.Fatalf("iter %d: Total() = %v, want %v", it, s.Total(), total)
		}
		w := s.Width()
		if w%interval != 0 || (w/interval)&(w/interval-1) != 0 {
			t.Fatalf("iter %d: width %v is not interval %v times a power of two", it, w, interval)
		}
		want := make([]float64, len(pts))
		for _, e := range evs {
			k := 0
			if e.at > 0 {
				k = int((e.at - 1) / sim.Time(w))
			}
			want[k] += e.v
		}
		var sum float64
		for i, p := range pts {
			sum += p.Sum
			if p.Start != sim.Time(i)*sim.Time(w) || p.Sum != want[i] {
				t.Fatalf("iter %d: point %d = %+v, want start %v sum %v", it, i, p, sim.Time(i)*sim.Time(w), want[i])
			}
		}
		if sum != total {
			t.Fatalf("iter %d: points sum to %v, want %v", it, sum, total)
		}
	}
}

func TestGaugeSeriesTable(t *testing.T) {
	type set struct {
		at sim.Time
		v  float64
	}
	tests := []struct {
		name    string
		max     int
		sets    []set
		advance sim.Time
		want    []GaugePoint
		reason  string
	}{
		{
			name: "empty", max: 4,
			want:   nil,
			reason: "nothing has happened yet",
		},
		{
			name: "steps", max: 4,
			sets:    []set{{0, 2}, {5, 4}, {15, 0}},
			advance: 20,
			want: []GaugePoint{
				{Start: 0, Width: 10, Mean: (2*5 + 4*5) / 10.0, Max: 4},
				{Start: 10, Width: 10, Mean: 4 * 5 / 10.0, Max: 4},
			},
			reason: "2 on [0,5), 4 on [5,15), 0 on [15,20)",
		},
		{
			name: "set on boundary", max: 4,
			sets:    []set{{0, 7}, {10, 1}},
			advance: 15,
			want: []GaugePoint{
				{Start: 0, Width: 10, Mean: 7, Max: 7},
				{Start: 10, Width: 5, Mean: 1, Max: 1},
			},
			reason: "the 7 holds for no time in [10,20), so it is not that interval's peak",
		},
		{
			name: "downsample", max: 2,
			sets:    []set{{0, 1}, {10, 3}, {25, 0}},
			advance: 30,
			want: []GaugePoint{
				{Start: 0, Width: 20, Mean: (1*10 + 3*10) / 20.0, Max: 3},
				{Start: 20, Width: 10, Mean: 3 * 5 / 10.0, Max: 3},
			},
			reason: "time 25 needs 3 intervals of 10: pairs merge to width 20",
		},
		{
			name: "negative values and gap", max: 8,
			sets:    []set{{3, -1}},
			advance: 25,
			want: []GaugePoint{
				{Start: 0, Width: 10, Mean: -7 / 10.0, Max: 0},
				{Start: 10, Width: 10, Mean: -1, Max: -1},
				{Start: 20, Width: 5, Mean: -1, Max: -1},
			},
			reason: "the gauge is 0 until its first Set; -1 carries across intervals",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewGaugeSeries(10, tt.max)
			for _, s := range tt.sets {
				g.Set(s.at, s.v)
			}
			if diff := cmp.Diff(tt.want, g.Points(tt.advance)); diff != "" {
				t.Errorf("%s: Points() mismatch (-want +got):\n%s", tt.reason, diff)
			}
		})
	}
}

// TestGaugeSeriesProperty compares a GaugeSeries with a TimeAvg fed the same
// steps (total integral and peak) and with a brute-force evaluation of each
// final interval.
func TestGaugeSeriesProperty(t *testing.T) {
	iters := 300
	if testing.Short() {
		iters = 30
	}
	r := rand.New(rand.NewPCG(7, 7))
	for it := range iters {
		maxPoints := 2 + r.IntN(30)
		interval := time.Duration(1 + r.IntN(100))
		g := NewGaugeSeries(interval, maxPoints)
		var a TimeAvg
		type ev struct {
			at sim.Time
			v  float64
		}
		var evs []ev
		now := sim.Time(0)
		for range r.IntN(300) {
			now += sim.Time(r.Int64N(int64(interval) * 3)) // 0 sometimes: same-instant sets
			v := float64(r.IntN(21) - 5)
			if r.IntN(2) == 0 {
				g.Set(now, v)
			} else {
				g.Add(now, v-g.Value())
			}
			a.Set(now, v)
			evs = append(evs, ev{now, v})
		}
		end := now + 1 + sim.Time(r.Int64N(int64(interval)*5))
		pts := g.Points(end)
		if len(pts) > maxPoints {
			t.Fatalf("iter %d: %d points > %d", it, len(pts), maxPoints)
		}
		var integral, peak float64
		for _, p := range pts {
			integral += p.Mean * float64(p.Width)
			peak = max(peak, p.Max)
		}
		if want := a.Integral(end); math.Abs(integral-want) > 1e-9*math.Max(1, math.Abs(want)) {
			t.Fatalf("iter %d: points integrate to %v, TimeAvg says %v", it, integral, want)
		}
		if peak != a.Max() {
			t.Fatalf("iter %d: peak %v, TimeAvg max %v", it, peak, a.Max())
		}
		// Brute force, per final interval [lo, hi).
		for i, p := range pts {
			lo, hi := p.Start, p.Start.Add(p.Width)
			var area float64
			peak := math.Inf(-1)
			held := 0.0 // value held just before lo: the last set at a time < lo, or the initial 0
			setAtLo := false
			for j, e := range evs {
				switch {
				case e.at < lo:
					held = e.v
				case e.at < hi:
					setAtLo = setAtLo || e.at == lo
					peak = max(peak, e.v)
				}
				// The value e.v holds on [e.at, next set); add its part in [lo, hi).
				next := hi
				if j+1 < len(evs) {
					next = min(next, evs[j+1].at)
				}
				if from := max(lo, e.at); next > from {
					area += e.v * float64(next-from)
				}
			}
			if !setAtLo {
				peak = max(peak, held)
			}
			if math.Abs(p.Mean*float64(p.Width)-area) > 1e-9*math.Max(1, math.Abs(area)) || p.Max != peak {
				t.Fatalf("iter %d: point %d = %+v, want integral %v peak %v", it, i, p, area, peak)
			}
		}
	}
}
