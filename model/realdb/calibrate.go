package realdb

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"simrun/model/commit"
	"simrun/model/disk"
	"simrun/model/engine"
	"simrun/model/fio"
	"simrun/model/server"
	"simrun/model/workload"
	"simrun/sim"
)

// Calibration is what a harness run and fio give: the presets' values and
// the measured figures they came from.
type Calibration struct {
	Cores int
	// Scheduler and DelayDequeue are the host kernel's CPU scheduler
	// (machine.scheduler, machine.delay_dequeue; KernelScheduler).
	Scheduler    string
	DelayDequeue bool
	Volume       disk.Config
	Engine       engine.Config
	Commit       commit.Config
	Client       workload.Sysbench

	// Base is the 1-thread no-sync run the constants come from.
	Base Figures
	// CPUScale multiplies every statement CPU of the defaults;
	// RedoScale every redo byte count of the defaults.
	CPUScale, RedoScale float64
	// IndexRedoTx is the redo per transaction of index k's splits and
	// merges the model writes at the base runs' age, taken out of the
	// measured bytes before RedoScale.
	IndexRedoTx float64
	// RedoSyncCPU and BinlogSyncCPU are the server CPU one redo / binlog
	// sync adds at 1 thread (measured), 0 when the runs needed are not in
	// the document. RedoSyncCPU becomes commit.cpu.sync, BinlogSyncCPU
	// commit.cpu.binlog_sync.
	RedoSyncCPU, BinlogSyncCPU time.Duration
	// RedoWriteCPU is the server CPU of one redo write (flush=2 against
	// flush=0), commit.cpu.write; 0 without a flush=2 run.
	RedoWriteCPU time.Duration
	// CacheRefill is machine.cache_refill: what the CPU a transaction
	// (server and client) grows by from the base runs to the 16-thread
	// runs with no sync (crowdThreads), per query; 0 without such runs.
	CacheRefill time.Duration
	// IdleWake is machine.idle_wake: the CPU a wake-up onto an idle vCPU
	// costs beyond one on a busy vCPU, the wake probe's cross-vCPU runs
	// less its same-vCPU runs; 0 without both.
	IdleWake time.Duration
	// IRQCost is machine.irq_cost: the CPU a completion interrupt takes
	// from a busy vCPU, the median of the interrupt probe's rounds
	// (Doc.IRQProbe); 0 without the probe.
	IRQCost time.Duration
	// FlushDispatch is machine.flush_dispatch: the CPU the kernel worker
	// that dispatches a device flush takes, the median of the kblockd
	// probe's rounds (Doc.KblockdProbe); 0 without the probe.
	FlushDispatch time.Duration
	// BackgroundBurst and BackgroundPeriod are machine.background_burst
	// and background_period: the host's background kernel threads' CPU a
	// second in the crowdThreads-thread no-sync runs (Figures.BackgroundPct)
	// as one burst a period, the period DAMON's sample interval when the
	// harness recorded one; 0 without those runs or that CPU.
	BackgroundBurst, BackgroundPeriod time.Duration

	Notes []string // one line per choice made, written into the presets
}

// indexWindow is how many transactions after a run's age
// engine.IndexRedoPerTx averages over: about the length of a base run
// (25 s at ~3,000 TPS is 75,000).
const indexWindow = 50000

// Calibrate derives presets from a harness document and fio JSON output.
// The constants come from the 1-thread run with the binlog off and
// innodb_flush_log_at_trx_commit=0 (the commit path has no sync):
//
//   - machine.cores: the host's processors (nproc);
//   - volume: fio (model/fio.CalibrateDetail);
//   - engine settings: the server's own SHOW VARIABLES (buffer pool, redo
//     log size and buffering, io_capacity, doublewrite, max_binlog_size);
//   - engine.cpu statement costs: the defaults scaled by one factor so
//     that their sum is mariadbd's measured CPU per transaction
//     (utime+stime, background threads included);
//   - engine.redo bytes per statement, commit and purge: the defaults
//     scaled by one factor so that their sum is the measured LSN advance
//     per transaction;
//   - workload.sysbench.client_cpu: sysbench's CPU per query;
//     round_trip: what is left of 1/TPS after the server's and client's
//     CPU, per query;
//   - engine.cpu.wakeup and machine.idle_wake: the harness's wake probe,
//     its same-vCPU figure and what its cross-vCPU one costs beyond it;
//     the statements and the client then lose the two idle wake-ups a
//     query that the model charges back at 1 thread.
//
// The CPU a sync point costs is measured at 1 thread: flush=1 against
// flush=0 per redo sync becomes commit.cpu.sync (one fdatasync of an
// O_DIRECT log: the syscall, the flush and its completion, the wake-up);
// sync_binlog=1 against 0 per binlog sync is reported beside it, and what
// it costs beyond the redo's (the binlog's fdatasync also writes its dirty
// pages) is a prediction of the model, not a second key.
func Calibrate(d *Doc, fioJSON []byte) (Calibration, error) {
	pts := d.Summarise()
	base, ok := Find(pts, false, 0, 0, 1)
	if !ok {
		return Calibration{}, fmt.Errorf("realdb: no 1-thread run with the binlog off and innodb_flush_log_at_trx_commit=0 to calibrate from")
	}
	fromDoc := len(fioJSON) == 0
	if fromDoc {
		if len(d.Fio) == 0 {
			return Calibration{}, fmt.Errorf("realdb: no fio JSON: give one (scripts/realdb/fio.sh), or run the harness with --fio")
		}
		fioJSON = d.Fio
	}
	fc, err := fio.CalibrateDetail(fioJSON)
	if err != nil {
		return Calibration{}, err
	}
	vars := d.Vars["binlog_off"]
	if vars == nil {
		return Calibration{}, fmt.Errorf("realdb: no server_variables for binlog_off")
	}
	c := Calibration{Cores: d.Machine.NProc, Volume: fc.Config, Engine: engine.DefaultConfig(), Commit: commit.DefaultConfig(), Client: workload.DefaultConfig().Sysbench}
	note := func(f string, a ...any) { c.Notes = append(c.Notes, fmt.Sprintf(f, a...)) }
	if c.Cores < 1 {
		return Calibration{}, fmt.Errorf("realdb: machine.nproc %d: want >= 1", c.Cores)
	}
	note("machine.cores = %d: nproc of the harness host (%s)", c.Cores, d.Machine.CPU)
	if c.Scheduler, c.DelayDequeue, err = KernelScheduler(d.Machine.Kernel); err != nil {
		return Calibration{}, err
	}
	note("machine.scheduler = %s, delay_dequeue = %v: the harness host's kernel %s (EEVDF since 6.6, DELAY_DEQUEUE since 6.12; wake_first stands in for CFS before)", c.Scheduler, c.DelayDequeue, d.Machine.Kernel)
	var why string
	c.Volume.TimestampTick, why = TimestampTick(d.Machine.HZ)
	note("volume.timestamp_tick = %v: %s", c.Volume.TimestampTick, why)
	if fromDoc {
		note("volume: the fio run the harness made right after its matrix on the same filesystem (harness --fio)")
	}
	c.Notes = append(c.Notes, fc.Notes...)
	c.Volume.Name = "realdb-" + d.Device.Name
	if !d.Device.FS.Journal {
		c.Volume.Journal = disk.JournalNone
		note("volume.journal = none: %s holds %s without a journal (a sync writes the inode block, then flushes)", d.Device.Name, d.Device.FS.Type)
	}

	// Each figure is the mean of the repeats.
	mean := func(get func(Figures) float64) float64 { return base.Range(get).Mean }
	c.Base = Figures{
		TPS:          mean(func(f Figures) float64 { return f.TPS }),
		ServerCPUUs:  mean(func(f Figures) float64 { return f.ServerCPUUs }),
		ClientCPUUs:  mean(func(f Figures) float64 { return f.ClientCPUUs }),
		RedoBytesTx:  mean(func(f Figures) float64 { return f.RedoBytesTx }),
		QueriesPerTx: mean(func(f Figures) float64 { return f.QueriesPerTx }),
	}

	// A base run that shared its vCPUs carries the other processes in
	// its CPU per transaction and round trip: say so beside the figures.
	if o := base.Range(func(f Figures) float64 { return f.OtherCPUPct }); o.Max > sharedCPUPct {
		note("warning: the base runs shared the vCPUs: processes other than mariadbd and sysbench took %.0f–%.0f %% of the machine's CPU (machine_other_cpu_pct); CPU per transaction and round trip include their effect (docs/realdb.md)", o.Min, o.Max)
	}

	e := &c.Engine
	if err := c.applyVariables(vars, note); err != nil {
		return Calibration{}, err
	}
	e.BufferPool.Warm = true
	note("engine.buffer_pool.warm = true: the harness loads the dump at startup and runs a warm-up before each run")

	// A thread's wake-up, from the probe when the harness ran it, else
	// the model's assumption: the model charges it apart
	// (engine.cpu.wakeup) at every wake of the commit path, and the
	// measured per-I/O CPUs hold the real ones, so they are taken less
	// the wake-ups the model charges for one: the write's, or a sync's
	// sleeps (syncWakes). Without that the wake-ups count twice. With the
	// probe's same-vCPU runs too, a wake-up is split in two: the switch
	// (engine.cpu.wakeup, what it costs where the vCPUs are busy) and the
	// IPI and halt exit of an idle vCPU (machine.idle_wake, which the
	// model adds when a thread wakes onto an idle vCPU).
	cross, nc := d.WakeProbe.CrossCPU()
	same, ns := d.WakeProbe.SameCPU()
	switch {
	case nc > 0 && ns > 0 && cross > same:
		e.CPU.Wakeup = sim.Duration(math.Round(same * 1e3))
		c.IdleWake = time.Duration(math.Round((cross - same) * 1e3))
		note("engine.cpu.wakeup = %v: the median CPU of a wake-up on one vCPU, %d runs of scripts/realdb/wake.c before and after the matrix", e.CPU.Wakeup, ns)
		note("machine.idle_wake = %v: a wake-up across the two vCPUs costs %.2fus (median of %d runs), the IPI and the idle vCPU's exit from halt beyond the switch", sim.Duration(c.IdleWake), cross, nc)
	case nc > 0:
		e.CPU.Wakeup = sim.Duration(math.Round(cross * 1e3))
		note("engine.cpu.wakeup = %v: the median CPU of a wake-up across the two vCPUs, %d runs of scripts/realdb/wake.c before and after the matrix (no same-vCPU runs: machine.idle_wake = 0)", e.CPU.Wakeup, nc)
	default:
		note("engine.cpu.wakeup = %v: the model's assumption (the document has no wake-up probe, harness --wake-probe)", e.CPU.Wakeup)
	}
	// A completion interrupt on a busy vCPU, from the probe when there is
	// one. It needs no correction of the 1-thread figures: there the
	// commit path's interrupts land on idle vCPUs (the thread that waits
	// for the I/O and its client both sleep), and the base runs take
	// almost none (0.004 a transaction on the Firecracker host).
	if irq, n := IRQCost(d.IRQProbe); n > 0 {
		c.IRQCost = time.Duration(math.Round(irq * 1e3))
		note("machine.irq_cost = %v: the median CPU a disk completion interrupt takes from a busy vCPU, %d rounds of scripts/realdb/irq-cost.sh", sim.Duration(c.IRQCost), n)
	}
	// The kernel worker that dispatches each flush: its CPU is in no
	// process the harness reads, so no 1-thread figure holds it and none
	// needs a correction.
	if kb, n := FlushDispatchCost(d.KblockdProbe); n > 0 {
		c.FlushDispatch = time.Duration(math.Round(kb * 1e3))
		note("machine.flush_dispatch = %v: the median CPU of the kernel workers a device flush, %d rounds of scripts/realdb/kblockd.sh", sim.Duration(c.FlushDispatch), n)
	}
	// At 1 thread every hop between sysbench and its server thread wakes
	// the other, idle vCPU: two a query (the request wakes the server, the
	// reply the client), which the model charges itself (machine.idle_wake
	// at each query's start on an idle vCPU). They come off the measured
	// CPU of the two sides in proportion to it: the probe does not say
	// which side pays how much of a hop (the waker's interrupt, the
	// wakee's exit from halt), and the model runs both sides of a query
	// in one segment.
	q := c.Base.QueriesPerTx
	if q <= 0 {
		return Calibration{}, fmt.Errorf("realdb: base run has no queries")
	}
	hops := 2 * q * float64(c.IdleWake) / 1e3 // µs a transaction
	both := c.Base.ServerCPUUs + c.Base.ClientCPUUs
	if hops > 0.75*both {
		return Calibration{}, fmt.Errorf("realdb: machine.idle_wake %v twice a query is %.1fus a transaction, more than three quarters of the base runs' %.1fus of server and client CPU", sim.Duration(c.IdleWake), hops, both)
	}
	keep := 1 - hops/both
	serverCPU, clientCPU := c.Base.ServerCPUUs*keep, c.Base.ClientCPUUs*keep

	// CPU per statement.
	wl := c.Client
	cp := &e.CPU
	stmts := []*sim.Duration{&cp.Begin, &cp.UpdateIndex, &cp.UpdateNonIndex, &cp.Delete, &cp.Insert, &cp.Commit}
	weights := []int{1, wl.IndexUpdates, wl.NonIndexUpdates, wl.DeleteInserts, wl.DeleteInserts, 1}
	var sum float64
	for i, s := range stmts {
		sum += float64(weights[i]) * float64(*s)
	}
	c.CPUScale = serverCPU * 1e3 / sum
	for _, s := range stmts {
		*s = sim.Duration(math.Round(float64(*s) * c.CPUScale))
	}
	idleNote := ""
	if hops > 0 {
		idleNote = fmt.Sprintf(", less its share (%.1f %%) of the %.0f wake-ups of the idle vCPU a transaction at machine.idle_wake, %.1fus", 100*(1-keep), 2*q, hops)
	}
	note("engine.cpu: begin..commit = the defaults x %.3f, so one transaction's statements cost the measured %.1fus of mariadbd CPU (1 thread, binlog off, flush=0, mean of %d runs)%s", c.CPUScale, c.Base.ServerCPUUs, len(base.Runs), idleNote)

	// Redo bytes per statement.
	r := &e.Redo
	red := []*sim.Bytes{&r.UpdateIndex, &r.UpdateNonIndex, &r.Delete, &r.Insert, &r.Commit, &r.Purge}
	rw := []int{wl.IndexUpdates, wl.NonIndexUpdates, wl.DeleteInserts, wl.DeleteInserts, 1, 1}
	sum = 0
	for i, b := range red {
		sum += float64(rw[i]) * float64(*b)
	}
	// Index k's splits and merges write redo of their own, which the model
	// adds at each run's age (engine.index.age, set per case by Scenario):
	// the statements keep what is left of the measured bytes.
	ixwl := wl
	ixwl.Tables, ixwl.TableSize = d.Prepare.Tables, d.Prepare.TableSize
	for _, f := range base.Runs {
		c.IndexRedoTx += engine.IndexRedoPerTx(e.Index, ixwl, int64(f.AgeTx), indexWindow, 1) / float64(len(base.Runs))
	}
	stmtRedo := c.Base.RedoBytesTx - c.IndexRedoTx
	if stmtRedo < 0.25*c.Base.RedoBytesTx {
		return Calibration{}, fmt.Errorf("realdb: the model's index k redo at the base runs' age (%.0f B a transaction) leaves the statements less than a quarter of the measured %.0f B", c.IndexRedoTx, c.Base.RedoBytesTx)
	}
	c.RedoScale = stmtRedo / sum
	for _, b := range red {
		*b = sim.Bytes(math.Round(float64(*b) * c.RedoScale))
	}
	note("engine.redo: bytes_update_index..bytes_purge = the defaults x %.3f, so a transaction writes the measured %.0f B of redo (Innodb_lsn_current advance per transaction), less the %.0f B of index k's splits and merges the model writes at the base runs' age (%.0f transactions since prepare, mean)", c.RedoScale, c.Base.RedoBytesTx, c.IndexRedoTx, base.Range(func(f Figures) float64 { return f.AgeTx }).Mean)

	// Client CPU and round trip.
	c.Client.ClientCPU = sim.Duration(math.Round(clientCPU * 1e3 / q))
	note("workload.sysbench.client_cpu = %v: sysbench's CPU (rusage) per query, %.1f queries per transaction%s", c.Client.ClientCPU, q, idleNote)
	rest := 1e9/c.Base.TPS - (c.Base.ServerCPUUs+c.Base.ClientCPUUs)*1e3
	c.Client.RoundTrip = sim.Duration(math.Round(math.Max(0, rest) / q))
	note("workload.sysbench.round_trip = %v: 1/TPS (%.1fus) less the server's and client's CPU, per query; it absorbs the host's steal time and any background CPU overlapping the transaction", c.Client.RoundTrip, 1e6/c.Base.TPS)
	c.cacheRefill(pts, note)
	c.background(pts, d.Machine.DamonSampleUs, note)
	c.Client.Tables, c.Client.TableSize = d.Prepare.Tables, d.Prepare.TableSize
	if c.Client.Tables < 1 || c.Client.TableSize < 1 {
		return Calibration{}, fmt.Errorf("realdb: prepare has %d tables x %d rows", c.Client.Tables, c.Client.TableSize)
	}

	// A commit-path wake-up at 1 thread lands on the idle vCPU: the
	// model charges it the switch and the IPI.
	wake := e.CPU.Wakeup.D() + c.IdleWake
	// fio's thread slept through each of its I/Os at iodepth 1, so every
	// latency it measured ends with that wake-up, which the model charges
	// apart after each device wait of the commit path: its writes and
	// flushes. A page read is waited for before the thread's burst, with
	// no wake-up charged, so the read latency keeps it.
	if wake > 0 {
		for _, l := range []struct {
			key  string
			spec *sim.DistSpec
		}{{"write_latency", &c.Volume.WriteLatency}, {"flush_latency", &c.Volume.FlushLatency}} {
			if l.spec.Kind != "empirical" {
				continue
			}
			for i := range l.spec.Points {
				l.spec.Points[i].Value = math.Max(0, l.spec.Points[i].Value-float64(wake))
			}
			note("volume.%s: less one wake-up (%v), which fio's iodepth-1 thread took inside each measured latency and the model charges apart", l.key, sim.Duration(wake))
		}
	}
	less := func(d time.Duration, wakes float64) time.Duration {
		return max(0, d-time.Duration(math.Round(wakes*float64(wake))))
	}
	// lessNote says what less took off, when it took anything, and when
	// it kept a negative figure at 0.
	lessNote := func(d time.Duration, wakes float64) string {
		floor := ""
		if less(d, wakes) == 0 {
			floor = ", at least 0"
		}
		if wake == 0 {
			if floor == "" {
				return ""
			}
			return fmt.Sprintf(" (%v measured%s)", sim.Duration(d), floor)
		}
		return fmt.Sprintf(" (%v measured, less %.2f wake-ups of %v, which the model charges apart%s)", sim.Duration(d), wakes, sim.Duration(wake), floor)
	}

	// The CPU of the commit path's log I/O: a log write alone (flush=2, an
	// O_DIRECT pwrite per commit) and a sync (flush=1: the write, then
	// fdatasync's flush).
	p2, ok2 := Find(pts, false, 0, 2, 1)
	if ok2 {
		if w := perExtra(base, p2, func(f Figures) float64 { return f.WritesPerTx }); w > 0 {
			c.RedoWriteCPU = w
			c.Commit.CPU.Write = sim.Duration(less(w, 1))
			note("commit.cpu.write = %v: a redo write (flush=2 vs 0, binlog off, 1 thread) adds this much mariadbd CPU per device write%s", c.Commit.CPU.Write, lessNote(w, 1))
		}
	}
	p1, ok1 := Find(pts, false, 0, 1, 1)
	if ok1 {
		c.RedoSyncCPU = syncCPU(base, p1)
		switch {
		case c.RedoWriteCPU > 0:
			// The flush beyond the write: flush=1 against flush=2.
			// flush=2's wake-up after its write is flush=1's after its
			// flush; the sync adds the sleep in the O_DIRECT pwrite before
			// it and the inode block's: syncWakes's one plus the extra
			// writes per flush.
			d, n := syncCPU(p2, p1), syncWakes(p2, p1)
			c.Commit.CPU.Sync = sim.Duration(less(d, n))
			note("commit.cpu.sync = %v: a redo sync's flush (flush=1 vs 2, binlog off, 1 thread) adds this much mariadbd CPU per device flush beyond the write's commit.cpu.write%s", c.Commit.CPU.Sync, lessNote(d, n))
		case c.RedoSyncCPU > 0:
			n := syncWakes(base, p1)
			c.Commit.CPU.Sync = sim.Duration(less(c.RedoSyncCPU, n))
			note("commit.cpu.sync = %v: a redo sync (flush=1 vs 0, binlog off, 1 thread) adds this much mariadbd CPU per device flush%s; with no flush=2 run it carries the write's CPU too", c.Commit.CPU.Sync, lessNote(c.RedoSyncCPU, n))
		}
	}
	if b0, ok := Find(pts, true, 0, 0, 1); ok {
		if b1, ok := Find(pts, true, 1, 0, 1); ok {
			c.BinlogSyncCPU = syncCPU(b0, b1)
			if c.BinlogSyncCPU > 0 {
				n := syncWakes(b0, b1)
				c.Commit.CPU.BinlogSync = sim.Duration(less(c.BinlogSyncCPU, n))
				note("commit.cpu.binlog_sync = %v: a binlog sync (sync_binlog=1 vs 0, flush=0, 1 thread) adds this much mariadbd CPU per device flush%s", c.Commit.CPU.BinlogSync, lessNote(c.BinlogSyncCPU, n))
			}
		} else if b11, ok := Find(pts, true, 1, 1, 1); ok && c.RedoSyncCPU > 0 {
			// No sync_binlog=1, flush=0 run (the CI matrix): 1/1 against
			// 0/0 adds a redo sync and a binlog sync; the binlog's is what
			// is left after the redo's.
			if d := binlogSyncCPU(b0, b11, c.RedoSyncCPU); d > 0 {
				c.BinlogSyncCPU = d
				n := binlogSyncWakes(b0, b11, base, p1)
				c.Commit.CPU.BinlogSync = sim.Duration(less(d, n))
				note("commit.cpu.binlog_sync = %v: sync_binlog=1, flush=1 vs 0/0 (1 thread) adds this much mariadbd CPU per device flush beyond the redo sync's%s", c.Commit.CPU.BinlogSync, lessNote(d, n))
			}
		}
	}
	if err := c.Engine.Validate(); err != nil {
		return Calibration{}, fmt.Errorf("realdb: calibrated engine is invalid: %v", err)
	}
	if err := c.Commit.Validate(); err != nil {
		return Calibration{}, fmt.Errorf("realdb: calibrated commit path is invalid: %v", err)
	}
	if err := c.Client.Validate(); err != nil {
		return Calibration{}, fmt.Errorf("realdb: calibrated workload is invalid: %v", err)
	}
	return c, nil
}

// sharedCPUPct is the share of the machine's CPU that other processes may
// take during a base run before calibration warns: a few per cent is the
// kernel's own threads and the harness (1-10 % in the realdb host's clean
// runs).
const sharedCPUPct = 10

// syncCPU is the server CPU per extra sync between two runs at 1 thread;
// the device flushes per transaction count the syncs (one flush each).
func syncCPU(without, with Point) time.Duration {
	return perExtra(without, with, func(f Figures) float64 { return f.FlushesPerTx })
}

// perExtra is the server CPU per extra device operation, counted by per
// (per transaction), between two runs at 1 thread; 0 when with adds less
// than a tenth of one a transaction. It may be negative: the runs' noise.
func perExtra(without, with Point, per func(Figures) float64) time.Duration {
	cpu := func(p Point) float64 { return p.Range(func(f Figures) float64 { return f.ServerCPUUs }).Mean }
	n := with.Range(per).Mean - without.Range(per).Mean
	if n <= 0.1 {
		return 0
	}
	return time.Duration(math.Round((cpu(with) - cpu(without)) / n * 1e3))
}

// syncWakes is the wake-ups the model charges for each sync that with adds
// to without: the one after the call, and one after each device wait
// before its flush (disk.Sleeper: the writes it waits for, the inode
// block), which the extra device writes per extra flush count, at most the
// model's two.
func syncWakes(without, with Point) float64 {
	dw, df := ioDeltas(without, with)
	if df <= 0.1 {
		return 1
	}
	return wakesFor(dw / df)
}

// binlogSyncWakes is syncWakes for the binlog syncs that with (sync_binlog
// = 1, flush = 1) adds to without (0/0) beyond its one redo sync a
// transaction, whose device writes are those a redo sync adds to base in
// p1 (flush = 1 against 0, binlog off).
func binlogSyncWakes(without, with, base, p1 Point) float64 {
	dw, df := ioDeltas(without, with)
	rw, rf := ioDeltas(base, p1)
	if df <= 1.1 || rf <= 0.1 {
		return 1
	}
	return wakesFor((dw - rw/rf) / (df - 1))
}

// ioDeltas is the device writes and flushes a transaction that with adds
// to without (means over the repeats).
func ioDeltas(without, with Point) (writes, flushes float64) {
	mean := func(p Point, per func(Figures) float64) float64 { return p.Range(per).Mean }
	w := func(f Figures) float64 { return f.WritesPerTx }
	fl := func(f Figures) float64 { return f.FlushesPerTx }
	return mean(with, w) - mean(without, w), mean(with, fl) - mean(without, fl)
}

// wakesFor is the model's wake-ups of a sync that waits for this many
// device writes before its flush: one after each (at most two: the data
// and the inode block) and one after the call.
func wakesFor(writesPerFlush float64) float64 { return 1 + min(2, max(0, writesPerFlush)) }

// binlogSyncCPU is the CPU of the binlog syncs that with adds to
// without beyond its redo syncs, each costing redo: the extra device
// flushes per transaction but one are binlog syncs.
func binlogSyncCPU(without, with Point, redo time.Duration) time.Duration {
	cpu := func(p Point) float64 { return p.Range(func(f Figures) float64 { return f.ServerCPUUs }).Mean }
	n := with.Range(func(f Figures) float64 { return f.FlushesPerTx }).Mean - without.Range(func(f Figures) float64 { return f.FlushesPerTx }).Mean
	if n <= 1.1 {
		return 0
	}
	rest := cpu(with) - cpu(without) - float64(redo)/1e3
	return time.Duration(math.Round(rest / (n - 1) * 1e3))
}

// applyVariables copies the server's own settings into the engine.
func (c *Calibration) applyVariables(v map[string]string, note func(string, ...any)) error {
	e := &c.Engine
	num := func(k string) (int64, error) {
		s, ok := v[k]
		if !ok {
			return 0, fmt.Errorf("realdb: server_variables has no %s", k)
		}
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("realdb: %s = %q: %v", k, s, err)
		}
		return n, nil
	}
	for _, x := range []struct {
		key string
		set func(int64)
	}{
		{"innodb_buffer_pool_size", func(n int64) { e.BufferPool.Size = sim.Bytes(n) }},
		{"innodb_log_file_size", func(n int64) { e.Redo.LogFileSize = sim.Bytes(n) }},
		{"innodb_log_buffer_size", func(n int64) { e.Redo.LogBufferSize = sim.Bytes(n) }},
		{"innodb_io_capacity", func(n int64) { e.Flushing.IOCapacity = int(n) }},
		{"innodb_io_capacity_max", func(n int64) { e.Flushing.IOCapacityMax = int(n) }},
		{"max_binlog_size", func(n int64) { c.Commit.Binlog.MaxBinlogSize = sim.Bytes(n) }},
		{"binlog_commit_wait_count", func(n int64) { c.Commit.Binlog.CommitWaitCount = int(n) }},
		{"innodb_flush_log_at_timeout", func(n int64) { e.Redo.FlushTimeout = sim.Duration(time.Duration(n) * time.Second) }},
	} {
		n, err := num(x.key)
		if err != nil {
			return err
		}
		x.set(n)
	}
	e.Flushing.Doublewrite = v["innodb_doublewrite"] == "ON"
	switch v["innodb_log_file_buffering"] {
	case "ON":
		e.Redo.FileBuffering = "on"
	case "OFF":
		e.Redo.FileBuffering = "off"
	}
	note("engine: buffer pool %v, redo %v (buffering %s), io_capacity %d/%d, doublewrite %v: the server's SHOW VARIABLES (%s)",
		e.BufferPool.Size, e.Redo.LogFileSize, e.Redo.FileBuffering, e.Flushing.IOCapacity, e.Flushing.IOCapacityMax, e.Flushing.Doublewrite, v["version"])
	return nil
}

// PresetNames are the files Presets writes, one per section.
var PresetNames = []string{"machine.toml", "volume.toml", "engine.toml", "commit.toml", "workload.toml"}

// Probes are probe outputs given beside a harness document (simrun
// calibrate --irq-probe, --kblockd-probe); each replaces the document's
// own. Empty: the document's.
type Probes struct {
	IRQ, Kblockd []byte
}

// PresetFiles calibrates from a harness document and fio JSON and returns
// the preset files by name (PresetNames): what simrun calibrate --harness
// writes.
func PresetFiles(harnessJSON, fioJSON []byte, probes Probes, name string) (map[string][]byte, error) {
	d, err := Load(harnessJSON)
	if err != nil {
		return nil, err
	}
	if len(probes.IRQ) > 0 {
		if d.IRQProbe, err = ParseIRQProbe(probes.IRQ); err != nil {
			return nil, fmt.Errorf("irq probe: %w", err)
		}
	}
	if len(probes.Kblockd) > 0 {
		if d.KblockdProbe, err = ParseKblockdProbe(probes.Kblockd); err != nil {
			return nil, fmt.Errorf("kblockd probe: %w", err)
		}
	}
	c, err := Calibrate(d, fioJSON)
	if err != nil {
		return nil, err
	}
	return c.Presets(name)
}

// Presets writes the calibration as five preset files, one per section:
// machine.toml, volume.toml, engine.toml, commit.toml and workload.toml. A scenario
// uses them with preset = "DIR/volume.toml" and so on.
func (c Calibration) Presets(name string) (map[string][]byte, error) {
	head := func(b *strings.Builder) {
		b.WriteString("# Calibrated from a real MariaDB (scripts/realdb/harness.py) and fio by simrun calibrate:\n")
		for _, n := range c.Notes {
			b.WriteString("#   " + n + "\n")
		}
	}
	out := map[string][]byte{}
	var b strings.Builder
	head(&b)
	fmt.Fprintf(&b, "description = %q\n\n[machine]\nname = %q\ncores = %d\nscheduler = %q\ndelay_dequeue = %v\n", "the harness host", name, c.Cores, c.Scheduler, c.DelayDequeue)
	if c.CacheRefill > 0 {
		fmt.Fprintf(&b, "cache_refill = %q\n", sim.Duration(c.CacheRefill).String())
	}
	if c.IdleWake > 0 {
		fmt.Fprintf(&b, "idle_wake = %q\n", sim.Duration(c.IdleWake).String())
	}
	if c.IRQCost > 0 {
		fmt.Fprintf(&b, "irq_cost = %q\n", sim.Duration(c.IRQCost).String())
	}
	if c.FlushDispatch > 0 {
		fmt.Fprintf(&b, "flush_dispatch = %q\n", sim.Duration(c.FlushDispatch).String())
	}
	if c.BackgroundBurst > 0 {
		fmt.Fprintf(&b, "background_burst = %q\nbackground_period = %q\n", sim.Duration(c.BackgroundBurst).String(), sim.Duration(c.BackgroundPeriod).String())
	}
	out["machine.toml"] = []byte(b.String())

	b.Reset()
	head(&b)
	vol := c.Volume
	vol.Name = name
	if err := disk.WritePreset(&b, vol, fmt.Sprintf("Volume of the harness host, from fio: %v IOPS, %v", vol.IOPSMax, vol.BandwidthMax)); err != nil {
		return nil, err
	}
	out["volume.toml"] = []byte(b.String())

	b.Reset()
	head(&b)
	e := c.Engine
	q := func(x fmt.Stringer) string { return strconv.Quote(x.String()) }
	fmt.Fprintf(&b, "description = %q\n\n[engine]\n", "MariaDB as the harness measured it")
	fmt.Fprintf(&b, "\n[engine.buffer_pool]\nsize = %s\nwarm = %v\n", q(e.BufferPool.Size), e.BufferPool.Warm)
	fmt.Fprintf(&b, "\n[engine.redo]\nlog_file_size = %s\nlog_buffer_size = %s\nlog_file_buffering = %q\nflush_log_at_timeout = %s\n",
		q(e.Redo.LogFileSize), q(e.Redo.LogBufferSize), e.Redo.FileBuffering, q(e.Redo.FlushTimeout))
	keys := func(kvs ...any) {
		for i := 0; i < len(kvs); i += 2 {
			fmt.Fprintf(&b, "%s = %s\n", kvs[i], q(kvs[i+1].(fmt.Stringer)))
		}
	}
	keys("bytes_update_index", e.Redo.UpdateIndex, "bytes_update_non_index", e.Redo.UpdateNonIndex, "bytes_delete", e.Redo.Delete,
		"bytes_insert", e.Redo.Insert, "bytes_commit", e.Redo.Commit, "bytes_purge", e.Redo.Purge)
	fmt.Fprintf(&b, "\n[engine.flushing]\nio_capacity = %d\nio_capacity_max = %d\ndoublewrite = %v\n",
		e.Flushing.IOCapacity, e.Flushing.IOCapacityMax, e.Flushing.Doublewrite)
	fmt.Fprintf(&b, "\n[engine.cpu]\n")
	keys("begin", e.CPU.Begin, "update_index", e.CPU.UpdateIndex, "update_non_index", e.CPU.UpdateNonIndex,
		"delete", e.CPU.Delete, "insert", e.CPU.Insert, "commit", e.CPU.Commit, "wakeup", e.CPU.Wakeup)
	out["engine.toml"] = []byte(b.String())

	b.Reset()
	head(&b)
	fmt.Fprintf(&b, "description = %q\n\n[commit]\n\n[commit.binlog]\nmax_binlog_size = %s\nbinlog_commit_wait_count = %d\n\n[commit.cpu]\nwrite = %s\nsync = %s\nbinlog_sync = %s\n",
		"MariaDB's commit path as the harness measured it", q(c.Commit.Binlog.MaxBinlogSize), c.Commit.Binlog.CommitWaitCount, q(c.Commit.CPU.Write), q(c.Commit.CPU.Sync), q(c.Commit.CPU.BinlogSync))
	out["commit.toml"] = []byte(b.String())

	b.Reset()
	head(&b)
	w := c.Client
	fmt.Fprintf(&b, "description = %q\n\n[workload]\nkind = \"sysbench\"\n\n[workload.sysbench]\ntest = %q\ntables = %d\ntable_size = %d\nrand_type = %q\nclient_cpu = %s\nround_trip = %s\n",
		"sysbench as the harness ran it", w.Test, w.Tables, w.TableSize, w.RandType, q(w.ClientCPU), q(w.RoundTrip))
	out["workload.toml"] = []byte(b.String())
	return out, nil
}

// KernelScheduler returns the scheduler of a Linux kernel release (uname
// -r, e.g. "6.18.44-fc-v669"): eevdf from 6.6 on, with DELAY_DEQUEUE from
// 6.12; before 6.6 CFS, for which wake_first stands (docs/kernel.md).
func KernelScheduler(release string) (sched string, delayDequeue bool, err error) {
	var major, minor int
	if _, err := fmt.Sscanf(release, "%d.%d", &major, &minor); err != nil {
		return "", false, fmt.Errorf("realdb: machine.kernel %q: want a Linux release MAJOR.MINOR...", release)
	}
	switch {
	case major > 6 || major == 6 && minor >= 12:
		return "eevdf", true, nil
	case major == 6 && minor >= 6:
		return "eevdf", false, nil
	}
	return "wake_first", false, nil
}

// TimestampTick returns the granularity of file timestamps on a kernel
// with CONFIG_HZ hz (one jiffy) and where it came from; 4 ms, Debian's
// HZ = 250, when hz was not recorded or is not a kernel's (100..1000).
func TimestampTick(hz int) (sim.Duration, string) {
	if hz >= 100 && hz <= 1000 {
		return sim.Duration(time.Second / time.Duration(hz)), fmt.Sprintf("1 s / CONFIG_HZ %d of the harness host", hz)
	}
	return sim.Duration(4 * time.Millisecond), "the harness did not record CONFIG_HZ; Debian's kernels have HZ = 250"
}

// CrowdFrom takes machine.cache_refill from the crowdThreads-thread
// no-sync runs of another document, measured in the same hour on the same
// data, when this one has none (the capped documents run their base at 1
// thread only). It reports whether it found them.
func (c *Calibration) CrowdFrom(d *Doc, name string) bool {
	if c.CacheRefill > 0 {
		return false
	}
	// Its note replaces the one that said this document has no such runs.
	notes := c.Notes[:0]
	for _, n := range c.Notes {
		if !strings.HasPrefix(n, "machine.cache_refill ") {
			notes = append(notes, n)
		}
	}
	c.Notes = notes
	c.cacheRefill(d.Summarise(), func(f string, a ...any) {
		c.Notes = append(c.Notes, fmt.Sprintf(f, a...)+" ("+name+", the same hour)")
	})
	return c.CacheRefill > 0
}

// crowdThreads is the thread count whose no-sync runs give
// machine.cache_refill: the harness's 16, eight threads a vCPU on the
// 2-vCPU host, where a thread comes back to a processor after seven others
// ran there (far past the decay).
const crowdThreads = 16

// cacheRefill derives machine.cache_refill from the crowdThreads-thread
// runs with the binlog off and flush=0 when the document has them: at that
// crowd every query of a transaction starts on a cold cache (the model
// switches at each query boundary with threads waiting), so the CPU a
// transaction gains over the base runs, server and client, divided by the
// queries is one refill. The base runs keep what they cost at 1 thread
// that the crowd does not pay (the wake-up IPI to an idle vCPU, docs/realdb.md),
// so the refill is low by that much a query.
func (c *Calibration) cacheRefill(pts []Point, note func(string, ...any)) {
	crowd, ok := Find(pts, false, 0, 0, crowdThreads)
	if !ok {
		note("machine.cache_refill = 0: no %d-thread run with the binlog off and flush=0 to take it from", crowdThreads)
		return
	}
	cpu := crowd.Range(func(f Figures) float64 { return f.ServerCPUUs + f.ClientCPUUs }).Mean
	q := c.Base.QueriesPerTx
	// The crowd keeps the vCPUs busy: it pays no wake-up of an idle one.
	base := c.Base.ServerCPUUs + c.Base.ClientCPUUs - 2*q*float64(c.IdleWake)/1e3
	if cpu <= base || q <= 0 {
		note("machine.cache_refill = 0: the %d-thread runs' CPU a transaction, %.1fus, is not above the base runs' %.1fus (less their wake-ups of the idle vCPU)", crowdThreads, cpu, base)
		return
	}
	c.CacheRefill = time.Duration(math.Round((cpu - base) * 1e3 / q))
	less := ""
	if c.IdleWake > 0 {
		less = fmt.Sprintf(" (less its %.0f wake-ups of the idle vCPU at machine.idle_wake)", 2*q)
	}
	note("machine.cache_refill = %v: the CPU a transaction (mariadbd + sysbench) grows from %.1fus at 1 thread%s to %.1fus at %d threads (binlog off, flush=0, mean of %d runs), per query (%.1f a transaction)", sim.Duration(c.CacheRefill), base, less, cpu, crowdThreads, len(crowd.Runs), q)
}

// background derives machine.background_burst from the kernel threads'
// CPU (other than the I/O path's workers) in the crowdThreads-thread runs
// with the binlog off and flush=0: with every vCPU busy that CPU is taken
// from the threads. It comes as one burst a period of the host's DAMON
// monitor, the one such thread found on the realdb hosts (kdamond).
func (c *Calibration) background(pts []Point, damonUs []int64, note func(string, ...any)) {
	crowd, ok := Find(pts, false, 0, 0, crowdThreads)
	if !ok {
		note("machine.background_burst = 0: no %d-thread run with the binlog off and flush=0 to take it from", crowdThreads)
		return
	}
	pct := crowd.Range(func(f Figures) float64 { return f.BackgroundPct }).Mean
	if pct <= 0 {
		note("machine.background_burst = 0: the %d-thread no-sync runs recorded no background kernel-thread CPU (documents before stop 31 have none)", crowdThreads)
		return
	}
	src := "the stop-31 host's DAMON sample interval (this document did not record one)"
	c.BackgroundPeriod = server.DefaultBackgroundPeriod
	if len(damonUs) > 0 && damonUs[0] > 0 {
		c.BackgroundPeriod, src = time.Duration(damonUs[0])*time.Microsecond, "the host's DAMON sample interval (sample_us)"
	}
	perSec := pct / 100 * float64(c.Cores) // vCPU-seconds a second
	c.BackgroundBurst = time.Duration(math.Round(perSec * float64(c.BackgroundPeriod)))
	note("machine.background_burst = %v every background_period = %v (%s): the kernel threads other than kworker and jbd2 took %.1f %% of the machine's CPU (%.0f ms of vCPU a second) in the %d-thread runs with the binlog off and flush=0 (mean of %d runs)", sim.Duration(c.BackgroundBurst), sim.Duration(c.BackgroundPeriod), src, pct, perSec*1e3, crowdThreads, len(crowd.Runs))
}
