package applier

import (
	"testing"
	"time"

	"simrun/sim"
)

// BenchmarkBacklog runs a backlog case and reports simulated transactions
// per wall second (source generation included).
func BenchmarkBacklog(b *testing.B) {
	for _, bc := range []struct {
		name    string
		version string
		profile string
		n       int
	}{
		{"csa/nologs/1u", "csa", "nologs", 1},
		{"mta/default/10u", "mta", "default", 10},
	} {
		b.Run(bc.name, func(b *testing.B) {
			cfg := DefaultConfig()
			cfg.Version, cfg.Profile, cfg.Mode = bc.version, bc.profile, "backlog"
			cfg.Source.UpdatesPerTrx = bc.n
			cfg.BacklogTrx = 200_000
			b.ReportAllocs()
			start := time.Now()
			var events uint64
			for range b.N {
				env := sim.New(1)
				if _, err := Run(env, 32, testVolume(), cfg, 0, 0); err != nil {
					b.Fatal(err)
				}
				events += env.Events()
			}
			wall := time.Since(start).Seconds()
			b.ReportMetric(float64(b.N)*float64(cfg.BacklogTrx)/wall, "trx/s")
			b.ReportMetric(float64(events)/wall, "events/s")
		})
	}
}

// Allocations do not grow with the work simulated: a backlog twice as
// long allocates about as often (the relay log's transaction list and the
// statistics series grow by doubling, a few allocations), not once per
// event.
func TestBacklogAllocsDoNotGrowWithEvents(t *testing.T) {
	for _, version := range []string{"mta", "csa"} {
		count := func(n int) (allocs float64, events uint64) {
			cfg := DefaultConfig()
			cfg.Version, cfg.Profile, cfg.Mode = version, "default", "backlog"
			cfg.BacklogTrx = sim.Count(n)
			allocs = testing.AllocsPerRun(1, func() {
				env := sim.New(1)
				if _, err := Run(env, 32, testVolume(), cfg, 0, 0); err != nil {
					t.Fatal(err)
				}
				events = env.Events()
			})
			return allocs, events
		}
		a1, e1 := count(20_000)
		a2, e2 := count(40_000)
		t.Logf("%s: %.0f allocations for %d events, %.0f for %d", version, a1, e1, a2, e2)
		if per := (a2 - a1) / float64(e2-e1); per > 0.001 {
			t.Errorf("%s: %.0f more allocations for %d more events (%.4f per event)", version, a2-a1, e2-e1, per)
		}
	}
}
