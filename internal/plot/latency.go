package plot

import (
	"fmt"
	"math"
	"strings"

	gplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"

	"simrun/internal/result"
)

// Percentiles are the keys of a latency block the percentile curve reads,
// with their quantile in percent; "max" is drawn one step past the last.
var Percentiles = []struct {
	Key string
	Q   float64
}{
	{"p50", 50}, {"p75", 75}, {"p90", 90}, {"p95", 95}, {"p99", 99}, {"p999", 99.9}, {"p99_9", 99.9}, {"p9999", 99.99}, {"max", 100},
}

// nines maps a percentile to the x axis: −log10(1−q), so p90 is 1, p99 is 2
// and p99.9 is 3 ("number of nines").
func nines(q float64) float64 { return -math.Log10(1 - q/100) }

func drawLatency(d *result.Document, cases []result.Case, opt Options) ([]*gplot.Plot, error) {
	block := opt.Metric
	if block == "" {
		block = "latency_ms"
		if bs := percentileBlocks(cases); len(bs) > 0 {
			block = bs[0]
		}
	}
	unit := "ms"
	for _, u := range units {
		if strings.HasSuffix(block, u.suffix) {
			unit = u.unit
			break
		}
	}
	p := newPlot(fmt.Sprintf("%s: %s percentiles", d.Scenario, title(block)), "percentile", fmt.Sprintf("%s (%s)", title(block), unit))
	// x of each key present anywhere; max goes half a nine past the
	// highest percentile any case has.
	lastQ := 0.0
	for _, c := range cases {
		for _, pc := range Percentiles[:len(Percentiles)-1] {
			if _, ok := number(c.Metrics, block+"."+pc.Key); ok {
				lastQ = math.Max(lastQ, pc.Q)
			}
		}
	}
	xmax := nines(math.Max(lastQ, 99)) + 0.6
	xOf := func(key string, q float64) float64 {
		if key == "max" {
			return xmax
		}
		return nines(q)
	}
	used := map[string]bool{}
	n := 0
	ymin, ymax := math.Inf(1), 0.0
	for i, c := range cases {
		var xys plotter.XYs
		for _, pc := range Percentiles {
			v, ok := number(c.Metrics, block+"."+pc.Key)
			if !ok || math.IsNaN(v) {
				continue
			}
			used[pc.Key] = true
			xys = append(xys, plotter.XY{X: xOf(pc.Key, pc.Q), Y: v})
			ymin, ymax = math.Min(ymin, v), math.Max(ymax, v)
		}
		if len(xys) < 2 {
			continue
		}
		n++
		l, s, err := addLine(p, xys, i, true)
		if err != nil {
			return nil, err
		}
		p.Legend.Add(caseLabel(d, c), l, s)
		opt.rec.line(p, caseLabel(d, c), xys)
	}
	if n == 0 {
		return nil, suggest(fmt.Errorf("plot: latency: no case has two or more of the metrics %s", percentileList(block)), Latency, percentileBlocks(cases))
	}
	var ticks gplot.ConstantTicks
	for _, pc := range Percentiles {
		if used[pc.Key] {
			label := "p" + result.FormatValue(pc.Q)
			if pc.Key == "max" {
				label = "max"
			}
			ticks = append(ticks, gplot.Tick{Value: xOf(pc.Key, pc.Q), Label: label})
		}
	}
	p.X.Tick.Marker = ticks
	var tickLabels []string
	for _, tk := range ticks {
		tickLabels = append(tickLabels, tk.Label)
	}
	opt.rec.ticks(p, tickLabels)
	p.X.Min, p.X.Max = nines(40), xmax+0.15
	if ymin > 0 && ymax/ymin > 50 {
		p.Y.Scale = gplot.LogScale{}
		p.Y.Tick.Marker = gplot.LogTicks{Prec: -1}
		p.Y.Min, p.Y.Max = ymin/1.3, ymax*1.3
	} else {
		p.Y.Min, p.Y.Max = 0, ymax*1.1
	}
	p.Legend.Top, p.Legend.Left = true, true
	return []*gplot.Plot{p}, nil
}

func percentileList(block string) string {
	var s []string
	for _, pc := range Percentiles {
		s = append(s, fmt.Sprintf("%q", block+"."+pc.Key))
	}
	return strings.Join(s, ", ")
}
