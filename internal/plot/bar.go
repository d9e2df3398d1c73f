package plot

import (
	"fmt"
	"image/color"
	"math"
	"strings"

	gplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"simrun/internal/result"
)

// grid is a set of values laid out in clusters (x positions) and series
// (colours), the shape of a published table.
type grid struct {
	clusters []string
	series   []string
	val      [][]float64 // [series][cluster]
	ci       [][]float64
	has      [][]bool
}

// tableGrid lays cases out as a published table does: in a sweep, a
// cluster per case name and a colour per sweep point; otherwise "group/
// label" names give a cluster per group and a colour per label, and other
// names a bar each.
func tableGrid(d *result.Document, cases []result.Case, value func(result.Case) (float64, float64, bool)) grid {
	split := len(d.Sweep) == 0
	for _, c := range cases {
		if !strings.Contains(c.Name, "/") {
			split = false
		}
	}
	var g grid
	index := func(list *[]string, s string) int {
		for i, x := range *list {
			if x == s {
				return i
			}
		}
		*list = append(*list, s)
		return len(*list) - 1
	}
	type cell struct{ ci, si int }
	var cells []cell
	for _, c := range cases {
		cl, se := c.Name, ""
		switch {
		case len(d.Sweep) > 0:
			se = pointLabel(d, c, "")
		case split:
			i := strings.LastIndexByte(c.Name, '/')
			cl, se = c.Name[:i], c.Name[i+1:]
		}
		cells = append(cells, cell{index(&g.clusters, cl), index(&g.series, se)})
	}
	g.val = make([][]float64, len(g.series))
	g.ci = make([][]float64, len(g.series))
	g.has = make([][]bool, len(g.series))
	for s := range g.series {
		g.val[s] = make([]float64, len(g.clusters))
		g.ci[s] = make([]float64, len(g.clusters))
		g.has[s] = make([]bool, len(g.clusters))
	}
	for i, c := range cases {
		v, ci, ok := value(c)
		if !ok {
			continue
		}
		at := cells[i]
		g.val[at.si][at.ci], g.ci[at.si][at.ci], g.has[at.si][at.ci] = v, ci, true
	}
	return g
}

func drawBar(d *result.Document, cases []result.Case, opt Options) ([]*gplot.Plot, error) {
	metric := opt.Metric
	if metric == "" {
		metric = defaultMetric(cases)
	}
	found := false
	g := tableGrid(d, cases, func(c result.Case) (float64, float64, bool) {
		v, ok := number(c.Metrics, metric)
		if !ok || math.IsNaN(v) {
			return 0, 0, false
		}
		found = true
		ci, _ := number(c.Metrics, metric+result.CISuffix)
		return v, ci, true
	})
	if !found {
		return nil, suggest(noMetric(Bar, metric), Bar, numericPaths(cases))
	}
	p := newPlot(fmt.Sprintf("%s: %s per case", d.Scenario, title(metric)), "", Label(metric))
	if err := addBars(p, g, opt, false); err != nil {
		return nil, err
	}
	return []*gplot.Plot{p}, nil
}

// addBars draws g as grouped (or, with stack, stacked) bars with their
// values written on them.
func addBars(p *gplot.Plot, g grid, opt Options, stack bool) error {
	width := opt.Width
	if width == 0 {
		width = DefaultWidth
	}
	// The plot area is roughly the image less ~90 px of axis and margin.
	area := vg.Length(width-90) * vg.Inch / DPI
	slot := area / vg.Length(len(g.clusters))
	per := len(g.series)
	if stack {
		per = 1
	}
	barW := min(slot*0.8/vg.Length(per), 60)
	opt.rec.bars(p, g)
	top := 0.0
	var below []hatchedBars
	totals := make([]float64, len(g.clusters))
	for s, name := range g.series {
		vals := make(plotter.Values, len(g.clusters))
		copy(vals, g.val[s])
		bc, err := plotter.NewBarChart(vals, barW)
		if err != nil {
			return fmt.Errorf("plot: %w", err)
		}
		bc.Color = colorAt(s)
		bc.LineStyle.Width = 0
		hb := hatchedBars{BarChart: bc, hatch: hatchAt(s)}
		marks := &barMarks{}
		if stack {
			if len(below) > 0 {
				bc.StackOn(below[len(below)-1].BarChart)
			}
			below = append(below, hb)
		} else {
			bc.Offset = (vg.Length(s) - vg.Length(per-1)/2) * barW
			marks.offset = bc.Offset
			for c := range g.clusters {
				if !g.has[s][c] {
					marks.add(float64(c), 0, 0, "n/a")
					opt.rec.text(p, "n/a")
					continue
				}
				marks.add(float64(c), g.val[s][c], g.ci[s][c], short(g.val[s][c]))
				opt.rec.text(p, short(g.val[s][c]))
			}
		}
		for c := range g.clusters {
			totals[c] += g.val[s][c]
			top = math.Max(top, g.val[s][c]+g.ci[s][c])
		}
		p.Add(hb)
		if !stack {
			p.Add(marks)
		}
		if name != "" && !stack {
			p.Legend.Add(name, hb)
		}
	}
	if stack {
		// Legend top to bottom as the stack reads.
		for s := len(below) - 1; s >= 0; s-- {
			p.Legend.Add(g.series[s], below[s])
		}
		marks := &barMarks{}
		for c, t := range totals {
			marks.add(float64(c), t, 0, short(t))
			opt.rec.text(p, short(t))
			top = math.Max(top, t)
		}
		p.Add(marks)
	}
	if top <= 0 {
		top = 1
	}
	// The legend stands beside the data (see Figure.draw): headroom only
	// for the value labels.
	p.Y.Min = 0
	p.Y.Max = top * 1.12
	p.NominalX(g.clusters...)
	p.X.Min, p.X.Max = -0.5, float64(len(g.clusters))-0.5
	p.X.Tick.Label.Font = sans(10.5)
	if slanted(g.clusters, width) {
		p.X.Tick.Label.Rotation = math.Pi / 7
		p.X.Tick.Label.XAlign = text.XRight
		p.X.Tick.Label.YAlign = text.YTop
	}
	return nil
}

// slanted reports whether cluster names would collide written flat.
func slanted(names []string, width int) bool {
	n := 0
	for _, s := range names {
		n = max(n, len([]rune(s)))
	}
	return float64(n*7+10)*float64(len(names)) > 0.85*float64(width-90)
}

// barMarks writes a value above each bar and draws its 95 % interval.
type barMarks struct {
	offset vg.Length
	x, y   []float64
	ci     []float64
	label  []string
}

func (m *barMarks) add(x, y, ci float64, label string) {
	m.x, m.y, m.ci, m.label = append(m.x, x), append(m.y, y), append(m.ci, ci), append(m.label, label)
}

// Plot implements gplot.Plotter.
func (m *barMarks) Plot(c draw.Canvas, p *gplot.Plot) {
	tx, ty := p.Transforms(&c)
	st := text.Style{Color: color.Black, Font: sans(9.5), XAlign: text.XCenter, YAlign: text.YBottom, Handler: p.TextHandler}
	ls := draw.LineStyle{Color: color.Black, Width: vg.Points(1)}
	for i := range m.x {
		x := tx(m.x[i]) + m.offset
		y := ty(m.y[i])
		ytext := y
		if m.ci[i] > 0 {
			lo, hi := ty(m.y[i]-m.ci[i]), ty(m.y[i]+m.ci[i])
			w := vg.Points(3)
			c.StrokeLine2(ls, x, lo, x, hi)
			c.StrokeLine2(ls, x-w, lo, x+w, lo)
			c.StrokeLine2(ls, x-w, hi, x+w, hi)
			ytext = hi
		}
		c.FillText(st, vg.Point{X: x, Y: ytext + vg.Points(2)}, m.label[i])
	}
}

// short formats a bar value: three or four significant figures.
func short(v float64) string {
	a := math.Abs(v)
	switch {
	case a == 0:
		return "0"
	case a >= 100:
		return fmt.Sprintf("%.0f", v)
	case a >= 10:
		return fmt.Sprintf("%.1f", v)
	case a >= 1:
		return fmt.Sprintf("%.2f", v)
	}
	return fmt.Sprintf("%.3g", v)
}

// title is a metric's label without its unit, for chart titles.
func title(path string) string {
	l := Label(path)
	if i := strings.Index(l, " ("); i > 0 {
		return l[:i]
	}
	return l
}
