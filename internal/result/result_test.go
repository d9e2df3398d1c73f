package result

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func sample() *Document {
	d := New("demo")
	d.Description = "an example"
	d.Seed = 42
	d.Duration = 10
	d.Warmup = 1
	d.Cases = []Case{
		{Name: "a", Metrics: Metrics{
			"tps":        2543.123456789123,
			"fsyncs":     int64(120),
			"latency_ms": Metrics{"avg": 1.25, "p99": 7.0, "max": math.Inf(1)},
			"series":     []float64{1, 2.5, 3},
			"mode":       "group",
			"tiny":       1.234567890123e-9,
			"big":        1.5e22,
			"neg0":       math.Copysign(0, -1),
		}},
		{Name: "b", Metrics: Metrics{"tps": 10, "latency_ms": map[string]any{"avg": 0.5}}},
	}
	return d
}

func TestEncodeDeterministicAndFixedPoint(t *testing.T) {
	b1, err := Marshal(sample())
	if err != nil {
		t.Fatal(err)
	}
	b2, _ := Marshal(sample())
	if !bytes.Equal(b1, b2) {
		t.Fatalf("two encodings differ")
	}
	for _, want := range []string{
		`"schema": "simrun.result/v1"`,
		`"tps": 2543.12346`,
		`"max": null`,
		`"fsyncs": 120`,
		`"p99": 7`,
		`"tiny": 1.23456789e-09`,
		`"big": 1.5e+22`,
		`"neg0": 0`,
	} {
		if !bytes.Contains(b1, []byte(want)) {
			t.Errorf("encoding lacks %s:\n%s", want, b1)
		}
	}
	d, err := Decode(bytes.NewReader(b1))
	if err != nil {
		t.Fatal(err)
	}
	b3, err := Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(b1, b3) {
		t.Errorf("Encode(Decode(x)) != x:\n%s\n---\n%s", b1, b3)
	}
	if v, _ := d.Cases[0].Metrics.Lookup("fsyncs"); v != int64(120) {
		t.Errorf("fsyncs decoded as %T %v", v, v)
	}
}

func TestFormatNumberIdempotent(t *testing.T) {
	for _, f := range []float64{1.0 / 3, 2.0 / 3 * 1e7, 123456789.123, 1e-7 / 3, 0.1 + 0.2, 99999.99999999} {
		s := formatFloat(f)
		var g float64
		if _, err := fmtSscan(s, &g); err != nil {
			t.Fatal(err)
		}
		if s2 := formatFloat(g); s2 != s {
			t.Errorf("%v: %s then %s", f, s, s2)
		}
	}
}

func TestAggregate(t *testing.T) {
	reps := []Metrics{
		{"tps": 10.0, "n": int64(1), "lat": Metrics{"p99": 1.0}, "s": []float64{1, 2}, "mode": "x"},
		{"tps": 12.0, "n": int64(3), "lat": Metrics{"p99": 3.0}, "s": []float64{3, 4, 5}, "mode": "x"},
		{"tps": 14.0, "n": int64(5), "lat": Metrics{"p99": 5.0}, "s": []float64{5, 6}, "mode": "x"},
	}
	got := Aggregate(reps)
	// mean 12, sd 2, t(0.975, 2) = 4.302652729911275
	h := 4.302652729911275 * 2 / math.Sqrt(3)
	want := Metrics{
		"tps": 12.0, "tps_ci95": h,
		"n": 3.0, "n_ci95": h,
		"lat":  Metrics{"p99": 3.0, "p99_ci95": h + 3.0/127}, // + the histogram's bucket
		"s":    []float64{3, 4},
		"mode": "x",
	}
	if d := cmp.Diff(want, got, cmp.Comparer(func(a, b float64) bool { return math.Abs(a-b) < 1e-9 })); d != "" {
		t.Errorf("Aggregate mismatch (-want +got):\n%s", d)
	}
	// Replications in one bucket: the interval is the bucket, not zero.
	same := Aggregate([]Metrics{{"lat": Metrics{"p99": 12.7}}, {"lat": Metrics{"p99": 12.7}}})
	if got := same["lat"].(Metrics)["p99_ci95"]; math.Abs(got.(float64)-0.1) > 1e-12 {
		t.Errorf("p99_ci95 of two equal quantiles = %v, want their bucket's 0.1", got)
	}
	if one := Aggregate(reps[:1]); one["tps"] != 10.0 {
		t.Errorf("one replication must pass through")
	}
}

func TestCSVAndTables(t *testing.T) {
	d := New("s")
	d.Sweep = []Axis{{Key: "workload.demo.servers", Values: []any{int64(2), int64(4)}}}
	d.Cases = []Case{
		{Name: "base", Point: map[string]any{"workload.demo.servers": int64(2)}, Metrics: Metrics{"zeta": 1.0, "tps": 5.5, "latency_ms": Metrics{"p99": 2.0, "avg": 1.0}}},
		{Name: "base", Point: map[string]any{"workload.demo.servers": int64(4)}, Metrics: Metrics{"zeta": 2.0, "tps": 9.25, "latency_ms": Metrics{"p99": 1.0, "avg": 0.5}}},
	}
	var buf bytes.Buffer
	if err := WriteCSV(&buf, d); err != nil {
		t.Fatal(err)
	}
	want := "case,workload.demo.servers,tps,latency_ms.avg,latency_ms.p99,zeta\n" +
		"base,2,5.5,1,2,1\n" +
		"base,4,9.25,0.5,1,2\n"
	if buf.String() != want {
		t.Errorf("CSV:\n%s\nwant:\n%s", buf.String(), want)
	}
	mt := MetricTable(d)
	if got := strings.Join(mt.Header, "|"); got != "metric|base servers=2|base servers=4" {
		t.Errorf("metric table header %q", got)
	}
	rt := RowTable(d, []string{"tps", "latency_ms"})
	if got := strings.Join(rt.Header, "|"); got != "case|workload.demo.servers|tps|latency_ms.avg|latency_ms.p99" {
		t.Errorf("row table header %q", got)
	}
	agg := Aggregate([]Metrics{{"tps": 1.0}, {"tps": 3.0}})
	if c := cell(agg, "tps"); !strings.HasPrefix(c, "2 ± 12.7") {
		t.Errorf("cell with CI = %q", c)
	}
}

func TestMerge(t *testing.T) {
	whole := New("s")
	whole.Seed = 7
	whole.Sweep = []Axis{{Key: "k", Values: []any{int64(1), int64(2), int64(3), int64(4), int64(5)}}}
	for i := 0; i < 5; i++ {
		whole.Cases = append(whole.Cases, Case{Name: "c", Point: map[string]any{"k": int64(i + 1)}, Metrics: Metrics{"x": float64(i) / 3}})
	}
	wantBytes, _ := Marshal(whole)

	var parts []*Document
	for i := 2; i >= 0; i-- { // out of order on purpose
		p := *whole
		p.Cases = nil
		rows := ShardRows(i, 3, 5)
		for _, r := range rows {
			p.Cases = append(p.Cases, whole.Cases[r])
		}
		p.Shard = &Shard{Index: i, Count: 3, Total: 5, Rows: rows}
		// Round-trip through JSON, as merge does with files.
		b, _ := Marshal(&p)
		dp, err := Decode(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		parts = append(parts, dp)
	}
	m, err := Merge(parts)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := Marshal(m)
	if !bytes.Equal(got, wantBytes) {
		t.Errorf("merged differs from whole:\n%s\n---\n%s", got, wantBytes)
	}

	if _, err := Merge(parts[:2]); err == nil || !strings.Contains(err.Error(), "missing shard(s) 0 of 3") {
		t.Errorf("missing shard: %v", err)
	}
	if _, err := Merge([]*Document{parts[0], parts[0]}); err == nil || !strings.Contains(err.Error(), "given twice") {
		t.Errorf("duplicate shard: %v", err)
	}
	other := *parts[1]
	other.Seed = 8
	if _, err := Merge([]*Document{parts[0], &other, parts[2]}); err == nil || !strings.Contains(err.Error(), "different run") {
		t.Errorf("different run: %v", err)
	}
	if _, err := Merge([]*Document{whole}); err == nil || !strings.Contains(err.Error(), "not a shard") {
		t.Errorf("not a shard: %v", err)
	}
}

func TestDecodeRejectsOtherSchema(t *testing.T) {
	if _, err := Decode(strings.NewReader(`{"schema":"simrun.result/v2","cases":[]}`)); err == nil {
		t.Errorf("want schema error")
	}
	if _, err := Decode(strings.NewReader(`not json`)); err == nil {
		t.Errorf("want syntax error")
	}
}

func fmtSscan(s string, f *float64) (int, error) { return fmt.Sscan(s, f) }

func TestOrderPaths(t *testing.T) {
	p := []string{"zeta_b", "zeta_ci95", "zeta", "latency_ms.p99", "latency_ms.avg_ci95", "latency_ms.avg", "tps_ci95", "tps", "alpha"}
	OrderPaths(p)
	want := "tps tps_ci95 latency_ms.avg latency_ms.avg_ci95 latency_ms.p99 alpha zeta zeta_ci95 zeta_b"
	if got := strings.Join(p, " "); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

func TestResolution(t *testing.T) {
	for _, tt := range []struct {
		path string
		want float64
	}{
		{"latency_ms.p99", 1.27 / 127},
		{"p50", 1.27 / 127},
		{"checkpoint_age_MB.p999", 1.27 / 127},
		{"tps", 0},
		{"latency_ms.avg", 0},
		{"latency_ms.max", 0},
		{"pages_flushed_per_s", 0},
		{"p", 0},
		{"p9x", 0},
	} {
		if got := Resolution(tt.path, 1.27); math.Abs(got-tt.want) > 1e-15 {
			t.Errorf("Resolution(%q, 1.27) = %v, want %v", tt.path, got, tt.want)
		}
	}
}

func TestFormatUnit(t *testing.T) {
	for _, tt := range []struct {
		x    float64
		unit string
		want string
	}{
		{40e6, "bytes/s", "40MB/s"},
		{120e6, "bytes/s", "120MB/s"},
		{1 << 30, "bytes", "1GiB"},
		{4 << 30, "bytes", "4GiB"},
		{128 << 20, "bytes", "128MiB"},
		{1.5 * (1 << 30), "bytes", "1.5GiB"},
		{2e9, "bytes", "2GB"},
		{16384, "bytes", "16KiB"},
		{1234567, "bytes", "1.235MB"}, // neither exact: decimal, rounded
		{0.005, "s", "5ms"},
		{7, "", "7"},
	} {
		if got := FormatUnit(tt.x, tt.unit); got != tt.want {
			t.Errorf("FormatUnit(%v, %q) = %q, want %q", tt.x, tt.unit, got, tt.want)
		}
	}
}

// TestFormatPoint: a swept value reads as people give it: a number in its
// axis's unit, an inline table or array as TOML text (keys sorted, the
// project's { key = value } style), a plain value as it is.
func TestFormatPoint(t *testing.T) {
	for _, tt := range []struct {
		name string
		v    any
		unit string
		want string
	}{
		{"rate as reported", int64(40000000), "bytes/s", "40MB/s"},
		{"rate after a JSON round trip", json.Number("400000000"), "bytes/s", "400MB/s"},
		{"size", int64(1 << 30), "bytes", "1GiB"},
		{"duration in seconds", 0.0015, "s", "1.5ms"},
		{"plain number", int64(40000000), "", "40000000"},
		{"plain float", 2.5, "", "2.5"},
		{"string given for a numeric key", "1ms", "s", "1ms"},
		{"string", "lognormal", "", "lognormal"},
		{"bool", true, "", "true"},
		{"inline table", map[string]any{"mean": "1ms", "dist": "exponential"}, "", `{ dist = "exponential", mean = "1ms" }`},
		{"inline table after a JSON round trip", Metrics{"p99": "8ms", "median": "490us", "dist": "lognormal"}, "", `{ dist = "lognormal", median = "490us", p99 = "8ms" }`},
		{"nested table and array", map[string]any{"dist": "empirical", "quantiles": []any{[]any{0.5, "1ms"}, []any{0.99, "3ms"}}}, "", `{ dist = "empirical", quantiles = [[0.5, "1ms"], [0.99, "3ms"]] }`},
		{"numbers in a table stay TOML", map[string]any{"a": int64(1), "b": 1.0, "c": math.Inf(1)}, "", `{ a = 1, b = 1.0, c = inf }`},
		{"keys and strings that need quoting", map[string]any{"a b": "say \"hi\"\n", "": `c:\`}, "", `{ "" = "c:\\", "a b" = "say \"hi\"\n" }`},
		{"empty table", map[string]any{}, "", "{}"},
		{"array", []any{int64(1), int64(2)}, "", "[1, 2]"},
		{"numeric array after a JSON round trip", []int64{1, 2}, "", "[1, 2]"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := FormatPoint(tt.v, tt.unit); got != tt.want {
				t.Errorf("FormatPoint(%#v, %q) = %s, want %s", tt.v, tt.unit, got, tt.want)
			}
			if got := (Axis{Key: "k", Unit: tt.unit}).Format(tt.v); got != tt.want {
				t.Errorf("Axis.Format = %s, want %s", got, tt.want)
			}
		})
	}
}

// TestFormatPointIsTOML: an inline table or array printed by FormatPoint
// reads back as the same TOML value, and prints the same every time.
func TestFormatPointIsTOML(t *testing.T) {
	for _, v := range []any{
		map[string]any{"dist": "exponential", "mean": "1ms"},
		map[string]any{"dist": "empirical", "quantiles": []any{[]any{0.5, "1ms"}, []any{0.99, "3ms"}}},
		map[string]any{"a b": "tab\there \u00e9 \x01", "n": int64(-3), "f": 1e-7, "g": 1e21, "t": false, "inner": map[string]any{"z": int64(1), "y": []any{}}},
		[]any{"x", int64(1), 2.5},
	} {
		s := FormatPoint(v, "")
		for i := 0; i < 20; i++ {
			if again := FormatPoint(v, ""); again != s {
				t.Fatalf("not deterministic: %s then %s", s, again)
			}
		}
		var m map[string]any
		if _, err := toml.Decode("v = "+s, &m); err != nil {
			t.Errorf("%s is not TOML: %v", s, err)
			continue
		}
		if d := cmp.Diff(v, m["v"]); d != "" {
			t.Errorf("%s reads back different (-printed +read):\n%s", s, d)
		}
	}
}

// TestSweepValuesInCSVAndLabels: the CSV keeps a swept rate numeric (the
// public contract); the labels people read carry its unit, and an inline
// table reads as TOML in both.
func TestSweepValuesInCSVAndLabels(t *testing.T) {
	d := New("s")
	dist := map[string]any{"dist": "exponential", "mean": "1ms"}
	d.Sweep = []Axis{
		{Key: "volume.bandwidth_max", Unit: "bytes/s", Values: []any{int64(40000000)}},
		{Key: "workload.demo.service", Values: []any{dist}},
	}
	d.Cases = []Case{{Name: "c", Point: map[string]any{"volume.bandwidth_max": int64(40000000), "workload.demo.service": dist}, Metrics: Metrics{"tps": 1.5}}}
	var buf bytes.Buffer
	if err := WriteCSV(&buf, d); err != nil {
		t.Fatal(err)
	}
	want := "case,volume.bandwidth_max,workload.demo.service,tps\n" +
		`c,40000000,"{ dist = ""exponential"", mean = ""1ms"" }",1.5` + "\n"
	if d := cmp.Diff(want, buf.String()); d != "" {
		t.Errorf("CSV (-want +got):\n%s", d)
	}
	wantHead := []string{"metric", `c bandwidth_max=40MB/s service={ dist = "exponential", mean = "1ms" }`}
	if d := cmp.Diff(wantHead, MetricTable(d).Header); d != "" {
		t.Errorf("metric table header (-want +got):\n%s", d)
	}
}

// TestFloatsOfDecodedSeries: a series whose every point is whole decodes
// as []int64, one with a fraction as []float64, one with a gap as []any;
// Floats reads each as the float64s the run made.
func TestFloatsOfDecodedSeries(t *testing.T) {
	doc := `{"schema":"simrun.result/v1","cases":[{"name":"a","metrics":{"whole":[7176,7160],"frac":[1.5,2],"gap":[1,null,3]}}]}`
	d, err := Decode(strings.NewReader(doc))
	if err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string][]float64{"whole": {7176, 7160}, "frac": {1.5, 2}, "gap": {1, math.NaN(), 3}} {
		v, _ := d.Cases[0].Metrics.Lookup(path)
		got, ok := Floats(v)
		if !ok || !cmp.Equal(got, want, cmpopts.EquateNaNs()) {
			t.Errorf("%s (%T): %v, want %v", path, v, got, want)
		}
	}
	if _, ok := Floats("text"); ok {
		t.Error("a string read as a series")
	}
}
