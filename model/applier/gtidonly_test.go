package applier

import (
	"context"
	"testing"

	"simrun/sim"
)

// Without GTID_ONLY (MySQL's default) an MTA checkpoint commits the
// relay-log info row as the coordinator's own transaction and, with the
// redo log on, waits for its flush; the worker also updates its
// slave_worker_info row in each transaction. With the redo log off the
// checkpoint never waits; GTID_ONLY=1 removes both costs.
func TestMTAGTIDOnly(t *testing.T) {
	type out struct{ tps, ckptWait float64 }
	runCase := func(profile string, gtidOnly bool) out {
		cfg := DefaultConfig()
		cfg.Version, cfg.Profile, cfg.Mode = "mta", profile, "backlog"
		cfg.Source.UpdatesPerTrx = 1
		cfg.BacklogTrx = 20_000
		cfg.MTA.GTIDOnly = gtidOnly
		m, _, err := run(context.Background(), sim.New(7), 32, testVolume(), cfg, 0, 0, nil)
		if err != nil {
			t.Fatal(err)
		}
		return out{m["tps"].(float64), m["checkpoint_wait_s"].(float64)}
	}
	redo, redoGTID := runCase("nologs+redo", false), runCase("nologs+redo", true)
	if redo.ckptWait <= 0 {
		t.Errorf("nologs+redo, GTID_ONLY=0: checkpoint_wait_s = %v, want > 0", redo.ckptWait)
	}
	if redoGTID.ckptWait != 0 {
		t.Errorf("nologs+redo, GTID_ONLY=1: checkpoint_wait_s = %v, want 0", redoGTID.ckptWait)
	}
	if !(redo.tps < redoGTID.tps) {
		t.Errorf("nologs+redo: %0.f TPS with GTID_ONLY=0, %.0f with 1: the checkpoint flushes and the worker-info row should cost", redo.tps, redoGTID.tps)
	}
	if n := runCase("nologs", false); n.ckptWait != 0 {
		t.Errorf("nologs (redo off): checkpoint_wait_s = %v, want 0", n.ckptWait)
	}
}
