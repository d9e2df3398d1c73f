package result

import (
	"math"
	"strconv"
)

// FormatUnit prints a number given in a base unit for people: bytes/s and
// bytes with a decimal prefix ("40MB/s", "16.38kB"), seconds as a duration
// ("1.5ms"), anything else as a plain number.
func FormatUnit(x float64, unit string) string {
	switch unit {
	case "bytes/s":
		return decimalPrefix(x, "B/s")
	case "bytes":
		return decimalPrefix(x, "B")
	case "s":
		switch a := math.Abs(x); {
		case a == 0 || a >= 1:
			return strconv.FormatFloat(x, 'g', 4, 64) + "s"
		case a >= 1e-3:
			return strconv.FormatFloat(x*1e3, 'g', 4, 64) + "ms"
		case a >= 1e-6:
			return strconv.FormatFloat(x*1e6, 'g', 4, 64) + "us"
		}
		return strconv.FormatFloat(x*1e9, 'g', 4, 64) + "ns"
	}
	return FormatValue(x)
}

// decimalPrefix prints x with a decimal prefix (40MB/s), or with a binary
// one where only that is exact (1073741824 bytes is 1GiB, not 1.074GB), so
// a value given as 1GiB reads back as given.
func decimalPrefix(x float64, unit string) string {
	for _, p := range []struct {
		s string
		m float64
	}{{"T", 1e12}, {"G", 1e9}, {"M", 1e6}, {"k", 1e3}} {
		if math.Abs(x) >= p.m {
			s := strconv.FormatFloat(x/p.m, 'g', 4, 64)
			if !exact(s, p.m, x) {
				if b := binaryPrefix(x, unit); b != "" {
					return b
				}
			}
			return s + p.s + unit
		}
	}
	return strconv.FormatFloat(x, 'g', 4, 64) + unit
}

// binaryPrefix prints x exactly with the largest binary prefix that
// divides it (4 significant digits at most), or returns "".
func binaryPrefix(x float64, unit string) string {
	for _, p := range []struct {
		s string
		m float64
	}{{"Ti", 1 << 40}, {"Gi", 1 << 30}, {"Mi", 1 << 20}, {"Ki", 1 << 10}} {
		if math.Abs(x) >= p.m {
			if s := strconv.FormatFloat(x/p.m, 'g', 4, 64); exact(s, p.m, x) {
				return s + p.s + unit
			}
		}
	}
	return ""
}

// exact reports whether s (a number printed from x/m) times m is x.
func exact(s string, m, x float64) bool {
	v, err := strconv.ParseFloat(s, 64)
	return err == nil && v*m == x
}

// FormatPoint prints a swept value for people: a number in its axis's
// unit (40MB/s, 1.5ms; a plain number when the axis has none), an inline
// table or array as TOML text ({ dist = "exponential", mean = "1ms" }),
// anything else as FormatValue does. The result's JSON and CSV keep the
// number itself; this is for tables, legends and messages.
func FormatPoint(v any, unit string) string {
	if unit != "" {
		if f, ok := Float(v); ok {
			return FormatUnit(f, unit)
		}
	}
	switch v.(type) {
	case map[string]any, Metrics, []any, []float64, []int64:
		return tomlValue(v)
	}
	return FormatValue(v)
}

// Format prints one of the axis's values for people (FormatPoint).
func (a Axis) Format(v any) string { return FormatPoint(v, a.Unit) }
