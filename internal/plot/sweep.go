package plot

import (
	"fmt"
	"image/color"
	"math"
	"sort"

	gplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"simrun/internal/result"
)

// KneeLatency is the latency metric the sweep chart draws and the knee is
// computed against.
const KneeLatency = "latency_ms.p99"

// glyphs vary the point markers with the colours.
var glyphs = []draw.GlyphDrawer{draw.CircleGlyph{}, draw.SquareGlyph{}, draw.TriangleGlyph{}, draw.PyramidGlyph{}, draw.CrossGlyph{}, draw.PlusGlyph{}, draw.BoxGlyph{}, draw.RingGlyph{}}

// addLine adds a line with markers in style i and returns it for the legend.
func addLine(p *gplot.Plot, xys plotter.XYs, i int, markers bool) (*plotter.Line, *plotter.Scatter, error) {
	l, s, err := plotter.NewLinePoints(xys)
	if err != nil {
		return nil, nil, fmt.Errorf("plot: %w", err)
	}
	l.Color = colorAt(i)
	l.Width = vg.Points(1.8)
	l.Dashes = dashesAt(i)
	s.Color = colorAt(i)
	s.Radius = vg.Points(3)
	s.Shape = glyphs[i%len(glyphs)]
	p.Add(l)
	if markers {
		p.Add(s)
	} else {
		s = nil
	}
	return l, s, nil
}

// sweepLine is one case's points along the swept axis.
type sweepLine struct {
	label string
	xs    []float64
	tps   []float64
	lat   []float64
}

// Knee returns the index of the saturation knee of a throughput/latency
// curve: the point of highest power, throughput / latency (Kleinrock). It
// returns -1 when no point has a positive latency.
func Knee(tps, lat []float64) int {
	best, at := 0.0, -1
	for i := range tps {
		if i >= len(lat) || !(lat[i] > 0) || math.IsNaN(tps[i]) {
			continue
		}
		if p := tps[i] / lat[i]; p > best || at < 0 {
			best, at = p, i
		}
	}
	return at
}

// Enough returns the index of the smallest x whose throughput is within 1 %
// of the curve's best: on a capacity axis (more bandwidth, more workers,
// where latency falls as x grows) power keeps rising with x, so Kleinrock's
// knee would mark the largest value swept; the question there is how much
// is enough. It returns -1 when no throughput is positive.
func Enough(tps []float64) int {
	best := 0.0
	for _, t := range tps {
		if t > best {
			best = t
		}
	}
	if !(best > 0) {
		return -1
	}
	for i, t := range tps {
		if t >= 0.99*best {
			return i
		}
	}
	return -1
}

// capacityAxis reports whether latency falls along the axis (its last
// point below its first): x is a resource, not an offered load.
func capacityAxis(lat []float64) bool {
	return len(lat) >= 2 && lat[len(lat)-1] < lat[0]
}

// axisLabel formats a numeric swept value in the axis's unit.
func axisLabel(x float64, unit string) string { return result.FormatUnit(x, unit) }

func drawSweep(d *result.Document, cases []result.Case, opt Options) ([]*gplot.Plot, error) {
	if len(d.Sweep) == 0 {
		return nil, fmt.Errorf("plot: sweep: the result has no swept parameter (run a sweep, or use --kind bar)")
	}
	axis := d.Sweep[0]
	metric := opt.Metric
	if metric == "" {
		metric = "tps"
	}
	numeric := true
	for _, v := range axis.Values {
		if _, ok := result.Float(v); !ok {
			numeric = false
		}
	}
	// x position of a swept value: itself, or its index.
	pos := func(v any) (float64, bool) {
		if numeric {
			return result.Float(v)
		}
		for i, a := range axis.Values {
			if result.FormatValue(a) == result.FormatValue(v) {
				return float64(i), true
			}
		}
		return 0, false
	}
	var lines []*sweepLine
	byLabel := map[string]*sweepLine{}
	hasT, hasL := false, false
	for _, c := range cases {
		x, ok := pos(c.Point[axis.Key])
		if !ok {
			continue
		}
		label := c.Name
		if rest := pointLabel(d, c, axis.Key); rest != "" {
			label += " " + rest
		}
		l := byLabel[label]
		if l == nil {
			l = &sweepLine{label: label}
			byLabel[label] = l
			lines = append(lines, l)
		}
		t, okT := number(c.Metrics, metric)
		q, okL := number(c.Metrics, KneeLatency)
		hasT, hasL = hasT || okT, hasL || okL
		if !okT || !okL {
			continue
		}
		l.xs, l.tps, l.lat = append(l.xs, x), append(l.tps, t), append(l.lat, q)
	}
	if !hasT {
		return nil, noMetric(Sweep, metric)
	}
	if !hasL {
		return nil, noMetric(Sweep, KneeLatency)
	}
	xlabel := axis.Key
	if axis.Unit != "" && numeric {
		xlabel += " (" + axis.Unit + ")"
	}
	top := newPlot(fmt.Sprintf("%s: %s and p99 latency vs %s", d.Scenario, title(metric), lastSeg(axis.Key)), "", Label(metric))
	bot := newPlot("", xlabel, "p99 latency (ms)")
	var kt, kl plotter.XYs
	var klabels []string
	capacity := false
	for i, l := range lines {
		sort.Stable(byX{l})
		tx, lx := make(plotter.XYs, len(l.xs)), make(plotter.XYs, len(l.xs))
		for j := range l.xs {
			tx[j] = plotter.XY{X: l.xs[j], Y: l.tps[j]}
			lx[j] = plotter.XY{X: l.xs[j], Y: l.lat[j]}
		}
		if len(tx) == 0 {
			continue
		}
		ln, sc, err := addLine(top, tx, i, true)
		if err != nil {
			return nil, err
		}
		if _, _, err := addLine(bot, lx, i, true); err != nil {
			return nil, err
		}
		if len(lines) > 1 {
			top.Legend.Add(l.label, ln, sc)
		}
		k, what := Knee(l.tps, l.lat), "knee "
		if numeric && capacityAxis(l.lat) {
			k, what = Enough(l.tps), "enough: "
			capacity = true
		}
		if k >= 0 {
			kt = append(kt, tx[k])
			kl = append(kl, lx[k])
			v := result.FormatValue(axis.Values[min(int(l.xs[k]), len(axis.Values)-1)])
			if numeric {
				v = axisLabel(l.xs[k], axis.Unit)
			}
			// Lines whose knees fall on the same x share one label.
			label := what + v
			for j := range len(kt) - 1 {
				if kt[j].X == l.xs[k] {
					label = ""
				}
			}
			klabels = append(klabels, label)
		}
	}
	if len(kt) > 0 {
		for _, pl := range []struct {
			p   *gplot.Plot
			xys plotter.XYs
		}{{top, kt}, {bot, kl}} {
			s, err := plotter.NewScatter(pl.xys)
			if err != nil {
				return nil, fmt.Errorf("plot: %w", err)
			}
			s.Shape = draw.RingGlyph{}
			s.Radius = vg.Points(8)
			s.Color = color.Black
			pl.p.Add(s)
			if pl.p == top {
				legend := "knee: max TPS / p99"
				if capacity {
					legend = "enough: 99 % of the best TPS"
				}
				top.Legend.Add(legend, s)
				lb, err := plotter.NewLabels(plotter.XYLabels{XYs: pl.xys, Labels: klabels})
				if err != nil {
					return nil, fmt.Errorf("plot: %w", err)
				}
				for i := range lb.TextStyle {
					lb.TextStyle[i].Font = sans(9.5)
					lb.TextStyle[i].XAlign = text.XCenter
					lb.TextStyle[i].YAlign = text.YBottom
				}
				lb.Offset = vg.Point{Y: vg.Points(9)}
				top.Add(lb)
			}
		}
	}
	top.Y.Min, bot.Y.Min = 0, 0
	top.Y.Max *= 1.2
	bot.Y.Max *= 1.08
	top.Legend.Top, top.Legend.Left = false, false
	// Ticks at the swept values when there are few of them.
	if !numeric {
		ticks := make(gplot.ConstantTicks, len(axis.Values))
		for i, v := range axis.Values {
			ticks[i] = gplot.Tick{Value: float64(i), Label: result.FormatValue(v)}
		}
		top.X.Tick.Marker, bot.X.Tick.Marker = ticks, ticks
	} else if len(axis.Values) <= 12 {
		var ticks gplot.ConstantTicks
		lo, hi := math.Inf(1), math.Inf(-1)
		for _, v := range axis.Values {
			f, _ := result.Float(v)
			ticks = append(ticks, gplot.Tick{Value: f, Label: axisLabel(f, axis.Unit)})
			lo, hi = math.Min(lo, f), math.Max(hi, f)
		}
		top.X.Tick.Marker, bot.X.Tick.Marker = ticks, ticks
		if lo > 0 && hi/lo >= 16 {
			top.X.Scale, bot.X.Scale = gplot.LogScale{}, gplot.LogScale{}
		}
	}
	if numeric && axis.Unit != "" && len(axis.Values) > 12 {
		unit := axis.Unit
		ticker := gplot.TickerFunc(func(lo, hi float64) []gplot.Tick {
			ts := gplot.DefaultTicks{}.Ticks(lo, hi)
			for i := range ts {
				if ts[i].Label != "" {
					ts[i].Label = axisLabel(ts[i].Value, unit)
				}
			}
			return ts
		})
		top.X.Tick.Marker, bot.X.Tick.Marker = ticker, ticker
	}
	pad := func(p *gplot.Plot) {
		span := p.X.Max - p.X.Min
		if _, log := p.X.Scale.(gplot.LogScale); log {
			p.X.Min /= 1.15
			p.X.Max *= 1.15
			return
		}
		if span == 0 {
			span = 1
		}
		p.X.Min -= span * 0.04
		p.X.Max += span * 0.04
	}
	pad(top)
	pad(bot)
	return []*gplot.Plot{top, bot}, nil
}

// byX sorts a line's points by x.
type byX struct{ l *sweepLine }

func (b byX) Len() int           { return len(b.l.xs) }
func (b byX) Less(i, j int) bool { return b.l.xs[i] < b.l.xs[j] }
func (b byX) Swap(i, j int) {
	l := b.l
	l.xs[i], l.xs[j] = l.xs[j], l.xs[i]
	l.tps[i], l.tps[j] = l.tps[j], l.tps[i]
	l.lat[i], l.lat[j] = l.lat[j], l.lat[i]
}
