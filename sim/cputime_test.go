package sim

import (
	"testing"

	"simrun/internal/cputime"
)

// cpuTimer reports cpu-ns/op beside a benchmark's wall-clock figures.
func cpuTimer(b *testing.B) func() { return cputime.Start(b) }
