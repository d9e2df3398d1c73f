package scenarios

import (
	"context"
	"os"
	"strings"
	"testing"

	"simrun/internal/result"
)

// TestSteadyStudy: the 600 s binlog study reaches steady state in every
// case (its stored result, testdata/study-600s-steady.json, holds the
// metrics the check reads; regenerate it with simrun run
// binlog/innodb-vs-file-120mbs --format json when the model changes),
// while the 20 s quick look does not, and says how long it should be.
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
		if st == nil || st.TooShort || !st.Settled {
			t.Errorf("study %s: %+v, want steady", rc.Name, st)
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
