package plot

import (
	"bytes"
	"encoding/xml"
	"image/png"
	"io"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"simrun/internal/plot/plottest"
	"simrun/internal/result"
)

func docs() map[string]*result.Document {
	return map[string]*result.Document{"run": plottest.Run(), "sweep": plottest.Sweep()}
}

func TestSupported(t *testing.T) {
	for _, tc := range []struct {
		doc  string
		want []Kind
	}{
		{"run", []Kind{Bar, Latency, Series, Breakdown}},
		{"sweep", []Kind{Bar, Sweep, Latency}},
	} {
		if d := cmp.Diff(tc.want, Supported(docs()[tc.doc])); d != "" {
			t.Errorf("%s: Supported (-want +got):\n%s", tc.doc, d)
		}
	}
}

// TestPNGSizeAndDeterminism draws every supported chart at two sizes, checks
// the PNG decodes at the requested size, and that drawing twice gives the
// same bytes.
func TestPNGSizeAndDeterminism(t *testing.T) {
	for name, d := range docs() {
		for _, k := range Supported(d) {
			for _, size := range [][2]int{{0, 0}, {640, 400}} {
				opt := Options{Width: size[0], Height: size[1]}
				var a, b bytes.Buffer
				if err := Render(&a, d, k, PNG, opt); err != nil {
					t.Fatalf("%s %s: %v", name, k, err)
				}
				if err := Render(&b, d, k, PNG, opt); err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(a.Bytes(), b.Bytes()) {
					t.Errorf("%s %s: two renderings differ", name, k)
				}
				img, err := png.Decode(bytes.NewReader(a.Bytes()))
				if err != nil {
					t.Fatalf("%s %s: PNG does not decode: %v", name, k, err)
				}
				f, _ := Draw(d, k, opt)
				w, h := f.Size()
				if got := img.Bounds().Size(); got.X != w || got.Y != h {
					t.Errorf("%s %s: PNG is %dx%d, want %dx%d", name, k, got.X, got.Y, w, h)
				}
				if size[0] != 0 && (w != size[0] || h != size[1]) {
					t.Errorf("%s %s: size %dx%d, requested %v", name, k, w, h, size)
				}
			}
		}
	}
}

func TestSVGParsesAsXML(t *testing.T) {
	if testing.Short() {
		t.Skip("-short")
	}
	for name, d := range docs() {
		for _, k := range Supported(d) {
			var a, b bytes.Buffer
			if err := Render(&a, d, k, SVG, Options{Width: 800, Height: 500}); err != nil {
				t.Fatalf("%s %s: %v", name, k, err)
			}
			Render(&b, d, k, SVG, Options{Width: 800, Height: 500})
			if !bytes.Equal(a.Bytes(), b.Bytes()) {
				t.Errorf("%s %s: two SVG renderings differ", name, k)
			}
			dec := xml.NewDecoder(bytes.NewReader(a.Bytes()))
			root := ""
			for {
				tok, err := dec.Token()
				if err == io.EOF {
					break
				}
				if err != nil {
					t.Fatalf("%s %s: SVG is not XML: %v", name, k, err)
				}
				if se, ok := tok.(xml.StartElement); ok && root == "" {
					root = se.Name.Local
					for _, at := range se.Attr {
						if at.Name.Local == "width" && at.Value != "600pt" {
							t.Errorf("%s %s: width %q, want 600pt (800 px)", name, k, at.Value)
						}
					}
				}
			}
			if root != "svg" {
				t.Errorf("%s %s: root element %q", name, k, root)
			}
			if !strings.Contains(a.String(), "sans-serif") {
				t.Errorf("%s %s: SVG lacks the font fallback", name, k)
			}
		}
	}
}

func TestMissingMetricErrors(t *testing.T) {
	run, sweep := plottest.Run(), plottest.Sweep()
	for _, tc := range []struct {
		name string
		doc  *result.Document
		kind Kind
		opt  Options
		want string
	}{
		{"bar metric", run, Bar, Options{Metric: "nope_ms"}, `plot: bar: no case has metric "nope_ms"`},
		{"no sweep", run, Sweep, Options{}, "plot: sweep: the result has no swept parameter"},
		{"sweep metric", stripped(sweep, "tps"), Sweep, Options{Metric: "tps"}, `plot: sweep: no case has metric "tps"; choose one with --metric, e.g. latency_ms.avg`},
		{"latency", stripped(run, "latency_ms"), Latency, Options{}, `plot: latency: no case has two or more of the metrics "latency_ms.p50"`},
		{"series", sweep, Series, Options{}, `plot: series: no case has any of the series "series.tps", "disk.series.write_kB_per_s"`},
		{"custom series", run, Series, Options{Series: []string{"applier.series.lag_s"}}, `"applier.series.lag_s"`},
		{"breakdown", sweep, Breakdown, Options{}, `plot: breakdown: no case has metric "commit_breakdown_ms"`},
		{"unknown kind", run, Kind("pie"), Options{}, `plot: --kind: unknown kind "pie" (allowed: bar, sweep, latency, series, breakdown)`},
		{"unknown case", run, Bar, Options{Cases: []string{"x"}}, `plot: --case: no case "x" (cases: innodb/trx=0,`},
		{"too big", run, Bar, Options{Width: 100000}, "plot: size 100000x0"},
		{"no cases", result.New("empty"), Bar, Options{}, "plot: the result has no cases"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Draw(tc.doc, tc.kind, tc.opt)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want it to contain %q", err, tc.want)
			}
		})
	}
}

// stripped returns a copy of d without the top-level metric key.
func stripped(d *result.Document, key string) *result.Document {
	out := *d
	out.Cases = make([]result.Case, len(d.Cases))
	for i, c := range d.Cases {
		m := result.Metrics{}
		for k, v := range c.Metrics {
			if k != key && k != key+result.CISuffix {
				m[k] = v
			}
		}
		c.Metrics = m
		out.Cases[i] = c
	}
	return &out
}

func TestPartialMetricsDegrade(t *testing.T) {
	d := plottest.Run()
	delete(d.Cases[1].Metrics, "tps")
	delete(d.Cases[2].Metrics, "series")
	delete(d.Cases[3].Metrics, "latency_ms")
	for _, k := range []Kind{Bar, Series, Latency, Breakdown} {
		if err := Render(io.Discard, d, k, PNG, Options{Width: 320, Height: 200}); err != nil {
			t.Errorf("%s with a case missing its metric: %v", k, err)
		}
	}
}

func TestCaseFilter(t *testing.T) {
	f, err := Draw(plottest.Run(), Series, Options{Cases: []string{"file/trx=1", "innodb/trx=1"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(f.panels) != 5 {
		t.Errorf("%d panels, want 5", len(f.panels))
	}
}

func TestKnee(t *testing.T) {
	for _, tc := range []struct {
		tps, lat []float64
		want     int
	}{
		{[]float64{100, 200, 390, 400, 400}, []float64{1, 1, 1.3, 2, 4}, 2},
		{[]float64{100, 200}, []float64{0, 0}, -1},
		{nil, nil, -1},
		{[]float64{10}, []float64{1}, 0},
	} {
		if got := Knee(tc.tps, tc.lat); got != tc.want {
			t.Errorf("Knee(%v, %v) = %d, want %d", tc.tps, tc.lat, got, tc.want)
		}
	}
}

func TestLabel(t *testing.T) {
	for in, want := range map[string]string{
		"tps":                        "TPS (transactions/s)",
		"latency_ms.p99":             "latency p99 (ms)",
		"disk.write_kB_per_s":        "disk write (kB/s)",
		"disk.util_pct":              "disk util (%)",
		"series.checkpoint_age_MB":   "series checkpoint age (MB)",
		"commit_breakdown_ms.redo":   "commit breakdown redo (ms)",
		"applier.lag_s":              "applier lag (s)",
		"fsyncs":                     "fsyncs",
		"disk.series.writes_per_s":   "disk series writes (/s)",
		"redo_bytes":                 "redo (bytes)",
		"erlang_c.wait_probability":  "erlang c wait probability",
		"throughput_per_s":           "throughput (/s)",
		"workload.demo.servers":      "workload demo servers",
		"queue_len_avg":              "queue len avg",
		"binlog_fsync_ms":            "binlog fsync (ms)",
		"applier.tps":                "applier TPS (transactions/s)",
		"disk.series.interval_s":     "disk series interval (s)",
		"disk.write_bytes_by_source": "disk write bytes by source",
	} {
		if got := Label(in); got != want {
			t.Errorf("Label(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestNiceTicks(t *testing.T) {
	var labels []string
	for _, tk := range (niceTicks{}).Ticks(0, 8500) {
		if tk.Label != "" {
			labels = append(labels, tk.Label)
		}
	}
	if d := cmp.Diff([]string{"0", "2000", "4000", "6000", "8000"}, labels); d != "" {
		t.Errorf("ticks (-want +got):\n%s", d)
	}
	labels = nil
	for _, tk := range (niceTicks{}).Ticks(0, 1.3) {
		if tk.Label != "" {
			labels = append(labels, tk.Label)
		}
	}
	if d := cmp.Diff([]string{"0.00", "0.25", "0.50", "0.75", "1.00", "1.25"}, labels); d != "" {
		t.Errorf("ticks (-want +got):\n%s", d)
	}
}

func TestFormatOfAndParseKind(t *testing.T) {
	if f, err := FormatOf("a/b/out.SVG"); err != nil || f != SVG {
		t.Errorf("FormatOf svg = %v %v", f, err)
	}
	if _, err := FormatOf("out.jpg"); err == nil || !strings.Contains(err.Error(), "allowed: .png, .svg") {
		t.Errorf("FormatOf jpg: %v", err)
	}
	for _, k := range Kinds() {
		if got, err := ParseKind(string(k)); err != nil || got != k {
			t.Errorf("ParseKind(%s) = %v %v", k, got, err)
		}
	}
}

func TestBreakdownLabels(t *testing.T) {
	for _, tc := range []struct{ block, head, ylabel string }{
		{"commit_breakdown_ms", "where commit time goes", "commit latency by stage (ms)"},
		{"pages_written_per_tx", "pages written by source", "pages written per transaction"},
		{"write_bytes_per_tx", "write bytes by source", "write bytes per transaction"},
	} {
		h, y := breakdownLabels(tc.block)
		if h != tc.head || y != tc.ylabel {
			t.Errorf("%s: %q, %q; want %q, %q", tc.block, h, y, tc.head, tc.ylabel)
		}
	}
}

// TestPartialTitle: a chart of a result that is not whole says so at the
// end of its title, whatever the kind, even under a --title.
func TestPartialTitle(t *testing.T) {
	for _, tc := range []struct {
		reason  string
		partial bool
		shard   *result.Shard
		title   string
		want    string // the bar chart's title
	}{
		{"whole", false, nil, "", "threads-sweep: TPS per case"},
		{"interrupted", true, nil, "", "threads-sweep: TPS per case (partial: interrupted)"},
		{"a shard", false, &result.Shard{Index: 1, Count: 4}, "", "threads-sweep: TPS per case (partial: shard 1/4)"},
		{"an interrupted shard", true, &result.Shard{Index: 0, Count: 2}, "", "threads-sweep: TPS per case (partial: shard 0/2, interrupted)"},
		{"a --title", true, nil, "My run", "My run (partial: interrupted)"},
	} {
		d := plottest.Sweep()
		d.Partial, d.Shard = tc.partial, tc.shard
		note := PartialNote(d)
		for _, k := range []Kind{Bar, Sweep, Latency} {
			f, err := Draw(d, k, Options{Title: tc.title})
			if err != nil {
				t.Fatal(err)
			}
			got := f.Data()[0].Title
			if k == Bar {
				if diff := cmp.Diff(tc.want, got); diff != "" {
					t.Errorf("%s: bar title (-want +got):\n%s", tc.reason, diff)
				}
				continue
			}
			if marked := strings.Contains(got, "(partial"); marked != (note != "") || !strings.HasSuffix(got, note) {
				t.Errorf("%s: %s title %q, want it to end with %q", tc.reason, k, got, note)
			}
		}
	}
}
