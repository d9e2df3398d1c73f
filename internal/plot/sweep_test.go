package plot

import (
	"bytes"
	"math"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"simrun/internal/plot/plottest"
	"simrun/internal/result"
)

func TestEnough(t *testing.T) {
	nan := math.NaN()
	tests := []struct {
		reason string
		vals   []float64
		lower  bool
		want   int
	}{
		{"saturates at the third point", []float64{1900, 3800, 4510, 4520, 4520}, false, 2},
		{"still rising: the last point", []float64{1, 2, 3}, false, 2},
		{"flat: the first point", []float64{5, 5, 5}, false, 0},
		{"no throughput", []float64{0, 0}, false, -1},
		{"a missing point is skipped", []float64{nan, 10, 10}, false, 1},
		{"latency falling to its floor: the first within 1 % of the lowest", []float64{4.8, 1.009, 1.0}, true, 1},
		{"latency still falling: the last point", []float64{4.8, 2.0, 1.0}, true, 2},
		{"lowest first: the first point, not the worst", []float64{1.0, 1.3, 4.8}, true, 0},
		{"a wait of zero is the best", []float64{0.08, 0.0, 0.0}, true, 1},
		{"no value", []float64{nan, nan}, true, -1},
	}
	for _, tc := range tests {
		if got := Enough(tc.vals, tc.lower); got != tc.want {
			t.Errorf("%s: Enough(%v, lower %v) = %d, want %d", tc.reason, tc.vals, tc.lower, got, tc.want)
		}
	}
	if !capacityAxis([]float64{20, 10, 5}) || capacityAxis([]float64{5, 10, 20}) {
		t.Error("capacityAxis: falling latency is a capacity axis, rising latency a load axis")
	}
}

func TestLowerIsBetter(t *testing.T) {
	for _, tc := range []struct {
		path string
		want bool
	}{
		{"tps", false}, {"throughput_per_s", false}, {"write.iops", false}, {"applier.tps", false},
		{"util_pct", false}, {"rows_per_s", false}, {"write.bw_kB_per_s", false},
		{"latency_ms.p99", true}, {"latency_ms.avg", true}, {"wait_ms.avg", true}, {"write.clat_ms.p99", true},
		{"applier.max_lag_s", true}, {"disk.await_ms", true}, {"elapsed_s", true}, {"queue_len_avg", true},
		{"erlang_c.wait_probability", true}, {"applier.hol_blocked_pct", true},
	} {
		if got := LowerIsBetter(tc.path); got != tc.want {
			t.Errorf("LowerIsBetter(%q) = %v, want %v", tc.path, got, tc.want)
		}
	}
}

// demoSweep is a sweep shaped like demo/mmc's: servers 4, 5, 6 at two
// arrival rates, throughput equal to the arrival rate, latency and wait
// falling as servers are added (no tps).
func demoSweep() *result.Document {
	d := result.New("mmc")
	d.Sweep = []result.Axis{
		{Key: "workload.demo.servers", Values: []any{int64(4), int64(5), int64(6)}},
		{Key: "workload.demo.arrival_rate", Values: []any{int64(2000), int64(3000)}},
	}
	for _, rate := range []int64{2000, 3000} {
		for i, servers := range []int64{4, 5, 6} {
			lat := []float64{4.8, 1.3, 1.005}[i] * float64(rate) / 2000
			d.Cases = append(d.Cases, result.Case{Name: "mm4",
				Point: map[string]any{"workload.demo.servers": servers, "workload.demo.arrival_rate": rate},
				Metrics: result.Metrics{
					"throughput_per_s": float64(rate),
					"util_pct":         float64(rate) / float64(servers) / 10,
					"latency_ms":       result.Metrics{"avg": lat, "p50": lat * 0.7, "p95": lat * 2, "p99": lat * 3},
					"wait_ms":          result.Metrics{"avg": lat - 1, "p50": 0, "p99": (lat - 1) * 4},
				}})
		}
	}
	return d
}

// fioSweep is a sweep of fio's queue depth: IOPS rising, completion
// latency (write.clat_ms) rising past the knee; no tps, no latency_ms.
func fioSweep() *result.Document {
	d := result.New("fio")
	d.Sweep = []result.Axis{{Key: "workload.fio.iodepth", Values: []any{int64(1), int64(4), int64(16), int64(64)}}}
	for i, qd := range []int64{1, 4, 16, 64} {
		iops := []float64{2000, 7600, 9800, 10000}[i]
		d.Cases = append(d.Cases, result.Case{Name: "randwrite", Point: map[string]any{"workload.fio.iodepth": qd},
			Metrics: result.Metrics{"write": result.Metrics{"iops": iops,
				"clat_ms": result.Metrics{"p50": float64(qd) / iops * 800, "p99": float64(qd) / iops * 2000}}}})
	}
	return d
}

// TestSweepChart: without --metric the sweep chart draws what the result
// has; its marker is the knee along a load and "enough" along a capacity,
// in the metric's direction, and the legend names the metric; a
// categorical sweep gets unjoined points and no marker.
func TestSweepChart(t *testing.T) {
	type shown struct {
		Title, YLabel, LatLabel string
		Marks                   []string // the markers' labels
		Legend                  []string // marker entries of the legend
		Ticks                   []string // a categorical axis's
	}
	for _, tc := range []struct {
		reason string
		doc    *result.Document
		metric string
		want   shown
	}{
		{"a sysbench sweep: TPS, knee along the load", plottest.Sweep(), "", shown{
			Title: "threads-sweep: TPS and p99 latency vs threads", YLabel: "TPS (transactions/s)", LatLabel: "p99 latency (ms)",
			Marks: []string{"knee 8", "knee 16"}, Legend: []string{"knee: max TPS / p99"}}},
		{"a demo sweep picks its throughput; enough at the fewest servers that carry the load", demoSweep(), "", shown{
			Title: "mmc: throughput and p99 latency vs servers", YLabel: "throughput (/s)", LatLabel: "p99 latency (ms)",
			Marks: []string{"enough: 4"}, Legend: []string{"enough: 99 % of the best throughput"}}},
		{"a latency metric: enough where latency is within 1 % of its lowest, not at its worst", demoSweep(), "latency_ms.avg", shown{
			Title: "mmc: latency avg and p99 latency vs servers", YLabel: "latency avg (ms)", LatLabel: "p99 latency (ms)",
			Marks: []string{"enough: 6"}, Legend: []string{"enough: within 1 % of the lowest latency avg"}}},
		{"a fio sweep: IOPS over the completion latency's p99", fioSweep(), "", shown{
			Title: "fio: write IOPS and write clat p99 vs iodepth", YLabel: "write IOPS (I/Os/s)", LatLabel: "write clat p99 (ms)",
			Marks: []string{"knee 4"}, Legend: []string{"knee: max write IOPS / write clat p99"}}},
		{"a latency metric along a load: the knee weighs the result's IOPS", fioSweep(), "write.clat_ms.p50", shown{
			Title: "fio: write clat p50 and write clat p99 vs iodepth", YLabel: "write clat p50 (ms)", LatLabel: "write clat p99 (ms)",
			Marks: []string{"knee 4"}, Legend: []string{"knee: max write IOPS / write clat p99"}}},
		{"a categorical sweep: no knee", plottest.CategorySweep(), "", shown{
			Title: "threads-sweep: TPS and p99 latency vs binlog_storage_engine", YLabel: "TPS (transactions/s)", LatLabel: "p99 latency (ms)",
			Ticks: []string{"innodb", "file"}}},
	} {
		t.Run(tc.reason, func(t *testing.T) {
			f, err := Draw(tc.doc, Sweep, Options{Metric: tc.metric})
			if err != nil {
				t.Fatal(err)
			}
			data := f.Data()
			var svg bytes.Buffer
			if err := f.Write(&svg, SVG); err != nil {
				t.Fatal(err)
			}
			got := shown{Title: data[0].Title, YLabel: data[0].YLabel, LatLabel: data[1].YLabel, Marks: data[0].Texts, Ticks: data[0].XTicks}
			for _, l := range []string{"knee: ", "enough: "} {
				for _, m := range regexp.MustCompile(`>(`+l+`[^<]*)</text>`).FindAllStringSubmatch(svg.String(), -1) {
					if strings.Contains(m[1], "%") || strings.Contains(m[1], "/") {
						got.Legend = append(got.Legend, m[1])
					}
				}
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
			if tc.doc.Sweep[0].Values[0] == "innodb" {
				// Side by side within a category, not on its tick.
				for _, l := range data[0].Lines {
					for _, x := range l.X {
						if x == math.Trunc(x) {
							t.Errorf("line %q: a point at x=%v, on the category's tick", l.Label, x)
						}
					}
				}
			}
		})
	}
}

func TestAxisLabel(t *testing.T) {
	for _, tc := range []struct {
		x    float64
		unit string
		want string
	}{
		{4e7, "bytes/s", "40MB/s"}, {1.5e-3, "s", "1.5ms"}, {16384, "bytes", "16KiB"}, {16e3, "bytes", "16kB"}, {8, "", "8"},
	} {
		if got := axisLabel(tc.x, tc.unit); got != tc.want {
			t.Errorf("axisLabel(%v, %q) = %q, want %q", tc.x, tc.unit, got, tc.want)
		}
	}
}

// TestPointLabel: a legend names a line's other swept values in their
// keys' units, an inline table as TOML text.
func TestPointLabel(t *testing.T) {
	d := &result.Document{Sweep: []result.Axis{
		{Key: "workload.threads"},
		{Key: "volume.bandwidth_max", Unit: "bytes/s"},
		{Key: "workload.demo.service"},
	}}
	c := result.Case{Name: "file", Point: map[string]any{
		"workload.threads":      int64(16),
		"volume.bandwidth_max":  int64(54000000),
		"workload.demo.service": map[string]any{"mean": "1ms", "dist": "exponential"},
	}}
	for _, tc := range []struct {
		skip, want string
	}{
		{"", `threads=16 bandwidth_max=54MB/s service={ dist = "exponential", mean = "1ms" }`},
		{"workload.threads", `bandwidth_max=54MB/s service={ dist = "exponential", mean = "1ms" }`},
		{"workload.demo.service", "threads=16 bandwidth_max=54MB/s"},
	} {
		if got := pointLabel(d, c, tc.skip); got != tc.want {
			t.Errorf("pointLabel(skip %q) = %q, want %q", tc.skip, got, tc.want)
		}
	}
	if got, want := caseLabel(d, c), "file threads=16 bandwidth_max=54MB/s service={ dist = \"exponential\", mean = \"1ms\" }"; got != want {
		t.Errorf("caseLabel = %q, want %q", got, want)
	}
}

// TestSweepWithoutLatency: a result with no latency gets one panel, the
// metric, marked where it is enough.
func TestSweepWithoutLatency(t *testing.T) {
	d := fioSweep()
	for _, c := range d.Cases {
		delete(c.Metrics["write"].(result.Metrics), "clat_ms")
	}
	f, err := Draw(d, Sweep, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var got []PanelData
	for _, p := range f.Data() {
		got = append(got, PanelData{Title: p.Title, XLabel: p.XLabel, YLabel: p.YLabel, Texts: p.Texts})
	}
	want := []PanelData{{Title: "fio: write IOPS vs iodepth", XLabel: "workload.fio.iodepth", YLabel: "write IOPS (I/Os/s)", Texts: []string{"enough: 64"}}}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("panels (-want +got):\n%s", d)
	}
}

// TestSweepLatencyWithData: a write-only fio job reports its read
// percentiles as zeros; the latency drawn is the block with data.
func TestSweepLatencyWithData(t *testing.T) {
	m := func(w float64) result.Metrics {
		return result.Metrics{
			"read":  result.Metrics{"clat_ms": result.Metrics{"p50": 0.0, "p99": 0.0}},
			"write": result.Metrics{"clat_ms": result.Metrics{"p50": w / 2, "p99": w}},
		}
	}
	d := &result.Document{Cases: []result.Case{{Name: "a", Metrics: m(1)}, {Name: "b", Metrics: m(2)}}}
	if got := SweepLatency(d); got != "write.clat_ms.p99" {
		t.Errorf("SweepLatency = %q, want write.clat_ms.p99", got)
	}
}
