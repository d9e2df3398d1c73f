package cputime

import (
	"runtime"
	"testing"
)

// Start locks the benchmark to its OS thread and returns a function that
// reports the thread's CPU time since the call as cpu-ns/op (and unlocks):
// start it after the warm-up, call it after the loop. Nothing is reported
// where the thread's CPU time is not known.
func Start(b *testing.B) func() {
	runtime.LockOSThread()
	t0, ok := Thread()
	return func() {
		if t1, ok1 := Thread(); ok && ok1 {
			b.ReportMetric(float64(t1-t0)/float64(b.N), "cpu-ns/op")
		}
		runtime.UnlockOSThread()
	}
}
