package stats_test

import (
	"fmt"
	"time"

	"simrun/sim"
	"simrun/sim/stats"
)

func ExampleHistogram() {
	var h stats.Histogram // the zero value is ready
	for _, us := range []int64{180, 210, 250, 260, 300, 420, 2500} {
		h.Record(us * 1000) // fsync latencies in ns
	}
	s := h.Summary()
	fmt.Println("count", s.Count, "min", time.Duration(s.Min), "max", time.Duration(s.Max))
	fmt.Println("p50", time.Duration(s.P50), "(exact 260µs, within 0.78%)")
	// Output:
	// count 7 min 180µs max 2.5ms
	// p50 259.072µs (exact 260µs, within 0.78%)
}

func ExampleTimeAvg() {
	var q stats.TimeAvg // queue depth
	q.Add(sim.At(0), 1)
	q.Add(sim.At(2*time.Millisecond), 1)
	q.Add(sim.At(3*time.Millisecond), -2)
	end := sim.At(4 * time.Millisecond)
	fmt.Printf("mean depth %.2f, max %.0f\n", q.Mean(end), q.Max())
	// Output:
	// mean depth 1.00, max 2
}

func ExampleSeries() {
	tps := stats.NewSeries(time.Second, 60)
	for i := range 250 { // 100 commits in the first second, 150 in the second...
		at := sim.At(time.Duration(i+1) * 8 * time.Millisecond)
		if i >= 100 {
			at = sim.At(time.Second + time.Duration(i-99)*6*time.Millisecond)
		}
		tps.Add(at, 1)
	}
	// ...and none in the third: the points run to the end of the run.
	for _, p := range tps.Points(sim.At(3 * time.Second)) {
		fmt.Printf("[%v] tps: %.0f\n", p.Start.Add(p.Width), p.Rate())
	}
	// Output:
	// [1s] tps: 100
	// [2s] tps: 150
	// [3s] tps: 0
}
