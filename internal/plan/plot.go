package plan

import (
	"fmt"
	"image/color"
	"io"
	"math"
	"sort"

	gplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"
)

// PlotInput is what the evidence chart shows.
type PlotInput struct {
	Title       string
	XLabel      string
	XFormat     func(float64) string // tick labels in the parameter's unit
	Result      *Result
	Constraints []Constraint
}

var (
	okColor   = color.RGBA{0, 114, 178, 255} // blue
	failColor = color.RGBA{213, 94, 0, 255}  // vermilion (Okabe-Ito)
	lineColor = color.RGBA{90, 90, 90, 255}
)

// Plot draws one panel per constraint: the metric's mean at each evaluated
// point with its 95 % interval, feasible points filled and failing ones
// hollow, the threshold dashed and the answer ringed. format is png or svg.
func Plot(w io.Writer, format string, in PlotInput) error {
	if in.Result == nil || len(in.Result.Evidence) == 0 {
		return fmt.Errorf("plan: nothing to plot")
	}
	pts := append([]*Point(nil), in.Result.Evidence...)
	sort.SliceStable(pts, func(i, j int) bool { return pts[i].X[0] < pts[j].X[0] })
	var panels []*gplot.Plot
	for k, c := range in.Constraints {
		p := gplot.New()
		if k == 0 {
			p.Title.Text = in.Title
		}
		p.Y.Label.Text = c.Metric
		p.X.Label.Text = in.XLabel
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
			if len(pt.X) > 1 && in.Result.Frontier == nil {
				continue
			}
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
				return fmt.Errorf("plan: plot: %w", err)
			}
			eb.Color = lineColor
			p.Add(eb)
		}
		for _, set := range []struct {
			xys   plotter.XYs
			col   color.Color
			shape draw.GlyphDrawer
			name  string
			every bool // named on every panel, not just the first
		}{{ok, okColor, draw.CircleGlyph{}, "meets every constraint", false}, {bad, failColor, draw.RingGlyph{}, "misses one", false},
			{grows, failColor, draw.TriangleGlyph{}, "grows with the run (unbounded)", true}} {
			if len(set.xys) == 0 {
				continue
			}
			s, err := plotter.NewScatter(set.xys)
			if err != nil {
				return fmt.Errorf("plan: plot: %w", err)
			}
			s.Color, s.Shape, s.Radius = set.col, set.shape, vg.Points(4)
			p.Add(s)
			if k == 0 || set.every {
				p.Legend.Add(set.name, s)
			}
		}
		th := plotter.NewFunction(func(float64) float64 { return c.Value })
		th.Color, th.Dashes, th.Width = failColor, []vg.Length{vg.Points(5), vg.Points(3)}, vg.Points(1.2)
		p.Add(th)
		p.Legend.Add(c.String(), th)
		if a := in.Result.Answer; a != nil && len(in.Result.Frontier) == 0 {
			r, err := plotter.NewScatter(plotter.XYs{{X: a.X[0], Y: a.Stats[k].Mean}})
			if err == nil {
				r.Shape, r.Radius, r.Color = draw.RingGlyph{}, vg.Points(9), color.Black
				p.Add(r)
				if k == 0 {
					p.Legend.Add("answer "+in.XFormat(a.X[0]), r)
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
		if lo, hi := pts[0].X[0], pts[len(pts)-1].X[0]; lo > 0 && hi/lo >= 8 {
			p.X.Scale = gplot.LogScale{}
			p.X.Min, p.X.Max = lo/1.1, hi*1.1
		}
		if in.XFormat != nil {
			f := in.XFormat
			var base gplot.Ticker = gplot.DefaultTicks{}
			if _, log := p.X.Scale.(gplot.LogScale); log {
				base = gplot.LogTicks{Prec: -1}
			}
			if len(pts) <= 14 {
				// Few points: a labelled tick at each value evaluated.
				// Labels closer than 1/25 of the axis to the last one are
				// left off, so that a bisection's crowd stays readable.
				_, log := p.X.Scale.(gplot.LogScale)
				pos := func(x float64) float64 {
					if log {
						return math.Log(x)
					}
					return x
				}
				span := pos(pts[len(pts)-1].X[0]) - pos(pts[0].X[0])
				var ts gplot.ConstantTicks
				last := math.Inf(-1)
				for i, pt := range pts {
					if i > 0 && pt.X[0] == pts[i-1].X[0] {
						continue
					}
					t := gplot.Tick{Value: pt.X[0]}
					if pos(pt.X[0])-last >= span/25 {
						t.Label, last = f(pt.X[0]), pos(pt.X[0])
					}
					ts = append(ts, t)
				}
				base = ts
			}
			p.X.Tick.Marker = gplot.TickerFunc(func(lo, hi float64) []gplot.Tick {
				ts := base.Ticks(lo, hi)
				for i := range ts {
					if ts[i].Label != "" {
						ts[i].Label = f(ts[i].Value)
					}
				}
				return ts
			})
		}
		g := plotter.NewGrid()
		g.Vertical.Color, g.Horizontal.Color = color.Gray{Y: 225}, color.Gray{Y: 225}
		p.Add(g)
		panels = append(panels, p)
	}
	wpt, hpt := 8*vg.Inch, vg.Length(2.6*float64(len(panels)))*vg.Inch
	var c vg.CanvasWriterTo
	switch format {
	case "png":
		c = vgimg.PngCanvas{Canvas: vgimg.NewWith(vgimg.UseWH(wpt, hpt), vgimg.UseDPI(120))}
	case "svg":
		c = vgsvg.NewWith(vgsvg.UseWH(wpt, hpt))
	default:
		return fmt.Errorf("plan: plot format %q (allowed: png, svg)", format)
	}
	dc := draw.New(c)
	dc.SetColor(color.White)
	dc.Fill(dc.Rectangle.Path())
	grid := make([][]*gplot.Plot, len(panels))
	for i, p := range panels {
		grid[i] = []*gplot.Plot{p}
	}
	t := draw.Tiles{Rows: len(panels), Cols: 1, PadY: 3 * vg.Millimeter, PadTop: vg.Millimeter, PadBottom: vg.Millimeter,
		PadLeft: vg.Millimeter, PadRight: 3 * vg.Millimeter}
	canv := gplot.Align(grid, t, dc)
	for i, p := range panels {
		p.Draw(canv[i][0])
	}
	_, err := c.WriteTo(w)
	return err
}

// sansFonts sets every text of p in the sans-serif face the other charts
// use.
func sansFonts(p *gplot.Plot) {
	for _, ts := range []*text.Style{&p.Title.TextStyle, &p.X.Label.TextStyle, &p.Y.Label.TextStyle, &p.X.Tick.Label, &p.Y.Tick.Label, &p.Legend.TextStyle} {
		ts.Font.Variant = "Sans"
	}
}
