package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"simrun/internal/result"
)

// TestMain lets the tests run the test binary as simrun itself (for
// GOMAXPROCS and exit-status checks in a fresh process).
func TestMain(m *testing.M) {
	if os.Getenv("SIMRUN_TEST_AS_MAIN") == "1" {
		os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

func simrun(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var o, e bytes.Buffer
	code = run(args, &o, &e)
	return o.String(), e.String(), code
}

// subprocess runs simrun in a child process with extra environment.
func subprocess(t *testing.T, env []string, args ...string) (stdout []byte, code int) {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(append(os.Environ(), "SIMRUN_TEST_AS_MAIN=1"), env...)
	var errb bytes.Buffer
	cmd.Stderr = &errb
	out, err := cmd.Output()
	if ee, ok := err.(*exec.ExitError); ok {
		return out, ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return out, 0
}

const short = "--duration=3s"

func TestRunDefaultTable(t *testing.T) {
	out, errOut, code := simrun(t, "run", short)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	// The default is the binlog study's quick look: nine cases, TPS first.
	for _, want := range []string{"binlog-quick", "Case1", "Case9", "tps", "latency p99 ms", "more columns", "Case4 = binlog_storage_engine=file"} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "\x1b[") {
		t.Errorf("colour codes in non-terminal output")
	}
}

func TestRunJSONAndCSV(t *testing.T) {
	out, errOut, code := simrun(t, "run", "demo/mmc", "--case", "mm4", short, "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	doc, err := result.Decode(strings.NewReader(out))
	if err != nil {
		t.Fatal(err)
	}
	if doc.Schema != "simrun.result/v1" || doc.Seed != 42 || doc.Duration != 3 || len(doc.Cases) != 1 || doc.Cases[0].Name != "mm4" {
		t.Errorf("document %+v", doc)
	}
	csv, _, code := simrun(t, "run", "demo/mmc", short, "--format", "csv", "--seed", "7")
	lines := strings.Split(strings.TrimSpace(csv), "\n")
	if code != 0 || len(lines) != 5 || !strings.HasPrefix(lines[0], "case,throughput_per_s,") {
		t.Errorf("csv (exit %d):\n%s", code, csv)
	}
}

// TestDeterminismAcrossProcesses: byte-identical JSON from separate
// processes with GOMAXPROCS=1 and 2, with replications.
func TestDeterminismAcrossProcesses(t *testing.T) {
	args := []string{"run", "demo/mmc", short, "--format", "json", "--replications", "2"}
	one, c1 := subprocess(t, []string{"GOMAXPROCS=1"}, args...)
	two, c2 := subprocess(t, []string{"GOMAXPROCS=2"}, args...)
	if c1 != 0 || c2 != 0 {
		t.Fatalf("exit %d, %d", c1, c2)
	}
	if len(one) == 0 || !bytes.Equal(one, two) {
		t.Errorf("GOMAXPROCS=1 and 2 differ:\n%s\n---\n%s", one, two)
	}
}

func TestSweepShardMerge(t *testing.T) {
	dir := t.TempDir()
	base := []string{"sweep", "demo/mmc", "--case", "mm4", "--case", "md4", "--duration", "1s",
		"--set", "workload.demo.servers=4,6", "--set", "workload.demo.arrival_rate=1k,2k,3k"}
	whole := filepath.Join(dir, "whole.json")
	if _, e, code := simrun(t, append(base, "--format", "json", "-o", whole)...); code != 0 {
		t.Fatalf("whole: exit %d: %s", code, e)
	}
	var parts []string
	for _, i := range []string{"2", "0", "1"} {
		p := filepath.Join(dir, "part-"+i+".json")
		if _, e, code := simrun(t, append(base, "--shard", i+"/3", "-o", p)...); code != 0 {
			t.Fatalf("shard %s: exit %d: %s", i, code, e)
		}
		parts = append(parts, p)
	}
	merged := filepath.Join(dir, "merged.json")
	if _, e, code := simrun(t, append([]string{"merge", "-o", merged}, parts...)...); code != 0 {
		t.Fatalf("merge: exit %d: %s", code, e)
	}
	a, _ := os.ReadFile(whole)
	b, _ := os.ReadFile(merged)
	if len(a) == 0 || !bytes.Equal(a, b) {
		t.Errorf("merged differs from whole")
	}
	doc, _ := result.Decode(bytes.NewReader(a))
	if len(doc.Cases) != 12 || len(doc.Sweep) != 2 {
		t.Errorf("%d rows, %d axes", len(doc.Cases), len(doc.Sweep))
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.Contains(e.Name(), ".tmp-") {
			t.Errorf("temporary file left behind: %s", e.Name())
		}
	}
	// A missing shard is bad input.
	if _, e, code := simrun(t, "merge", parts[0], parts[1]); code != 2 || !strings.Contains(e, "missing shard(s) 1 of 3") {
		t.Errorf("merge with a missing part: exit %d: %s", code, e)
	}
	// The sweep table shows one row per point.
	out, _, code := simrun(t, base...)
	if code != 0 || strings.Count(out, "\nmm4  ") != 6 || strings.Count(out, "\nmd4  ") != 6 {
		t.Errorf("sweep table (exit %d):\n%s", code, out)
	}
}

func TestExitStatusAndMessages(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.toml")
	os.WriteFile(bad, []byte("name = \"b\"\n[workload]\nkind = \"demo\"\n[workload.demo]\nservers = \"four\"\n"), 0o644)
	tests := []struct {
		args []string
		code int
		want string // in stderr
	}{
		{[]string{"validate", bad}, 2, bad + `:5: workload.demo.servers: want an integer, got string "four"`},
		{[]string{"run", bad}, 2, "want an integer"},
		{[]string{"run", filepath.Join(dir, "missing.toml")}, 2, "cannot read: no such file or directory"},
		{[]string{"run", "demo/mmc", "--case", "nope"}, 2, `no case "nope" (allowed: mm4, md4, mg4-lognormal, mm4-busy)`},
		{[]string{"run", "--format", "xml"}, 2, `--format "xml": want table, json or csv`},
		{[]string{"run", "--replications", "0"}, 2, "--replications must be >= 1"},
		{[]string{"run", "--seed", "-4"}, 2, "--seed"},
		{[]string{"run", "--duration", "10"}, 2, "duration: bad duration \"10\": a duration needs a unit"},
		{[]string{"run", "--set", "workload.demo.servers=2,4"}, 2, "use simrun sweep"},
		{[]string{"run", "--set", "workload.demo.servrs=2"}, 2, "did you mean servers?"},
		{[]string{"run", "--bogus"}, 2, "flag provided but not defined: -bogus"},
		{[]string{"sweep", "demo/mmc"}, 2, "sweep needs at least one --set"},
		{[]string{"sweep", "demo/mmc", "--set", "workload.demo.servers=4", "--shard", "3/3"}, 2, "want i/n with 0 <= i < n"},
		{[]string{"sweep", "demo/mmc", "--set", "workload.demo.servers=0,4"}, 2, "must be between 1 and 100000, got 0 (set by --set)"},
		{[]string{"frobnicate"}, 2, `unknown command "frobnicate"`},
		{[]string{}, 2, "Usage:"},
		{[]string{"merge"}, 2, "merge needs"},
		{[]string{"merge", bad}, 2, "merge: " + bad},
		{[]string{"explain", "--format", "csv"}, 2, "want table or json"},
		// A range where one value is wanted is refused, not a crash; a
		// text with ".." in it is a value.
		{[]string{"run", "demo/mmc", "--set", "workload.demo.servers=2..5"}, 2, "is a range; run takes one value per --set (use simrun sweep"},
		{[]string{"explain", "demo/mmc", "--set", "workload.demo.servers=2..5"}, 2, "is a range; explain takes one value"},
		{[]string{"explain", "demo/mmc", "--case", "mm4", "--set", "machine.name=my..box"}, 0, ""},
		// Outputs and cases are checked before anything runs.
		{[]string{"explain", "demo/mmc", "-o", filepath.Join(dir, "none", "x.json")}, 2, "does not exist"},
		{[]string{"explain", "demo/mmc", "--case", "mm5"}, 2, "did you mean mm4?"},
		{[]string{"trace", "binlog/quick", "--window", "5s:5.01s"}, 2, "several cases: name one with --case"},
		{[]string{"plot", "demo/mmc", "--case", "mm5", "-o", filepath.Join(dir, "x.png")}, 2, "did you mean mm4?"},
		{[]string{"export", "demo/mmc", "--format", "md", "--image", "gif", "-o", filepath.Join(dir, "x.md")}, 2, `--image "gif": want png or svg`},
		{[]string{"run", "demo/mmc", "--report-interval", "1.5s"}, 2, "whole number of seconds"},
		// --metrics is checked before the run, and only where it means something.
		{[]string{"run", "demo/mmc", "--metrics", "nosuch", "-o", filepath.Join(dir, "m.txt")}, 2, `the result has no metric "nosuch"`},
		{[]string{"run", "binlog/quick", "--case", "Case2", "--metrics", "disk.series.util_pct"}, 2, "is a per-interval series, not a table column"},
		{[]string{"run", "demo/mmc", "--metrics", "throughput", "--format", "json"}, 2, "--metrics picks the table's columns"},
		{[]string{"trace", "binlog/quick", "--case", "Case1", "--case", "Case8", "--window", "1s:1.01s"}, 2, "trace records one case"},
		{[]string{"plot", "demo/mmc", "--kind", "sweep", "-o", filepath.Join(dir, "s.png")}, 2, "plot --kind sweep draws a sweep's result"},
		{[]string{"export", "demo/mmc", "--format", "md", "-o", "-"}, 2, "writes several files"},
	}
	for _, tt := range tests {
		_, errOut, code := simrun(t, tt.args...)
		if code != tt.code || !strings.Contains(errOut, tt.want) {
			t.Errorf("simrun %s: exit %d, stderr:\n%s\nwant exit %d and %q", strings.Join(tt.args, " "), code, errOut, tt.code, tt.want)
		}
		if strings.Contains(errOut, "goroutine ") || strings.Contains(errOut, "panic") {
			t.Errorf("simrun %s: stack trace or panic in stderr:\n%s", strings.Join(tt.args, " "), errOut)
		}
	}
	// Exit status from a real process.
	if _, code := subprocess(t, nil, "validate", bad); code != 2 {
		t.Errorf("process exit %d, want 2", code)
	}
}

func TestExplainValidateList(t *testing.T) {
	out, errOut, code := simrun(t, "explain", "demo/mmc", "--case", "md4", "--format", "json", "--set", "workload.demo.servers=5")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var ex struct {
		Schema string
		Cases  []struct {
			Name   string
			Params []struct{ Key, Value, Unit, Source, Location string }
		}
	}
	if err := json.Unmarshal([]byte(out), &ex); err != nil {
		t.Fatal(err)
	}
	found := 0
	for _, p := range ex.Cases[0].Params {
		switch p.Key {
		case "workload.demo.servers":
			found++
			if p.Value != "5" || p.Source != "flag --set" {
				t.Errorf("servers param %+v", p)
			}
		case "workload.demo.service":
			found++
			if p.Source != "case md4" || p.Location != "builtin:demo/mmc.toml:32" {
				t.Errorf("service param %+v", p)
			}
		}
	}
	if ex.Schema != "simrun.explain/v1" || found != 2 {
		t.Errorf("explain json: %s", out)
	}
	table, _, code := simrun(t, "explain", "demo/mmc")
	if code != 0 || !strings.Contains(table, "preset cloud-4vcpu") || !strings.Contains(table, "case mm4-busy") {
		t.Errorf("explain table (exit %d):\n%s", code, table)
	}
	out, _, code = simrun(t, "validate", "demo/mmc", filepath.Join("..", "..", "scenarios", "demo", "pooling.toml"),
		filepath.Join("..", "..", "scenarios", "library", "volume", "gp3.toml"))
	if code != 0 || !strings.Contains(out, "ok builtin:demo/mmc.toml (4 cases)") || !strings.Contains(out, "gp3.toml (preset volume)") {
		t.Errorf("validate (exit %d): %s", code, out)
	}
	out, _, code = simrun(t, "list")
	if code != 0 || !strings.Contains(out, "demo/mmc") || !strings.Contains(out, "[machine] cloud-4vcpu") {
		t.Errorf("list (exit %d): %s", code, out)
	}
	out, _, code = simrun(t, "help", "sweep")
	if code != 0 || !strings.Contains(out, "--shard I/N") {
		t.Errorf("help sweep (exit %d): %s", code, out)
	}
}

func TestReplicationsTable(t *testing.T) {
	out, errOut, code := simrun(t, "run", "demo/mmc", "--case", "mm4", "--replications", "3", "--duration", "2s")
	if code != 0 || !strings.Contains(out, "±") || !strings.Contains(out, "3 replications") {
		t.Errorf("exit %d %s:\n%s", code, errOut, out)
	}
}

// TestRunCPUProfile: --cpuprofile writes a profile and leaves the result
// byte-identical; a profile that cannot be created is an error naming the
// flag. A child process, so that a test binary run with -cpuprofile is not
// in the way.
func TestRunCPUProfile(t *testing.T) {
	dir := t.TempDir()
	prof := filepath.Join(dir, "cpu.pprof")
	args := []string{"run", "demo/mmc", "--case", "mm4", short, "--format", "json"}
	plain, c1 := subprocess(t, nil, args...)
	with, c2 := subprocess(t, nil, append(args, "--cpuprofile", prof)...)
	if c1 != 0 || c2 != 0 {
		t.Fatalf("exit %d, %d", c1, c2)
	}
	if len(plain) == 0 || !bytes.Equal(plain, with) {
		t.Errorf("--cpuprofile changed the result:\n%s\n---\n%s", plain, with)
	}
	if st, err := os.Stat(prof); err != nil || st.Size() == 0 {
		t.Errorf("no profile written: %v", err)
	}
	_, errOut, code := simrun(t, append(args, "--cpuprofile", filepath.Join(dir, "missing", "cpu.pprof"))...)
	if code != exitUsage || !strings.Contains(errOut, "--cpuprofile") {
		t.Errorf("unwritable profile: exit %d, %q; want 2 (bad input) and a message naming --cpuprofile", code, errOut)
	}
}

// TestInterruptKeepsEarlierResult: Ctrl-C before any row finishes leaves
// an existing -o file as it was: an empty partial result is worth less.
func TestInterruptKeepsEarlierResult(t *testing.T) {
	out := filepath.Join(t.TempDir(), "keep.json")
	const old = `{"earlier": "result"}`
	if err := os.WriteFile(out, []byte(old), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "run", "binlog/quick", "--case", "Case1", "--duration", "600s", "--workers", "1", "-o", out)
	cmd.Env = append(os.Environ(), "SIMRUN_TEST_AS_MAIN=1")
	var errb bytes.Buffer
	cmd.Stderr = &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(500 * time.Millisecond) // loaded and running: a 600 s case takes seconds
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	err := cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 1 || !strings.Contains(errb.String(), "left as it was") {
		t.Fatalf("exit %v, stderr %q: want 1 and the file left alone", err, errb.String())
	}
	if b, _ := os.ReadFile(out); string(b) != old {
		t.Errorf("the earlier result was replaced by %q", b)
	}
}

// TestResultInputFlags: plot and export of a result keep the cases named
// with --case (refusing one the result lacks), refuse --seed and
// --duration (the result is already run), and export's CSV goes to stdout
// with -o -; explain picks JSON from -o's extension.
func TestResultInputFlags(t *testing.T) {
	dir := t.TempDir()
	res := filepath.Join(dir, "r.json")
	if _, errOut, code := simrun(t, "run", "demo/mmc", "--duration", "1s", "-o", res); code != 0 {
		t.Fatalf("run: exit %d: %s", code, errOut)
	}
	out, errOut, code := simrun(t, "export", res, "--format", "csv", "--case", "md4", "-o", "-")
	if code != 0 || !strings.Contains(out, "md4,") || strings.Contains(out, "mm4,") {
		t.Errorf("export --case md4 -o -: exit %d, %s\n%s", code, errOut, out)
	}
	for _, args := range [][]string{
		{"export", res, "--format", "md", "--case", "md5", "-o", filepath.Join(dir, "x.md")},
		{"plot", res, "--kind", "bar", "--seed", "3", "-o", filepath.Join(dir, "x.png")},
	} {
		if _, errOut, code := simrun(t, args...); code != exitUsage || !(strings.Contains(errOut, "did you mean md4?") || strings.Contains(errOut, "already run")) {
			t.Errorf("simrun %s: exit %d, %q", strings.Join(args, " "), code, errOut)
		}
	}
	ex := filepath.Join(dir, "ex.json")
	if _, errOut, code := simrun(t, "explain", "demo/mmc", "--case", "mm4", "-o", ex); code != 0 {
		t.Fatalf("explain: exit %d: %s", code, errOut)
	}
	if b, _ := os.ReadFile(ex); !json.Valid(b) {
		t.Errorf("explain -o ex.json wrote no JSON: %.80s", b)
	}
}
