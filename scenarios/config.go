package scenarios

import (
	"errors"
	"fmt"
	"strings"
	"time"

	replica "simrun/model/applier"
	"simrun/model/commit"
	"simrun/model/demo"
	"simrun/model/disk"
	"simrun/model/engine"
	"simrun/model/fio"
	"simrun/model/server"
	"simrun/model/workload"
	"simrun/model/workload/bulkload"
	"simrun/sim"
)

// Settings are the run-level keys at the top of a scenario file.
type Settings struct {
	Seed     uint64       `toml:"seed" unit:"" doc:"run seed; every component's random stream derives from it and the component's name"`
	Duration sim.Duration `toml:"duration" unit:"duration" doc:"measured simulated time of each run, after the warm-up"`
	Warmup   sim.Duration `toml:"warmup" unit:"duration" doc:"simulated time run first and discarded, so queues and caches reach steady state"`
}

// DefaultSettings: seed 1, a 1 s warm-up and a 10 s measured window.
func DefaultSettings() Settings {
	return Settings{Seed: 1, Duration: sim.Duration(10 * time.Second), Warmup: sim.Duration(time.Second)}
}

// MaxDuration bounds warm-up plus duration: virtual time is int64 ns, and a
// run this long would take days of wall time anyway.
const MaxDuration = 30 * 24 * time.Hour

// Validate checks the settings.
func (s Settings) Validate() error {
	var errs []error
	if s.Duration <= 0 {
		errs = append(errs, fmt.Errorf("duration: must be > 0, got %v", s.Duration))
	}
	if s.Warmup.D()+s.Duration.D() > MaxDuration {
		errs = append(errs, fmt.Errorf("duration: warmup + duration must be at most %v, got %v",
			sim.Duration(MaxDuration), sim.Duration(s.Warmup.D()+s.Duration.D())))
	}
	return errors.Join(errs...)
}

// Machine is the [machine] section: the server the database runs on.
type Machine struct {
	Name             string       `toml:"name" doc:"label for reports"`
	Cores            int          `toml:"cores" unit:"cores" doc:"CPU cores (vCPUs) the server has; assumption: a 4-vCPU cloud VM"`
	Scheduler        string       `toml:"scheduler" enum:"eevdf|wake_first" doc:"how the OS gives the vCPUs to the server's threads (sysbench runs only; docs/kernel.md): eevdf (default) is Linux's fair class since 6.6 (kernel/sched/fair.c): a woken thread is placed by its lag and preempts only a thread past its share or slice; wake_first is a what-if: a woken thread takes the next query boundary of a running thread"`
	BaseSlice        sim.Duration `toml:"base_slice" unit:"duration" doc:"eevdf: normalized_sysctl_sched_base_slice, the CPU a thread may run before its virtual deadline, before scaling by the CPU count; 0.75ms (kernel/sched/fair.c since 6.6)"`
	SliceScaling     string       `toml:"slice_scaling" enum:"log|none|linear" doc:"eevdf: sysctl_sched_tunable_scaling: the slice is base_slice x (1 + ilog2(min(cores, 8))) with log (the kernel's default, SCHED_TUNABLESCALING_LOG), x 1 with none, x min(cores, 8) with linear"`
	Tick             sim.Duration `toml:"tick" unit:"duration" doc:"eevdf: TICK_NSEC = 1s / CONFIG_HZ, the floor of the lag a thread keeps while it sleeps; 4ms (Debian's kernels: CONFIG_HZ=250)"`
	DelayDequeue     bool         `toml:"delay_dequeue" doc:"eevdf: the DELAY_DEQUEUE and DELAY_ZERO features (on by default since Linux 6.12): a thread that sleeps owing CPU wakes with lag 0 instead of its negative lag; false is the 6.6-6.11 rule"`
	CacheRefill      sim.Duration `toml:"cache_refill" unit:"duration" doc:"eevdf: the CPU a connection's thread spends reloading its working set into a processor's caches that hold none of it (it pays refill x (1 - e^(-w/cache_decay)) when it comes back after other threads ran w there, the whole refill on another processor); 0 (default): caches cost nothing, as in the published studies' calibrations; simrun calibrate derives it from a 16-thread run with no sync (docs/kernel.md, 'Caches')"`
	CacheDecay       sim.Duration `toml:"cache_decay" unit:"duration" doc:"eevdf: the other threads' run time on a processor over which a thread's state in its caches falls by e (with cache_refill > 0); calibrated once on the realdb host's thread sweep (docs/validation.md)"`
	IdleWake         sim.Duration `toml:"idle_wake" unit:"duration" doc:"eevdf: the extra CPU of waking a thread onto an idle vCPU (the waker's inter-processor interrupt and the vCPU's exit from halt, both VM exits on a cloud VM) beyond a wake-up where the vCPUs are busy; charged when a thread's job starts on an idle vCPU and, twice, at each query boundary of a sysbench connection while another vCPU is idle (its request wakes the server thread, its reply the client); 0 (default): as in the published studies' calibrations; simrun calibrate takes it from the harness's wake probe, cross-vCPU less same-vCPU (docs/kernel.md, 'Waking an idle processor')"`
	IRQCost          sim.Duration `toml:"irq_cost" unit:"duration" doc:"eevdf: the CPU a completion interrupt of the volume takes from the thread running on the vCPU that receives it (its handler, the block layer's completion and, on a VM, the exits that inject it); one interrupt per device I/O, on one vCPU (a virtio-blk disk's single request queue); nothing when that vCPU is idle, which is why a 1-thread calibration cannot see it; 0 (default): as in the published studies' calibrations; simrun calibrate takes it from scripts/realdb/irq-cost.sh's probe (--irq-probe; docs/kernel.md, 'Interrupts on a busy processor')"`
	FlushDispatch    sim.Duration `toml:"flush_dispatch" unit:"duration" doc:"the CPU the host's block layer spends dispatching each device cache flush outside the thread that syncs: Linux hands every flush request to a kblockd worker (blk-flush's requeue work), whose run, its virtio notification included, takes a vCPU from the threads; charged as a job of its own per flush, with no effect on the flush's latency (the volume's, which fio measured with the worker on its path); 0 (default): as in the published studies' calibrations; simrun calibrate takes it from scripts/realdb/kblockd.sh's probe (--kblockd-probe; docs/kernel.md, 'Flush dispatch')"`
	BackgroundBurst  sim.Duration `toml:"background_burst" unit:"duration" doc:"the CPU a background kernel thread of the host runs each time it wakes, at nice 0 like the server's threads (so time-sliced among them, not holding a vCPU): DAMON's kdamond on a host that monitors and pages out its memory (mm/damon/core.c, kdamond_fn) is one; 0 (default): none, as in the published studies' calibrations; simrun calibrate takes it from the harness's kernel-thread CPU in the 16-thread no-sync runs x background_period (docs/kernel.md, 'Background kernel work')"`
	BackgroundPeriod sim.Duration `toml:"background_period" unit:"duration" doc:"how long the background kernel thread sleeps between bursts (with background_burst > 0): DAMON's sample interval, sample_us in /sys/kernel/mm/damon/admin/kdamonds/N/contexts/N/monitoring_attrs/intervals (500ms on the stop-31 realdb host; DAMON's own default 5ms)"`
}

// Background is the machine's background kernel thread for model/server.
func (m Machine) Background() server.Background {
	return server.Background{Burst: m.BackgroundBurst.D(), Period: m.BackgroundPeriod.D()}
}

// DefaultMachine is a 4-vCPU machine under Linux's EEVDF scheduler.
func DefaultMachine() Machine {
	f := sim.DefaultFairConfig()
	return Machine{Name: "generic-4vcpu", Cores: 4, Scheduler: "eevdf", BaseSlice: sim.Duration(f.BaseSlice),
		SliceScaling: f.Scaling.String(), Tick: sim.Duration(f.Tick), DelayDequeue: f.DelayZero,
		CacheDecay: sim.Duration(DefaultCacheDecay), BackgroundPeriod: sim.Duration(server.DefaultBackgroundPeriod)}
}

// DefaultCacheDecay is machine.cache_decay's default, calibrated on the
// realdb host's thread sweep (docs/validation.md).
const DefaultCacheDecay = 100 * time.Microsecond

// CPU returns the scheduler as sim.CPU's configuration.
func (m Machine) CPU() (sim.CPUConfig, error) {
	var c sim.CPUConfig
	switch m.Scheduler {
	case "eevdf":
		c.Policy = sim.Fair
	case "wake_first":
		c.Policy = sim.WakeFirst
	default:
		return c, fmt.Errorf("scheduler: must be eevdf or wake_first, got %q", m.Scheduler)
	}
	c.Fair = sim.FairConfig{BaseSlice: m.BaseSlice.D(), Tick: m.Tick.D(), DelayZero: m.DelayDequeue}
	c.Cache = sim.CacheConfig{Refill: m.CacheRefill.D(), Decay: m.CacheDecay.D()}
	c.IdleWake = m.IdleWake.D()
	c.IRQCost = m.IRQCost.D()
	switch m.SliceScaling {
	case "log":
		c.Fair.Scaling = sim.ScaleLog
	case "none":
		c.Fair.Scaling = sim.ScaleNone
	case "linear":
		c.Fair.Scaling = sim.ScaleLinear
	default:
		return c, fmt.Errorf("slice_scaling: must be log, none or linear, got %q", m.SliceScaling)
	}
	return c, nil
}

// Validate checks the machine.
func (m Machine) Validate() error {
	var errs []error
	if m.Cores < 1 || m.Cores > 4096 {
		errs = append(errs, fmt.Errorf("cores: must be between 1 and 4096, got %d", m.Cores))
	}
	c, err := m.CPU()
	if err == nil && c.Policy == sim.Fair {
		err = c.Fair.Validate()
	}
	if err != nil {
		errs = append(errs, err)
	}
	cache := sim.CacheConfig{Refill: m.CacheRefill.D(), Decay: m.CacheDecay.D()}
	if err := cache.ValidateAs("cache_refill", "cache_decay"); err != nil {
		errs = append(errs, err)
	} else if cache.Refill > 0 && m.Scheduler != "eevdf" {
		errs = append(errs, fmt.Errorf("cache_refill: needs scheduler = \"eevdf\", got %v with %q", m.CacheRefill, m.Scheduler))
	}
	switch {
	case m.IdleWake < 0 || m.IdleWake.D() > time.Millisecond:
		errs = append(errs, fmt.Errorf("idle_wake: must be in [0, 1ms], got %v", m.IdleWake))
	case m.IdleWake > 0 && m.Scheduler != "eevdf":
		errs = append(errs, fmt.Errorf("idle_wake: needs scheduler = \"eevdf\", got %v with %q", m.IdleWake, m.Scheduler))
	}
	switch {
	case m.IRQCost < 0 || m.IRQCost.D() > time.Millisecond:
		errs = append(errs, fmt.Errorf("irq_cost: must be in [0, 1ms], got %v", m.IRQCost))
	case m.IRQCost > 0 && m.Scheduler != "eevdf":
		errs = append(errs, fmt.Errorf("irq_cost: needs scheduler = \"eevdf\", got %v with %q", m.IRQCost, m.Scheduler))
	}
	if m.FlushDispatch < 0 || m.FlushDispatch.D() > server.MaxFlushDispatch {
		errs = append(errs, fmt.Errorf("flush_dispatch: must be in [0, %v], got %v", sim.Duration(server.MaxFlushDispatch), m.FlushDispatch))
	}
	if err := m.Background().Validate(); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// Workload is the [workload] section: which generator drives the model, and
// one sub-section per kind. Only the sub-section named by kind is used,
// validated and explained (the variant tag says so).
type Workload struct {
	Kind     string            `toml:"kind" doc:"the workload generator that drives the run"`
	Demo     demo.Config       `toml:"demo" variant:"kind" doc:"M/M/c queue demo"`
	Fio      fio.Config        `toml:"fio" variant:"kind" doc:"a fio job on the volume"`
	Sysbench workload.Sysbench `toml:"sysbench" variant:"kind" doc:"sysbench 1.0 client threads against the database server"`
	Bulkload bulkload.Config   `toml:"bulkload" variant:"kind" doc:"a MySQL 5.1 bulk load of a mysqldump file (the bulk-load study)"`
}

// DefaultWorkload has no kind: a scenario must choose one.
func DefaultWorkload() Workload {
	return Workload{Demo: demo.DefaultConfig(), Fio: fio.DefaultConfig(), Sysbench: workload.DefaultSysbench(), Bulkload: bulkload.DefaultConfig()}
}

// Validate checks that kind names a registered runner. The chosen
// variant's own Validate is called by the loader.
func (w Workload) Validate() error {
	if w.Kind == "" {
		return fmt.Errorf("kind: must be set (allowed: %s)", strings.Join(Kinds(), ", "))
	}
	if runnerFor(w.Kind) == nil {
		return fmt.Errorf("kind: unknown workload %q (allowed: %s)", w.Kind, strings.Join(Kinds(), ", "))
	}
	return nil
}

// Config is the model configuration of one case: one field per section of
// a scenario file. To add a section, add a field here (its toml tag is the
// section name; the type is the model's Config, with a Validate method) and
// its default in DefaultConfig.
type Config struct {
	Machine  Machine        `toml:"machine" doc:"the server"`
	Volume   disk.Config    `toml:"volume" doc:"the block volume the data lives on"`
	Engine   engine.Config  `toml:"engine" doc:"the InnoDB-like storage engine: buffer pool, redo log, page cleaner, statement costs (workload kind sysbench)"`
	Commit   commit.Config  `toml:"commit" doc:"the server's commit path: binary log, group commit, innodb_flush_log_at_trx_commit (workload kind sysbench)"`
	Workload Workload       `toml:"workload" doc:"what drives the run"`
	Applier  replica.Config `toml:"applier" doc:"the replica's parallel applier and its source stream (workload kind replication)"`
}

// DefaultConfig returns every section's defaults.
func DefaultConfig() Config {
	return Config{
		Machine:  DefaultMachine(),
		Volume:   disk.DefaultConfig(),
		Engine:   engine.DefaultConfig(),
		Commit:   commit.DefaultConfig(),
		Workload: DefaultWorkload(),
		Applier:  replica.DefaultConfig(),
	}
}

// requiredSections must be present in a scenario (in the file or a file it
// extends).
var requiredSections = []string{"workload"}

// resolved is what one case resolves to: settings and model configuration,
// both inline at the top level of a file.
type resolved struct {
	Settings
	Config
}
