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

func decimalPrefix(x float64, unit string) string {
	for _, p := range []struct {
		s string
		m float64
	}{{"T", 1e12}, {"G", 1e9}, {"M", 1e6}, {"k", 1e3}} {
		if math.Abs(x) >= p.m {
			return strconv.FormatFloat(x/p.m, 'g', 4, 64) + p.s + unit
		}
	}
	return strconv.FormatFloat(x, 'g', 4, 64) + unit
}
