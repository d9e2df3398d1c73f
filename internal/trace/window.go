package trace

import (
	"fmt"
	"strings"

	"simrun/sim"
)

// MaxWindow bounds a traced window: a trace of more than a few seconds of
// a busy commit pipeline is too large for a viewer to open.
const MaxWindow = 60 * sim.Time(1e9)

// ParseWindow reads a --window value "FROM:TO" such as "10s:10.2s" (times
// since the start of the run, warm-up included, with units). It returns
// an error naming the flag and the rule broken.
func ParseWindow(s string) (from, to sim.Time, err error) {
	a, b, ok := strings.Cut(s, ":")
	if !ok {
		return 0, 0, fmt.Errorf("trace: --window %q: want FROM:TO, e.g. 10s:10.2s", s)
	}
	f, err := sim.ParseDuration(a)
	if err != nil {
		return 0, 0, fmt.Errorf("trace: --window %q: start: %w", s, err)
	}
	t, err := sim.ParseDuration(b)
	if err != nil {
		return 0, 0, fmt.Errorf("trace: --window %q: end: %w", s, err)
	}
	from, to = sim.Time(f), sim.Time(t)
	if to <= from {
		return 0, 0, fmt.Errorf("trace: --window %q: the end must be after the start", s)
	}
	if to-from > MaxWindow {
		return 0, 0, fmt.Errorf("trace: --window %q: at most %v long, got %v", s, MaxWindow, to-from)
	}
	return from, to, nil
}
