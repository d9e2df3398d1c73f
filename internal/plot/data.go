package plot

import (
	gplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
)

// PanelData is what one panel of a chart shows, as numbers and text: the
// description a redrawing (the notebook's matplotlib) must reproduce, and
// what the notebook round-trip test compares.
type PanelData struct {
	Title  string       `json:"title"`
	XLabel string       `json:"xlabel"`
	YLabel string       `json:"ylabel"`
	YScale string       `json:"yscale"`           // "linear" or "log"
	XTicks []string     `json:"xticks,omitempty"` // category labels of a bar chart
	Bars   []SeriesData `json:"bars,omitempty"`   // one per colour, bottom of the stack first
	Texts  []string     `json:"texts,omitempty"`  // values written on bars, in drawing order
	Lines  []SeriesData `json:"lines,omitempty"`  // one per legend entry
}

// SeriesData is one series: its legend label and its points.
type SeriesData struct {
	Label string    `json:"label"`
	X     []float64 `json:"x,omitempty"`
	Y     []float64 `json:"y"`
}

// dataRecorder collects the PanelData of the panels of one Draw.
type dataRecorder struct {
	order []*gplot.Plot
	data  map[*gplot.Plot]*PanelData
}

func (r *dataRecorder) panel(p *gplot.Plot) *PanelData {
	if r == nil {
		return &PanelData{}
	}
	if r.data == nil {
		r.data = map[*gplot.Plot]*PanelData{}
	}
	d, ok := r.data[p]
	if !ok {
		d = &PanelData{}
		r.data[p] = d
		r.order = append(r.order, p)
	}
	return d
}

func (r *dataRecorder) bars(p *gplot.Plot, g grid) {
	d := r.panel(p)
	d.XTicks = append([]string(nil), g.clusters...)
	for s, name := range g.series {
		d.Bars = append(d.Bars, SeriesData{Label: name, Y: append([]float64(nil), g.val[s]...)})
	}
}

func (r *dataRecorder) text(p *gplot.Plot, s string) {
	d := r.panel(p)
	d.Texts = append(d.Texts, s)
}

func (r *dataRecorder) ticks(p *gplot.Plot, labels []string) {
	r.panel(p).XTicks = labels
}

func (r *dataRecorder) line(p *gplot.Plot, label string, xys plotter.XYs) {
	d := r.panel(p)
	s := SeriesData{Label: label}
	for _, xy := range xys {
		s.X, s.Y = append(s.X, xy.X), append(s.Y, xy.Y)
	}
	d.Lines = append(d.Lines, s)
}

// Data returns what each panel of the figure shows, top to bottom, with
// the panels' final titles and axis labels.
func (f *Figure) Data() []PanelData {
	out := make([]PanelData, len(f.panels))
	for i, p := range f.panels {
		if f.rec != nil && f.rec.data[p] != nil {
			out[i] = *f.rec.data[p]
		}
		out[i].Title, out[i].XLabel, out[i].YLabel = p.Title.Text, p.X.Label.Text, p.Y.Label.Text
		out[i].YScale = "linear"
		if _, ok := p.Y.Scale.(gplot.LogScale); ok {
			out[i].YScale = "log"
		}
	}
	return out
}
