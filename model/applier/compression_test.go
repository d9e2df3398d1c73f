package applier

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"simrun/sim"
)

// The relay log's image of a transaction: 2N+3 events uncompressed; with
// compression the GTID event and one Transaction_payload event holding
// ratio x the other events' bytes (rounded up) behind its header.
func TestRelayImage(t *testing.T) {
	type img struct {
		Events         int
		Bytes, Inflate int64
	}
	for _, tc := range []struct {
		n    int
		comp bool
		want img
	}{
		{1, false, img{5, 661, 0}},
		{10, false, img{23, 4945, 0}},
		{1, true, img{2, 79 + 40 + 204, 582}},    // ceil(582 x 0.35) = 204
		{10, true, img{2, 79 + 40 + 1704, 4866}}, // ceil(4866 x 0.35) = 1704
	} {
		cfg := DefaultConfig()
		cfg.Compression.Enabled = tc.comp
		var got img
		got.Events, got.Bytes, got.Inflate = cfg.relay(tc.n)
		if d := cmp.Diff(tc.want, got); d != "" {
			t.Errorf("%du compression=%v (-want +got):\n%s", tc.n, tc.comp, d)
		}
	}
}

// Compression moves the decoding of a transaction's events from the MTA
// coordinator to its worker: a coordinator-bound MTA (NOLOGS, 10 updates)
// gets faster, and the replica's binlog (DEFAULT) receives the payload as
// compressed, so it writes fewer bytes per transaction.
func TestCompressionEffects(t *testing.T) {
	type out struct {
		tps, coord   float64
		binlogPerTrx float64
	}
	runCase := func(version, profile string, comp bool) out {
		cfg := DefaultConfig()
		cfg.Version, cfg.Profile, cfg.Mode = version, profile, "backlog"
		cfg.Source.UpdatesPerTrx = 10
		cfg.BacklogTrx = 20_000
		cfg.Compression.Enabled = comp
		m, _, err := run(context.Background(), sim.New(7), 32, testVolume(), cfg, 0, 0, nil)
		if err != nil {
			t.Fatal(err)
		}
		var o out
		o.tps = m["tps"].(float64)
		if c, ok := m["coordinator_busy_pct"].(float64); ok {
			o.coord = c
		}
		if b, ok := m["storage"].(map[string]any)["write_bytes_by_source"].(map[string]any)["binlog"].(int64); ok {
			o.binlogPerTrx = float64(b) / float64(m["trx_committed"].(int64))
		}
		if v := m["invariant_violations"].(int64); v != 0 {
			t.Errorf("%s %s compression=%v: %d invariant violations", version, profile, comp, v)
		}
		return o
	}
	plain, packed := runCase("mta", "nologs", false), runCase("mta", "nologs", true)
	// Coordinator time per transaction: 17.5 us of scheduling, then the
	// GTID event and 22 events (29 us in all) against 2 events (~20 us).
	perTrx := func(o out) float64 { return o.coord / 100 / o.tps * 1e6 }
	if p, q := perTrx(packed), perTrx(plain); !(p < 0.8*q) {
		t.Errorf("MTA coordinator time per trx %.1f us compressed, %.1f us plain: want < 80 %%", p, q)
	}
	if !(packed.tps > plain.tps*1.1) {
		t.Errorf("coordinator-bound MTA: %.0f TPS compressed, %.0f plain: want > +10 %%", packed.tps, plain.tps)
	}
	// The study's public shape: with compression CSA's gain shrinks. Its
	// scheduler never read the payload's events, so compression leaves it
	// where it was while the MTA coordinator sheds them.
	csaPlain, csaPacked := runCase("csa", "nologs", false), runCase("csa", "nologs", true)
	if g0, g1 := csaPlain.tps/plain.tps, csaPacked.tps/packed.tps; !(g1 < g0 && g1 >= 1) {
		t.Errorf("CSA/MTA at nologs 10u: %.2f plain, %.2f compressed: want the gain to shrink and stay >= 1", g0, g1)
	}
	plain, packed = runCase("csa", "default", false), runCase("csa", "default", true)
	if plain.binlogPerTrx < 4945 || packed.binlogPerTrx > 0.5*plain.binlogPerTrx {
		t.Errorf("replica binlog bytes per trx: %.0f plain (want >= 4945), %.0f compressed (want <= half)", plain.binlogPerTrx, packed.binlogPerTrx)
	}
}
