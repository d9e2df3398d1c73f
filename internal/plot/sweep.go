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

// sweepLine is one case's points along the swept axis: the metric drawn,
// the latency under it and the throughput the knee weighs (NaN where a
// case lacks one).
type sweepLine struct {
	label string
	xs    []float64
	val   []float64
	lat   []float64
	thr   []float64
}

// Knee returns the index of the saturation knee of a throughput/latency
// curve: the point of highest power, throughput / latency (Kleinrock). It
// returns -1 when no point has a positive latency. Throughput is the
// higher-is-better side: a latency metric drawn on the chart is weighed
// with the result's throughput, never divided by itself.
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

// Enough returns the index of the smallest x whose value is within 1 % of
// the curve's best: on a capacity axis (more bandwidth, more workers,
// where latency falls as x grows) power keeps rising with x, so Kleinrock's
// knee would mark the largest value swept; the question there is how much
// is enough. The best is the highest value, or the lowest when lower is
// better (a latency, a wait, a lag: LowerIsBetter): then the answer is the
// smallest x whose value is at most 1 % above the lowest. It returns -1
// when no value is positive (when lower is better: none is a number).
func Enough(vals []float64, lower bool) int {
	best, ok := 0.0, false
	for _, v := range vals {
		switch {
		case math.IsNaN(v):
		case lower && (!ok || v < best), !lower && v > best:
			best, ok = v, true
		}
	}
	if !ok || (!lower && !(best > 0)) {
		return -1
	}
	for i, v := range vals {
		if lower && v <= best+0.01*math.Abs(best) || !lower && v >= 0.99*best {
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

// finite drops the NaN values of ys, with their xs.
func finite(xs, ys []float64) plotter.XYs {
	var out plotter.XYs
	for i := range xs {
		if !math.IsNaN(ys[i]) && !math.IsInf(ys[i], 0) {
			out = append(out, plotter.XY{X: xs[i], Y: ys[i]})
		}
	}
	return out
}

// drawSweep draws the metric (top) and the latency (bottom) against the
// first swept parameter, a line per case. A numeric axis gets lines and a
// marker: the knee along an offered load, the point where more stops
// paying along a capacity. A categorical one (innodb, file) gets each
// category's points side by side, unjoined and unmarked: there is no
// "between" two categories, and no knee.
func drawSweep(d *result.Document, cases []result.Case, opt Options) ([]*gplot.Plot, error) {
	if len(d.Sweep) == 0 {
		return nil, fmt.Errorf("plot: sweep: the result has no swept parameter (run a sweep, or use --kind bar)")
	}
	axis := d.Sweep[0]
	metric := opt.Metric
	if metric == "" {
		metric = defaultMetric(cases)
	}
	lower := LowerIsBetter(metric)
	latency := sweepLatency(cases)
	// The knee weighs a throughput against the latency: the metric, or,
	// when the metric is itself a time, the result's throughput.
	thr := metric
	if lower {
		thr = throughputMetric(cases)
		if LowerIsBetter(thr) {
			thr = ""
		}
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
	get := func(c result.Case, path string) float64 {
		if path == "" {
			return math.NaN()
		}
		if v, ok := number(c.Metrics, path); ok {
			return v
		}
		return math.NaN()
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
		v, q := get(c, metric), get(c, latency)
		hasT, hasL = hasT || !math.IsNaN(v), hasL || !math.IsNaN(q)
		if math.IsNaN(v) {
			continue
		}
		l.xs, l.val, l.lat, l.thr = append(l.xs, x), append(l.val, v), append(l.lat, q), append(l.thr, get(c, thr))
	}
	if !hasT {
		return nil, suggest(noMetric(Sweep, metric), Sweep, numericPaths(cases))
	}
	xlabel := axis.Key
	if axis.Unit != "" && numeric {
		xlabel += " (" + axis.Unit + ")"
	}
	// The latency's names: "p99 latency" for latency_ms.p99, else its
	// own ("write clat p99").
	latTitle, latShort, latLabel := "p99 latency", "p99", "p99 latency (ms)"
	if latency != KneeLatency {
		latTitle, latShort, latLabel = title(latency), title(latency), Label(latency)
	}
	head := fmt.Sprintf("%s: %s and %s vs %s", d.Scenario, title(metric), latTitle, lastSeg(axis.Key))
	if !hasL {
		head = fmt.Sprintf("%s: %s vs %s", d.Scenario, title(metric), lastSeg(axis.Key))
	}
	top := newPlot(head, "", Label(metric))
	bot := newPlot("", xlabel, latLabel)
	panels := []*gplot.Plot{top, bot}
	if !hasL {
		// Nothing to draw under the metric: one panel, the axis on it.
		panels = panels[:1]
		top.X.Label.Text = xlabel
	}
	// Markers: the knee (along a load), enough (along a capacity).
	type marks struct {
		top, bot plotter.XYs
		labels   []string
	}
	var knee, enough marks
	for i, l := range lines {
		sort.Stable(byX{l})
		if len(l.xs) == 0 {
			continue
		}
		tx, lx := finite(l.xs, l.val), finite(l.xs, l.lat)
		if !numeric {
			// Side by side within each category, in line order.
			off := (float64(i) - float64(len(lines)-1)/2) * math.Min(0.6/float64(len(lines)), 0.15)
			for _, xys := range []plotter.XYs{tx, lx} {
				for j := range xys {
					xys[j].X += off
				}
			}
			s, err := pointsOnly(top, tx, i)
			if err != nil {
				return nil, err
			}
			if hasL && len(lx) > 0 {
				if _, err := pointsOnly(bot, lx, i); err != nil {
					return nil, err
				}
			}
			if len(lines) > 1 {
				top.Legend.Add(l.label, s)
			}
			opt.rec.line(top, l.label, tx)
			continue
		}
		ln, sc, err := addLine(top, tx, i, true)
		if err != nil {
			return nil, err
		}
		if hasL && len(lx) > 0 {
			if _, _, err := addLine(bot, lx, i, true); err != nil {
				return nil, err
			}
		}
		if len(lines) > 1 {
			top.Legend.Add(l.label, ln, sc)
		}
		opt.rec.line(top, l.label, tx)
		// Along a capacity (latency falls as x grows), or with no latency
		// to tell: the least x that is enough. Along a load: the knee.
		m, k, what := &knee, -1, "knee "
		if !hasL || capacityAxis(l.lat) {
			m, k, what = &enough, Enough(l.val, lower), "enough: "
		} else if thr != "" {
			k = Knee(l.thr, l.lat)
		}
		if k < 0 {
			continue
		}
		at := plotter.XY{X: l.xs[k], Y: l.val[k]}
		m.top = append(m.top, at)
		if hasL && !math.IsNaN(l.lat[k]) {
			m.bot = append(m.bot, plotter.XY{X: l.xs[k], Y: l.lat[k]})
		}
		// Lines whose markers fall on the same x share one label.
		label := what + axisLabel(l.xs[k], axis.Unit)
		for _, o := range [][]plotter.XY{knee.top, enough.top} {
			for _, xy := range o {
				if xy.X == l.xs[k] && xy != at {
					label = ""
				}
			}
		}
		m.labels = append(m.labels, label)
		if label != "" {
			opt.rec.text(top, label)
		}
	}
	best := "the best " + title(metric)
	if lower {
		best = "the lowest " + title(metric)
	}
	for _, m := range []struct {
		marks
		legend string
	}{
		{knee, fmt.Sprintf("knee: max %s / %s", title(thr), latShort)},
		{enough, map[bool]string{false: "enough: 99 % of " + best, true: "enough: within 1 % of " + best}[lower]},
	} {
		if len(m.top) == 0 {
			continue
		}
		if err := ring(top, m.top, m.legend, m.labels); err != nil {
			return nil, err
		}
		if hasL && len(m.bot) > 0 {
			if err := ring(bot, m.bot, "", nil); err != nil {
				return nil, err
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
		opt.rec.ticks(top, categoryLabels(axis))
		for _, p := range panels {
			p.X.Min, p.X.Max = -0.5, float64(len(axis.Values))-0.5
		}
		return panels, nil
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
	if axis.Unit != "" && len(axis.Values) > 12 {
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
	for _, p := range panels {
		pad(p)
	}
	return panels, nil
}

// categoryLabels are a categorical axis's values as its ticks print them.
func categoryLabels(a result.Axis) []string {
	out := make([]string, len(a.Values))
	for i, v := range a.Values {
		out[i] = result.FormatValue(v)
	}
	return out
}

// pointsOnly adds unjoined markers in style i (a categorical sweep's).
func pointsOnly(p *gplot.Plot, xys plotter.XYs, i int) (*plotter.Scatter, error) {
	s, err := plotter.NewScatter(xys)
	if err != nil {
		return nil, fmt.Errorf("plot: %w", err)
	}
	s.Color = colorAt(i)
	s.Radius = vg.Points(4)
	s.Shape = glyphs[i%len(glyphs)]
	p.Add(s)
	return s, nil
}

// ring circles the marked points of a sweep, named in the legend (when
// legend is not "") and labelled above (where a label is not "").
func ring(p *gplot.Plot, xys plotter.XYs, legend string, labels []string) error {
	s, err := plotter.NewScatter(xys)
	if err != nil {
		return fmt.Errorf("plot: %w", err)
	}
	s.Shape = draw.RingGlyph{}
	s.Radius = vg.Points(8)
	s.Color = color.Black
	p.Add(s)
	if legend != "" {
		p.Legend.Add(legend, s)
	}
	if labels == nil {
		return nil
	}
	lb, err := plotter.NewLabels(plotter.XYLabels{XYs: xys, Labels: labels})
	if err != nil {
		return fmt.Errorf("plot: %w", err)
	}
	for i := range lb.TextStyle {
		lb.TextStyle[i].Font = sans(9.5)
		lb.TextStyle[i].XAlign = text.XCenter
		lb.TextStyle[i].YAlign = text.YBottom
	}
	lb.Offset = vg.Point{Y: vg.Points(9)}
	p.Add(lb)
	return nil
}

// byX sorts a line's points by x.
type byX struct{ l *sweepLine }

func (b byX) Len() int           { return len(b.l.xs) }
func (b byX) Less(i, j int) bool { return b.l.xs[i] < b.l.xs[j] }
func (b byX) Swap(i, j int) {
	l := b.l
	l.xs[i], l.xs[j] = l.xs[j], l.xs[i]
	l.val[i], l.val[j] = l.val[j], l.val[i]
	l.lat[i], l.lat[j] = l.lat[j], l.lat[i]
	l.thr[i], l.thr[j] = l.thr[j], l.thr[i]
}
