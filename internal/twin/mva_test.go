package twin

import (
	"math"
	"testing"
)

// machineRepair is the exact throughput of N customers, think time z, and
// one exponential server of mean d: the finite-source M/M/1//N queue.
func machineRepair(n int, d, z float64) float64 {
	// p0 = 1 / sum_{k=0}^{n} n!/(n-k)! (d/z)^k
	sum, term := 1.0, 1.0
	for k := 1; k <= n; k++ {
		term *= float64(n-k+1) * d / z
		sum += term
	}
	return (1 - 1/sum) / d
}

func TestMVA(t *testing.T) {
	tests := []struct {
		reason   string
		stations []Station
		n        int
		z        float64
		want     float64
		tol      float64
	}{
		{"one customer: 1/(D+Z)", []Station{{"a", 0.002, 1}, {"b", 0.003, 1}}, 1, 0.005, 100, 1e-9},
		{"finite-source M/M/1//10 (product form, exact)", []Station{{"cpu", 0.01, 1}}, 10, 0.05, machineRepair(10, 0.01, 0.05), 1e-9},
		{"saturated: 1/Dmax", []Station{{"a", 0.001, 1}, {"b", 0.004, 1}}, 200, 0, 250, 0.01},
		{"a delay never queues", []Station{{"d", 0.01, 0}}, 50, 0, 5000, 1e-9},
		{"4 servers saturate at m/D", []Station{{"cpu", 0.004, 4}}, 400, 0, 1000, 0.01},
	}
	for _, tc := range tests {
		e, err := MVA(tc.stations, tc.n, tc.z)
		if err != nil {
			t.Fatalf("%s: %v", tc.reason, err)
		}
		if math.Abs(e.Throughput-tc.want) > tc.tol*tc.want {
			t.Errorf("%s: X = %.6g, want %.6g", tc.reason, e.Throughput, tc.want)
		}
	}
	e, _ := MVA([]Station{{"cpu", 0.001, 1}, {"log", 0.004, 1}}, 100, 0)
	if e.Bound != "log" || e.Util[1] < 0.99 {
		t.Errorf("bound %q util %v, want log saturated", e.Bound, e.Util)
	}
	if _, err := MVA(nil, 0, 0); err == nil {
		t.Error("zero customers accepted")
	}
}
