package scenarios

import (
	"context"
	"os"
	"strings"
	"testing"

	"simrun/internal/result"
)

// TestSteadyStudy: on the 600 s binlog study (its stored result,
// testdata/study-600s-steady.json, holds the metrics the check reads;
// regenerate it with simrun run binlog/innodb-vs-file-120mbs --format json
// when the model changes) the CPU-bound InnoDB-binlog cases reach steady
// state, and every case that does not is told to run longer than the 600 s
// it ran: with MariaDB's page cleaner the checkpoint age reaches the async
// point and the redo log wraps late in the run (docs/capacity-planning.md).
// The 20 s quick look is too short in every case and says how long to run.
func TestSteadyStudy(t *testing.T) {
	f, err := os.Open("testdata/study-600s-steady.json")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	doc, err := result.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	sc := mustLoad(t, "binlog/innodb-vs-file-120mbs")
	if len(doc.Cases) != 9 {
		t.Fatalf("%d cases in the stored study", len(doc.Cases))
	}
	for _, rc := range doc.Cases {
		c, err := sc.Case(rc.Name)
		if err != nil {
			t.Fatal(err)
		}
		st := Steady(c, rc.Metrics)
		if st == nil {
			t.Fatalf("study %s: no steady-state check", rc.Name)
		}
		switch {
		case rc.Name == "Case1" || rc.Name == "Case3":
			if st.TooShort || !st.Settled {
				t.Errorf("study %s: %+v, want steady", rc.Name, st)
			}
		case st.TooShort && st.NeededS <= c.Settings.Duration.Seconds():
			t.Errorf("study %s: too short, yet asks for %gs of a %gs run", rc.Name, st.NeededS, c.Settings.Duration.Seconds())
		}
	}

	quick := mustLoad(t, "binlog/quick")
	d, err := Run(context.Background(), quick, Options{Cases: []string{"Case2", "Case8"}, Analyse: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, rc := range d.Cases {
		st := rc.Steady
		if st == nil || !st.TooShort || st.NeededS <= 20 {
			t.Fatalf("quick %s: %+v, want too short", rc.Name, st)
		}
		if !strings.Contains(strings.Join(st.Warnings, " "), "run at least") {
			t.Errorf("quick %s: the warnings do not say how long to run: %q", rc.Name, st.Warnings)
		}
	}
}

func TestBottleneckReplica(t *testing.T) {
	sc := mustLoad(t, "replication/csa-vs-mta")
	shrinkForTest(t, sc, "2s", "500ms")
	d, err := Run(context.Background(), sc, Options{Cases: []string{"nologs-1u-backlog-csa"}, Analyse: true})
	if err != nil {
		t.Fatal(err)
	}
	b := d.Cases[0].Bottleneck
	// The published finding: CSA with NOLOGS and one update per
	// transaction is bound by its serial scheduler (docs/model-applier.md).
	if b == nil || b.Resource != "coordinator" {
		t.Errorf("bottleneck %+v, want the coordinator", b)
	}
	if tw := d.Cases[0].Twin; tw == nil || tw.Bound != "coordinator" {
		t.Errorf("twin %+v, want bound by the coordinator", tw)
	}
}

// TestSteadyCheckpointRamp: the checkpoint-age rule on a flat throughput
// series of the 600 s study's Case2. A held age is steady; an age still
// ramping towards the cleaner's balance asks for the time to reach it; an
// age that ramped past that balance without settling asks for twice the
// run, never for less than the run it judged.
func TestSteadyCheckpointRamp(t *testing.T) {
	sc := mustLoad(t, "binlog/innodb-vs-file-120mbs")
	c, err := sc.Case("Case2")
	if err != nil {
		t.Fatal(err)
	}
	dur := c.Settings.Duration.Seconds()
	flat := make([]float64, int(dur))
	for i := range flat {
		flat[i] = 5000 + float64(i%7)
	}
	age := func(avg, p50, peak float64) result.Metrics {
		return result.Metrics{
			"series": result.Metrics{"tps": flat, "interval_s": 1.0},
			"checkpoint_age_mb": result.Metrics{
				"avg": avg, "p50": p50, "max": peak, "capacity": 3865.0, "async_point": 3043.0,
			},
		}
	}
	for _, tc := range []struct {
		name     string
		m        result.Metrics
		tooShort bool
		minNeed  float64
	}{
		{"held below its peak", age(2400, 2450, 3000), false, 0},
		{"ramping, balance beyond the run", age(400, 400, 800), true, dur + 1},
		{"ramped past the balance", age(1700, 1700, 3060), true, 2 * dur},
	} {
		st := Steady(c, tc.m)
		if st == nil || st.TooShort != tc.tooShort {
			t.Errorf("%s: %+v, want too_short %v", tc.name, st, tc.tooShort)
			continue
		}
		if tc.tooShort && st.NeededS < tc.minNeed {
			t.Errorf("%s: needed %gs, want >= %gs (the run was %gs)", tc.name, st.NeededS, tc.minNeed, dur)
		}
	}
}
