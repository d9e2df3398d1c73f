//go:build !linux

package sim

import "testing"

// cpuTimer reports nothing where the thread's CPU time is not available.
func cpuTimer(*testing.B) func() { return func() {} }
