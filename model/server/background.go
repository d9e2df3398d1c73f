package server

import (
	"fmt"
	"time"

	"simrun/sim"
)

// Background is the kernel's own periodic work on the server's vCPUs: a
// kernel thread (nice 0) that runs Burst of CPU every Period, as DAMON's
// kdamond does on a host that monitors its memory (mm/damon/core.c,
// kdamond_fn: a sample of the regions, then a sleep of the sample
// interval). The thread is scheduled like the others, so a burst is
// time-sliced among the runnable threads rather than holding a vCPU. The
// bursts come on the period's clock, whatever the load: a burst due while
// the last one still runs follows it, and one more waits no longer (a
// starved monitor skips samples), so Burst/Period is the CPU a second the
// calibration measured as long as the thread gets that share. A zero
// Burst is none.
type Background struct {
	Burst  time.Duration
	Period time.Duration
}

// DefaultBackgroundPeriod is the period a background thread gets when
// nothing says otherwise: the realdb host's DAMON sample interval
// (sample_us = 500000; DAMON's own default is 5 ms).
const DefaultBackgroundPeriod = 500 * time.Millisecond

// MaxBackgroundBurst and the period's bounds keep a background thread a
// thread: at most one vCPU's worth of bursts.
const (
	MaxBackgroundBurst  = 10 * time.Second
	MinBackgroundPeriod = 100 * time.Microsecond
	MaxBackgroundPeriod = 60 * time.Second
)

// Validate checks the burst and the period.
func (b Background) Validate() error {
	if b.Burst < 0 || b.Burst > MaxBackgroundBurst {
		return fmt.Errorf("background_burst: must be in [0, %v], got %v", sim.Duration(MaxBackgroundBurst), sim.Duration(b.Burst))
	}
	if b.Burst > 0 && (b.Period < MinBackgroundPeriod || b.Period > MaxBackgroundPeriod) {
		return fmt.Errorf("background_period: must be in [%v, %v], got %v", sim.Duration(MinBackgroundPeriod), sim.Duration(MaxBackgroundPeriod), sim.Duration(b.Period))
	}
	if b.Burst >= b.Period && b.Burst > 0 {
		return fmt.Errorf("background_burst: must be shorter than background_period (one thread, less than a vCPU), got %v every %v", sim.Duration(b.Burst), sim.Duration(b.Period))
	}
	return nil
}

// background runs Machine.Background's thread on a server's CPU.
type background struct {
	cfg     Background
	cpu     *sim.CPU
	th      sim.CPUThread
	clock   *sim.Alarm
	running bool
	owed    bool          // a burst came due while one ran
	ran     time.Duration // CPU of the bursts finished since ResetStats
	done    func(any)     // finished, bound once: a method value per burst would allocate
}

func (b *background) start(env *sim.Env) {
	b.done = b.finished
	b.clock = env.NewAlarm(b.tick, nil)
	b.clock.After(b.cfg.Period)
}

func (b *background) tick(any) {
	b.clock.After(b.cfg.Period)
	if b.running {
		b.owed = true
		return
	}
	b.run()
}

func (b *background) run() {
	b.running = true
	b.cpu.WakeAs(&b.th, b.cfg.Burst, b.done, nil)
}

func (b *background) finished(any) {
	b.ran += b.cfg.Burst
	b.running = false
	if b.owed {
		b.owed = false
		b.run()
	}
}
