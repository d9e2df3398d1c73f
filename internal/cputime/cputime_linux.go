//go:build linux

package cputime

import "syscall"

// Thread returns the CPU time (user + system) the calling OS thread has
// used, in ns, and whether it is known. Lock the goroutine to its thread
// (runtime.LockOSThread) between two readings.
func Thread() (int64, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(1 /* RUSAGE_THREAD */, &ru); err != nil {
		return 0, false
	}
	return ru.Utime.Nano() + ru.Stime.Nano(), true
}
