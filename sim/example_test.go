package sim_test

import (
	"fmt"
	"time"

	"simrun/sim"
)

// A two-core CPU serves three jobs that arrive together: the third waits
// for a core. Events at the same instant run in the order they were
// scheduled, so the output is the same on every run.
func ExampleEnv() {
	env := sim.New(1)
	cpu := sim.NewStation(env, 2)
	done := func(a any) { fmt.Printf("%v: %s done\n", env.Now(), a) }
	for _, job := range []string{"a", "b", "c"} {
		cpu.Submit(2*time.Millisecond, done, job)
	}
	env.After(time.Millisecond, func() { fmt.Printf("%v: tick\n", env.Now()) })
	env.Run()
	st := cpu.Stats()
	fmt.Printf("mean wait %v, utilisation %.2f\n", st.MeanWait, st.Utilization)
	// Output:
	// 1ms: tick
	// 2ms: a done
	// 2ms: b done
	// 4ms: c done
	// mean wait 666.666µs, utilisation 0.75
}
