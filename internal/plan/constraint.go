package plan

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Constraint is one condition on a metric: Metric Op Value.
type Constraint struct {
	Flag   string // the flag it came from (--goal, --limit), for messages
	Metric string // dotted metric path, e.g. latency_ms.p99
	Op     string // >=, <=, >, <
	Value  float64
}

// ops in matching order: two-character operators first.
var ops = []string{">=", "<=", ">", "<"}

// ParseConstraint reads "METRIC OP NUMBER", e.g. "tps>=4000" or
// "latency_ms.p99 <= 10".
func ParseConstraint(flag, s string) (Constraint, error) {
	for _, op := range ops {
		i := strings.Index(s, op)
		if i < 0 {
			continue
		}
		m := strings.TrimSpace(s[:i])
		v := strings.TrimSpace(s[i+len(op):])
		if m == "" || strings.ContainsAny(m, " <>=") {
			break
		}
		f, err := strconv.ParseFloat(v, 64)
		if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
			return Constraint{}, fmt.Errorf("%s %q: %q is not a number (want METRIC OP NUMBER, OP one of >=, <=, >, <; e.g. 'tps>=4000')", flag, s, v)
		}
		return Constraint{Flag: flag, Metric: m, Op: op, Value: f}, nil
	}
	return Constraint{}, fmt.Errorf("%s %q: want METRIC OP NUMBER, OP one of >=, <=, >, < (e.g. 'tps>=4000', 'latency_ms.p99<=10')", flag, s)
}

// String prints the constraint as it is written.
func (c Constraint) String() string {
	return c.Metric + c.Op + strconv.FormatFloat(c.Value, 'g', -1, 64)
}

// Holds reports whether a value satisfies the constraint.
func (c Constraint) Holds(x float64) bool {
	switch c.Op {
	case ">=":
		return x >= c.Value
	case "<=":
		return x <= c.Value
	case ">":
		return x > c.Value
	}
	return x < c.Value
}

// decided reports whether the interval mean ± h lies wholly on one side
// of the threshold.
func (c Constraint) decided(mean, h float64) bool {
	return c.Holds(mean-h) == c.Holds(mean+h)
}

// InResolution reports whether s's threshold lies within its Resolution
// of its mean, so that no number of replications can decide it.
func (c Constraint) InResolution(s Stat) bool {
	return s.Resolution > 0 && !c.decided(s.Mean, s.Resolution)
}
