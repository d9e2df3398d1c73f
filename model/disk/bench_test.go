package disk

import (
	"testing"
	"time"

	"simrun/sim"
)

// BenchmarkVolumeSubmit runs a closed loop of 16 outstanding 4 KiB random
// writes on the network preset; one op is one I/O submitted and completed.
// It reports simulated I/Os per wall-clock second.
func BenchmarkVolumeSubmit(b *testing.B) {
	for _, name := range []string{"network-15k-120MBps", "hdd-7200", "ram"} {
		b.Run("preset="+name, func(b *testing.B) {
			env := sim.New(1)
			v, err := New(env, loadPreset(b, name))
			if err != nil {
				b.Fatal(err)
			}
			d := newDriver(env, v, 16, 4<<10, 1<<30)
			d.start()
			for d.done < 10000 { // warm up: pools and rings reach their size
				env.Step()
			}
			b.ReportAllocs()
			b.ResetTimer()
			start := time.Now()
			target := d.done + int64(b.N)
			for d.done < target {
				env.Step()
			}
			b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "ios/s")
		})
	}
}

// Steady state allocates nothing per I/O, files and syncs included.
func TestSteadyStateAllocs(t *testing.T) {
	env := sim.New(1)
	v, _ := New(env, loadPreset(t, "nvme-consumer"))
	d := newDriver(env, v, 16, 4<<10, 1<<30)
	d.readPct, d.flushPct = 30, 2
	d.start()
	f := v.OpenFile("log", false)
	c := newCommitter(f, SourceOther, 512)
	c.next()
	noSteadyAllocs(t, env)
}

// noSteadyAllocs runs env 200 ms to warm up, then fails if a further 10 ms
// of simulated I/O allocates.
func noSteadyAllocs(t *testing.T, env *sim.Env) {
	t.Helper()
	env.RunUntil(sim.At(200 * time.Millisecond))
	until := env.Now()
	allocs := testing.AllocsPerRun(20, func() {
		until += sim.Time(10 * time.Millisecond)
		env.RunUntil(until)
	})
	if allocs > 0 {
		t.Errorf("%.1f allocations per 10 ms of simulated I/O", allocs)
	}
}
