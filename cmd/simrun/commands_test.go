package main

import (
	"encoding/json"
	"fmt"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"simrun/internal/result"
	"simrun/internal/trace"
	"simrun/scenarios"
)

// TestTraceCommand: simrun trace writes Trace Event JSON whose events all
// carry the fields the format requires, with device I/Os inside the window.
func TestTraceCommand(t *testing.T) {
	out := filepath.Join(t.TempDir(), "trace.json")
	_, stderr, code := simrun(t, "trace", "disk/fio-network-caps", "--case", "4k-qd1-fsync",
		"--duration", "2s", "--window", "1.5s:1.52s", "-o", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		TraceEvents []map[string]any `json:"traceEvents"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatalf("trace is not JSON: %v", err)
	}
	spans := 0
	for _, ev := range doc.TraceEvents {
		for _, k := range []string{"name", "ph", "ts", "pid", "tid"} {
			if _, ok := ev[k]; !ok {
				t.Fatalf("event %v lacks %q", ev, k)
			}
		}
		if ev["ph"] == "X" {
			spans++
			ts := ev["ts"].(float64)
			if ts < 1.5e6 || ts > 1.52e6 {
				t.Errorf("span at %vus outside the window", ts)
			}
		}
	}
	if spans < 10 {
		t.Fatalf("only %d spans in a 20 ms window of a QD1 write+fsync job", spans)
	}
	if err := trace.Validate(b); err != nil {
		t.Errorf("fio trace breaks Perfetto's rules: %v", err)
	}
	// A window past the end of the run is refused, naming the limit.
	_, stderr, code = simrun(t, "trace", "disk/fio-network-caps", "--case", "4k-qd1",
		"--duration", "2s", "--window", "5s:5.1s")
	if code != 2 || !strings.Contains(stderr, "after the run ends") {
		t.Fatalf("window past the end: exit %d, %q", code, stderr)
	}
}

// TestPlotAndExportCommands: a chart decodes at the requested size and the
// CSV export is tidy, from a scenario run on the fly.
func TestPlotAndExportCommands(t *testing.T) {
	dir := t.TempDir()
	png1 := filepath.Join(dir, "bar.png")
	_, stderr, code := simrun(t, "plot", "disk/fio-network-caps", "--duration", "1s",
		"--kind", "bar", "--metric", "disk.writes_per_s", "--width", "640", "--height", "400", "-o", png1)
	if code != 0 {
		t.Fatalf("plot: exit %d: %s", code, stderr)
	}
	fh, err := os.Open(png1)
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(fh)
	fh.Close()
	if err != nil {
		t.Fatalf("plot wrote no PNG: %v", err)
	}
	if b := img.Bounds(); b.Dx() != 640 || b.Dy() != 400 {
		t.Fatalf("PNG is %dx%d, want 640x400", b.Dx(), b.Dy())
	}
	csv := filepath.Join(dir, "r.csv")
	if _, stderr, code := simrun(t, "export", "disk/fio-network-caps", "--duration", "1s", "--format", "csv", "-o", csv); code != 0 {
		t.Fatalf("export: exit %d: %s", code, stderr)
	}
	b, _ := os.ReadFile(csv)
	if !strings.HasPrefix(string(b), "case,metric,value,ci95\n") || !strings.Contains(string(b), "4k-qd16,disk.writes_per_s,") {
		t.Fatalf("tidy CSV:\n%.300s", b)
	}
}

// TestCalibrateCommand: a real fio result becomes a volume preset that
// names its caps.
func TestCalibrateCommand(t *testing.T) {
	out := filepath.Join(t.TempDir(), "vol.toml")
	if _, stderr, code := simrun(t, "calibrate", "../../model/fio/testdata/fio-2jobs.json", "-o", out); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	b, _ := os.ReadFile(out)
	for _, want := range []string{"[volume]", `name = "vol"`, "iops_max = ", "flush_latency = "} {
		if !strings.Contains(string(b), want) {
			t.Errorf("preset lacks %q", want)
		}
	}
}

// TestCalibrateFioNoteAndWarnings: fio 3.33's "note:" line ahead of the
// JSON (a psync job given iodepth=4, saved with > as the help says) is
// skipped; the job was buffered, which stderr says as well as the preset,
// and psync's iodepth=4 gets no queueing warning. A file with no JSON
// object at all is refused with exit 2.
func TestCalibrateFioNoteAndWarnings(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "vol.toml")
	_, stderr, code := simrun(t, "calibrate", "../../model/fio/testdata/fio-psync-qd4-buffered.json", "-o", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if want := `simrun: calibrate: iops_max, bandwidth_max and write_latency: WARNING: job "n" ran buffered`; !strings.Contains(stderr, want) {
		t.Errorf("stderr lacks %q:\n%s", want, stderr)
	}
	b, _ := os.ReadFile(out)
	if strings.Contains(stderr+string(b), "includes queueing") {
		t.Errorf("a psync job warned of queueing:\n%s%s", stderr, b)
	}
	if !strings.Contains(string(b), "#   fio said: note: both iodepth >= 1") {
		t.Errorf("preset does not keep fio's note:\n%s", b)
	}
	junk := filepath.Join(dir, "junk.json")
	os.WriteFile(junk, []byte("fio: no such file\n"), 0o644)
	if _, stderr, code := simrun(t, "calibrate", junk); code != 2 || !strings.Contains(stderr, "no JSON object in the file") {
		t.Errorf("junk: exit %d: %s", code, stderr)
	}
}

// TestCalibrateHarnessKeptFio: with --harness and no fio JSON the volume
// comes from the fio run the harness document carries (harness.py --fio);
// a document without one is refused with exit 2, naming the option.
func TestCalibrateHarnessKeptFio(t *testing.T) {
	dir := t.TempDir()
	raw, err := os.ReadFile("../../docs/data/realdb/matrix-2vcpu-10x100k-quiet.json")
	if err != nil {
		t.Fatal(err)
	}
	fioJSON, err := os.ReadFile("../../docs/data/realdb/fio-2vcpu-quiet.json")
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	bare := filepath.Join(dir, "bare.json")
	if err := os.WriteFile(bare, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, stderr, code := simrun(t, "calibrate", "--harness", bare, "-o", filepath.Join(dir, "no")); code != 2 || !strings.Contains(stderr, "--fio") {
		t.Errorf("no fio anywhere: exit %d, stderr %q; want 2 naming --fio", code, stderr)
	}
	doc["fio"] = fioJSON
	b, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	kept := filepath.Join(dir, "kept.json")
	if err := os.WriteFile(kept, b, 0o644); err != nil {
		t.Fatal(err)
	}
	withKept, withGiven := filepath.Join(dir, "kept"), filepath.Join(dir, "given")
	if _, stderr, code := simrun(t, "calibrate", "--harness", kept, "-o", withKept, "--name", "x"); code != 0 {
		t.Fatalf("kept fio: exit %d: %s", code, stderr)
	}
	if _, stderr, code := simrun(t, "calibrate", "../../docs/data/realdb/fio-2vcpu-quiet.json", "--harness", bare, "-o", withGiven, "--name", "x"); code != 0 {
		t.Fatalf("given fio: exit %d: %s", code, stderr)
	}
	// The presets' comments name where each value came from: all else is equal.
	settings := func(path string) string {
		b, _ := os.ReadFile(path)
		var keep []string
		for _, l := range strings.Split(string(b), "\n") {
			if !strings.HasPrefix(l, "#") {
				keep = append(keep, l)
			}
		}
		return strings.Join(keep, "\n")
	}
	for _, f := range []string{"volume.toml", "engine.toml", "commit.toml"} {
		a, g := settings(filepath.Join(withKept, f)), settings(filepath.Join(withGiven, f))
		if !strings.Contains(a, "[") || a != g {
			t.Errorf("%s from the kept fio run differs from the given one's:\n%s\n---\n%s", f, a, g)
		}
	}
}

// TestTraceEveryWorkload: a sysbench, a demo and a fio trace pass the
// Trace Event rules Perfetto applies and hold slices (and, for sysbench,
// flow arrows); a workload that records nothing is refused with exit 2
// rather than answered with an empty trace.
func TestTraceEveryWorkload(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		args  []string
		flows bool
	}{
		{[]string{"binlog/innodb-vs-file-120mbs", "--case", "Case8", "--duration", "1s", "--window", "0.5s:0.52s"}, true},
		{[]string{"demo/mmc", "--case", "mm4", "--duration", "1s", "--window", "0.5s:0.51s"}, false},
	}
	for i, tt := range tests {
		out := filepath.Join(dir, fmt.Sprintf("t%d.json", i))
		if _, stderr, code := simrun(t, append(append([]string{"trace"}, tt.args...), "-o", out)...); code != 0 {
			t.Fatalf("trace %v: exit %d: %s", tt.args, code, stderr)
		}
		b, _ := os.ReadFile(out)
		if err := trace.Validate(b); err != nil {
			t.Errorf("trace %v breaks Perfetto's rules: %v", tt.args, err)
		}
		if n := strings.Count(string(b), `"ph":"X"`); n < 10 {
			t.Errorf("trace %v: %d slices", tt.args, n)
		}
		if tt.flows && !strings.Contains(string(b), `"ph":"f"`) {
			t.Errorf("trace %v: no flow arrows", tt.args)
		}
	}
	repl, err := scenarios.Load("replication/csa-vs-mta")
	if err != nil {
		t.Fatal(err)
	}
	_, stderr, code := simrun(t, "trace", "replication/csa-vs-mta", "--case", repl.Cases[0].Name, "--duration", "1s", "--window", "0.5s:0.51s")
	if code != 2 || !strings.Contains(stderr, "records no trace") {
		t.Errorf("replication trace: exit %d, %q; want exit 2 and a refusal", code, stderr)
	}
	_, stderr, code = simrun(t, "trace", "demo/mmc", "--case", "mm44", "--duration", "1s", "--window", "0.5s:0.51s")
	if code != 2 || !strings.Contains(stderr, "did you mean mm4?") {
		t.Errorf("misspelt case: exit %d, %q", code, stderr)
	}
}

// TestPlotEveryWorkload: a fio, a demo, a replication and a sysbench result
// each plot without --metric; --metric picks another metric; a chart the
// result cannot draw names --metric and the kinds it can.
func TestPlotEveryWorkload(t *testing.T) {
	dir := t.TempDir()
	repl, err := scenarios.Load("replication/csa-vs-mta")
	if err != nil {
		t.Fatal(err)
	}
	inputs := map[string][]string{
		"fio":         {"disk/fio-network-caps", "--case", "4k-qd1"},
		"demo":        {"demo/mmc", "--case", "mm4"},
		"replication": {"replication/csa-vs-mta", "--case", repl.Cases[0].Name},
		"sysbench":    {"binlog/quick", "--case", "Case1", "--case", "Case2"},
	}
	for name, in := range inputs {
		res := filepath.Join(dir, name+".json")
		if _, stderr, code := simrun(t, append(append([]string{"run"}, in...), "--duration", "1s", "-o", res)...); code != 0 {
			t.Fatalf("%s: run: exit %d: %s", name, code, stderr)
		}
		for _, args := range [][]string{{"--kind", "bar"}, {"--kind", "bar", "--metric", "latency_ms.p99"}} {
			if name == "fio" && len(args) > 2 {
				args[3] = "write.clat_ms.p99"
			}
			if name == "replication" && len(args) > 2 {
				args[3] = "applier.cpu_util_pct"
			}
			png := filepath.Join(dir, name+".png")
			if _, stderr, code := simrun(t, append([]string{"plot", res, "-o", png}, args...)...); code != 0 {
				t.Errorf("%s: plot %v: exit %d: %s", name, args, code, stderr)
			}
		}
	}
	for name, kind := range map[string]string{"fio": "latency", "demo": "latency", "sysbench": "breakdown", "replication": "series"} {
		res := filepath.Join(dir, name+".json")
		if _, stderr, code := simrun(t, "plot", res, "--kind", kind, "-o", filepath.Join(dir, "k.png")); code != 0 {
			t.Errorf("%s: plot --kind %s: exit %d: %s", name, kind, code, stderr)
		}
	}
	_, stderr, code := simrun(t, "plot", filepath.Join(dir, "demo.json"), "--kind", "bar", "--metric", "tpss", "-o", filepath.Join(dir, "x.png"))
	if code != 2 || !strings.Contains(stderr, "choose one with --metric, e.g. throughput_per_s") {
		t.Errorf("bad --metric: exit %d: %s", code, stderr)
	}
	_, stderr, code = simrun(t, "plot", filepath.Join(dir, "demo.json"), "--kind", "breakdown", "-o", filepath.Join(dir, "x.png"))
	if code != 2 || !strings.Contains(stderr, "kinds this result draws without --metric: bar, latency") {
		t.Errorf("breakdown of demo: exit %d: %s", code, stderr)
	}
}

// TestFioResultExplainsDeviceIOs: the fio result names its job and says
// how many device I/Os each job I/O becomes, which is why a 1 MiB job's
// write.iops is a quarter of disk.writes_per_s on a 256 KiB max_io_size.
func TestFioResultExplainsDeviceIOs(t *testing.T) {
	out, errOut, code := simrun(t, "run", "disk/fio-network-caps", "--case", "1m-seqwrite", "--duration", "1s", "--format", "json")
	if code != 0 {
		t.Fatal(errOut)
	}
	doc, err := result.Decode(strings.NewReader(out))
	if err != nil {
		t.Fatal(err)
	}
	m := doc.Cases[0].Metrics
	name, _ := m.Lookup("jobname")
	split, _ := m.Lookup("device_ios_per_io")
	iops, _ := m.Lookup("write.iops")
	dev, _ := m.Lookup("disk.writes_per_s")
	s, _ := result.Float(split)
	w, _ := result.Float(iops)
	d, _ := result.Float(dev)
	if name == "" || s != 4 || w <= 0 || d < s*w || d > 1.1*s*w {
		t.Errorf("jobname %v, device_ios_per_io %v, write.iops %v, disk.writes_per_s %v: want the device count ≈ split × job IOPS", name, split, iops, dev)
	}
}

// TestCalibrateProbeFlags: --irq-probe and --kblockd-probe put their
// probe's median into machine.toml; without --harness, unreadable or not
// a probe's output, they are bad input (exit 2) naming the flag.
func TestCalibrateProbeFlags(t *testing.T) {
	dir := t.TempDir()
	harness := "../../docs/data/realdb/crowd-fc2vcpu-s30-10x1M-bp4G-redo2G.json"
	kb := "../../docs/data/realdb/kblockd-fc2vcpu-s30.jsonl"
	out := filepath.Join(dir, "cal")
	if _, stderr, code := simrun(t, "calibrate", "--harness", harness, "--kblockd-probe", kb, "-o", out); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if m, _ := os.ReadFile(filepath.Join(out, "machine.toml")); !strings.Contains(string(m), `flush_dispatch = "20.18us"`) {
		t.Errorf("machine.toml has no flush_dispatch from the probe:\n%s", m)
	}
	junk := filepath.Join(dir, "junk.jsonl")
	if err := os.WriteFile(junk, []byte("not json\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"calibrate", "../../model/fio/testdata/fio-2jobs.json", "--kblockd-probe", kb}, "--kblockd-probe needs --harness"},
		{[]string{"calibrate", "../../model/fio/testdata/fio-2jobs.json", "--irq-probe", kb}, "--irq-probe needs --harness"},
		{[]string{"calibrate", "--harness", harness, "--kblockd-probe", filepath.Join(dir, "missing"), "-o", out}, "--kblockd-probe"},
		{[]string{"calibrate", "--harness", harness, "--kblockd-probe", junk, "-o", out}, "kblockd probe"},
	} {
		if _, stderr, code := simrun(t, tc.args...); code != 2 || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 naming %q", tc.args, code, stderr, tc.want)
		}
	}
}
