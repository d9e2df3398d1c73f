package plot

import (
	"image/color"

	gplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// hatchedBars is a bar chart with diagonal lines over its fill, so that
// series past the palette's twelve colours stay apart (and a greyscale
// print still tells them apart).
type hatchedBars struct {
	*plotter.BarChart
	hatch int // see hatchAt
}

var hatchLine = draw.LineStyle{Color: color.NRGBA{0xff, 0xff, 0xff, 0xb0}, Width: vg.Points(1)}

// Plot implements gplot.Plotter.
func (h hatchedBars) Plot(c draw.Canvas, p *gplot.Plot) {
	h.BarChart.Plot(c, p)
	if h.hatch == 0 {
		return
	}
	trX, trY := p.Transforms(&c)
	for i, v := range h.Values {
		x := trX(h.XMin+float64(i)) - h.Width/2 + h.Offset
		bottom := h.BarHeight(i) - v
		r := vg.Rectangle{Min: vg.Point{X: x, Y: trY(bottom)}, Max: vg.Point{X: x + h.Width, Y: trY(bottom + v)}}
		h.lines(c, r)
	}
}

// Thumbnail implements gplot.Thumbnailer: the legend shows the hatch too.
func (h hatchedBars) Thumbnail(c *draw.Canvas) {
	h.BarChart.Thumbnail(c)
	if h.hatch != 0 {
		h.lines(*c, c.Rectangle)
	}
}

// lines strokes hatch lines 4 points apart across r, clipped to it.
func (h hatchedBars) lines(c draw.Canvas, r vg.Rectangle) {
	const step = 4
	w, ht := r.Max.X-r.Min.X, r.Max.Y-r.Min.Y
	if w <= 0 || ht <= 0 {
		return
	}
	for k := -ht; k < w; k += vg.Points(step) {
		// The line x = k + t, y = t (rising) or y = ht - t (falling), 0 <= t <= ht.
		t0, t1 := max(0, -k), min(ht, w-k)
		if t1 <= t0 {
			continue
		}
		y0, y1 := r.Min.Y+t0, r.Min.Y+t1
		if h.hatch == 2 {
			y0, y1 = r.Max.Y-t0, r.Max.Y-t1
		}
		c.StrokeLine2(hatchLine, r.Min.X+k+t0, y0, r.Min.X+k+t1, y1)
	}
}
