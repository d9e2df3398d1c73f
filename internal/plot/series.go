package plot

import (
	"fmt"
	"math"
	"strings"

	gplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"

	"simrun/internal/result"
)

// Panel is one panel of a series chart: the first of Paths a case has,
// multiplied by Scale, under an axis Label.
type Panel struct {
	Paths []string
	Scale float64
	Label string
	Max   float64 // fixed top of the y axis (0: from the data)
}

// DefaultPanels are the panels a series chart draws, those the result has.
// Device figures follow iostat: kB are 1024 bytes, so MB/s is kB/s / 1024.
var DefaultPanels = []Panel{
	{Paths: []string{"series.tps"}, Scale: 1, Label: "TPS (transactions/s)"},
	{Paths: []string{"disk.series.write_kB_per_s"}, Scale: 1.0 / 1024, Label: "device write (MB/s)"},
	{Paths: []string{"disk.series.util_pct"}, Scale: 1, Label: "device util (%)", Max: 105},
	{Paths: []string{"series.checkpoint_age_MB", "series.checkpoint_age_mb", "engine.series.checkpoint_age_MB"}, Scale: 1, Label: "checkpoint age (MB)"},
	{Paths: []string{"disk.series.aqu_sz", "disk.series.queue_depth", "series.queue_depth"}, Scale: 1, Label: "device queue depth (I/Os)"},
}

// intervalOf returns the seconds per point of a series: the interval_s
// beside it, else the case's measured duration over its length, else 1 s.
func intervalOf(d *result.Document, c result.Case, path string, n int) float64 {
	parent := ""
	if i := strings.LastIndexByte(path, '.'); i >= 0 {
		parent = path[:i+1]
	}
	if v, ok := number(c.Metrics, parent+"interval_s"); ok && v > 0 {
		return v
	}
	dur := d.Duration
	if c.Duration != nil {
		dur = *c.Duration
	}
	if dur > 0 && n > 0 {
		return dur / float64(n)
	}
	return 1
}

func drawSeries(d *result.Document, cases []result.Case, opt Options) ([]*gplot.Plot, error) {
	panels := DefaultPanels
	if len(opt.Series) == 0 && opt.Metric != "" {
		opt.Series = strings.Split(opt.Metric, ",")
	}
	switch {
	case len(opt.Series) > 0:
		panels = nil
		for _, s := range opt.Series {
			panels = append(panels, seriesPanel(s))
		}
	case !anySeries(cases, DefaultPanels):
		// Not a database run: draw the series it has, up to five panels
		// (none: the error names the default panels).
		if own := SeriesPanels(cases); len(own) > 0 {
			panels = own[:min(len(own), MaxFallbackPanels)]
		}
	}
	var out []*gplot.Plot
	var missing []string // panels no case has a series for
	best, bestN := -1, 0 // the panel whose legend names the most cases
	for _, pn := range panels {
		p := newPlot("", "", pn.Label)
		drawn := 0
		ymax := 0.0
		for i, c := range cases {
			var ys []float64
			var path string
			for _, path = range pn.Paths {
				if s, ok := series(c.Metrics, path); ok {
					ys = s
					break
				}
			}
			if ys == nil {
				continue
			}
			dt := intervalOf(d, c, path, len(ys))
			xys := make(plotter.XYs, 0, len(ys))
			for j, y := range ys {
				if math.IsNaN(y) || math.IsInf(y, 0) {
					continue
				}
				xys = append(xys, plotter.XY{X: float64(j+1) * dt, Y: y * pn.Scale})
				ymax = math.Max(ymax, y*pn.Scale)
			}
			if len(xys) == 0 {
				continue
			}
			if len(xys) == 1 { // a line needs two points
				xys = append(plotter.XYs{{X: 0, Y: xys[0].Y}}, xys...)
			}
			l, _, err := addLine(p, xys, i, false)
			if err != nil {
				return nil, err
			}
			l.Width = 1.5
			if len(cases) > 1 {
				p.Legend.Add(caseLabel(d, c), l)
			}
			opt.rec.line(p, caseLabel(d, c), xys)
			drawn++
		}
		if drawn == 0 {
			missing = append(missing, fmt.Sprintf("%s (%s)", title(pn.Label), pn.Paths[0]))
			continue
		}
		if drawn > bestN {
			best, bestN = len(out), drawn
		}
		p.X.Min = 0
		p.Y.Min = 0
		p.Y.Max = math.Max(ymax*1.1, 1e-9)
		if pn.Max > 0 {
			p.Y.Max = pn.Max
		}
		out = append(out, p)
	}
	if len(out) == 0 {
		var names []string
		for _, pn := range panels {
			for _, s := range pn.Paths {
				names = append(names, fmt.Sprintf("%q", s))
			}
		}
		return nil, suggest(fmt.Errorf("plot: series: no case has any of the series %s", strings.Join(names, ", ")), Series, seriesPaths(cases))
	}
	// Share one time axis: same range, label on the bottom panel only.
	xmax := 0.0
	for _, p := range out {
		xmax = math.Max(xmax, p.X.Max)
	}
	legend := out[max(best, 0)].Legend
	for _, p := range out {
		p.X.Max = xmax
		p.Legend = gplot.NewLegend()
		p.Legend.TextStyle.Font = sans(10.5)
	}
	// One legend, beside the top panel (see Figure.draw).
	out[0].Legend = legend
	for _, p := range out {
		p.X.Tick.Marker = niceTicks{}
	}
	out[0].Title.Text = fmt.Sprintf("%s: over time", d.Scenario)
	out[len(out)-1].X.Label.Text = "time since the end of warm-up (s)"
	if len(missing) > 0 {
		// Say which promised panels are absent rather than leave the
		// reader to wonder.
		out[len(out)-1].X.Label.Text += "\nnot in this result: " + strings.Join(missing, ", ")
	}
	return out, nil
}

// MaxFallbackPanels is how many panels a series chart draws of a result
// that has none of the DefaultPanels (a replication, fio or demo run).
const MaxFallbackPanels = 5

// SeriesPanels returns a panel for every series the cases have, in
// display order: what a series chart of a result without any of the
// DefaultPanels draws (the first MaxFallbackPanels of them), and the
// notebook's series cell too.
func SeriesPanels(cases []result.Case) []Panel {
	var out []Panel
	for _, p := range seriesPaths(cases) {
		out = append(out, seriesPanel(p))
	}
	return out
}

// seriesPanel is the panel of one series named by its path.
func seriesPanel(path string) Panel {
	return Panel{Paths: []string{path}, Scale: 1, Label: Label(strings.Replace(path, "series.", "", 1))}
}

// anySeries reports whether a case has a series of one of the panels.
func anySeries(cases []result.Case, panels []Panel) bool {
	for _, pn := range panels {
		for _, p := range pn.Paths {
			for _, c := range cases {
				if _, ok := series(c.Metrics, p); ok {
					return true
				}
			}
		}
	}
	return false
}
