package plan

import (
	"math"
	"strconv"
	"strings"

	gplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"

	"simrun/internal/result"
)

// prefix is a unit prefix and how many base units it stands for.
type prefix struct {
	s string
	m float64
}

var (
	decimalPrefixes = []prefix{{"T", 1e12}, {"G", 1e9}, {"M", 1e6}, {"k", 1e3}}
	binaryPrefixes  = []prefix{{"Ti", 1 << 40}, {"Gi", 1 << 30}, {"Mi", 1 << 20}, {"Ki", 1 << 10}}
)

// prefixed returns the largest prefix of ps not above maxAbs, on suffix.
func prefixed(maxAbs float64, ps []prefix, suffix string) (string, float64) {
	for _, p := range ps {
		if maxAbs >= p.m {
			return p.s + suffix, p.m
		}
	}
	return suffix, 1
}

// sizeSuffix is a bytes or bytes/s unit's symbol.
func sizeSuffix(unit string) string {
	if unit == "bytes" {
		return "B"
	}
	return "B/s"
}

// displayUnit returns the unit an axis's ticks count in, for values up to
// maxAbs in the base unit, and how many base units make one: MB/s and
// 1e6 for 20..400 MB/s, ms and 1e-3 for 2..50 ms.
func displayUnit(unit string, maxAbs float64) (string, float64) {
	switch unit {
	case "bytes/s", "bytes":
		return prefixed(maxAbs, decimalPrefixes, sizeSuffix(unit))
	case "s":
		switch {
		case maxAbs == 0 || maxAbs >= 1:
			return "s", 1
		case maxAbs >= 1e-3:
			return "ms", 1e-3
		case maxAbs >= 1e-6:
			return "µs", 1e-6
		}
		return "ns", 1e-9
	}
	return unit, 1
}

// axisUnit is displayUnit for an axis whose values run from lo to hi, in
// binary prefixes (GiB, MiB/s) when the values were given in them: a
// range of 1GiB..4GiB ticks at 1, 2.5 and 4 GiB, as the report prints
// them, not at 1.07374182, 2.68435456 and 4.2949673 GB.
func axisUnit(unit string, lo, hi float64) (string, float64) {
	maxAbs := math.Max(math.Abs(lo), math.Abs(hi))
	if !binaryValues(unit, lo, hi) {
		return displayUnit(unit, maxAbs)
	}
	return prefixed(maxAbs, binaryPrefixes, sizeSuffix(unit))
}

// binaryValues reports whether a bytes or bytes/s axis from lo to hi was
// given in binary multiples: each end (but a zero) prints exactly with a
// binary prefix and not with a decimal one, as the report prints it
// (result.FormatUnit: 1GiB, not 1.074GB). The knob does not say which it
// was given in; its values do.
func binaryValues(unit string, lo, hi float64) bool {
	if unit != "bytes" && unit != "bytes/s" || lo == 0 && hi == 0 {
		return false
	}
	for _, v := range []float64{lo, hi} {
		if v != 0 && !strings.Contains(result.FormatUnit(v, unit), "iB") {
			return false
		}
	}
	return true
}

// axisTitle is a parameter's name with the unit its ticks count in.
func axisTitle(key, unit string) string {
	if unit == "" {
		return key
	}
	return key + " (" + unit + ")"
}

// tickNum prints a tick's value: the fewest digits that say it, without
// the float noise of a computed multiple (0.30000000000000004).
func tickNum(x float64) string {
	if x = clean(x); x == 0 {
		return "0"
	}
	return strconv.FormatFloat(x, 'f', -1, 64)
}

// clean rounds a computed multiple to nine significant digits, which
// takes off the float noise: 6 × 0.1 is 0.6.
func clean(x float64) float64 {
	x, _ = strconv.ParseFloat(strconv.FormatFloat(x, 'g', 9, 64), 64)
	return x
}

// base turns a tick in display units into the base unit, a whole number
// on an integer axis.
func (t *ticker) base(d float64) float64 {
	v := clean(d) * t.scale
	if t.integer {
		return math.Round(v)
	}
	return v
}

// maxLabels bounds the labels of a nice-number set: more fit a long axis,
// but read as a ruler, not as reference values.
const maxLabels = 9

// ticker labels an axis with numbers in its display unit, as many as fit
// the length the axis is drawn at without two labels coming closer than
// an em (a third of one along a vertical axis): the first that fits of
// the rows (a frontier's), then nice numbers from dense to sparse (steps
// of 1, 2, 2.5, 5 × 10^k on a linear axis; 1-2-3-5, 1-2-5, then 1 per
// decade, then 1 per 2, 3, 5... decades on a log one). The values between
// get unlabelled minor ticks.
type ticker struct {
	axis     *gplot.Axis
	scale    float64   // base units per display unit
	integer  bool      // ticks at whole base values only
	rows     []float64 // values to label, when they all fit
	vertical bool
	// logData says the axis carries log10 of the values on a linear scale:
	// it is a log axis, and the ticks go at log10 of theirs.
	logData bool
	length  vg.Length // the axis's drawn length, set by the layout
	panel   int
}

// tickSet is a choice of ticks, in base units.
type tickSet struct{ major, minor []float64 }

// Ticks implements gplot.Ticker.
func (t *ticker) Ticks(lo, hi float64) []gplot.Tick {
	if !(hi > lo) || math.IsInf(hi-lo, 0) || math.IsNaN(hi-lo) {
		return nil
	}
	if t.logData {
		lo, hi = math.Pow(10, lo), math.Pow(10, hi)
	}
	sets := t.candidates(lo, hi)
	var pick *tickSet
	if len(t.rows) > 0 && len(sets[0].major) > 0 && t.fits(sets[0].major, lo, hi) {
		pick = &sets[0] // the rows, however few
	}
	// The densest set with two labels or more that fits, else one.
	for _, need := range []int{2, 1} {
		for i := range sets {
			if pick == nil && len(sets[i].major) >= need && t.fits(sets[i].major, lo, hi) {
				pick = &sets[i]
			}
		}
	}
	if pick == nil {
		// Nothing fits as it is: thin the sparsest set, label by label.
		var s tickSet
		for i := len(sets) - 1; i >= 0; i-- {
			if len(sets[i].major) > 0 {
				s = sets[i]
				break
			}
		}
		var keep, drop []float64
		for _, v := range s.major {
			pair := []float64{v}
			if len(keep) > 0 {
				pair = []float64{keep[len(keep)-1], v}
			}
			if t.fits(pair, lo, hi) {
				keep = append(keep, v)
			} else {
				drop = append(drop, v)
			}
		}
		s.major, s.minor = keep, append(s.minor, drop...)
		pick = &s
	}
	at := func(v float64) float64 {
		if t.logData {
			return math.Log10(v)
		}
		return v
	}
	ts := make([]gplot.Tick, 0, len(pick.major)+len(pick.minor))
	for _, v := range pick.major {
		ts = append(ts, gplot.Tick{Value: at(v), Label: t.label(v)})
	}
	for _, v := range pick.minor {
		ts = append(ts, gplot.Tick{Value: at(v)})
	}
	return ts
}

func (t *ticker) label(v float64) string { return tickNum(v / t.scale) }

func (t *ticker) log() bool {
	_, ok := t.axis.Scale.(gplot.LogScale)
	return ok || t.logData
}

// norm is where v lies on the axis from lo to hi, from 0 to 1.
func (t *ticker) norm(lo, hi, v float64) float64 {
	if t.log() {
		return math.Log(v/lo) / math.Log(hi/lo)
	}
	return (v - lo) / (hi - lo)
}

// fits reports whether labels at vs (ascending, base units) keep clear of
// each other on the axis from lo to hi at its drawn length.
func (t *ticker) fits(vs []float64, lo, hi float64) bool {
	sty := t.axis.Tick.Label
	gap := sty.Font.Size
	if t.vertical {
		gap /= 3
	}
	size := func(s string) vg.Length {
		if t.vertical {
			return sty.Height(s)
		}
		return sty.Width(s)
	}
	var prev, half vg.Length
	for i, v := range vs {
		pos := t.length * vg.Length(t.norm(lo, hi, v))
		h := size(t.label(v)) / 2
		if i > 0 && pos-prev < half+h+gap {
			return false
		}
		prev, half = pos, h
	}
	return true
}

// whole reports whether a base value may be ticked on an integer axis.
func (t *ticker) whole(v float64) bool {
	return !t.integer || math.Abs(v-math.Round(v)) <= 1e-9*math.Max(1, math.Abs(v))
}

// candidates lists the tick sets to try, densest first.
func (t *ticker) candidates(lo, hi float64) []tickSet {
	var sets []tickSet
	if len(t.rows) > 0 {
		var s tickSet
		for _, v := range t.rows {
			if v >= lo && v <= hi {
				s.major = append(s.major, v)
			}
		}
		sets = append(sets, s)
	}
	if t.log() && lo > 0 {
		sets = append(sets, t.logSets(lo, hi)...)
	}
	return append(sets, t.linearSets(lo, hi)...)
}

// linearSets are the ticks at multiples of 1, 2, 2.5 and 5 × 10^k display
// units, from at most maxLabels labels down to one.
func (t *ticker) linearSets(lo, hi float64) []tickSet {
	d0, d1 := lo/t.scale, hi/t.scale
	e0 := int(math.Floor(math.Log10((d1 - d0) / maxLabels)))
	var sets []tickSet
	for e := e0; e < e0+40; e++ {
		for _, m := range []float64{1, 2, 2.5, 5} {
			step := m * math.Pow(10, float64(e))
			if !t.whole(clean(step) * t.scale) {
				continue
			}
			k0, k1 := math.Ceil(d0/step-1e-9), math.Floor(d1/step+1e-9)
			if k1-k0+1 > maxLabels {
				continue
			}
			var s tickSet
			for k := k0; k <= k1; k++ {
				s.major = append(s.major, t.base(k*step))
			}
			// Minor ticks halve the step (fifth it for 2.5: at 0.5s).
			div := 2.0
			if m == 2.5 {
				div = 5
			}
			if sub := step / div; t.whole(clean(sub) * t.scale) {
				for k := math.Ceil(d0/sub - 1e-9); k <= math.Floor(d1/sub+1e-9); k++ {
					if math.Mod(k, div) != 0 {
						s.minor = append(s.minor, t.base(k*sub))
					}
				}
			}
			sets = append(sets, s)
			if len(s.major) <= 1 {
				return sets
			}
		}
	}
	return sets
}

// logSets are the ticks of a log axis: 1-2-3-5 and 1-2-5 in each decade,
// then decades, then one decade in n.
func (t *ticker) logSets(lo, hi float64) []tickSet {
	d0, d1 := lo/t.scale, hi/t.scale
	e0, e1 := int(math.Floor(math.Log10(d0))), int(math.Ceil(math.Log10(d1)))
	in := func(v float64) bool { return v >= d0*(1-1e-9) && v <= d1*(1+1e-9) && t.whole(clean(v)*t.scale) }
	var sets []tickSet
	for _, ms := range [][]bool{
		{1: true, 2: true, 3: true, 5: true},
		{1: true, 2: true, 5: true},
		{1: true},
	} {
		var s tickSet
		for e := e0; e <= e1; e++ {
			for m := 1; m <= 9; m++ {
				v := float64(m) * math.Pow(10, float64(e))
				if !in(v) {
					continue
				}
				if m < len(ms) && ms[m] {
					s.major = append(s.major, t.base(v))
				} else {
					s.minor = append(s.minor, t.base(v))
				}
			}
		}
		if len(s.major) <= maxLabels+1 {
			sets = append(sets, s)
		}
	}
	for n := 2; n <= e1-e0; n++ {
		var s tickSet
		for e := e0; e <= e1; e++ {
			v := math.Pow(10, float64(e))
			if !in(v) {
				continue
			}
			if e%n == 0 {
				s.major = append(s.major, t.base(v))
			} else {
				s.minor = append(s.minor, t.base(v))
			}
		}
		sets = append(sets, s)
		if len(s.major) <= 1 {
			break
		}
	}
	return sets
}
