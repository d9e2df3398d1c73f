package stats

import (
	"fmt"

	"simrun/sim"
)

// TimeAvg is a time-weighted gauge: a value that holds between updates, such
// as a queue length or the number of busy servers. It keeps the integral of
// the value over virtual time, so its mean weights each value by how long it
// held, not by how often it was set.
//
// The zero value is a gauge that has been 0 since time 0. A gauge created
// later in a run should call Reset(now) first so that its mean starts there.
// Times passed to Set, Add, Reset, Integral and Mean must not decrease.
type TimeAvg struct {
	value float64
	max   float64
	min   float64
	last  sim.Time // time of the last update; area is integrated up to here
	start sim.Time // time of the last Reset (0 for the zero value)
	area  float64  // ∫ value dt over [start, last], in value·ns
}

// Set changes the value at time now.
func (a *TimeAvg) Set(now sim.Time, v float64) {
	a.advance(now)
	a.value = v
	if v > a.max {
		a.max = v
	}
	if v < a.min {
		a.min = v
	}
}

// Add changes the value by delta at time now (e.g. +1 on enqueue, -1 on
// dequeue).
func (a *TimeAvg) Add(now sim.Time, delta float64) { a.Set(now, a.value+delta) }

// Value returns the current value.
func (a *TimeAvg) Value() float64 { return a.value }

// Max returns the largest value held since the last Reset (or since the
// start), including the value current at the Reset.
func (a *TimeAvg) Max() float64 { return a.max }

// Min returns the smallest value held since the last Reset (or since the
// start), including the value current at the Reset.
func (a *TimeAvg) Min() float64 { return a.min }

// Integral returns ∫ value dt from the last Reset (or time 0) to now, in
// value·nanoseconds. It does not change the gauge.
func (a *TimeAvg) Integral(now sim.Time) float64 {
	a.check(now)
	return a.area + a.value*float64(now-a.last)
}

// Mean returns the time-weighted mean from the last Reset (or time 0) to now.
// Over an empty interval (now equal to the start) it returns the current
// value, the limit of the mean as the interval shrinks.
func (a *TimeAvg) Mean(now sim.Time) float64 {
	in := a.Integral(now)
	if now == a.start {
		return a.value
	}
	return in / float64(now-a.start)
}

// Reset starts a new measurement window at now, keeping the current value:
// the gauge is still, say, 3 requests deep after warm-up ends. Max and Min
// restart from the current value.
func (a *TimeAvg) Reset(now sim.Time) {
	a.advance(now)
	a.area = 0
	a.start = now
	a.max = a.value
	a.min = a.value
}

func (a *TimeAvg) advance(now sim.Time) {
	a.check(now)
	a.area += a.value * float64(now-a.last)
	a.last = now
}

func (a *TimeAvg) check(now sim.Time) {
	if now < a.last {
		panicBackwards("TimeAvg", now, a.last)
	}
}

// panicBackwards is kept out of line so that the hot paths stay small and do
// not box their arguments.
//
//go:noinline
func panicBackwards(what string, now, last sim.Time) {
	panic(fmt.Sprintf("stats: %s updated at %v, before its last update at %v", what, now, last))
}
