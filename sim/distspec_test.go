package sim

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/BurntSushi/toml"
)

func decodeDist(t *testing.T, src string) (DistSpec, error) {
	t.Helper()
	var v struct {
		D DistSpec `toml:"d"`
	}
	_, err := toml.Decode("d = "+src, &v)
	return v.D, err
}

func TestDistSpecDecode(t *testing.T) {
	ms := float64(time.Millisecond)
	tests := []struct {
		src      string
		mean     float64 // ns
		quantile [2]float64
	}{
		{`"1ms"`, ms, [2]float64{0.9, ms}},
		{`{ dist = "constant", value = "2ms" }`, 2 * ms, [2]float64{0.1, 2 * ms}},
		{`{ dist = "exponential", mean = "1ms" }`, ms, [2]float64{0.5, ms * math.Ln2}},
		{`{ dist = "lognormal", median = "250us", p99 = "2ms" }`, 0, [2]float64{0.99, 2 * ms}},
		{`{ dist = "uniform", min = "1ms", max = "3ms" }`, 2 * ms, [2]float64{0.25, 1.5 * ms}},
		{`{ dist = "empirical", quantiles = [[0, "1ms"], [1, "3ms"]] }`, 2 * ms, [2]float64{0.5, 2 * ms}},
		{`{ dist = "empirical", quantiles = [[0.5, "1ms"], [0.99, "3ms"]] }`, 0, [2]float64{0.745, 2 * ms}},
	}
	for _, tt := range tests {
		s, err := decodeDist(t, tt.src)
		if err != nil {
			t.Errorf("%s: %v", tt.src, err)
			continue
		}
		d, err := s.Dist()
		if err != nil {
			t.Errorf("%s: Dist: %v", tt.src, err)
			continue
		}
		if tt.mean != 0 && math.Abs(d.Mean()-tt.mean) > 1e-6*tt.mean {
			t.Errorf("%s: mean %v, want %v", tt.src, d.Mean(), tt.mean)
		}
		if q := d.Quantile(tt.quantile[0]); math.Abs(q-tt.quantile[1]) > 1e-6*tt.quantile[1] {
			t.Errorf("%s: quantile(%v) = %v, want %v", tt.src, tt.quantile[0], q, tt.quantile[1])
		}
		// String output is valid input that gives the same spec.
		again, err := decodeDist(t, s.String())
		if err != nil || again.String() != s.String() {
			t.Errorf("%s: round trip %q -> %v, %v", tt.src, s.String(), again, err)
		}
	}
	// The lognormal's median is where it was put.
	s, _ := decodeDist(t, `{ dist = "lognormal", median = "250us", p99 = "2ms" }`)
	d, _ := s.Dist()
	if q := d.Quantile(0.5); math.Abs(q-250e3) > 1e-6 {
		t.Errorf("lognormal median %v, want 250us", q)
	}
}

func TestDistSpecErrors(t *testing.T) {
	tests := []struct{ src, errSub string }{
		{`{ median = "1ms" }`, "needs a dist key"},
		{`{ dist = "gamma" }`, `unknown distribution "gamma" (allowed: constant, exponential, lognormal, uniform, empirical)`},
		{`{ dist = 3 }`, "dist: want a string"},
		{`{ dist = "lognormal", median = "1ms" }`, "needs p99"},
		{`{ dist = "lognormal", median = "1ms", p99 = "0.5ms" }`, "p99: must be >= median"},
		{`{ dist = "lognormal", median = "1ms", p99 = "2ms", mean = "1ms" }`, "mean: not a parameter of a lognormal distribution (allowed: median, p99)"},
		{`{ dist = "exponential", mean = "0s" }`, "mean: must be > 0"},
		{`{ dist = "exponential", mean = 5 }`, "needs a unit"},
		{`{ dist = "uniform", min = "3ms", max = "1ms" }`, "max: must be >= min"},
		{`{ dist = "empirical", quantiles = [[0.9, "1ms"], [0.5, "2ms"]] }`, "p must increase"},
		{`{ dist = "empirical", quantiles = [[0.5, "3ms"], [0.9, "2ms"]] }`, "must not decrease"},
		{`{ dist = "empirical", quantiles = [[1.5, "3ms"]] }`, "p must be in [0, 1]"},
		{`{ dist = "empirical", quantiles = [0.5] }`, "want a pair"},
		{`{ dist = "empirical" }`, "needs quantiles"},
		{`true`, "bad distribution"},
		{`"fast"`, "bad duration"},
	}
	for _, tt := range tests {
		_, err := decodeDist(t, tt.src)
		if err == nil || !strings.Contains(err.Error(), tt.errSub) {
			t.Errorf("%s: got %v, want error containing %q", tt.src, err, tt.errSub)
		}
	}
	if _, err := (DistSpec{}).Dist(); err == nil {
		t.Errorf("zero DistSpec: want error")
	}
}

// TestDistSpecSampling checks that sampling through a named stream gives the
// spec's mean, i.e. that the gonum types are used through Quantile.
func TestDistSpecSampling(t *testing.T) {
	s := ExponentialDist(Duration(time.Millisecond))
	d, err := s.Dist()
	if err != nil {
		t.Fatal(err)
	}
	st := NewStream(1, "test")
	var sum float64
	const n = 200000
	for i := 0; i < n; i++ {
		sum += float64(SampleDuration(d, st))
	}
	if mean := sum / n; math.Abs(mean-1e6)/1e6 > 0.01 {
		t.Errorf("sampled mean %v ns, want 1e6 within 1%%", mean)
	}
	if m := s.MeanDuration(); m != Duration(time.Millisecond) {
		t.Errorf("MeanDuration %v", m)
	}
}
