package sim

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/stat/distuv"
)

// DistSpec is a distribution of durations as a person writes it in a
// scenario file, for example
//
//	fsync = { dist = "lognormal", median = "250us", p99 = "2ms" }
//	think = { dist = "exponential", mean = "1ms" }
//	cpu   = { dist = "uniform", min = "10us", max = "30us" }
//	fixed = { dist = "constant", value = "1ms" }      # or just fixed = "1ms"
//	disk  = { dist = "empirical", quantiles = [[0.5, "1ms"], [0.99, "3ms"]] }
//
// A spec is checked completely when it is decoded, so Dist never fails on a
// spec that came from UnmarshalTOML. Values are durations; Dist works in
// float64 nanoseconds.
type DistSpec struct {
	Kind   string // constant | exponential | lognormal | uniform | empirical
	Value  Duration
	Mean   Duration
	Median Duration
	P99    Duration
	Min    Duration
	Max    Duration
	Points []QuantilePoint // empirical: P in [0,1], Value in ns
}

// DistKinds lists the accepted values of dist, in documentation order.
var DistKinds = []string{"constant", "exponential", "lognormal", "uniform", "empirical"}

// distKeys lists the keys each kind takes besides "dist".
var distKeys = map[string][]string{
	"constant":    {"value"},
	"exponential": {"mean"},
	"lognormal":   {"median", "p99"},
	"uniform":     {"min", "max"},
	"empirical":   {"quantiles"},
}

// z99 is the standard normal quantile at 0.99: a lognormal's p99 is
// exp(mu + z99*sigma).
const z99 = 2.3263478740408408

// ConstantDist returns the spec of a constant duration.
func ConstantDist(d Duration) DistSpec { return DistSpec{Kind: "constant", Value: d} }

// ExponentialDist returns the spec of an exponential distribution.
func ExponentialDist(mean Duration) DistSpec { return DistSpec{Kind: "exponential", Mean: mean} }

// LognormalDist returns the spec of a lognormal given its median and p99.
func LognormalDist(median, p99 Duration) DistSpec {
	return DistSpec{Kind: "lognormal", Median: median, P99: p99}
}

// UnmarshalTOML decodes a bare duration string (a constant) or an inline
// table with a "dist" key, and checks it.
func (s *DistSpec) UnmarshalTOML(v any) error {
	switch x := v.(type) {
	case string:
		d, err := ParseDuration(x)
		if err != nil {
			return err
		}
		*s = ConstantDist(d)
		return nil
	case map[string]any:
		return s.fromTable(x)
	}
	return typeErr("distribution", v, `want a duration like "1ms" or a table like { dist = "lognormal", median = "250us", p99 = "2ms" }`)
}

func (s *DistSpec) fromTable(m map[string]any) error {
	kindV, ok := m["dist"]
	if !ok {
		return fmt.Errorf("distribution needs a dist key (allowed: %s)", strings.Join(DistKinds, ", "))
	}
	kind, ok := kindV.(string)
	if !ok {
		return fmt.Errorf("dist: want a string, got %s (allowed: %s)", tomlTypeName(kindV), strings.Join(DistKinds, ", "))
	}
	keys, ok := distKeys[kind]
	if !ok {
		return fmt.Errorf("dist: unknown distribution %q (allowed: %s)", kind, strings.Join(DistKinds, ", "))
	}
	// Report unknown keys in a fixed (sorted) order.
	var names []string
	for k := range m {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		if k == "dist" {
			continue
		}
		if !contains(keys, k) {
			return fmt.Errorf("%s: not a parameter of a %s distribution (allowed: %s)", k, kind, strings.Join(keys, ", "))
		}
	}
	out := DistSpec{Kind: kind}
	dur := func(key string, dst *Duration) error {
		v, ok := m[key]
		if !ok {
			return fmt.Errorf("a %s distribution needs %s (it takes %s)", kind, key, strings.Join(keys, ", "))
		}
		if err := dst.UnmarshalTOML(v); err != nil {
			return fmt.Errorf("%s: %w", key, err)
		}
		return nil
	}
	var err error
	switch kind {
	case "constant":
		err = dur("value", &out.Value)
	case "exponential":
		err = dur("mean", &out.Mean)
	case "lognormal":
		if err = dur("median", &out.Median); err == nil {
			err = dur("p99", &out.P99)
		}
	case "uniform":
		if err = dur("min", &out.Min); err == nil {
			err = dur("max", &out.Max)
		}
	case "empirical":
		out.Points, err = quantilePoints(m["quantiles"])
	}
	if err != nil {
		return err
	}
	if err := out.Validate(); err != nil {
		return err
	}
	*s = out
	return nil
}

func quantilePoints(v any) ([]QuantilePoint, error) {
	const want = `want quantiles = [[0.5, "1ms"], [0.99, "3ms"], ...]`
	if v == nil {
		return nil, fmt.Errorf("an empirical distribution needs quantiles; %s", want)
	}
	arr, ok := v.([]any)
	if !ok || len(arr) == 0 {
		return nil, fmt.Errorf("quantiles: %s", want)
	}
	pts := make([]QuantilePoint, 0, len(arr))
	for i, e := range arr {
		pair, ok := e.([]any)
		if !ok || len(pair) != 2 {
			return nil, fmt.Errorf("quantiles[%d]: want a pair [p, duration]; %s", i, want)
		}
		var p float64
		switch x := pair[0].(type) {
		case float64:
			p = x
		case int64:
			p = float64(x)
		default:
			return nil, fmt.Errorf("quantiles[%d]: p must be a number in [0, 1], got %s", i, tomlTypeName(pair[0]))
		}
		var d Duration
		if err := d.UnmarshalTOML(pair[1]); err != nil {
			return nil, fmt.Errorf("quantiles[%d]: %w", i, err)
		}
		pts = append(pts, QuantilePoint{P: p, Value: float64(d)})
	}
	return pts, nil
}

// Validate checks the parameters of the spec.
func (s DistSpec) Validate() error {
	switch s.Kind {
	case "constant":
	case "exponential":
		if s.Mean <= 0 {
			return fmt.Errorf("mean: must be > 0, got %v", s.Mean)
		}
	case "lognormal":
		if s.Median <= 0 {
			return fmt.Errorf("median: must be > 0, got %v", s.Median)
		}
		if s.P99 < s.Median {
			return fmt.Errorf("p99: must be >= median (%v), got %v", s.Median, s.P99)
		}
	case "uniform":
		if s.Max < s.Min {
			return fmt.Errorf("max: must be >= min (%v), got %v", s.Min, s.Max)
		}
	case "empirical":
		for i, p := range s.Points {
			if !(p.P >= 0 && p.P <= 1) {
				return fmt.Errorf("quantiles[%d]: p must be in [0, 1], got %v", i, p.P)
			}
			if i > 0 && !(p.P > s.Points[i-1].P) {
				return fmt.Errorf("quantiles[%d]: p must increase, got %v after %v", i, p.P, s.Points[i-1].P)
			}
			if i > 0 && p.Value < s.Points[i-1].Value {
				return fmt.Errorf("quantiles[%d]: durations must not decrease, got %v after %v",
					i, Duration(p.Value), Duration(s.Points[i-1].Value))
			}
		}
		if _, err := NewEmpirical(s.Points); err != nil {
			return err
		}
	case "":
		return fmt.Errorf("no distribution given (allowed dist: %s)", strings.Join(DistKinds, ", "))
	default:
		return fmt.Errorf("dist: unknown distribution %q (allowed: %s)", s.Kind, strings.Join(DistKinds, ", "))
	}
	return nil
}

// Dist builds the distribution in float64 nanoseconds. gonum types are
// returned for the parametric kinds; they are sampled through Quantile by
// Sample, never through their Rand methods.
func (s DistSpec) Dist() (Dist, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	switch s.Kind {
	case "constant":
		return Constant(float64(s.Value)), nil
	case "exponential":
		return distuv.Exponential{Rate: 1 / float64(s.Mean)}, nil
	case "lognormal":
		mu := math.Log(float64(s.Median))
		sigma := (math.Log(float64(s.P99)) - mu) / z99
		return distuv.LogNormal{Mu: mu, Sigma: sigma}, nil
	case "uniform":
		if s.Min == s.Max {
			return Constant(float64(s.Min)), nil
		}
		return distuv.Uniform{Min: float64(s.Min), Max: float64(s.Max)}, nil
	case "empirical":
		return NewEmpirical(s.Points)
	}
	panic("sim: unreachable dist kind " + s.Kind)
}

// String prints the spec in the inline-table form a scenario file uses, so
// that it can be pasted back: { dist = "lognormal", median = "250us", p99 = "2ms" }.
func (s DistSpec) String() string {
	q := func(d Duration) string { return strconv.Quote(d.String()) }
	switch s.Kind {
	case "constant":
		return fmt.Sprintf(`{ dist = "constant", value = %s }`, q(s.Value))
	case "exponential":
		return fmt.Sprintf(`{ dist = "exponential", mean = %s }`, q(s.Mean))
	case "lognormal":
		return fmt.Sprintf(`{ dist = "lognormal", median = %s, p99 = %s }`, q(s.Median), q(s.P99))
	case "uniform":
		return fmt.Sprintf(`{ dist = "uniform", min = %s, max = %s }`, q(s.Min), q(s.Max))
	case "empirical":
		var b strings.Builder
		b.WriteString(`{ dist = "empirical", quantiles = [`)
		for i, p := range s.Points {
			if i > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "[%s, %s]", strconv.FormatFloat(p.P, 'f', -1, 64), q(Duration(math.Round(p.Value))))
		}
		b.WriteString("] }")
		return b.String()
	case "":
		return "{}"
	}
	return fmt.Sprintf("{ dist = %q }", s.Kind)
}

// MarshalText implements encoding.TextMarshaler with String's form.
func (s DistSpec) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// MeanDuration returns the mean of the distribution, or 0 if the spec is
// invalid. Models use it for capacity checks and reports.
func (s DistSpec) MeanDuration() Duration {
	d, err := s.Dist()
	if err != nil {
		return 0
	}
	return Duration(math.Round(d.Mean()))
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
