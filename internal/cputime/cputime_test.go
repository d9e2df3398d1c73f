package cputime

import (
	"runtime"
	"testing"
)

// The thread's CPU time grows while it works and never goes back.
func TestThreadAdvances(t *testing.T) {
	// Both readings must come from the same OS thread: unlocked, the
	// goroutine can migrate and the second reading is another thread's.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	t0, ok := Thread()
	if !ok {
		t.Skip("no per-thread CPU time on this system")
	}
	x := 1.0
	for i := 0; i < 20_000_000; i++ {
		x = x*1.0000001 + 1e-9
	}
	t1, _ := Thread()
	if t1 <= t0 || x == 0 {
		t.Errorf("thread CPU time went from %d to %d ns over a busy loop", t0, t1)
	}
}
