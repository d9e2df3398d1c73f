package sim

import (
	"strconv"
	"time"
)

// Time is a point on the virtual clock: integer nanoseconds since the start
// of the run. Integers, not floats, so that the order of events never depends
// on rounding.
type Time int64

// Never is a time later than any event a run will schedule.
const Never Time = 1<<63 - 1

// Add returns t+d.
func (t Time) Add(d time.Duration) Time { return t + Time(d) }

// Sub returns the duration t-u.
func (t Time) Sub(u Time) time.Duration { return time.Duration(t - u) }

// Seconds returns t as floating-point seconds, for reporting only.
func (t Time) Seconds() float64 { return float64(t) / 1e9 }

// String prints t the way time.Duration prints, e.g. "12.5ms".
func (t Time) String() string {
	if t == Never {
		return "never"
	}
	return time.Duration(t).String()
}

// At converts a duration since the start of the run into a Time.
func At(d time.Duration) Time { return Time(d) }

// FormatNanos prints an integer nanosecond count, for traces and goldens.
func FormatNanos(t Time) string { return strconv.FormatInt(int64(t), 10) }
