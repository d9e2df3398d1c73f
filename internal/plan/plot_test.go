package plan

import (
	"bytes"
	"context"
	"errors"
	"math"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/recorder"
)

// evidenceAt is a one-parameter result with a point at each x, the
// two metrics falling as 100/x, feasible from the middle on.
func evidenceAt(xs []float64) *Result {
	res := &Result{Found: true}
	for i, x := range xs {
		p := &Point{X: []float64{x}, Reps: 2, Stats: []Stat{{Mean: 100 / x, CI95: 1 / x}, {Mean: 100 / x, CI95: 1 / x}}, Feasible: i >= len(xs)/2, Decided: true}
		res.Evidence = append(res.Evidence, p)
		if i == len(xs)/2 {
			res.Answer = p
		}
	}
	return res
}

func spaced(lo, hi float64, n int, log bool) []float64 {
	if n == 1 {
		return []float64{lo}
	}
	xs := make([]float64, n)
	for i := range xs {
		f := float64(i) / float64(n-1)
		xs[i] = lo + f*(hi-lo)
		if log {
			xs[i] = lo * math.Pow(hi/lo, f)
		}
	}
	return xs
}

// drawnTick is a labelled tick as drawn: its position along the axis and
// its label's extent along it (width, or height on a vertical axis).
type drawnTick struct {
	label      string
	value      float64 // as the axis carries it
	pos, size  vg.Length
	scale      float64
	logData    bool
	axisTitle  string
	vertical   bool
	axisLength vg.Length
}

// drawnTicks lays ch out at its size and returns, for each axis with a
// ticker, the labelled ticks it draws, in order along it.
func drawnTicks(t *testing.T, ch *chart) [][]drawnTick {
	t.Helper()
	dc := draw.NewCanvas(new(recorder.Canvas), ch.w, ch.h)
	canv := ch.place(dc)
	var out [][]drawnTick
	for _, tk := range ch.ticks {
		p := ch.panels[tk.panel]
		da := p.DataCanvas(canv[tk.panel][0])
		ax, length := &p.X, da.Size().X
		if tk.vertical {
			ax, length = &p.Y, da.Size().Y
		}
		var ts []drawnTick
		for _, m := range ax.Tick.Marker.Ticks(ax.Min, ax.Max) {
			if m.IsMinor() {
				continue
			}
			n := ax.Norm(m.Value)
			if n < 0 || n > 1 {
				continue // gonum draws no label off the axis
			}
			d := drawnTick{label: m.Label, value: m.Value, pos: length * vg.Length(n), size: ax.Tick.Label.Width(m.Label),
				scale: tk.scale, logData: tk.logData, axisTitle: ax.Label.Text, vertical: tk.vertical, axisLength: length}
			if tk.vertical {
				d.size = ax.Tick.Label.Height(m.Label)
			}
			ts = append(ts, d)
		}
		sort.Slice(ts, func(i, j int) bool { return ts[i].pos < ts[j].pos })
		out = append(out, ts)
	}
	return out
}

// checkTicks: at least least labels, none touching the next at the drawn
// size, each a bare number that, in the title's unit, is the tick's value.
func checkTicks(t *testing.T, name string, ts []drawnTick, wantTitle string, least int) {
	t.Helper()
	if len(ts) < least || len(ts) == 0 {
		t.Errorf("%s: %d labelled ticks %+v, want at least %d", name, len(ts), ts, least)
		return
	}
	if ts[0].axisTitle != wantTitle {
		t.Errorf("%s: axis title %q, want %q", name, ts[0].axisTitle, wantTitle)
	}
	var labels []string
	for i, d := range ts {
		labels = append(labels, d.label)
		f, err := strconv.ParseFloat(d.label, 64)
		if err != nil {
			t.Errorf("%s: tick label %q is not a bare number (the unit belongs in the title)", name, d.label)
			continue
		}
		v := d.value
		if d.logData {
			v = math.Pow(10, v)
		}
		if math.Abs(f*d.scale-v) > 1e-9*math.Abs(v) {
			t.Errorf("%s: label %q at %g, want %g in the title's unit", name, d.label, v, v/d.scale)
		}
		if i > 0 {
			prev := ts[i-1]
			if room := d.pos - prev.pos - (d.size+prev.size)/2; room <= 0 {
				t.Errorf("%s: labels %q and %q overlap by %.1f pt on a %.0f pt axis", name, prev.label, d.label, -room, d.axisLength)
			}
		}
	}
	t.Logf("%s: %s [%s]", name, ts[0].axisTitle, strings.Join(labels, " "))
}

// TestPlotTicks: the x-axis labels of the one-parameter chart, for ranges
// linear and log, wide and narrow, in each unit, never overlap at the size
// the chart is drawn at, and count in the unit the axis title names.
func TestPlotTicks(t *testing.T) {
	for _, tc := range []struct {
		name      string
		unit      string
		integer   bool
		xs        []float64
		wantTitle string
	}{
		// The QA case: the points the bandwidth search of the capacity
		// planning page runs, which labelled 70 and 80 MB/s on top of each
		// other and 90 not at all.
		{"bandwidth search", "bytes/s", true, []float64{20e6, 30e6, 50e6, 70e6, 80e6, 90e6, 400e6}, "k (MB/s)"},
		{"bandwidth grid", "bytes/s", true, spaced(20e6, 400e6, 39, false), "k (MB/s)"},
		{"bandwidth linear", "bytes/s", true, spaced(100e6, 400e6, 31, false), "k (MB/s)"},
		{"bandwidth to GB/s", "bytes/s", true, []float64{500e6, 600e6, 800e6, 1.2e9, 2e9}, "k (GB/s)"},
		{"workers 1..256", "", true, []float64{1, 2, 4, 8, 16, 32, 64, 80, 84, 86, 87, 88, 96, 128, 256}, "k"},
		{"workers 1..6", "", true, spaced(1, 6, 6, false), "k"},
		{"workers 87..88", "", true, []float64{87, 88}, "k"},
		{"one point", "", true, []float64{64}, "k"},
		{"sizes 64MiB..8GiB", "bytes", true, spaced(64<<20, 8<<30, 8, true), "k (GiB)"},
		{"sizes 1GiB..4GiB", "bytes", true, []float64{1 << 30, 2.5 * (1 << 30), 4 << 30}, "k (GiB)"},
		{"sizes 1GB..4GB", "bytes", true, []float64{1e9, 2.5e9, 4e9}, "k (GB)"},
		{"bandwidth 64MiB/s..1GiB/s", "bytes/s", true, spaced(64<<20, 1<<30, 5, true), "k (GiB/s)"},
		{"durations ms", "s", false, spaced(0.002, 0.05, 12, false), "k (ms)"},
		{"durations log", "s", false, spaced(0.0005, 2, 9, true), "k (s)"},
		{"nine decades", "", false, spaced(1, 1e9, 10, true), "k"},
		{"narrow", "", false, spaced(1000, 1001, 11, false), "k"},
		{"fractions", "", false, spaced(0.1, 0.35, 6, false), "k"},
	} {
		cons, _ := ParseConstraint("--limit", "m<=10")
		in := PlotInput{Title: tc.name, Axes: []PlotAxis{{Key: "k", Unit: tc.unit, Integer: tc.integer}}, Result: evidenceAt(tc.xs), Constraints: []Constraint{cons, cons}}
		ch, err := newChart(in)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		axes := drawnTicks(t, ch)
		if len(axes) != 2 {
			t.Fatalf("%s: %d axes with the ticker, want the x axis of each of 2 panels", tc.name, len(axes))
		}
		for _, ts := range axes {
			checkTicks(t, tc.name, ts, tc.wantTitle, 2)
		}
		if tc.integer {
			tk := ch.ticks[0]
			for _, m := range tk.axis.Tick.Marker.Ticks(tk.axis.Min, tk.axis.Max) {
				if m.Value != math.Round(m.Value) {
					t.Errorf("%s: a tick at %g on an axis of whole values", tc.name, m.Value)
				}
			}
		}
	}
}

// frontierResult searches the M/M/c frontier of TestSearchFrontier: the
// fewest servers (of 1..20) keeping the mean wait under 0.05 ms, for each
// arrival rate; from 20000/s on none does.
func frontierResult(t *testing.T, lambdas []float64, budget int, maximize bool) *Result {
	t.Helper()
	eval := evalOf(func(x []float64, _ int) float64 { return erlangCWait(int(x[0]), x[1], 1000) * 1e3 })
	var cs []float64
	for c := 1; c <= 20; c++ {
		cs = append(cs, float64(c))
	}
	op := "wait_ms<=0.05"
	if maximize {
		op = "wait_ms>=0.05" // the most servers that still queue
	}
	cons, _ := ParseConstraint("--limit", op)
	res, err := Search(context.Background(), Config{Constraints: []Constraint{cons}, Axes: [][]float64{cs, lambdas}, Budget: budget, Maximize: maximize}, eval)
	if err != nil && !errors.Is(err, ErrBudget) {
		t.Fatal(err)
	}
	return res
}

// TestPlotFrontier: the two-parameter chart marks each value of the second
// parameter once, at its answer or, where nothing in the range works, at
// the range's end that came closest; a row the budget cut short is not
// marked. Its axes' labels never overlap either, and the rows are
// labelled with their values.
func TestPlotFrontier(t *testing.T) {
	for _, tc := range []struct {
		name      string
		lambdas   []float64
		budget    int
		maximize  bool
		found     int
		none      int
		noneAt    float64 // the range's best end
		joined    int     // answers on the line
		rowLabels []string
	}{
		{"three rates", []float64{1000, 4000, 8000}, 0, false, 3, 0, 0, 3, []string{"1000", "4000", "8000"}},
		// From 16000/s on no number of servers up to 20 is enough.
		{"log rows, two out of range", []float64{1000, 2000, 4000, 8000, 16000, 32000}, 0, false, 4, 2, 20, 4,
			[]string{"1000", "2000", "4000", "8000", "16000", "32000"}},
		// Rows too close to label each: nice numbers instead.
		{"close rows", []float64{1000, 2000, 4000, 8000, 16000, 20000, 40000}, 0, false, 4, 3, 20, 4, nil},
		// At 10/s even one server keeps the wait under 0.05 ms.
		{"maximize", []float64{10, 1000, 4000, 8000}, 0, true, 3, 1, 1, 3, nil},
		// The budget ends the second row's search: it is not marked.
		{"budget", []float64{1000, 4000, 8000, 16000}, 16, false, 1, 0, 0, 0, nil},
		{"one row", []float64{4000}, 0, false, 1, 0, 0, 0, []string{"4000"}},
		{"many rows", spaced(1000, 16000, 31, false), 0, false, 30, 1, 20, 30, nil},
	} {
		res := frontierResult(t, tc.lambdas, tc.budget, tc.maximize)
		cons, _ := ParseConstraint("--limit", "wait_ms<=0.05")
		in := PlotInput{Title: tc.name, Axes: []PlotAxis{{Key: "servers", Integer: true}, {Key: "arrivals", Unit: ""}}, Maximize: tc.maximize,
			Result: res, Constraints: []Constraint{cons}}
		ch, err := newChart(in)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		f := ch.front
		if len(f.found) != tc.found || len(f.none) != tc.none {
			t.Errorf("%s: %d answers and %d none-in-range marks, want %d and %d", tc.name, len(f.found), len(f.none), tc.found, tc.none)
		}
		rows := map[float64]int{}
		for _, xy := range append(append(plotter.XYs(nil), f.found...), f.none...) {
			rows[xy.Y]++
		}
		for y, n := range rows {
			if n != 1 {
				t.Errorf("%s: row %g has %d marks, want one", tc.name, y, n)
			}
		}
		for _, fr := range res.Frontier {
			if fr.Found && rows[fr.Y] != 1 {
				t.Errorf("%s: row %g (answer %g) is not marked", tc.name, fr.Y, fr.X)
			}
		}
		for _, xy := range f.found {
			for _, fr := range res.Frontier {
				if fr.Y == xy.Y && (!fr.Found || fr.X != xy.X) {
					t.Errorf("%s: row %g marked at %g, the search says %+v", tc.name, xy.Y, xy.X, fr)
				}
			}
		}
		for _, xy := range f.none {
			if xy.X != tc.noneAt {
				t.Errorf("%s: row %g has nothing in range, marked at %g, want the range's best end %g", tc.name, xy.Y, xy.X, tc.noneAt)
			}
		}
		var joined int
		for _, run := range f.runs {
			joined += len(run)
		}
		if joined != tc.joined {
			t.Errorf("%s: the line joins %d answers, want %d", tc.name, joined, tc.joined)
		}
		if tc.budget > 0 && len(res.Frontier) <= len(f.found)+len(f.none) {
			t.Errorf("%s: %d rows searched, %d marked: want the row the budget cut short unmarked", tc.name, len(res.Frontier), len(f.found)+len(f.none))
		}
		axes := drawnTicks(t, ch)
		if len(axes) != 2 {
			t.Fatalf("%s: %d axes with the ticker, want 2", tc.name, len(axes))
		}
		checkTicks(t, tc.name+" (x)", axes[0], "servers", 2)
		checkTicks(t, tc.name+" (y)", axes[1], "arrivals", min(2, len(tc.lambdas)))
		if tc.rowLabels != nil {
			var got []string
			for _, d := range axes[1] {
				got = append(got, d.label)
			}
			if strings.Join(got, " ") != strings.Join(tc.rowLabels, " ") {
				t.Errorf("%s: rows labelled %v, want each row's value %v", tc.name, got, tc.rowLabels)
			}
		}
	}
}

// TestPlotDeterministic: the same input draws the same bytes, in both
// formats and both kinds of chart, and an unknown format is refused.
func TestPlotDeterministic(t *testing.T) {
	cons, _ := ParseConstraint("--limit", "m<=10")
	one := PlotInput{Title: "one", Axes: []PlotAxis{{Key: "volume.bandwidth_max", Unit: "bytes/s", Integer: true}},
		Result: evidenceAt([]float64{20e6, 30e6, 50e6, 70e6, 80e6, 90e6, 400e6}), Constraints: []Constraint{cons}}
	two := PlotInput{Title: "two", Axes: []PlotAxis{{Key: "servers", Integer: true}, {Key: "arrivals"}},
		Result: frontierResult(t, []float64{1000, 2000, 4000, 8000, 40000}, 0, false), Constraints: []Constraint{cons}}
	for _, in := range []PlotInput{one, two} {
		for _, format := range []string{"png", "svg"} {
			var a, b bytes.Buffer
			if err := Plot(&a, format, in); err != nil {
				t.Fatalf("%s %s: %v", in.Title, format, err)
			}
			if err := Plot(&b, format, in); err != nil {
				t.Fatalf("%s %s: %v", in.Title, format, err)
			}
			if a.Len() == 0 || !bytes.Equal(a.Bytes(), b.Bytes()) {
				t.Errorf("%s %s: two drawings differ (%d and %d bytes)", in.Title, format, a.Len(), b.Len())
			}
		}
	}
	if err := Plot(new(bytes.Buffer), "gif", one); err == nil || !strings.Contains(err.Error(), "png, svg") {
		t.Errorf("format gif: %v, want an error naming png and svg", err)
	}
}

func TestAxisUnit(t *testing.T) {
	const gib, mib = 1 << 30, 1 << 20
	type unit struct {
		Name  string
		Scale float64
	}
	for _, tc := range []struct {
		reason string
		unit   string
		lo, hi float64
		want   unit
	}{
		{"binary sizes count in GiB", "bytes", gib, 4 * gib, unit{"GiB", gib}},
		{"a binary range from zero", "bytes", 0, 512 * mib, unit{"MiB", mib}},
		{"binary bandwidth", "bytes/s", 64 * mib, gib, unit{"GiB/s", gib}},
		{"decimal sizes count in GB", "bytes", 1e9, 4e9, unit{"GB", 1e9}},
		{"decimal bandwidth", "bytes/s", 20e6, 400e6, unit{"MB/s", 1e6}},
		{"one end decimal: decimal", "bytes", 1e9, 4 * gib, unit{"GB", 1e9}},
		{"1KiB reads as 1.024kB exactly: decimal", "bytes", 1024, 4096, unit{"kB", 1e3}},
		{"durations are untouched", "s", 0.002, 0.05, unit{"ms", 1e-3}},
		{"plain numbers", "", 1 << 30, 1 << 32, unit{"", 1}},
	} {
		name, scale := axisUnit(tc.unit, tc.lo, tc.hi)
		if d := cmp.Diff(tc.want, unit{name, scale}); d != "" {
			t.Errorf("%s: axisUnit(%q, %g, %g) (-want +got):\n%s", tc.reason, tc.unit, tc.lo, tc.hi, d)
		}
	}
}

// TestLabelLeft: a frontier answer's label sits centred above its ring
// unless the line up to the next row's answer would cross it; then it
// stands beside the line, on the side the line leans away from.
func TestLabelLeft(t *testing.T) {
	const w, gap = 60, 4
	a := vg.Point{X: 100, Y: 100}
	y0, y1 := vg.Length(112), vg.Length(124)
	for _, tc := range []struct {
		reason string
		up     vg.Point
		want   vg.Length
	}{
		{"no row above: centred", vg.Point{X: 100, Y: 90}, 70},
		{"straight up: right of the line", vg.Point{X: 100, Y: 200}, 104},
		{"leaning left: right of the line", vg.Point{X: 60, Y: 200}, 100 - 40*12/100.0 + gap},
		{"leaning right: left of the line", vg.Point{X: 140, Y: 200}, 100 + 40*12/100.0 - gap - w},
		{"leaning far left, past the label: centred", vg.Point{X: -900, Y: 120}, 70},
		{"the row above is below the label: centred", vg.Point{X: 100, Y: 110}, 70},
	} {
		got := labelLeft(a, tc.up, y0, y1, w, gap)
		if math.Abs(float64(got-tc.want)) > 1e-9 {
			t.Errorf("%s: left %v, want %v", tc.reason, got, tc.want)
		}
		// Wherever it goes, the line stays clear of it.
		if tc.up.Y > a.Y {
			for y := y0; y <= min(y1, tc.up.Y); y++ {
				x := a.X + (tc.up.X-a.X)*(y-a.Y)/(tc.up.Y-a.Y)
				if x > got-gap+1e-9 && x < got+w+gap-1e-9 {
					t.Errorf("%s: the line passes through the label at (%v, %v)", tc.reason, x, y)
				}
			}
		}
	}
}

// TestPlotFrontierBinarySizes: the QA case, a frontier whose second
// parameter is a buffer pool of 1GiB..4GiB, has its rows labelled 1, 2.5
// and 4 under "(GiB)", as the report prints them, not 1.07374182,
// 2.68435456 and 4.2949673 GB.
func TestPlotFrontierBinarySizes(t *testing.T) {
	const gib = 1 << 30
	res := &Result{Found: true}
	for _, y := range []float64{gib, 2.5 * gib, 4 * gib} {
		for _, x := range []float64{20e6, 74.29e6, 128.6e6, 400e6} {
			ok := x >= 74.29e6 && y > gib || x >= 128.6e6
			res.Evidence = append(res.Evidence, &Point{X: []float64{x, y}, Feasible: ok, Decided: true})
		}
		answer := 74.29e6
		if y == gib {
			answer = 128.6e6
		}
		res.Frontier = append(res.Frontier, Front{Y: y, Found: true, X: answer})
	}
	cons, _ := ParseConstraint("--goal", "tps>=3000")
	ch, err := newChart(PlotInput{Title: "frontier", Axes: []PlotAxis{
		{Key: "volume.bandwidth_max", Unit: "bytes/s", Integer: true},
		{Key: "engine.buffer_pool.size", Unit: "bytes", Integer: true}}, Result: res, Constraints: []Constraint{cons}})
	if err != nil {
		t.Fatal(err)
	}
	axes := drawnTicks(t, ch)
	checkTicks(t, "rows", axes[1], "engine.buffer_pool.size (GiB)", 3)
	var got []string
	for _, d := range axes[1] {
		got = append(got, d.label)
	}
	if d := cmp.Diff([]string{"1", "2.5", "4"}, got); d != "" {
		t.Errorf("row labels (-want +got):\n%s", d)
	}
}
