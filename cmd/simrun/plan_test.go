package main

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"simrun/internal/result"
	"simrun/scenarios"
)

// planJSON runs simrun plan with --format json and decodes the report.
func planJSON(t *testing.T, wantCode int, args ...string) *PlanReport {
	t.Helper()
	out, errOut, code := simrun(t, append([]string{"plan", "--format", "json"}, args...)...)
	if code != wantCode {
		t.Fatalf("exit %d, want %d: %s", code, wantCode, errOut)
	}
	var rep PlanReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("%v:\n%s", err, out)
	}
	return &rep
}

// bruteForce runs the whole grid as a sweep with the same replications
// (the same seeds) and returns the smallest value meeting every
// constraint by its mean, or NaN.
func bruteForce(t *testing.T, file, caseName string, sets []string, axis scenarios.Axis, reps int, holds func(*result.Case) bool) float64 {
	t.Helper()
	sc, err := scenarios.Load(file)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range sets {
		k, v, _ := strings.Cut(s, "=")
		if err := sc.Override(k, scenarios.ParseValue(v), scenarios.Source{Kind: "flag", Name: "--set"}); err != nil {
			t.Fatal(err)
		}
	}
	doc, err := scenarios.Run(context.Background(), sc, scenarios.Options{Cases: []string{caseName}, Sweep: []scenarios.Axis{axis}, Replications: reps, Analyse: true})
	if err != nil {
		t.Fatal(err)
	}
	for i := range doc.Cases {
		c := &doc.Cases[i]
		if holds(c) {
			x, _ := result.Float(c.Point[axis.Key])
			return x
		}
	}
	return math.NaN()
}

func num2(m result.Metrics, p string) float64 {
	v, _ := m.Lookup(p)
	f, _ := result.Float(v)
	return f
}

// TestPlanMatchesGrid answers the two questions of docs/capacity-planning.md
// on short runs and checks each answer against the brute-force grid: the
// same value within one step.
func TestPlanMatchesGrid(t *testing.T) {
	tests := []struct {
		name, file, cas string
		sets            []string
		cons            []string
		vary, sweep     string
		step            float64
		holds           func(*result.Case) bool
	}{
		{
			name: "smallest bandwidth for Case2", file: "binlog/quick", cas: "Case2",
			sets: []string{"duration=3s", "engine.index.splits=false"}, // the first seconds after prepare split index k's packed leaves
			cons: []string{"--goal", "tps>=4000", "--limit", "latency_ms.p99<=10"},
			vary: "volume.bandwidth_max=20MB/s..120MB/s:11", sweep: "volume.bandwidth_max=20MB/s..120MB/s:11", step: 10e6,
			holds: func(c *result.Case) bool {
				return num2(c.Metrics, "tps") >= 4000 && num2(c.Metrics, "latency_ms.p99") <= 10
			},
		},
		{
			name: "replica workers for CSA", file: "replication/csa-vs-mta", cas: "default-10u-online-csa",
			sets: []string{"duration=3s", "warmup=1s"},
			cons: []string{"--limit", "applier.max_lag_s<=0.5"},
			vary: "applier.workers=8..120:8", sweep: "applier.workers=8..120:8", step: 16,
			holds: func(c *result.Case) bool { return num2(c.Metrics, "applier.max_lag_s") <= 0.5 },
		},
		{
			// Long enough for the lag rule to judge: below the answer the
			// applier falls behind its source, and the grid counts a row
			// whose (mean) lag diverges as failing, as plan does.
			name: "replica workers for CSA, 30 s", file: "replication/csa-vs-mta", cas: "default-10u-online-csa",
			sets: []string{"duration=30s"},
			cons: []string{"--limit", "applier.max_lag_s<=1"},
			vary: "applier.workers=80..96:9", sweep: "applier.workers=80..96:9", step: 2,
			holds: func(c *result.Case) bool {
				return num2(c.Metrics, "applier.max_lag_s") <= 1 && (c.Steady == nil || !c.Steady.Diverging)
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			args := []string{tc.file, "--case", tc.cas, "--vary", tc.vary}
			for _, s := range tc.sets {
				args = append(args, "--set", s)
			}
			rep := planJSON(t, 0, append(args, tc.cons...)...)
			ax, err := scenarios.ParseSet(tc.sweep)
			if err != nil {
				t.Fatal(err)
			}
			want := bruteForce(t, tc.file, tc.cas, tc.sets, ax, 2, tc.holds)
			if math.IsNaN(want) || !rep.Result.Found {
				t.Fatalf("grid answer %v, plan found %v", want, rep.Result.Found)
			}
			got := rep.Result.Answer.X[0]
			t.Logf("plan %v (%d points, %d runs), grid %v", got, len(rep.Result.Evidence), rep.Result.Runs, want)
			if math.Abs(got-want) > tc.step*1.001 {
				t.Errorf("plan says %v, the grid %v: more than one step (%v) apart", got, want, tc.step)
			}
			if rep.Result.Fallback == "" && len(rep.Result.Evidence) >= rep.Vary[0].Points {
				t.Errorf("%d points for a grid of %d", len(rep.Result.Evidence), rep.Vary[0].Points)
			}
		})
	}
}

// TestPlanBadInput: bad input exits 2 with a message naming the flag and
// what is allowed.
func TestPlanBadInput(t *testing.T) {
	tests := []struct {
		reason string
		args   []string
		want   []string
		cas    string // the --case; Case2 if empty
	}{
		{"a goal on a metric that does not exist", []string{"--goal", "tpx>=4000", "--vary", "volume.bandwidth_max=20MB/s..40MB/s:3"}, []string{"--goal", "tpx", "allowed:", "tps"}, ""},
		{"an empty range", []string{"--goal", "tps>=4000", "--vary", "volume.bandwidth_max=400MB/s..20MB/s:3"}, []string{"--vary", "is empty"}, ""},
		{"an unparsable constraint", []string{"--goal", "tps=>4000", "--vary", "volume.bandwidth_max=20MB/s..40MB/s:3"}, []string{"--goal", "METRIC OP NUMBER"}, ""},
		{"a parameter that is not numeric", []string{"--goal", "tps>=4000", "--vary", "commit.binlog_storage_engine=1..3"}, []string{"--vary", "not numeric", "integer, number, size, rate or duration"}, ""},
		{"a value, not a range", []string{"--goal", "tps>=4000", "--vary", "volume.bandwidth_max=40MB/s"}, []string{"--vary", "want a range"}, ""},
		{"no constraint", []string{"--vary", "volume.bandwidth_max=20MB/s..40MB/s:3"}, []string{"--goal"}, ""},
		{"a non-integer range without a step", []string{"--goal", "tps>=4000", "--vary", "volume.bandwidth_max=20MB/s..40MB/s"}, []string{"--vary", ":N for N evenly spaced points"}, ""},
		{"a typo in the key", []string{"--goal", "tps>=4000", "--vary", "volume.bandwidth_maxx=20MB/s..40MB/s:3"}, []string{"--vary", "did you mean volume.bandwidth_max?"}, ""},
		{"a preset", []string{"--goal", "tps>=4000", "--vary", "machine.preset=1..3"}, []string{"--vary", "names a preset, not a number"}, ""},
		{"a --set on the varied key", []string{"--goal", "tps>=4000", "--set", "volume.bandwidth_max=50MB/s", "--vary", "volume.bandwidth_max=20MB/s..40MB/s:3"}, []string{"--set volume.bandwidth_max and --vary"}, ""},
		{"an output folder that does not exist", []string{"--goal", "tps>=4000", "--vary", "volume.bandwidth_max=20MB/s..40MB/s:3", "-o", "/nonexistent-simrun/x.json"}, []string{"-o", "does not exist"}, ""},
		{"a plot that is not png or svg", []string{"--goal", "tps>=4000", "--vary", "volume.bandwidth_max=20MB/s..40MB/s:3", "--plot", "x.jpg"}, []string{"--plot", ".png or .svg"}, ""},
		{"an unknown case", []string{"--goal", "tps>=4000", "--vary", "volume.bandwidth_max=20MB/s..40MB/s:3"}, []string{"did you mean Case9?"}, "Case99"},
	}
	for _, tc := range tests {
		cas := cmp.Or(tc.cas, "Case2")
		_, errOut, code := simrun(t, append([]string{"plan", "binlog/quick", "--case", cas, "--set", "duration=1s"}, tc.args...)...)
		if code != exitUsage {
			t.Errorf("%s: exit %d, want 2 (%s)", tc.reason, code, errOut)
		}
		for _, w := range tc.want {
			if !strings.Contains(errOut, w) {
				t.Errorf("%s: message %q lacks %q", tc.reason, errOut, w)
			}
		}
	}
}

// TestPlanBudget: a budget that runs out exits 1, says so, and keeps the
// evidence in the output file.
func TestPlanBudget(t *testing.T) {
	out := filepath.Join(t.TempDir(), "plan.json")
	_, errOut, code := simrun(t, "plan", "binlog/quick", "--case", "Case2", "--set", "duration=1s",
		"--set", "engine.index.splits=false", // the first second after prepare splits index k's packed leaves
		"--goal", "tps>=4000", "--vary", "volume.bandwidth_max=20MB/s..400MB/s:39", "--budget", "6", "--format", "json", "-o", out)
	if code != exitFailure || !strings.Contains(errOut, "budget") {
		t.Fatalf("exit %d, stderr %q: want 1 and a message about the budget", code, errOut)
	}
	rep := readPlan(t, out)
	if len(rep.Result.Evidence) < 2 || rep.Result.Runs > 7 || rep.Result.Found {
		t.Errorf("evidence %d points, %d runs, found %v: want the partial evidence kept", len(rep.Result.Evidence), rep.Result.Runs, rep.Result.Found)
	}
	if rep.Stopped != "budget" || !strings.Contains(errOut, "in "+out) || strings.Contains(errOut, "e+07") {
		t.Errorf("stopped %q, stderr %q: want the budget marked, the next point in units and the evidence's file named", rep.Stopped, errOut)
	}
	// A budget spent before any answer is not "no value meets".
	table, _, code := simrun(t, "plan", "binlog/quick", "--case", "Case2", "--set", "duration=1s", "--set", "engine.index.splits=false",
		"--goal", "tps>=3000", "--vary", "volume.bandwidth_max=20MB/s..400MB/s:39", "--budget", "3")
	if code != exitFailure || strings.Contains(table, "meets every constraint") || !strings.Contains(table, "stopped (budget spent)") {
		t.Errorf("exit %d, table:\n%s\nwant the stop said, not an infeasible range", code, table)
	}
}

func readPlan(t *testing.T, path string) *PlanReport {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var rep PlanReport
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	return &rep
}

// TestRunWarnsTooShort: the quick scenario's 20 s run of Case2 warns that
// it is too short for steady state, on stderr and in the JSON.
func TestRunWarnsTooShort(t *testing.T) {
	out, errOut, code := simrun(t, "run", "binlog/quick", "--case", "Case2", "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(errOut, "too short for steady state") || !strings.Contains(errOut, "first pass") {
		t.Errorf("no too-short warning on stderr: %q", errOut)
	}
	doc, err := result.Decode(strings.NewReader(out))
	if err != nil {
		t.Fatal(err)
	}
	if s := doc.Cases[0].Steady; s == nil || !s.TooShort || s.NeededS <= 20 {
		t.Errorf("steady_state %+v: want too_short with a needed duration above 20 s", s)
	}
	if b := doc.Cases[0].Bottleneck; b == nil || len(b.Ranked) < 3 {
		t.Errorf("bottleneck %+v", b)
	}
	if tw := doc.Cases[0].Twin; tw == nil || !(tw.TPS > 0) {
		t.Errorf("twin %+v", tw)
	}
}

// TestPlanDeterministic: the same plan gives byte-identical JSON and chart
// whatever the number of parallel runs, and a two-parameter plan gives a
// frontier whose answers carry their runs' steady-state warnings and whose
// empty rows say what fails at the range's best end and what binds there;
// its chart is the frontier, its axes titled in their units.
func TestPlanDeterministic(t *testing.T) {
	dir := t.TempDir()
	args := []string{"plan", "binlog/quick", "--case", "Case2", "--set", "duration=1s", "--format", "json",
		"--set", "engine.index.splits=false", // the first second after prepare splits index k's packed leaves
		"--goal", "tps>=3000", "--vary", "volume.bandwidth_max=20MB/s..100MB/s:9", "--vary", "workload.sysbench.threads=4..16*2"}
	svg1, svg3 := filepath.Join(dir, "one.svg"), filepath.Join(dir, "three.svg")
	one, e1, c1 := simrun(t, append(args, "--workers", "1", "--plot", svg1)...)
	three, e3, c3 := simrun(t, append(args, "--workers", "3", "--plot", svg3)...)
	if c1 != 0 || c3 != 0 {
		t.Fatalf("exit %d, %d: %s %s", c1, c3, e1, e3)
	}
	if one != three {
		t.Error("--workers changed the plan's output")
	}
	p1, err1 := os.ReadFile(svg1)
	p3, err3 := os.ReadFile(svg3)
	if err1 != nil || err3 != nil || !bytes.Equal(p1, p3) {
		t.Errorf("--workers changed the chart (%v, %v)", err1, err3)
	}
	for _, want := range []string{"volume.bandwidth_max (MB/s)", "workload.sysbench.threads", "minimal volume.bandwidth_max for each", "none in range"} {
		if !bytes.Contains(p1, []byte(want)) {
			t.Errorf("the frontier chart has no %q", want)
		}
	}
	var rep PlanReport
	if err := json.Unmarshal([]byte(one), &rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Frontier) != 3 || rep.Frontier[2].X != "30MB/s" {
		t.Fatalf("frontier %+v, want three points, 30MB/s at 16 threads", rep.Frontier)
	}
	if f := rep.Frontier[2]; len(f.Warnings) == 0 {
		t.Errorf("16 threads: %+v, want the 1 s run's too-short warnings", f)
	}
	if f := rep.Frontier[0]; f.X != "none in range" || f.At != "100MB/s" || len(f.Misses) != 1 || f.Binds == nil || f.Binds.Resource == "" {
		t.Errorf("4 threads: %+v, want none in range, failing tps>=3000 at 100MB/s with what binds", f)
	}
}

// TestSweepNotesNameThePoint: a sweep's notes on stderr (too-short
// warnings, what binds) name each row's point in its parameter's unit.
func TestSweepNotesNameThePoint(t *testing.T) {
	_, errOut, code := simrun(t, "sweep", "binlog/quick", "--case", "Case2", "--duration", "1s",
		"--set", "volume.bandwidth_max=40MB/s..80MB/s:2", "--set", "engine.redo.log_file_size=1GiB..2GiB:2", "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{
		"bottleneck: Case2 [engine.redo.log_file_size=1GiB volume.bandwidth_max=40MB/s] ",
		"warning: Case2 [engine.redo.log_file_size=2GiB volume.bandwidth_max=80MB/s]: too short",
	} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errOut)
		}
	}
	// So do the per-interval blocks after the table.
	out, errOut, code := simrun(t, "sweep", "binlog/quick", "--case", "Case2", "--duration", "1s",
		"--set", "volume.bandwidth_max=40MB/s,80MB/s", "--report-interval", "1s", "--iostat")
	for _, want := range []string{"Case2 [volume.bandwidth_max=40MB/s], every 1s (sysbench", "Case2 [volume.bandwidth_max=80MB/s], every 1s (iostat"} {
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("exit %d, stdout lacks %q:\n%s%s", code, want, out, errOut)
		}
	}
}
