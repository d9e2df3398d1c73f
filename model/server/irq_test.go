package server

import (
	"math"
	"strings"
	"testing"
	"time"

	"simrun/model/commit"
	"simrun/model/engine"
	"simrun/model/workload"
	"simrun/sim"
)

// binlogOff sets the binlog off, innodb_flush_log_at_trx_commit and the
// connections.
func binlogOff(threads int, flush commit.FlushPolicy) func(*engine.Config, *commit.Config, *workload.Config) {
	return func(_ *engine.Config, cc *commit.Config, wc *workload.Config) {
		cc.BinlogStorageEngine, cc.FlushLogAtTrxCommit = commit.BinlogOff, flush
		wc.Sysbench.Threads = threads
	}
}

// irqRun runs the binlog off at flush=1 on one vCPU with machine.irq_cost
// irq and returns its report and the volume's device I/Os a transaction.
func irqRun(t *testing.T, threads int, irq time.Duration) (Metrics, float64) {
	t.Helper()
	m := Machine{Cores: 1, CPU: sim.CPUConfig{Policy: sim.Fair, Fair: sim.DefaultFairConfig(), IRQCost: irq}}
	s, vol := window(t, m, binlogOff(threads, commit.FlushSyncAtCommit))
	r := s.Report()
	io := vol.Iostat()
	return r, float64(io.Reads+io.Writes+io.Flushes) / float64(r.Transactions)
}

// TestIRQCost: a completion interrupt costs a transaction what the busy
// vCPU loses. At 1 thread the thread that waits for the log sync and its
// client both sleep when the sync completes, so its interrupts land on an
// idle vCPU and cost nothing; at 16 threads the vCPU is busy,
// so nearly every interrupt costs irq_cost, and the transaction's CPU
// grows by about the device I/Os a transaction times it.
func TestIRQCost(t *testing.T) {
	const irq = 20 * time.Microsecond
	lone, _ := irqRun(t, 1, irq)
	if lone.Threads.IRQUsPerTx > 0.05*irq.Seconds()*1e6 {
		t.Errorf("1 thread: %.2f us a transaction of interrupts, want about 0 (they land on an idle vCPU)", lone.Threads.IRQUsPerTx)
	}
	base, _ := irqRun(t, 16, 0)
	crowd, ios := irqRun(t, 16, irq)
	want := ios * irq.Seconds() * 1e6
	t.Logf("16 threads: %.0f -> %.0f TPS, %.2f device I/Os a transaction, %.2f us of interrupts a transaction (at most %.2f)", base.TPS, crowd.TPS, ios, crowd.Threads.IRQUsPerTx, want)
	if got := crowd.Threads.IRQUsPerTx; got < 0.8*want || got > want*(1+1e-9) {
		t.Errorf("16 threads: %.2f us of interrupts a transaction, want 80-100 %% of %.2f", got, want)
	}
	if base.Threads.IRQUsPerTx != 0 {
		t.Errorf("without irq_cost: %.2f us of interrupts a transaction", base.Threads.IRQUsPerTx)
	}
	if !(crowd.TPS < base.TPS) || math.IsNaN(crowd.TPS) {
		t.Errorf("16 threads: %.0f TPS with interrupts, %.0f without: the CPU they take must cost throughput", crowd.TPS, base.TPS)
	}
}

// flushDispatchRun runs the binlog off at flush=flush on two vCPUs with
// machine.flush_dispatch kb and returns its report and the busy vCPU time
// a transaction, in µs.
func flushDispatchRun(t *testing.T, threads int, flush commit.FlushPolicy, kb time.Duration) (Metrics, float64) {
	t.Helper()
	m := Machine{Cores: 2, CPU: sim.CPUConfig{Policy: sim.Fair, Fair: sim.DefaultFairConfig()}, FlushDispatch: kb}
	s, _ := window(t, m, binlogOff(threads, flush))
	r := s.Report()
	return r, r.CPUUtilPct / 100 * 2 * 2e6 / float64(r.Transactions)
}

// TestFlushDispatch: the kernel worker that dispatches each flush costs
// the vCPUs its CPU a flush and no thread's. With flush=1 every
// transaction's sync is a flush: at 1 thread the worker runs on the idle
// vCPU while the thread sleeps, so throughput hardly moves; at 16 threads
// the vCPUs are busy and the worker's CPU costs throughput. With flush=0
// there is about one flush a second and nothing moves.
func TestFlushDispatch(t *testing.T) {
	const kb = 20 * time.Microsecond
	for _, tc := range []struct {
		threads int
		flush   commit.FlushPolicy
		maxLoss float64 // the TPS it may cost, relative
		minLoss float64
	}{
		{1, commit.FlushSyncAtCommit, 0.01, -0.01},
		{16, commit.FlushSyncAtCommit, 0.2, 0.005},
		{16, commit.FlushPerSecond, 0.005, -0.005},
	} {
		base, baseCPU := flushDispatchRun(t, tc.threads, tc.flush, 0)
		with, cpu := flushDispatchRun(t, tc.threads, tc.flush, kb)
		fl := float64(with.Fsyncs) / float64(with.Transactions)
		want := fl * kb.Seconds() * 1e6
		got := with.Threads.FlushDispatchUsPerTx
		t.Logf("%d threads, flush=%v: %.0f -> %.0f TPS, %.3f flushes a transaction, %.2f us of dispatch a transaction, busy %.1f -> %.1f us",
			tc.threads, tc.flush, base.TPS, with.TPS, fl, got, baseCPU, cpu)
		if math.Abs(got-want) > 0.02*want+1e-9 {
			t.Errorf("%d threads, flush=%v: %.3f us of dispatch a transaction, want flushes x flush_dispatch = %.3f", tc.threads, tc.flush, got, want)
		}
		if base.Threads.FlushDispatchUsPerTx != 0 {
			t.Errorf("without flush_dispatch: %.2f us a transaction", base.Threads.FlushDispatchUsPerTx)
		}
		if loss := 1 - with.TPS/base.TPS; loss > tc.maxLoss || loss < tc.minLoss {
			t.Errorf("%d threads, flush=%v: TPS %.0f -> %.0f (%.1f %%), want a loss in [%.1f, %.1f] %%", tc.threads, tc.flush, base.TPS, with.TPS, 100*loss, 100*tc.minLoss, 100*tc.maxLoss)
		}
		// The worker's CPU is in the busy time, the threads' CPU a
		// transaction (the busy time less it) is what it was.
		if d := (cpu - got) - baseCPU; math.Abs(d) > 0.03*baseCPU {
			t.Errorf("%d threads, flush=%v: the threads' CPU a transaction moved from %.1f to %.1f us", tc.threads, tc.flush, baseCPU, cpu-got)
		}
	}
	if _, err := NewSysbenchOn(sim.New(1), Machine{Cores: 1, FlushDispatch: -time.Microsecond}, nil, engine.DefaultConfig(), commit.DefaultConfig(), workload.DefaultConfig()); err == nil || !strings.Contains(err.Error(), "flush_dispatch") {
		t.Errorf("a negative flush_dispatch: %v, want an error naming flush_dispatch", err)
	}
}
