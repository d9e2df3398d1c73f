package applier

import (
	"flag"
	"fmt"
	"strings"
	"sync"
	"testing"

	"simrun/sim"
)

var sweep = flag.Bool("sweep", false, "run the worker and hot-row sweeps of docs/validation.md and print them")

type sweepPoint struct {
	label string
	cfg   Config
}

// runSweep runs every point for both appliers, two at a time, and returns
// the metrics in order: [point][0 = mta, 1 = csa].
func runSweep(t *testing.T, points []sweepPoint) [][2]map[string]any {
	out := make([][2]map[string]any, len(points))
	var wg sync.WaitGroup
	sem := make(chan struct{}, 2)
	for i, p := range points {
		for j, v := range []string{"mta", "csa"} {
			cfg := p.cfg
			cfg.Version = v
			wg.Add(1)
			go func() {
				defer wg.Done()
				sem <- struct{}{}
				defer func() { <-sem }()
				m, err := Run(sim.New(42), 32, testVolume(), cfg, 0, 0)
				if err != nil {
					t.Error(err)
					return
				}
				out[i][j] = m
			}()
		}
	}
	wg.Wait()
	return out
}

func sweepTable(title, col string, points []sweepPoint, res [][2]map[string]any) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s\n\n| %s | MTA TPS | CSA TPS | CSA/MTA | MTA HOL-blocked %% | MTA parked s | CSA lock-wait s | MTA CPU %% | CSA CPU %% |\n|---|---|---|---|---|---|---|---|---|\n", title, col)
	for i, p := range points {
		m, c := res[i][0], res[i][1]
		fmt.Fprintf(&b, "| %s | %.0f | %.0f | %.2f | %.0f | %.1f | %.1f | %.0f | %.0f |\n", p.label,
			m["tps"], c["tps"], c["tps"].(float64)/m["tps"].(float64),
			m["hol_blocked_pct"], m["parked_s"], c["lock_wait_s"], m["cpu_util_pct"], c["cpu_util_pct"])
	}
	return b.String()
}

// TestSweeps prints the worker sweep (1..1024) and the hot-row sweep.
// Run with: go test ./model/applier -run Sweeps -sweep -v
func TestSweeps(t *testing.T) {
	if !*sweep {
		t.Skip("run with -sweep")
	}
	const n = 100_000
	for _, prof := range []string{"nologs", "default"} {
		for _, u := range []int{1, 10} {
			var pts []sweepPoint
			for w := 1; w <= 1024; w *= 2 {
				cfg := DefaultConfig()
				cfg.Mode, cfg.Profile, cfg.Workers, cfg.BacklogTrx = "backlog", prof, w, n
				cfg.Source.UpdatesPerTrx = u
				pts = append(pts, sweepPoint{fmt.Sprint(w), cfg})
			}
			t.Log("\n" + sweepTable(fmt.Sprintf("Workers, %s %du backlog (%d trx)", prof, u, n), "workers", pts, runSweep(t, pts)))
		}
	}
	for _, prof := range []string{"nologs", "default"} {
		for _, workers := range []int{64, 256} {
			var pts []sweepPoint
			for _, hp := range []float64{0, 5, 10, 20, 50, 100} {
				cfg := DefaultConfig()
				cfg.Mode, cfg.Profile, cfg.BacklogTrx, cfg.Workers = "backlog", prof, n, workers
				cfg.Source.UpdatesPerTrx = 10
				cfg.Source.Dependency = "writeset"
				cfg.Source.KeyDist, cfg.Source.HotRows, cfg.Source.HotPct = "hot", 1000, hp
				pts = append(pts, sweepPoint{fmt.Sprint(hp), cfg})
			}
			t.Log("\n" + sweepTable(fmt.Sprintf("Hot rows, %s 10u backlog, %d workers, writeset, 1000 hot rows per table", prof, workers), "hot_pct", pts, runSweep(t, pts)))
		}
	}
}
