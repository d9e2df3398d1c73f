package scenarios

import (
	"context"
	"math"
	"os"
	"syscall"
	"testing"
	"time"

	"simrun/internal/result"
)

// ladderElapsed runs the bulk-load ladder (rows > 0 scales it down) and
// returns each case's elapsed_s.
func ladderElapsed(t *testing.T, rows int64) map[string]float64 {
	t.Helper()
	sc := mustLoad(t, BuiltinPrefix+"bulkload/ladder.toml")
	if rows > 0 {
		if err := sc.Override("workload.bulkload.rows", rows, Source{Kind: "flag", Name: "test"}); err != nil {
			t.Fatal(err)
		}
	}
	doc, err := Run(context.Background(), sc, Options{})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]float64{}
	for _, c := range doc.Cases {
		if done, _ := c.Metrics["done"].(bool); !done {
			t.Fatalf("%s: the load did not finish", c.Name)
		}
		v, _ := c.Metrics.Lookup("elapsed_s")
		f, ok := result.Float(v)
		if !ok {
			t.Fatalf("%s: no elapsed_s", c.Name)
		}
		out[c.Name] = f
	}
	return out
}

// TestBulkloadLadderShort: a scaled-down ladder (300,000 rows) keeps the
// published order of the first steps and the partitioning gain.
func TestBulkloadLadderShort(t *testing.T) {
	e := ladderElapsed(t, 300_000)
	for _, p := range [][2]string{{"step1", "step2"}, {"step2", "step3"}, {"step3", "step4"}} {
		if !(e[p[0]] > e[p[1]]) {
			t.Errorf("%s %.0f s should take longer than %s %.0f s", p[0], e[p[0]], p[1], e[p[1]])
		}
	}
}

// TestBulkloadLadderPublished runs the whole ladder (SIMRUN_LONG=1): steps
// 1-3 within 25 % of bulkload-ladder.csv, in the published order, and the
// whole ladder within 60 s of CPU (so of wall time on an idle machine).
func TestBulkloadLadderPublished(t *testing.T) {
	if os.Getenv("SIMRUN_LONG") == "" {
		t.Skip("SIMRUN_LONG not set: the full ladder runs hours of simulated load")
	}
	start, cpu0 := time.Now(), cpuTime()
	e := ladderElapsed(t, 0)
	wall, cpu := time.Since(start), cpuTime()-cpu0
	published := map[string]float64{"step1": 3659, "step2": 881, "step3": 647}
	for _, s := range []string{"step1", "step2", "step3"} {
		err := e[s]/published[s] - 1
		t.Logf("%s: published %.0f s, predicted %.0f s (%+.1f %%)", s, published[s], e[s], 100*err)
		if math.Abs(err) > 0.25 {
			t.Errorf("%s: %.0f s is %+.0f %% from the published %.0f s", s, e[s], 100*err, published[s])
		}
	}
	for _, s := range []string{"step4", "step5", "step6", "step7"} {
		t.Logf("%s: predicted %.0f s", s, e[s])
	}
	if !(e["step1"] > e["step2"] && e["step2"] > e["step3"]) {
		t.Errorf("steps 1-3 out of the published order: %.0f, %.0f, %.0f", e["step1"], e["step2"], e["step3"])
	}
	// The budget is 60 s of wall time on an idle 2-core machine; the CPU
	// the process used bounds it whatever else the machine runs.
	t.Logf("wall time %v, CPU time %v", wall.Round(time.Millisecond), cpu.Round(time.Millisecond))
	if cpu > time.Minute {
		t.Errorf("the ladder took %v of CPU time, more than 60 s", cpu)
	}
}

// cpuTime returns the user + system CPU time the process has used.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
