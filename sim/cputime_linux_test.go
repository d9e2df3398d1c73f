//go:build linux

package sim

import (
	"runtime"
	"syscall"
	"testing"
)

// threadCPU returns the CPU time (user + system) the calling OS thread has
// used, in ns. On a shared machine the wall-clock figures of a benchmark
// swing with the load; the thread's own CPU time much less.
func threadCPU() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(1 /* RUSAGE_THREAD */, &ru); err != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}

// cpuTimer reports cpu-ns/op beside a benchmark's wall-clock figures: start
// it after the warm-up, call the returned function after the loop.
func cpuTimer(b *testing.B) func() {
	runtime.LockOSThread()
	t0 := threadCPU()
	return func() {
		b.ReportMetric(float64(threadCPU()-t0)/float64(b.N), "cpu-ns/op")
		runtime.UnlockOSThread()
	}
}
