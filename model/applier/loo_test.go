package applier

import (
	"flag"
	"fmt"
	"math"
	"sync"
	"testing"
	"time"

	"simrun/sim"
)

var looFlag = flag.Bool("loo", false, "run the leave-one-out calibration of the applier's CPU constants (docs/validation.md)")

// scaleCPU multiplies the applier's CPU constants, per event (parse,
// receive), per row (apply_per_update) and per transaction (schedule,
// apply, commit, checkpoint), by k: the one calibrated factor of the
// leave-one-out table. The byte rate and the wake-up are not per-unit work
// constants and keep their values.
func scaleCPU(c *CPUCosts, k float64) {
	sc := func(d sim.Duration) sim.Duration { return sim.Duration(math.Round(float64(d) * k)) }
	c.ParsePerEvent, c.ReceivePerEvent = sc(c.ParsePerEvent), sc(c.ReceivePerEvent)
	c.SchedulePerTrx, c.ApplyPerTrx, c.CommitPerTrx, c.Checkpoint = sc(c.SchedulePerTrx), sc(c.ApplyPerTrx), sc(c.CommitPerTrx), sc(c.Checkpoint)
	c.ApplyPerUpdate.Median = sc(c.ApplyPerUpdate.Median)
	c.ApplyPerUpdate.P99 = sc(c.ApplyPerUpdate.P99)
}

// TestLeaveOneOut fits the factor k of scaleCPU on one published pair
// (both appliers), predicts the other pair with it, and the reverse; it
// logs the table of docs/validation.md. Runs are shortened (150,000
// transactions of backlog; online 2 s + 20 s); the fit minimises the sum
// of squared log errors of the pair by golden-section search over
// k in [1/3, 3].
func TestLeaveOneOut(t *testing.T) {
	if !*looFlag {
		t.Skip("run with -loo")
	}
	f, cases := loadMatrix(t)
	byName := map[string]Config{}
	for _, c := range cases {
		byName[c.name] = c.cfg
	}
	pairs := [][2]string{
		{"default-10u-online-mta", "default-10u-online-csa"},
		{"nologs-1u-backlog-mta", "nologs-1u-backlog-csa"},
	}
	run := func(name string, k float64) float64 {
		cfg := byName[name]
		cfg.BacklogTrx = 150_000
		scaleCPU(&cfg.CPU, k)
		m, err := Run(sim.New(f.Seed), 32, f.Volume, cfg, 2*time.Second, 20*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		return m["tps"].(float64)
	}
	pairTPS := func(p [2]string, k float64) [2]float64 {
		var out [2]float64
		var wg sync.WaitGroup
		for i := range p {
			wg.Add(1)
			go func() { defer wg.Done(); out[i] = run(p[i], k) }()
		}
		wg.Wait()
		return out
	}
	loss := func(p [2]string, k float64) float64 {
		tps := pairTPS(p, k)
		var s float64
		for i := range p {
			e := math.Log(tps[i] / published[p[i]])
			s += e * e
		}
		return s
	}
	fit := func(p [2]string) float64 {
		lo, hi := math.Log(1.0/3), math.Log(3.0)
		g := (math.Sqrt(5) - 1) / 2
		a, b := hi-g*(hi-lo), lo+g*(hi-lo)
		fa, fb := loss(p, math.Exp(a)), loss(p, math.Exp(b))
		for range 10 {
			if fa < fb {
				hi, b, fb = b, a, fa
				a = hi - g*(hi-lo)
				fa = loss(p, math.Exp(a))
			} else {
				lo, a, fa = a, b, fb
				b = lo + g*(hi-lo)
				fb = loss(p, math.Exp(b))
			}
		}
		return math.Exp((lo + hi) / 2)
	}
	row := func(fitOn string, k float64) string {
		s := fmt.Sprintf("| %s | %.3f |", fitOn, k)
		for _, p := range pairs {
			tps := pairTPS(p, k)
			for i := range p {
				s += fmt.Sprintf(" %.0f (%+.1f %%) |", tps[i], 100*(tps[i]/published[p[i]]-1))
			}
		}
		return s
	}
	t.Log("| fitted on | k | default-10u-online MTA | CSA | nologs-1u-backlog MTA | CSA |")
	t.Log(row("none (k = 1)", 1))
	for _, p := range pairs {
		t.Log(row(p[0][:len(p[0])-4], fit(p)))
	}
}
