package main

import (
	"encoding/json"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
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
