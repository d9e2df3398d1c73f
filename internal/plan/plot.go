package plan

import (
	"fmt"
	"image/color"
	"io"
	"math"
	"sort"
	"strconv"

	gplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"

	"simrun/internal/plot"
)

// PlotInput is what the evidence chart shows.
type PlotInput struct {
	Title string
	// Axes are the varied parameters in the search's order: one, or two
	// for a frontier.
	Axes []PlotAxis
	// Maximize says the search looked for the largest value: a
	// frontier's answers are maximal, and the range's best end its lowest.
	Maximize    bool
	Result      *Result
	Constraints []Constraint
}

// PlotAxis is a varied parameter.
type PlotAxis struct {
	Key string
	// Unit is the parameter's base unit: bytes/s, bytes, s, or "" for a
	// plain number. The axis counts in a prefixed form of it (MB/s), named
	// once in its title.
	Unit    string
	Integer bool                 // whole values only: no tick between two
	Format  func(float64) string // a value with its unit, as the report prints it
}

var (
	okColor   = color.RGBA{0, 114, 178, 255} // blue
	failColor = color.RGBA{213, 94, 0, 255}  // vermilion (Okabe-Ito)
	lineColor = color.RGBA{90, 90, 90, 255}
	gridColor = color.Gray{Y: 225}
)

// Plot draws the evidence. With one parameter: one panel per constraint,
// the metric's mean at each evaluated point with its 95 % interval,
// feasible points filled and failing ones hollow, the threshold dashed and
// the answer ringed. With two: the frontier, the first parameter across
// and a row for each value of the second, every point run marked feasible
// or not, each row's answer ringed and joined to the next, and an arrow
// past the range's end on a row where no value works. format is png or
// svg.
func Plot(w io.Writer, format string, in PlotInput) error {
	if format != "png" && format != "svg" {
		return fmt.Errorf("plan: plot format %q (allowed: png, svg)", format)
	}
	ch, err := newChart(in)
	if err != nil {
		return err
	}
	var c vg.CanvasWriterTo
	if format == "png" {
		c = vgimg.PngCanvas{Canvas: vgimg.NewWith(vgimg.UseWH(ch.w, ch.h), vgimg.UseDPI(120))}
	} else {
		c = vgsvg.NewWith(vgsvg.UseWH(ch.w, ch.h))
	}
	dc := draw.New(c)
	dc.SetColor(color.White)
	dc.Fill(dc.Rectangle.Path())
	ch.draw(dc)
	_, err = c.WriteTo(w)
	return err
}

// chart is a figure: its panels, one above the other, and the legends
// drawn side by side beneath them (the frontier's).
type chart struct {
	panels  []*gplot.Plot
	ticks   []*ticker
	legends []*gplot.Legend
	w, h    vg.Length
	front   frontier // the frontier's marks (two parameters)
}

func newChart(in PlotInput) (*chart, error) {
	if in.Result == nil || len(in.Result.Evidence) == 0 {
		return nil, fmt.Errorf("plan: nothing to plot")
	}
	if len(in.Axes) < 1 || len(in.Axes) > 2 {
		return nil, fmt.Errorf("plan: plot of %d parameters, want 1 or 2", len(in.Axes))
	}
	// The font has no CJK: a case named so keeps its place in the title.
	in.Title, _ = plot.Drawable(in.Title)
	in.Axes = append([]PlotAxis(nil), in.Axes...)
	for i := range in.Axes {
		if in.Axes[i].Format == nil {
			in.Axes[i].Format = func(x float64) string { return strconv.FormatFloat(x, 'g', 4, 64) }
		}
	}
	if len(in.Axes) == 2 {
		return frontierChart(in)
	}
	return evidenceChart(in)
}

// evidenceChart is the chart of a one-parameter search.
func evidenceChart(in PlotInput) (*chart, error) {
	ch := &chart{}
	ax := in.Axes[0]
	pts := append([]*Point(nil), in.Result.Evidence...)
	sort.SliceStable(pts, func(i, j int) bool { return pts[i].X[0] < pts[j].X[0] })
	lo, hi := pts[0].X[0], pts[len(pts)-1].X[0]
	unit, scale := axisUnit(ax.Unit, lo, hi)
	for k, c := range in.Constraints {
		p := gplot.New()
		if k == 0 {
			p.Title.Text = in.Title
		}
		p.Y.Label.Text = c.Metric
		p.X.Label.Text = axisTitle(ax.Key, unit)
		var ok, bad, grows plotter.XYs
		var bars plotter.XYs
		var errs plotter.YErrors
		// Points whose metric grows with the run (unbounded) sit above
		// everything measured, marked apart.
		top := c.Value
		for _, pt := range pts {
			if st := pt.Stats[k]; !st.Unbounded {
				top = math.Max(top, st.Mean+st.CI95)
			}
		}
		for _, pt := range pts {
			if pt.Stats[k].Unbounded {
				grows = append(grows, plotter.XY{X: pt.X[0], Y: 1.15 * top})
				continue
			}
			xy := plotter.XY{X: pt.X[0], Y: pt.Stats[k].Mean}
			if pt.Feasible {
				ok = append(ok, xy)
			} else {
				bad = append(bad, xy)
			}
			bars = append(bars, xy)
			errs = append(errs, struct{ Low, High float64 }{pt.Stats[k].CI95, pt.Stats[k].CI95})
		}
		if len(bars) > 0 {
			eb, err := plotter.NewYErrorBars(struct {
				plotter.XYer
				plotter.YErrorer
			}{bars, errs})
			if err != nil {
				return nil, fmt.Errorf("plan: plot: %w", err)
			}
			eb.Color = lineColor
			p.Add(eb)
		}
		err := addEvidence(p, func(name string, s *plotter.Scatter, every bool) {
			if k == 0 || every { // the unbounded glyph is named on every panel
				p.Legend.Add(name, s)
			}
		}, evidenceSet{ok, okColor, draw.CircleGlyph{}, "meets every constraint", false},
			evidenceSet{bad, failColor, draw.RingGlyph{}, "misses one", false},
			evidenceSet{grows, failColor, draw.TriangleGlyph{}, "grows with the run (unbounded)", true})
		if err != nil {
			return nil, err
		}
		th := plotter.NewFunction(func(float64) float64 { return c.Value })
		th.Color, th.Dashes, th.Width = failColor, []vg.Length{vg.Points(5), vg.Points(3)}, vg.Points(1.2)
		p.Add(th)
		p.Legend.Add(c.String(), th)
		if a := in.Result.Answer; a != nil {
			r, err := plotter.NewScatter(plotter.XYs{{X: a.X[0], Y: a.Stats[k].Mean}})
			if err == nil {
				r.Shape, r.Radius, r.Color = draw.RingGlyph{}, vg.Points(9), color.Black
				p.Add(r)
				if k == 0 {
					p.Legend.Add("answer "+ax.Format(a.X[0]), r)
				}
			}
		}
		// A goal (>=) rises along the axis and leaves the lower right
		// empty; a limit (<=) falls and leaves the upper right.
		p.Legend.Top = c.Op == "<=" || c.Op == "<"
		if len(grows) > 0 && p.Legend.Top {
			// The unbounded markers take the top, so the legend goes
			// below them, on their side of the answer (the measured
			// points are on the other).
			p.Legend.Top, p.Legend.Left = false, true
			if a := in.Result.Answer; a != nil {
				p.Legend.Left = grows[0].X < a.X[0]
			}
		}
		sansFonts(p)
		if lo > 0 && hi/lo >= 8 {
			p.X.Scale = gplot.LogScale{}
			p.X.Min, p.X.Max = lo/1.1, hi*1.1
		}
		ch.addTicker(len(ch.panels), &ticker{axis: &p.X, scale: scale, integer: ax.Integer})
		g := plotter.NewGrid()
		g.Vertical.Color, g.Horizontal.Color = gridColor, gridColor
		p.Add(g)
		ch.panels = append(ch.panels, p)
	}
	ch.w, ch.h = 8*vg.Inch, vg.Length(2.6*float64(len(ch.panels)))*vg.Inch
	return ch, nil
}

// frontier is what the frontier chart marks on its rows, one mark for each
// value of the second parameter whose search ended: the answer, or, where
// no value of the first works, the end of the range that came closest. A
// row whose search was cut short (the budget) has neither.
type frontier struct {
	found plotter.XYs // (answer, row)
	none  plotter.XYs // (best end of the range, row)
	// runs are the consecutive rows with an answer, joined by the line.
	runs []plotter.XYs
}

// above returns the answer the frontier's line joins xy to in the row
// above it, or nil.
func (f frontier) above(xy plotter.XY) *plotter.XY {
	for _, run := range f.runs {
		for i := range run {
			if run[i] != xy {
				continue
			}
			for _, j := range []int{i - 1, i + 1} {
				if j >= 0 && j < len(run) && run[j].Y > xy.Y {
					up := run[j]
					return &up
				}
			}
		}
	}
	return nil
}

func frontierMarks(res *Result) frontier {
	var f frontier
	var run plotter.XYs
	for _, fr := range res.Frontier {
		switch {
		case fr.Found:
			xy := plotter.XY{X: fr.X, Y: fr.Y}
			f.found = append(f.found, xy)
			run = append(run, xy)
			continue
		case fr.NearestFail != nil && len(fr.NearestFail.X) > 0:
			f.none = append(f.none, plotter.XY{X: fr.NearestFail.X[0], Y: fr.Y})
		}
		if len(run) > 1 {
			f.runs = append(f.runs, run)
		}
		run = nil
	}
	if len(run) > 1 {
		f.runs = append(f.runs, run)
	}
	return f
}

// logAxis reports whether data from lo to hi get a log axis: positive, and
// spanning a factor of 8 or more.
func logAxis(lo, hi float64) bool { return lo > 0 && hi/lo >= 8 }

// frontierChart is the chart of a two-parameter search: the first
// parameter across, the second up. A log axis here carries log10 of the
// values on a linear scale (its ticker labels the values): gonum places
// the room for a rotated axis title by the arithmetic middle of a log
// axis, which squeezes the panel under a long parameter name.
func frontierChart(in PlotInput) (*chart, error) {
	ax, ay := in.Axes[0], in.Axes[1]
	xlo, xhi, ylo, yhi := math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)
	rowSet := map[float64]bool{}
	for _, pt := range in.Result.Evidence {
		if len(pt.X) < 2 {
			continue
		}
		xlo, xhi = math.Min(xlo, pt.X[0]), math.Max(xhi, pt.X[0])
		ylo, yhi = math.Min(ylo, pt.X[1]), math.Max(yhi, pt.X[1])
		rowSet[pt.X[1]] = true
	}
	if len(rowSet) == 0 {
		return nil, fmt.Errorf("plan: nothing to plot")
	}
	rows := make([]float64, 0, len(rowSet))
	for y := range rowSet {
		rows = append(rows, y)
	}
	sort.Float64s(rows)
	xlog, ylog := logAxis(xlo, xhi), logAxis(ylo, yhi)
	tr := func(log bool) func(float64) float64 {
		if log {
			return math.Log10
		}
		return func(v float64) float64 { return v }
	}
	tx, ty := tr(xlog), tr(ylog)
	at := func(xys plotter.XYs) plotter.XYs {
		out := make(plotter.XYs, len(xys))
		for i, xy := range xys {
			out[i] = plotter.XY{X: tx(xy.X), Y: ty(xy.Y)}
		}
		return out
	}
	var ok, bad plotter.XYs
	for _, pt := range in.Result.Evidence {
		if len(pt.X) < 2 {
			continue
		}
		xy := plotter.XY{X: tx(pt.X[0]), Y: ty(pt.X[1])}
		if pt.Feasible {
			ok = append(ok, xy)
		} else {
			bad = append(bad, xy)
		}
	}
	front := frontierMarks(in.Result)

	p := gplot.New()
	p.Title.Text, p.Title.Padding = in.Title, 2*vg.Millimeter // clear of the top row's answer
	ux, sx := axisUnit(ax.Unit, xlo, xhi)
	uy, sy := axisUnit(ay.Unit, ylo, yhi)
	p.X.Label.Text, p.Y.Label.Text = axisTitle(ax.Key, ux), axisTitle(ay.Key, uy)
	sansFonts(p)
	p.X.Min, p.X.Max = padRange(tx(xlo), tx(xhi), 0.05)
	p.Y.Min, p.Y.Max = padRange(ty(ylo), ty(yhi), 0.08)

	g := plotter.NewGrid()
	g.Vertical.Color, g.Horizontal.Color = gridColor, gridColor
	p.Add(g)
	evidence, frontLeg := gplot.NewLegend(), gplot.NewLegend()
	for _, l := range []*gplot.Legend{&evidence, &frontLeg} {
		l.TextStyle.Font.Variant = "Sans"
		l.Left, l.Top = true, true
		l.Padding = vg.Points(4) // the answer's ring is taller than a line of text
	}
	line := func(xys plotter.XYs) (*plotter.Line, error) {
		l, err := plotter.NewLine(at(xys))
		if err != nil {
			return nil, fmt.Errorf("plan: plot: %w", err)
		}
		l.Color, l.Width = color.Black, vg.Points(1.2)
		return l, nil
	}
	for _, run := range front.runs {
		l, err := line(run)
		if err != nil {
			return nil, err
		}
		p.Add(l)
	}
	err := addEvidence(p, func(name string, s *plotter.Scatter, _ bool) { evidence.Add(name, s) },
		evidenceSet{ok, okColor, draw.CircleGlyph{}, "meets every constraint", false},
		evidenceSet{bad, failColor, draw.RingGlyph{}, "misses one", false})
	if err != nil {
		return nil, err
	}
	best := "minimal "
	if in.Maximize {
		best = "maximal "
	}
	if len(front.found) > 0 {
		r, err := plotter.NewScatter(at(front.found))
		if err != nil {
			return nil, fmt.Errorf("plan: plot: %w", err)
		}
		r.Shape, r.Radius, r.Color = draw.RingGlyph{}, vg.Points(9), color.Black
		p.Add(r)
		thumbs := []gplot.Thumbnailer{r}
		if len(front.runs) > 0 {
			l, err := line(front.runs[0])
			if err != nil {
				return nil, err
			}
			thumbs = []gplot.Thumbnailer{l, r}
		}
		frontLeg.Add("frontier: "+best+ax.Key, thumbs...)
		labels := &answerLabels{xys: at(front.found), style: p.X.Tick.Label}
		for _, xy := range front.found {
			labels.texts = append(labels.texts, ax.Format(xy.X))
			up := front.above(xy)
			if up != nil {
				u := at(plotter.XYs{*up})[0]
				up = &u
			}
			labels.up = append(labels.up, up)
		}
		for _, y := range rows {
			labels.rows = append(labels.rows, ty(y))
		}
		labels.style.XAlign, labels.style.YAlign = text.XCenter, text.YBottom
		p.Add(labels)
	}
	if len(front.none) > 0 {
		s, err := plotter.NewScatter(at(front.none))
		if err != nil {
			return nil, fmt.Errorf("plan: plot: %w", err)
		}
		dir := 1.0 // minimising: what would work lies past the top of the range
		if in.Maximize {
			dir = -1
		}
		s.Shape, s.Radius, s.Color = arrowGlyph{dir: dir}, vg.Points(6), color.Black
		p.Add(arrows{s, dir})
		thumb := *s
		thumb.Shape = arrowGlyph{dir: dir, centred: true}
		frontLeg.Add("none in range: fails even at "+ax.Format(front.none[0].X), &thumb)
	}
	ch := &chart{panels: []*gplot.Plot{p}, front: front, w: 8 * vg.Inch, h: 4 * vg.Inch}
	ch.addTicker(0, &ticker{axis: &p.X, scale: sx, integer: ax.Integer, logData: xlog})
	ch.addTicker(0, &ticker{axis: &p.Y, scale: sy, integer: ay.Integer, logData: ylog, rows: rows, vertical: true})
	for _, l := range []*gplot.Legend{&evidence, &frontLeg} {
		if l.Rectangle(draw.Canvas{}).Size().Y > 0 {
			ch.legends = append(ch.legends, l)
		}
	}
	return ch, nil
}

// padRange widens lo..hi by frac of its span on each side (by a tenth of
// the value, or 1, when it is a single value).
func padRange(lo, hi, frac float64) (float64, float64) {
	d := (hi - lo) * frac
	if d == 0 {
		d = math.Max(math.Abs(lo)*0.1, 1)
	}
	return lo - d, hi + d
}

// addTicker makes t the tick marker of its axis, on panel i.
func (ch *chart) addTicker(i int, t *ticker) {
	t.panel = i
	t.axis.Tick.Marker = t
	ch.ticks = append(ch.ticks, t)
}

// legendBand is the height the legends take under the panels: side by
// side when they fit the width, else one above the other.
func (ch *chart) legendBand(width vg.Length) (band vg.Length, stacked bool) {
	if len(ch.legends) == 0 {
		return 0, false
	}
	var wsum, hmax, hsum vg.Length
	for i, l := range ch.legends {
		r := l.Rectangle(draw.Canvas{}).Size()
		wsum += r.X + 2*l.ThumbnailWidth
		hmax = max(hmax, r.Y)
		hsum += r.Y
		if i > 0 {
			hsum += l.Padding + vg.Millimeter
		}
	}
	pad := 3 * vg.Millimeter
	if wsum <= width-vg.Inch {
		return hmax + pad, false
	}
	return hsum + pad, true
}

// place lays the panels out on dc, above the legends. An axis's tick
// labels are chosen for the length it is drawn at, and that length
// depends on the labels (their height, how far the end ones reach past
// the data): so the layout is repeated until the lengths settle.
func (ch *chart) place(dc draw.Canvas) [][]draw.Canvas {
	grid := make([][]*gplot.Plot, len(ch.panels))
	for i, p := range ch.panels {
		grid[i] = []*gplot.Plot{p}
	}
	t := draw.Tiles{Rows: len(ch.panels), Cols: 1, PadY: 3 * vg.Millimeter, PadTop: vg.Millimeter, PadBottom: vg.Millimeter,
		PadLeft: vg.Millimeter, PadRight: 3 * vg.Millimeter}
	area := dc
	band, _ := ch.legendBand(dc.Size().X)
	area.Min.Y += band
	for _, tk := range ch.ticks {
		// A first guess: the canvas less the other axis and the margins.
		tk.length = area.Size().X - vg.Inch
		if tk.vertical {
			tk.length = area.Size().Y/vg.Length(len(ch.panels)) - vg.Inch
		}
	}
	var canv [][]draw.Canvas
	for pass := 0; pass < 5; pass++ {
		canv = gplot.Align(grid, t, area)
		moved := false
		for _, tk := range ch.ticks {
			da := ch.panels[tk.panel].DataCanvas(canv[tk.panel][0])
			l := da.Size().X
			if tk.vertical {
				l = da.Size().Y
			}
			if math.Abs(float64(l-tk.length)) > 0.25 {
				tk.length, moved = l, true
			}
		}
		if !moved {
			break
		}
	}
	return canv
}

func (ch *chart) draw(dc draw.Canvas) {
	canv := ch.place(dc)
	for i, p := range ch.panels {
		p.Draw(canv[i][0])
	}
	if len(ch.legends) == 0 {
		return
	}
	// The legends start under the data area's left edge.
	last := len(ch.panels) - 1
	da := ch.panels[last].DataCanvas(canv[last][0])
	band, stacked := ch.legendBand(dc.Size().X)
	x, top := da.Min.X, dc.Min.Y+band-vg.Millimeter
	for _, l := range ch.legends {
		r := l.Rectangle(draw.Canvas{}).Size()
		l.Draw(draw.Canvas{Canvas: dc.Canvas, Rectangle: vg.Rectangle{Min: vg.Point{X: x, Y: dc.Min.Y}, Max: vg.Point{X: x + r.X, Y: top}}})
		if stacked {
			top -= r.Y + l.Padding + vg.Millimeter
		} else {
			x += r.X + 2*l.ThumbnailWidth
		}
	}
}

// answerLabels prints each frontier answer above its ring, where the row
// above leaves room for it, and clear of the line: the line joining the
// answer to the one in the row above crosses the space above the ring, so
// where it would pass through the label, the label moves beside it, on the
// side the line leans away from.
type answerLabels struct {
	xys   plotter.XYs // as plotted
	texts []string
	up    []*plotter.XY // the answer each is joined to in the row above, as plotted, or nil
	rows  []float64     // every row of the chart, as plotted
	style text.Style
}

// ringClear is how far above a frontier answer its label starts: past the
// ring.
const ringClear = 12

// lineClear is the least gap between a label and the frontier's line.
const lineClear = 4

func (l *answerLabels) Plot(c draw.Canvas, p *gplot.Plot) {
	trX, trY := p.Transforms(&c)
	sty := l.style
	sty.XAlign = text.XLeft
	for i, xy := range l.xys {
		y := trY(xy.Y)
		room := vg.Length(math.Inf(1))
		for _, r := range l.rows {
			if r > xy.Y {
				room = min(room, trY(r)-y)
			}
		}
		// Past the ring, the label, and the next row's markers (a ring,
		// if that row's answer is straight above).
		if room < vg.Points(ringClear)+sty.Height(l.texts[i])+vg.Points(9) {
			continue
		}
		x := trX(xy.X)
		box := sty.Rectangle(l.texts[i]).Add(vg.Point{Y: y + vg.Points(ringClear)}) // from x = 0
		w := box.Max.X - box.Min.X
		left := x - w/2
		if up := l.up[i]; up != nil {
			left = labelLeft(vg.Point{X: x, Y: y}, vg.Point{X: trX(up.X), Y: trY(up.Y)}, box.Min.Y, box.Max.Y, w, vg.Points(lineClear))
		}
		pt := vg.Point{X: left, Y: y + vg.Points(ringClear)}
		c.SetColor(color.White)
		c.Fill(sty.Rectangle(l.texts[i]).Add(pt).Path())
		c.FillText(sty, pt, l.texts[i])
	}
}

// labelLeft is where a label w wide, spanning heights y0 to y1, starts so
// as to keep gap clear of the segment from an answer a up to the answer
// u: centred on a where the segment passes outside that, else beside the
// segment, left of it when it leans right, right of it when it leans left
// or goes straight up.
func labelLeft(a, u vg.Point, y0, y1, w, gap vg.Length) vg.Length {
	left := a.X - w/2
	if u.Y <= a.Y || y0 >= u.Y {
		return left
	}
	at := func(y vg.Length) vg.Length { return a.X + (u.X-a.X)*(min(y, u.Y)-a.Y)/(u.Y-a.Y) }
	lo, hi := min(at(y0), at(y1)), max(at(y0), at(y1))
	if hi < left-gap || lo > left+w+gap {
		return left
	}
	if u.X > a.X {
		return lo - gap - w
	}
	return hi + gap
}

// GlyphBoxes keeps the labels inside the canvas, wherever the line puts
// them: from half a label left of the answer to half right when centred,
// and up to a whole label (and the gap) on the side it may move to.
func (l *answerLabels) GlyphBoxes(p *gplot.Plot) []gplot.GlyphBox {
	var bs []gplot.GlyphBox
	for i, xy := range l.xys {
		r := l.style.Rectangle(l.texts[i]) // centred
		w := r.Max.X - r.Min.X
		lo, hi := -w/2, w/2
		if up := l.up[i]; up != nil {
			if up.X > xy.X {
				lo = -w - vg.Points(lineClear)
			} else {
				hi = w + vg.Points(lineClear)
			}
		}
		bs = append(bs, gplot.GlyphBox{X: p.X.Norm(xy.X), Y: p.Y.Norm(xy.Y),
			Rectangle: vg.Rectangle{Min: vg.Point{X: lo, Y: r.Min.Y + vg.Points(ringClear)}, Max: vg.Point{X: hi, Y: r.Max.Y + vg.Points(ringClear)}}})
	}
	return bs
}

// arrowGlyph is an arrowhead pointing out of the range (dir +1: right, -1:
// left), drawn just past its point so as to leave the point's own marker
// clear (centred on it in a legend): no value in the range works; what
// would lies beyond.
type arrowGlyph struct {
	dir     float64
	centred bool
}

// arrowGap is how far past its point an arrowhead starts.
const arrowGap = 5.5

func (g arrowGlyph) DrawGlyph(c *draw.Canvas, sty draw.GlyphStyle, pt vg.Point) {
	c.SetColor(sty.Color)
	d := vg.Length(g.dir)
	r := sty.Radius
	base := pt.X + d*vg.Points(arrowGap)
	if g.centred {
		base = pt.X - d*0.75*r
	}
	var p vg.Path
	p.Move(vg.Point{X: base, Y: pt.Y - r})
	p.Line(vg.Point{X: base + d*1.5*r, Y: pt.Y})
	p.Line(vg.Point{X: base, Y: pt.Y + r})
	p.Close()
	c.Fill(p)
}

// arrows is a scatter of arrowGlyphs, whose boxes reach as far as the
// arrowheads do.
type arrows struct {
	*plotter.Scatter
	dir float64
}

func (a arrows) GlyphBoxes(p *gplot.Plot) []gplot.GlyphBox {
	bs := a.Scatter.GlyphBoxes(p)
	r := a.Radius
	reach := vg.Points(arrowGap) + 1.5*r
	for i := range bs {
		bs[i].Rectangle = vg.Rectangle{Min: vg.Point{X: 0, Y: -r}, Max: vg.Point{X: reach, Y: r}}
		if a.dir < 0 {
			bs[i].Rectangle = vg.Rectangle{Min: vg.Point{X: -reach, Y: -r}, Max: vg.Point{X: 0, Y: r}}
		}
	}
	return bs
}

// sansFonts sets every text of p in the sans-serif face the other charts
// use.
func sansFonts(p *gplot.Plot) {
	for _, ts := range []*text.Style{&p.Title.TextStyle, &p.X.Label.TextStyle, &p.Y.Label.TextStyle, &p.X.Tick.Label, &p.Y.Tick.Label, &p.Legend.TextStyle} {
		ts.Font.Variant = "Sans"
	}
}

// evidenceSet is evaluated points drawn in one colour and glyph, and their
// legend entry; every names them on every panel, not just the first.
type evidenceSet struct {
	xys   plotter.XYs
	col   color.Color
	shape draw.GlyphDrawer
	name  string
	every bool
}

// addEvidence draws each non-empty set on p, the same size on every chart,
// and hands its scatter to legend.
func addEvidence(p *gplot.Plot, legend func(name string, s *plotter.Scatter, every bool), sets ...evidenceSet) error {
	for _, set := range sets {
		if len(set.xys) == 0 {
			continue
		}
		s, err := plotter.NewScatter(set.xys)
		if err != nil {
			return fmt.Errorf("plan: plot: %w", err)
		}
		s.Color, s.Shape, s.Radius = set.col, set.shape, vg.Points(4)
		p.Add(s)
		legend(set.name, s, set.every)
	}
	return nil
}
