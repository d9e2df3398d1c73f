package plot

import (
	"bytes"
	"fmt"
	"image/color"
	"io"
	"math"
	"path/filepath"
	"strconv"
	"strings"

	xfont "golang.org/x/image/font"
	gplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"

	"simrun/internal/result"
)

// Kind names a chart.
type Kind string

// The chart kinds; see the package comment.
const (
	Bar       Kind = "bar"
	Sweep     Kind = "sweep"
	Latency   Kind = "latency"
	Series    Kind = "series"
	Breakdown Kind = "breakdown"
)

var kinds = []Kind{Bar, Sweep, Latency, Series, Breakdown}

// Kinds lists every kind, in the order exports show them.
func Kinds() []Kind { return append([]Kind(nil), kinds...) }

// ParseKind checks a --kind value.
func ParseKind(s string) (Kind, error) {
	for _, k := range kinds {
		if string(k) == s {
			return k, nil
		}
	}
	return "", fmt.Errorf("plot: --kind: unknown kind %q (allowed: %s)", s, kindList())
}

func kindList() string {
	s := make([]string, len(kinds))
	for i, k := range kinds {
		s[i] = string(k)
	}
	return strings.Join(s, ", ")
}

// Format is an output image format.
type Format string

// Image formats.
const (
	PNG Format = "png"
	SVG Format = "svg"
)

// FormatOf returns the format named by a file's extension (.png or .svg).
func FormatOf(path string) (Format, error) {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".png":
		return PNG, nil
	case ".svg":
		return SVG, nil
	}
	return "", fmt.Errorf("plot: -o %s: unknown image format %q (allowed: .png, .svg)", filepath.Base(path), filepath.Ext(path))
}

// Default image size in pixels, and the resolution pixels are counted at.
const (
	DefaultWidth  = 960
	DefaultHeight = 540
	DPI           = 96
	maxPixels     = 8192
)

// Options tune a chart. The zero value draws the default chart.
type Options struct {
	// Width and Height are the image size in pixels (0: 960×540; charts of
	// stacked panels, sweep and series, default to 200 px per panel plus 80).
	Width, Height int
	// Metric is the metric drawn: bar and sweep default to the result's
	// throughput ("tps", "throughput_per_s", "write.iops", ...), latency
	// to its first block of percentiles ("latency_ms"), breakdown to
	// "commit_breakdown_ms".
	Metric string
	// Series lists the series paths a series chart draws, one panel each,
	// instead of the default panels.
	Series []string
	// Cases keeps only the cases with these names (all when empty).
	Cases []string
	// Title replaces the chart's title.
	Title string

	rec *dataRecorder // set by Draw: what the panels show
}

// Figure is a drawn chart, ready to be written in any format.
type Figure struct {
	panels []*gplot.Plot // stacked top to bottom
	width  int
	height int
	// legendX is where the legend column began when last drawn (points
	// from the left edge), for tests.
	legendX vg.Length
	rec     *dataRecorder
}

// Draw lays out a chart of the given kind.
func Draw(d *result.Document, k Kind, opt Options) (*Figure, error) {
	if d == nil {
		return nil, fmt.Errorf("plot: no result document")
	}
	if opt.Width < 0 || opt.Width > maxPixels || opt.Height < 0 || opt.Height > maxPixels {
		return nil, fmt.Errorf("plot: size %dx%d: width and height must be between 1 and %d pixels", opt.Width, opt.Height, maxPixels)
	}
	cases, err := selectCases(d, opt.Cases)
	if err != nil {
		return nil, err
	}
	d, cases = drawableDoc(d, cases)
	var panels []*gplot.Plot
	opt.rec = &dataRecorder{}
	switch k {
	case Bar:
		panels, err = drawBar(d, cases, opt)
	case Sweep:
		panels, err = drawSweep(d, cases, opt)
	case Latency:
		panels, err = drawLatency(d, cases, opt)
	case Series:
		panels, err = drawSeries(d, cases, opt)
	case Breakdown:
		panels, err = drawBreakdown(d, cases, opt)
	default:
		_, err = ParseKind(string(k))
	}
	if err != nil {
		return nil, err
	}
	if opt.Title != "" {
		panels[0].Title.Text, _ = Drawable(opt.Title)
	}
	if note := PartialNote(d); note != "" {
		panels[0].Title.Text += " " + note
	}
	f := &Figure{panels: panels, width: opt.Width, height: opt.Height, rec: opt.rec}
	if f.width == 0 {
		f.width = DefaultWidth
	}
	if f.height == 0 {
		f.height = DefaultHeight
		if len(panels) > 1 {
			f.height = min(80+200*len(panels), maxPixels)
		}
	}
	return f, nil
}

// PartialNote is what a chart's title adds for a result that is not
// whole, so a chart of it never passes for the full run: "(partial:
// interrupted)" for a run stopped by Ctrl-C, "(partial: shard 0/4)" for
// one shard of a sweep; "" for a whole result. Even a --title gets it.
func PartialNote(d *result.Document) string {
	var notes []string
	if d.Shard != nil {
		notes = append(notes, fmt.Sprintf("shard %d/%d", d.Shard.Index, d.Shard.Count))
	}
	if d.Partial {
		notes = append(notes, "interrupted")
	}
	if len(notes) == 0 {
		return ""
	}
	return "(partial: " + strings.Join(notes, ", ") + ")"
}

// Size returns the image size in pixels.
func (f *Figure) Size() (width, height int) { return f.width, f.height }

// Write draws the figure in the given format.
func (f *Figure) Write(w io.Writer, format Format) error {
	wpt := vg.Length(f.width) * vg.Inch / DPI
	hpt := vg.Length(f.height) * vg.Inch / DPI
	switch format {
	case PNG:
		c := vgimg.NewWith(vgimg.UseWH(wpt, hpt), vgimg.UseDPI(DPI))
		f.draw(draw.New(c))
		_, err := vgimg.PngCanvas{Canvas: c}.WriteTo(w)
		return err
	case SVG:
		c := vgsvg.NewWith(vgsvg.UseWH(wpt, hpt))
		f.draw(draw.New(c))
		var buf bytes.Buffer
		if _, err := c.WriteTo(&buf); err != nil {
			return err
		}
		_, err := w.Write(fallbackFonts(buf.Bytes()))
		return err
	}
	return fmt.Errorf("plot: unknown image format %q (allowed: png, svg)", format)
}

// fallbackFonts lets a viewer without the Liberation fonts use their
// metric-compatible stand-ins rather than a serif default.
func fallbackFonts(svg []byte) []byte {
	svg = bytes.ReplaceAll(svg, []byte(`font-family:Liberation Sans;`), []byte(`font-family:'Liberation Sans',Arial,Helvetica,sans-serif;`))
	return svg
}

// draw lays the panels out top to bottom and puts each panel's legend in
// a column to the right of all of them, outside the data: a legend inside
// the axes covers bars and lines, and headroom for it distorts the scale.
func (f *Figure) draw(dc draw.Canvas) {
	dc.SetColor(color.White)
	dc.Fill(dc.Rectangle.Path())
	legends := make([]gplot.Legend, len(f.panels))
	var legendW vg.Length
	for i, p := range f.panels {
		legends[i] = p.Legend
		if w := p.Legend.Rectangle(dc).Size().X; w > 0 {
			legendW = max(legendW, w+legendGap)
		}
		empty := gplot.NewLegend()
		p.Legend = empty
	}
	defer func() { // a Figure may be written more than once
		for i, p := range f.panels {
			p.Legend = legends[i]
		}
	}()
	legendW = min(legendW, (dc.Max.X-dc.Min.X)/2)
	area := draw.Crop(dc, 0, -legendW, 0, 0)
	f.legendX = area.Max.X
	var canv []draw.Canvas
	if len(f.panels) == 1 {
		canv = []draw.Canvas{area}
	} else {
		grid := make([][]*gplot.Plot, len(f.panels))
		for i, p := range f.panels {
			grid[i] = []*gplot.Plot{p}
		}
		t := draw.Tiles{Rows: len(f.panels), Cols: 1, PadX: vg.Millimeter, PadY: 2 * vg.Millimeter,
			PadTop: vg.Millimeter, PadBottom: vg.Millimeter, PadLeft: vg.Millimeter, PadRight: 2 * vg.Millimeter}
		for _, row := range gplot.Align(grid, t, area) {
			canv = append(canv, row[0])
		}
	}
	for i, p := range f.panels {
		p.Draw(canv[i])
		if legendW == 0 || legends[i].Rectangle(dc).Size().X == 0 {
			continue
		}
		top := canv[i].Max.Y
		if p.Title.Text != "" {
			top -= p.Title.TextStyle.Rectangle(p.Title.Text).Size().Y + p.Title.Padding
		}
		l := legends[i]
		l.Top, l.Left = true, true
		l.XOffs, l.YOffs = 0, 0
		strip := draw.Canvas{Canvas: dc.Canvas, Rectangle: vg.Rectangle{
			Min: vg.Point{X: area.Max.X + legendGap/2, Y: canv[i].Min.Y},
			Max: vg.Point{X: dc.Max.X, Y: top},
		}}
		l.Draw(strip)
	}
}

// legendGap separates the data from the legend column.
const legendGap = 4 * vg.Millimeter

// Render draws a chart and writes it: the one call `simrun plot` needs.
func Render(w io.Writer, d *result.Document, k Kind, format Format, opt Options) error {
	f, err := Draw(d, k, opt)
	if err != nil {
		return err
	}
	return f.Write(w, format)
}

// Supported lists the kinds d has the metrics for, in Kinds order.
func Supported(d *result.Document) []Kind {
	var out []Kind
	for _, k := range kinds {
		if _, err := Draw(d, k, Options{}); err == nil {
			out = append(out, k)
		}
	}
	return out
}

// selectCases returns the cases to draw, in document order.
func selectCases(d *result.Document, names []string) ([]result.Case, error) {
	if len(d.Cases) == 0 {
		return nil, fmt.Errorf("plot: the result has no cases")
	}
	rows, missing := d.Rows(names)
	if missing != "" {
		return nil, fmt.Errorf("plot: --case: no case %q (cases: %s)", missing, strings.Join(d.CaseNames(), ", "))
	}
	return rows, nil
}

// newPlot returns a plot with simrun's look: larger title, grid-free,
// axis labels set.
func newPlot(title, xlabel, ylabel string) *gplot.Plot {
	p := gplot.New()
	p.Title.Text = title
	p.Title.TextStyle.Font = sans(15)
	p.Title.TextStyle.Font.Weight = xfont.WeightBold
	p.Title.Padding = 3 * vg.Millimeter
	p.X.Label.Text = xlabel
	p.Y.Label.Text = ylabel
	for _, a := range []*gplot.Axis{&p.X, &p.Y} {
		a.Label.TextStyle.Font = sans(12)
		a.Tick.Label.Font = sans(10.5)
		a.Label.Padding = vg.Millimeter
	}
	p.Legend.TextStyle.Font = sans(10.5)
	p.Legend.Top = true
	p.Legend.Left = false
	p.Legend.ThumbnailWidth = 6 * vg.Millimeter
	p.Legend.Padding = vg.Points(2.5)
	p.Y.Tick.Marker = niceTicks{}
	addGrid(p)
	return p
}

// sans is the Liberation Sans face at a size in points (gonum/plot's
// default is the serif face).
func sans(size vg.Length) font.Font {
	return font.Font{Typeface: "Liberation", Variant: "Sans", Size: size}
}

// palette is Okabe & Ito's colour-blind-safe eight, strongest first, then
// four of Paul Tol's darker tones that stay apart from them (CIELAB ΔE > 25
// between any two): a breakdown's twelve stages get twelve colours.
var palette = []color.NRGBA{
	{0x00, 0x72, 0xB2, 0xff}, // blue
	{0xE6, 0x9F, 0x00, 0xff}, // orange
	{0x00, 0x9E, 0x73, 0xff}, // bluish green
	{0xD5, 0x5E, 0x00, 0xff}, // vermillion
	{0x56, 0xB4, 0xE9, 0xff}, // sky blue
	{0xCC, 0x79, 0xA7, 0xff}, // reddish purple
	{0xF0, 0xE4, 0x42, 0xff}, // yellow
	{0x00, 0x00, 0x00, 0xff}, // black
	{0x33, 0x22, 0x88, 0xff}, // indigo
	{0x88, 0x22, 0x55, 0xff}, // wine
	{0x99, 0x99, 0x33, 0xff}, // olive
	{0x66, 0x11, 0x00, 0xff}, // brown
}

// Palette returns the colours of series 0, 1, ... as #rrggbb, the ones the
// notebook's Python uses too.
func Palette() []string {
	out := make([]string, len(palette))
	for i, c := range palette {
		out[i] = fmt.Sprintf("#%02x%02x%02x", c.R, c.G, c.B)
	}
	return out
}

// Hatches are the fill patterns of bar series once the palette has
// wrapped, in matplotlib's notation: "" (solid) for series 0-11, "//" for
// 12-23, "\\" for 24-35.
var Hatches = []string{"", "//", `\\`}

func colorAt(i int) color.Color { return palette[i%len(palette)] }

// hatchAt is the hatch of bar series i: 0 none, 1 rising, 2 falling lines.
func hatchAt(i int) int { return (i / len(palette)) % len(Hatches) }

// dashesAt varies the dash pattern once the palette has wrapped, so lines
// 13+ stay distinguishable.
func dashesAt(i int) []vg.Length {
	switch (i / len(palette)) % 3 {
	case 1:
		return []vg.Length{vg.Points(6), vg.Points(3)}
	case 2:
		return []vg.Length{vg.Points(2), vg.Points(2)}
	}
	return nil
}

// caseLabel names a case in legends: its name, plus the swept values.
func caseLabel(d *result.Document, c result.Case) string {
	if len(d.Sweep) == 0 {
		return c.Name
	}
	return c.Name + " " + pointLabel(d, c, "")
}

// pointLabel prints a case's swept values, each in its key's unit
// ("threads=16 cap=54MB/s"), without the axis named skip.
func pointLabel(d *result.Document, c result.Case, skip string) string {
	var parts []string
	for _, a := range d.Sweep {
		if a.Key == skip {
			continue
		}
		parts = append(parts, lastSeg(a.Key)+"="+a.Format(c.Point[a.Key]))
	}
	return strings.Join(parts, " ")
}

func lastSeg(p string) string {
	if i := strings.LastIndexByte(p, '.'); i >= 0 {
		return p[i+1:]
	}
	return p
}

// number returns the metric at path as a float64.
func number(m result.Metrics, path string) (float64, bool) {
	v, ok := m.Lookup(path)
	if !ok {
		return 0, false
	}
	return result.Float(v)
}

// series returns the series at path as float64s.
func series(m result.Metrics, path string) ([]float64, bool) {
	v, ok := m.Lookup(path)
	if !ok {
		return nil, false
	}
	xs, ok := result.Floats(v)
	return xs, ok && len(xs) > 0
}

// noMetric is the error for a chart whose metric no case has.
func noMetric(k Kind, path string) error {
	return fmt.Errorf("plot: %s: no case has metric %q", k, path)
}

// Label returns an axis label for a metric path, with its unit read from
// the name: "tps" → "TPS (transactions/s)", "disk.write_kB_per_s" → "disk
// write (kB/s)", "latency_ms.p99" → "latency p99 (ms)".
func Label(path string) string {
	if l, ok := known[path]; ok {
		return l
	}
	segs := strings.Split(path, ".")
	unit := ""
	for i, s := range segs {
		for _, u := range units {
			if strings.HasSuffix(s, u.suffix) && len(s) > len(u.suffix) {
				segs[i] = strings.TrimSuffix(s, u.suffix)
				if unit == "" {
					unit = u.unit
				}
				break
			}
		}
		if l, ok := known[segs[i]]; ok && i == 0 && len(segs) == 1 {
			return l
		}
		segs[i] = strings.ReplaceAll(segs[i], "_", " ")
	}
	s := strings.Join(segs, " ")
	if unit != "" {
		s += " (" + unit + ")"
	}
	return s
}

var known = map[string]string{
	"tps":              "TPS (transactions/s)",
	"qps":              "QPS (queries/s)",
	"throughput_per_s": "throughput (/s)",
	"applier.tps":      "applier TPS (transactions/s)",
	"write.iops":       "write IOPS (I/Os/s)",
	"read.iops":        "read IOPS (I/Os/s)",
}

// units maps name suffixes to units, longest first.
var units = []struct{ suffix, unit string }{
	{"_kB_per_s", "kB/s"},
	{"_MB_per_s", "MB/s"},
	{"_per_s", "/s"},
	{"_pct", "%"},
	{"_ms", "ms"},
	{"_us", "µs"},
	{"_s", "s"},
	{"_MB", "MB"},
	{"_kB", "kB"},
	{"_GB", "GB"},
	{"_bytes", "bytes"},
}

// niceTicks labels an axis at 1, 2 or 5 × 10^k steps, about six of them:
// gonum's default ticker often labels only two or three values.
type niceTicks struct{}

// Ticks implements gplot.Ticker.
func (niceTicks) Ticks(lo, hi float64) []gplot.Tick {
	if !(hi > lo) || math.IsInf(hi-lo, 0) {
		return gplot.DefaultTicks{}.Ticks(lo, hi)
	}
	raw := (hi - lo) / 6
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	step := mag
	for _, m := range []float64{1, 2, 2.5, 5, 10} {
		if m*mag >= raw {
			step = m * mag
			break
		}
	}
	prec := max(0, -int(math.Floor(math.Log10(step)+1e-9)))
	if step/math.Pow(10, -float64(prec)) != math.Trunc(step/math.Pow(10, -float64(prec))) {
		prec++ // 2.5 × 10^k
	}
	var ticks []gplot.Tick
	for k := math.Ceil(lo/step - 1e-9); k*step <= hi+step*1e-9; k++ {
		v := k * step
		if math.Abs(v) < step*1e-9 {
			v = 0
		}
		ticks = append(ticks, gplot.Tick{Value: v, Label: strconv.FormatFloat(v, 'f', prec, 64)})
		// Minor ticks halfway, unlabelled.
		if mid := v + step/2; mid <= hi {
			ticks = append(ticks, gplot.Tick{Value: mid})
		}
	}
	return ticks
}

// addGrid draws light horizontal lines at the major y ticks, under the
// data, so values can be read across.
func addGrid(p *gplot.Plot) {
	g := plotter.NewGrid()
	g.Vertical.Color = nil
	g.Horizontal.Color = color.Gray{Y: 225}
	g.Horizontal.Width = vg.Points(0.6)
	p.Add(g)
}
