package server

import (
	"math"
	"testing"
	"time"

	"simrun/model/commit"
	"simrun/model/disk"
	"simrun/model/engine"
	"simrun/model/workload"
	"simrun/sim"
)

// irqRun runs the binlog off at flush=1 on one vCPU with machine.irq_cost
// irq and returns its report and the volume's device I/Os a transaction.
func irqRun(t *testing.T, threads int, irq time.Duration) (Metrics, float64) {
	t.Helper()
	env := sim.New(1)
	vol, err := disk.New(env, studyVolume(false))
	if err != nil {
		t.Fatal(err)
	}
	ec, cc, wc := engine.DefaultConfig(), commit.DefaultConfig(), workload.DefaultConfig()
	cc.BinlogStorageEngine, cc.FlushLogAtTrxCommit = commit.BinlogOff, commit.FlushSyncAtCommit
	wc.Sysbench.Threads = threads
	m := Machine{Cores: 1, CPU: sim.CPUConfig{Policy: sim.Fair, Fair: sim.DefaultFairConfig(), IRQCost: irq}}
	s, err := NewSysbenchOn(env, m, vol, ec, cc, wc)
	if err != nil {
		t.Fatal(err)
	}
	s.Start()
	env.RunUntil(sim.At(time.Second))
	s.ResetStats()
	env.RunUntil(sim.At(3 * time.Second))
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
