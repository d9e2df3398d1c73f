package scenarios

import (
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
	"time"

	"simrun/internal/result"
	"simrun/sim"
)

// A Knob is a numeric parameter that a sweep range or a plan varies. Its
// values are numbers in the key's base unit (bytes/s for a rate, bytes for a
// size, seconds for a duration, the plain number otherwise): that number is
// what the result reports for a swept point.
type Knob struct {
	Key     string
	Unit    string // "bytes/s", "bytes", "s" or "" (a plain number)
	Integer bool   // only whole values are allowed (sizes, rates, counts of things)
	kind    knobKind
}

type knobKind int

const (
	knobInt knobKind = iota
	knobFloat
	knobRate
	knobBytes
	knobDuration
	knobCount
)

// knobAllowed says which parameters a range or plan may vary.
const knobAllowed = "an integer, number, size, rate or duration parameter (simrun explain lists each key with its unit)"

// Knob returns the numeric parameter at key, or an error naming what is
// allowed when the key does not exist or is not numeric.
func (sc *Scenario) Knob(key string) (Knob, error) {
	t := reflect.TypeOf(resolved{})
	parts := strings.Split(key, ".")
	for i, p := range parts {
		f, ok := findField(t, p)
		if !ok {
			if p == "preset" && i == len(parts)-1 {
				return Knob{}, fmt.Errorf("%q names a preset, not a number (want %s)", key, knobAllowed)
			}
			hint := ""
			if m := Suggest(p, keysOf(t)); m != "" {
				fix := append(append(parts[:i:i], m), parts[i+1:]...)
				hint = fmt.Sprintf("; did you mean %s?", strings.Join(fix, "."))
			}
			return Knob{}, fmt.Errorf("no parameter %q%s (want %s)", key, hint, knobAllowed)
		}
		if i == len(parts)-1 {
			if !f.leaf {
				return Knob{}, fmt.Errorf("%q is a section, not a parameter (want %s)", key, knobAllowed)
			}
			return knobOf(key, f.typ)
		}
		if f.leaf {
			return Knob{}, fmt.Errorf("no parameter %q: %s is not a section (want %s)", key, strings.Join(parts[:i+1], "."), knobAllowed)
		}
		t = f.typ
	}
	return Knob{}, fmt.Errorf("no parameter %q (want %s)", key, knobAllowed)
}

// kindName says what a non-numeric parameter takes, in the file's terms.
func kindName(t reflect.Type) string {
	switch t.Kind() {
	case reflect.String:
		return "a name"
	case reflect.Bool:
		return "true or false"
	case reflect.Slice, reflect.Array:
		return "a list"
	}
	return "a table, such as a distribution"
}

func knobOf(key string, t reflect.Type) (Knob, error) {
	k := Knob{Key: key}
	switch t {
	case reflect.TypeOf(sim.Rate(0)):
		k.kind, k.Unit, k.Integer = knobRate, "bytes/s", true
	case reflect.TypeOf(sim.Bytes(0)):
		k.kind, k.Unit, k.Integer = knobBytes, "bytes", true
	case reflect.TypeOf(sim.Duration(0)), reflect.TypeOf(time.Duration(0)):
		k.kind, k.Unit = knobDuration, "s"
	case reflect.TypeOf(sim.Count(0)):
		k.kind = knobCount
	default:
		switch t.Kind() {
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
			reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
			k.kind, k.Integer = knobInt, true
		case reflect.Float32, reflect.Float64:
			k.kind = knobFloat
		default:
			return Knob{}, fmt.Errorf("%q is not numeric (it takes %s; want %s)", key, kindName(t), knobAllowed)
		}
	}
	return k, nil
}

// Parse reads one value of the knob ("40MB/s", "1.5ms", "16", "2.5k") as a
// number in its base unit.
func (k Knob) Parse(s string) (float64, error) {
	s = strings.TrimSpace(s)
	var x float64
	switch k.kind {
	case knobRate:
		r, err := sim.ParseRate(s)
		if err != nil {
			return 0, err
		}
		x = float64(r)
	case knobBytes:
		b, err := sim.ParseBytes(s)
		if err != nil {
			return 0, err
		}
		x = float64(b)
	case knobDuration:
		d, err := sim.ParseDuration(s)
		if err != nil {
			return 0, err
		}
		x = d.Seconds()
	default:
		c, err := sim.ParseCount(s)
		if err != nil {
			return 0, err
		}
		x = float64(c)
	}
	if k.Integer && x != math.Trunc(x) {
		return 0, fmt.Errorf("%s: %s is not a whole number", k.Key, s)
	}
	return x, nil
}

// Value returns the override for x that the key's decoder accepts.
func (k Knob) Value(x float64) any {
	switch k.kind {
	case knobDuration:
		return strconv.FormatInt(int64(math.Round(x*1e9)), 10) + "ns"
	case knobFloat, knobCount:
		return x
	case knobRate:
		// Sizes and rates need their unit (a bare number is an input error).
		return strconv.FormatInt(int64(math.Round(x)), 10) + "B/s"
	case knobBytes:
		return strconv.FormatInt(int64(math.Round(x)), 10) + "B"
	}
	return int64(math.Round(x))
}

// Report returns x as the result reports it: an integer for integer knobs.
func (k Knob) Report(x float64) any {
	if k.Integer {
		return int64(math.Round(x))
	}
	return x
}

// Format prints x with the knob's unit, for tables and messages.
func (k Knob) Format(x float64) string { return result.FormatUnit(x, k.Unit) }

// Range is a span of a knob's values: LO..HI, optionally with :N (N points,
// evenly spaced, ends included) or *F (LO, LO·F, LO·F², ... up to HI).
type Range struct {
	Lo, Hi string
	Points int     // :N; 0 when not given
	Factor float64 // *F; 0 when not given
}

// String prints the range as it is written.
func (r Range) String() string {
	s := r.Lo + ".." + r.Hi
	switch {
	case r.Points > 0:
		s += ":" + strconv.Itoa(r.Points)
	case r.Factor > 0:
		s += "*" + strconv.FormatFloat(r.Factor, 'g', -1, 64)
	}
	return s
}

// ParseRange reads "LO..HI", "LO..HI:N" or "LO..HI*F". ok is false when s
// is not a range at all, so the caller may read it as a value: no "..", or
// a text before it that is not a number ("my..box", a quoted string, a
// table), since every range is of a numeric parameter.
func ParseRange(s string) (r Range, ok bool, err error) {
	lo, rest, found := strings.Cut(strings.TrimSpace(s), "..")
	if !found || !startsNumber(lo) {
		return Range{}, false, nil
	}
	hi := rest
	if i := strings.LastIndexAny(rest, ":*"); i >= 0 {
		hi = rest[:i]
		arg := strings.TrimSpace(rest[i+1:])
		if rest[i] == ':' {
			n, err := strconv.Atoi(arg)
			if err != nil || n < 2 {
				return Range{}, true, fmt.Errorf("range %q: after ':' want the number of points, an integer >= 2", s)
			}
			r.Points = n
		} else {
			f, err := strconv.ParseFloat(arg, 64)
			if err != nil || !(f > 1) || math.IsInf(f, 0) {
				return Range{}, true, fmt.Errorf("range %q: after '*' want the growth factor, a number > 1", s)
			}
			r.Factor = f
		}
	}
	r.Lo, r.Hi = strings.TrimSpace(lo), strings.TrimSpace(hi)
	if r.Lo == "" || r.Hi == "" {
		return Range{}, true, fmt.Errorf("range %q: want LO..HI[:N|*F], e.g. 40MB/s..400MB/s:10 or 1..64*2", s)
	}
	return r, true, nil
}

// startsNumber reports whether s begins like a number: a digit, after an
// optional sign.
func startsNumber(s string) bool {
	s = strings.TrimLeft(strings.TrimSpace(s), "+-")
	return s != "" && s[0] >= '0' && s[0] <= '9'
}

// Bounds parses the range's ends; it fails when LO > HI.
func (k Knob) Bounds(r Range) (lo, hi float64, err error) {
	if lo, err = k.Parse(r.Lo); err != nil {
		return 0, 0, err
	}
	if hi, err = k.Parse(r.Hi); err != nil {
		return 0, 0, err
	}
	if lo > hi {
		return 0, 0, fmt.Errorf("range %s is empty: %s > %s", r, r.Lo, r.Hi)
	}
	if r.Factor > 0 && lo <= 0 {
		return 0, 0, fmt.Errorf("range %s: a geometric range (*F) needs LO > 0", r)
	}
	return lo, hi, nil
}

// Expand lists the range's values in increasing order; whole values for an
// integer knob, with duplicates dropped. A range without :N or *F lists
// every whole value of an integer knob (up to maxPoints) and is an error
// otherwise.
func (k Knob) Expand(r Range, maxPoints int) ([]float64, error) {
	lo, hi, err := k.Bounds(r)
	if err != nil {
		return nil, err
	}
	var xs []float64
	add := func(x float64) {
		if k.Integer {
			x = math.Round(x)
		}
		if n := len(xs); n == 0 || x > xs[n-1] {
			xs = append(xs, x)
		}
	}
	switch {
	case r.Points > 0:
		for i := 0; i < r.Points; i++ {
			add(lo + (hi-lo)*float64(i)/float64(r.Points-1))
		}
	case r.Factor > 0:
		for x := lo; x <= hi*(1+1e-12) && len(xs) <= maxPoints; x *= r.Factor {
			add(x)
		}
	case k.Integer && hi-lo < float64(maxPoints):
		for x := lo; x <= hi; x++ {
			add(x)
		}
	default:
		return nil, fmt.Errorf("range %s: say how to step it, :N for N evenly spaced points or *F for a factor F", r)
	}
	if len(xs) > maxPoints {
		return nil, fmt.Errorf("range %s has more than %d points", r, maxPoints)
	}
	return xs, nil
}

// maxAxisPoints bounds the values one range expands to.
const maxAxisPoints = 10000

// ResolvedAxis is an axis with its range expanded: Values are the
// overrides, Report the same values as the result reports them.
type ResolvedAxis struct {
	Key    string
	Unit   string
	Values []any
	Report []any
}

// ResolveAxes expands ranges and turns the values of numeric keys into
// numbers in the key's base unit for the result ("120MB/s" is reported as
// 120000000, with unit bytes/s). Values of other keys are reported as given.
func ResolveAxes(sc *Scenario, axes []Axis) ([]ResolvedAxis, error) {
	var out []ResolvedAxis
	var e errs
	for _, a := range axes {
		k, kerr := sc.Knob(a.Key)
		ra := ResolvedAxis{Key: a.Key}
		if a.Range != nil {
			if kerr != nil {
				e.add(&Error{Path: a.Key, Msg: "--set range: " + kerr.Error()})
				continue
			}
			xs, err := k.Expand(*a.Range, maxAxisPoints)
			if err != nil {
				e.add(&Error{Path: a.Key, Msg: "--set: " + err.Error()})
				continue
			}
			ra.Unit = k.Unit
			for _, x := range xs {
				ra.Values = append(ra.Values, k.Value(x))
				ra.Report = append(ra.Report, k.Report(x))
			}
			out = append(out, ra)
			continue
		}
		ra.Values = a.Values
		ra.Report = a.Values
		if kerr == nil {
			rep := make([]any, len(a.Values))
			numeric := true
			for i, v := range a.Values {
				x, ok := knobNumber(k, v)
				if !ok {
					numeric = false
					break
				}
				rep[i] = k.Report(x)
			}
			if numeric {
				ra.Report, ra.Unit = rep, k.Unit
			}
		}
		out = append(out, ra)
	}
	if err := e.err(); err != nil {
		return nil, err
	}
	return out, nil
}

// knobNumber reads a TOML value given for a numeric knob as a number in
// the knob's base unit.
func knobNumber(k Knob, v any) (float64, bool) {
	switch x := v.(type) {
	case string:
		f, err := k.Parse(x)
		return f, err == nil
	case int64:
		if k.kind == knobDuration {
			return 0, x == 0
		}
		return float64(x), true
	case float64:
		if k.kind == knobDuration {
			return 0, x == 0
		}
		return x, true
	}
	return 0, false
}
