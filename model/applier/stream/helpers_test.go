package stream

import "simrun/sim"

func testEnv() *sim.Env { return sim.New(1) }
