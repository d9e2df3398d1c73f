package main

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"simrun/internal/result"
)

// TestCLIConventions checks the conventions a person meets first: help on
// stdout, exit statuses, did-you-mean and refusals before any run.
func TestCLIConventions(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		args       []string
		code       int
		stdout     string // in stdout
		stderr     string // in stderr
		notInError string // never in stderr
	}{
		{args: []string{"run", "--help"}, code: 0, stdout: "Usage: simrun run"},
		{args: []string{"plot", "-h"}, code: 0, stdout: "Usage: simrun plot"},
		{args: []string{"help", "nosuch"}, code: 2, stderr: `no command "nosuch"`},
		{args: []string{"help", "trace"}, code: 0, stdout: "Usage: simrun trace"},
		{args: []string{"--version"}, code: 0, stdout: "simrun " + buildInfo.version + " (commit " + buildInfo.commit + ")"},
		{args: []string{"run", "demo/mcc"}, code: 2, stderr: "did you mean demo/mmc? (simrun list shows the built-in ones)"},
		{args: []string{"run", "nosuch"}, code: 2, stderr: "simrun list"},
		{args: []string{"run", "demo/mmc", "--case", "mm44"}, code: 2, stderr: `no case "mm44"; did you mean mm4?`},
		{args: []string{"run", "demo/mmc", "--workers", "-1"}, code: 2, stderr: "--workers must be >= 0"},
		{args: []string{"run", "demo/mmc", "-o", filepath.Join(dir, "nowhere", "x.json")}, code: 2, stderr: "does not exist"},
		{args: []string{"run", "demo/mmc", "-o", dir}, code: 2, stderr: "is a folder"},
		{args: []string{"trace", "demo/mmc", "--case", "mm4", "--window", "1s:1.1s", "-o", filepath.Join(dir, "no", "t.json")}, code: 2, stderr: "does not exist"},
		{args: []string{"plot", "demo/mmc", "-o", filepath.Join(dir, "no", "p.png")}, code: 2, stderr: "does not exist"},
		{args: []string{"export", "demo/mmc", "-o", filepath.Join(dir, "no", "n.ipynb")}, code: 2, stderr: "does not exist"},
		{args: []string{"validate", "demo/mcc"}, code: 2, stderr: "did you mean demo/mmc?"},
	}
	for _, tt := range tests {
		out, errOut, code := simrun(t, tt.args...)
		if code != tt.code || !strings.Contains(out, tt.stdout) || !strings.Contains(errOut, tt.stderr) {
			t.Errorf("simrun %s: exit %d\nstdout: %.300s\nstderr: %s\nwant exit %d, stdout %q, stderr %q",
				strings.Join(tt.args, " "), code, out, errOut, tt.code, tt.stdout, tt.stderr)
		}
		if strings.Contains(errOut, ".tmp-") {
			t.Errorf("simrun %s: temp-file name in %q", strings.Join(tt.args, " "), errOut)
		}
	}
}

// TestOutputFormatFromExtension: -o x.json writes JSON, -o x.csv CSV, unless
// --format says otherwise; the result records the simrun build.
func TestOutputFormatFromExtension(t *testing.T) {
	dir := t.TempDir()
	js, csv, tbl := filepath.Join(dir, "r.json"), filepath.Join(dir, "r.csv"), filepath.Join(dir, "r.json.txt")
	for _, args := range [][]string{
		{"-o", js}, {"-o", csv}, {"-o", tbl, "--format", "table"},
	} {
		if _, errOut, code := simrun(t, append([]string{"run", "demo/mmc", "--case", "mm4", "--duration", "1s"}, args...)...); code != 0 {
			t.Fatalf("exit %d: %s", code, errOut)
		}
	}
	b, _ := os.ReadFile(js)
	doc, err := result.Decode(strings.NewReader(string(b)))
	if err != nil {
		t.Fatalf("-o r.json is not JSON: %v", err)
	}
	if doc.SimrunVersion != buildInfo.version || doc.SimrunCommit != buildInfo.commit || doc.SimrunCommit == "" {
		t.Errorf("result records simrun %q commit %q, want %q %q", doc.SimrunVersion, doc.SimrunCommit, buildInfo.version, buildInfo.commit)
	}
	if b, _ := os.ReadFile(csv); !strings.HasPrefix(string(b), "case,") {
		t.Errorf("-o r.csv is not CSV:\n%.200s", b)
	}
	if b, _ := os.ReadFile(tbl); !strings.Contains(string(b), "demo-mmc") || strings.HasPrefix(string(b), "{") {
		t.Errorf("--format table -o r.json.txt:\n%.200s", b)
	}
}

func TestWriteErrorNamesTarget(t *testing.T) {
	err := writeAtomic(filepath.Join(t.TempDir(), "no", "x.json"), func(io.Writer) error { return nil })
	if err == nil || strings.Contains(err.Error(), ".tmp-") || !strings.Contains(err.Error(), "x.json") {
		t.Errorf("error %v: want the target's name and no temp file", err)
	}
}

// TestMergeNamesDifferingField: parts of two different runs are refused
// with the field that differs.
func TestMergeNamesDifferingField(t *testing.T) {
	dir := t.TempDir()
	base := []string{"sweep", "demo/mmc", "--case", "mm4", "--duration", "1s", "--set", "workload.demo.servers=4,5"}
	p0, p1 := filepath.Join(dir, "p0.json"), filepath.Join(dir, "p1.json")
	if _, e, code := simrun(t, append(base, "--shard", "0/2", "-o", p0)...); code != 0 {
		t.Fatal(e)
	}
	if _, e, code := simrun(t, append(base, "--shard", "1/2", "--seed", "9", "-o", p1)...); code != 0 {
		t.Fatal(e)
	}
	_, errOut, code := simrun(t, "merge", p0, p1)
	if code != 2 || !strings.Contains(errOut, "seed (42 vs 9) differs") {
		t.Errorf("merge exit %d: %s", code, errOut)
	}
}

// TestBareSizeOrRateRefused: bandwidth_max = 120 once ran at 120 B/s and
// exited 0; now it names file:line and the units allowed.
func TestBareSizeOrRateRefused(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "bare.toml")
	os.WriteFile(bad, []byte("name = \"b\"\n[workload]\nkind = \"fio\"\n[volume]\nbandwidth_max = 120\n"), 0o644)
	for _, cmd := range []string{"validate", "run"} {
		_, errOut, code := simrun(t, cmd, bad)
		want := bad + ":5: volume.bandwidth_max: bad rate 120: a rate needs a unit; allowed units: B/s, KiB/s, MiB/s"
		if code != 2 || !strings.Contains(errOut, want) {
			t.Errorf("%s: exit %d, %q; want exit 2 and %q", cmd, code, errOut, want)
		}
	}
}

// TestOutputToDeviceWritesInPlace: -o naming a pipe (or /dev/null) writes
// into it; renaming a temp file over it would replace the device with a
// regular file.
func TestOutputToDeviceWritesInPlace(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "pipe")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip("no named pipes here:", err)
	}
	got := make(chan []byte)
	go func() {
		b, _ := os.ReadFile(fifo)
		got <- b
	}()
	if _, errOut, code := simrun(t, "run", "demo/mmc", "--case", "mm4", "--duration", "1s", "--format", "csv", "-o", fifo); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if b := <-got; !strings.HasPrefix(string(b), "case,") {
		t.Errorf("pipe read %q", b)
	}
	if fi, err := os.Lstat(fifo); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("the pipe was replaced: %v %v", fi.Mode(), err)
	}
}

// TestPlausibleMetric: the pre-run probe refuses a path only when its
// block is absent; a key its block gains later in the run passes, and the
// run's own check decides it.
func TestPlausibleMetric(t *testing.T) {
	paths := []string{"tps", "latency_ms.p99", "disk.write_bytes_by_source.redo", "disk.util_pct"}
	for want, ok := range map[string]bool{
		"tps": true, "latency_ms": true, "latency_ms.p999": false, "disk.write_bytes_by_source.fs_journal": true,
		"disk.nosuch": false, "tpx": false, "applier.tps": false,
	} {
		if got := plausible(want, paths); got != ok {
			t.Errorf("plausible(%q) = %v, want %v", want, got, ok)
		}
	}
	// The journal's bytes appear only once the journal commits: the probe
	// lacks them, the run has them.
	out, errOut, code := simrun(t, "run", "binlog/quick", "--case", "Case1", "--duration", "2s", "--metrics", "tps,disk.write_bytes_by_source.fs_journal")
	if code != 0 || !strings.Contains(out, "fs journal") {
		t.Errorf("exit %d, %s\n%s", code, errOut, out)
	}
}
