// Package cputime gives benchmarks the CPU time of the calling OS thread.
// On the shared development machine wall-clock benchmark figures swing
// 2-4x with the load; the thread's own CPU time (user + system,
// getrusage(RUSAGE_THREAD)) much less. Only benchmarks use it.
package cputime
