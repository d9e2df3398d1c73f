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
