package stats

import (
	"testing"

	"simrun/sim"
)

func TestCounter(t *testing.T) {
	var c Counter
	c.Add(3)
	c.Add(4)
	if c.Value() != 7 {
		t.Errorf("Value() = %d, want 7", c.Value())
	}
	c.Reset()
	if c.Value() != 0 {
		t.Errorf("after Reset Value() = %d, want 0", c.Value())
	}
}

// TestTimeAvg drives a gauge through steps whose integrals are worked out by
// hand in each row.
func TestTimeAvg(t *testing.T) {
	type step struct {
		at  sim.Time
		op  string // "set", "add", "reset"
		arg float64
	}
	tests := []struct {
		name     string
		steps    []step
		now      sim.Time
		integral float64
		mean     float64
		max, min float64
		reason   string
	}{
		{
			name: "zero value", now: 10,
			integral: 0, mean: 0, max: 0, min: 0,
			reason: "a gauge is 0 from time 0",
		},
		{
			name:  "one step",
			steps: []step{{10, "set", 2}},
			now:   30, integral: 2 * 20, mean: 40.0 / 30, max: 2, min: 0,
			reason: "0 on [0,10), 2 on [10,30)",
		},
		{
			name:  "queue in and out",
			steps: []step{{0, "add", 1}, {4, "add", 1}, {6, "add", -1}, {10, "add", -1}},
			now:   20, integral: 1*4 + 2*2 + 1*4 + 0*10, mean: 12.0 / 20, max: 2, min: 0,
			reason: "1 on [0,4), 2 on [4,6), 1 on [6,10), 0 after",
		},
		{
			name:  "reset keeps value",
			steps: []step{{0, "set", 5}, {100, "set", 3}, {200, "reset", 0}, {250, "set", 1}},
			now:   300, integral: 3*50 + 1*50, mean: 200.0 / 100, max: 3, min: 1,
			reason: "warm-up [0,200) dropped; 3 carries over the reset; max and min restart at 3",
		},
		{
			name:  "same-instant spike",
			steps: []step{{5, "set", 9}, {5, "set", 1}},
			now:   10, integral: 1 * 5, mean: 0.5, max: 9, min: 0,
			reason: "a value held for zero time adds nothing to the integral but still counts as max",
		},
		{
			name:  "mean over empty window",
			steps: []step{{7, "set", 4}, {7, "reset", 0}},
			now:   7, integral: 0, mean: 4, max: 4, min: 4,
			reason: "Mean over zero elapsed time is the current value",
		},
		{
			name:  "negative values",
			steps: []step{{0, "set", -2}, {10, "set", 2}},
			now:   20, integral: -20 + 20, mean: 0, max: 2, min: -2,
			reason: "a gauge may be a signed quantity (e.g. a credit balance)",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var a TimeAvg
			for _, s := range tt.steps {
				switch s.op {
				case "set":
					a.Set(s.at, s.arg)
				case "add":
					a.Add(s.at, s.arg)
				case "reset":
					a.Reset(s.at)
				}
			}
			if got := a.Integral(tt.now); got != tt.integral {
				t.Errorf("Integral(%d) = %v, want %v (%s)", tt.now, got, tt.integral, tt.reason)
			}
			if got := a.Mean(tt.now); got != tt.mean {
				t.Errorf("Mean(%d) = %v, want %v (%s)", tt.now, got, tt.mean, tt.reason)
			}
			if a.Max() != tt.max || a.Min() != tt.min {
				t.Errorf("Max, Min = %v, %v, want %v, %v (%s)", a.Max(), a.Min(), tt.max, tt.min, tt.reason)
			}
			// Querying does not change the gauge.
			if got := a.Integral(tt.now); got != tt.integral {
				t.Errorf("second Integral(%d) = %v, want %v", tt.now, got, tt.integral)
			}
		})
	}
}

func TestTimeAvgBackwardsPanics(t *testing.T) {
	defer func() {
		if r := recover(); r == nil {
			t.Error("Set before the last update did not panic")
		}
	}()
	var a TimeAvg
	a.Set(10, 1)
	a.Set(9, 1)
}
