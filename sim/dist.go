package sim

import (
	"fmt"
	"math"
	"sort"
	"time"
)

// Dist is a distribution of a non-negative quantity (nanoseconds, bytes,
// counts). gonum's distuv types satisfy it; they are sampled here by
// inversion, never through their Rand methods, which would fall back to the
// global generator when Src is nil and are not pinned across versions.
type Dist interface {
	Quantile(p float64) float64
	Mean() float64
}

// Sample draws one value of d from s by inverse-CDF sampling.
func Sample(d Dist, s *Stream) float64 { return d.Quantile(s.OpenFloat64()) }

// SampleDuration draws a duration in nanoseconds, rounded to the nearest
// nanosecond and clamped at zero.
func SampleDuration(d Dist, s *Stream) time.Duration {
	v := Sample(d, s)
	if !(v > 0) { // also catches NaN
		return 0
	}
	if v >= float64(math.MaxInt64) {
		return time.Duration(math.MaxInt64)
	}
	return time.Duration(math.Round(v))
}

// Constant is a distribution that always yields its value.
type Constant float64

// Quantile returns the constant.
func (c Constant) Quantile(float64) float64 { return float64(c) }

// Mean returns the constant.
func (c Constant) Mean() float64 { return float64(c) }

// QuantilePoint is one point (P, Value) of an empirical distribution.
type QuantilePoint struct {
	P     float64
	Value float64
}

// Empirical is a distribution given by points of its quantile function,
// interpolated linearly between them (a histogram with uniform density
// inside each bucket). It is how measured latency percentiles, such as
// fio's completion-latency table, become a distribution.
type Empirical struct {
	pts  []QuantilePoint
	mean float64
}

// NewEmpirical builds an empirical distribution from quantile points. The
// points must have P strictly increasing within [0, 1] and Value
// non-decreasing. If the first P is above 0, the quantile is flat below it
// (the smallest value stands for all lower quantiles); likewise above the
// last P.
func NewEmpirical(points []QuantilePoint) (*Empirical, error) {
	if len(points) == 0 {
		return nil, fmt.Errorf("sim: empirical distribution needs at least one point")
	}
	pts := append([]QuantilePoint(nil), points...)
	sort.SliceStable(pts, func(i, j int) bool { return pts[i].P < pts[j].P })
	for i, p := range pts {
		if !(p.P >= 0 && p.P <= 1) {
			return nil, fmt.Errorf("sim: empirical quantile %v outside [0, 1]", p.P)
		}
		if !(p.Value >= 0) || math.IsInf(p.Value, 0) {
			return nil, fmt.Errorf("sim: empirical value %v must be finite and >= 0", p.Value)
		}
		if i > 0 {
			if p.P == pts[i-1].P {
				return nil, fmt.Errorf("sim: empirical quantile %v given twice", p.P)
			}
			if p.Value < pts[i-1].Value {
				return nil, fmt.Errorf("sim: empirical values must not decrease: q%v=%v < q%v=%v",
					p.P, p.Value, pts[i-1].P, pts[i-1].Value)
			}
		}
	}
	e := &Empirical{pts: pts}
	// Mean = integral of the quantile function over [0, 1].
	m := pts[0].Value * pts[0].P
	for i := 1; i < len(pts); i++ {
		a, b := pts[i-1], pts[i]
		m += (a.Value + b.Value) / 2 * (b.P - a.P)
	}
	last := pts[len(pts)-1]
	m += last.Value * (1 - last.P)
	e.mean = m
	return e, nil
}

// Quantile returns the interpolated value at p.
func (e *Empirical) Quantile(p float64) float64 {
	pts := e.pts
	if p <= pts[0].P {
		return pts[0].Value
	}
	if p >= pts[len(pts)-1].P {
		return pts[len(pts)-1].Value
	}
	i := sort.Search(len(pts), func(i int) bool { return pts[i].P >= p })
	a, b := pts[i-1], pts[i]
	return a.Value + (b.Value-a.Value)*(p-a.P)/(b.P-a.P)
}

// Mean returns the mean of the interpolated distribution.
func (e *Empirical) Mean() float64 { return e.mean }

// Points returns a copy of the quantile points.
func (e *Empirical) Points() []QuantilePoint { return append([]QuantilePoint(nil), e.pts...) }
