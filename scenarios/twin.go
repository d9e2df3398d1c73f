package scenarios

import (
	"math"

	"simrun/internal/result"
	"simrun/internal/twin"
)

// twinGapPct is the gap between simulation and twin above which a row is
// flagged: MVA of a product-form network is exact, and the sysbench cycle
// is close to one (exponential-like service, FIFO), so a gap above a
// quarter means a mechanism the twin leaves out binds — a checkpoint stall,
// a cap, lock or commit-order waits — and deserves a look.
const twinGapPct = 25

// Twin sets a closed queueing-network estimate beside a row: for a
// sysbench case, exact MVA over the client think time (the client round
// trips), the machine's cores (the transaction's CPU time) and each log
// (a group-commit round, write + sync as a transaction of the group sees
// it, whole for every member and shared by the group the simulation formed
// for the log's capacity); for a replica, the bound of its
// serial coordinator and its workers from their configured CPU costs (and,
// for a worker, its measured wait for a durable commit). It
// returns nil for other workloads.
func Twin(c *Case, m result.Metrics) *result.Twin {
	switch c.Config.Workload.Kind {
	case "sysbench":
		return sysbenchTwin(c, m)
	case "replication":
		return applierTwin(c, m)
	}
	return nil
}

func sysbenchTwin(c *Case, m result.Metrics) *result.Twin {
	tps, ok := metric(m, "tps")
	tx, _ := metric(m, "transactions")
	if !ok || !(tx > 0) {
		return nil
	}
	ms := func(p string) float64 { v, _ := metric(m, "commit_breakdown_ms."+p); return v / 1000 }
	stations := []twin.Station{{Name: "cpu", Demand: ms("cpu"), Servers: c.Config.Machine.Cores}}
	for _, log := range []struct{ name, group string }{{"redo", "tx_per_group.redo_sync"}, {"binlog", "tx_per_group.binlog"}} {
		// One group-commit round: the write and the sync a transaction's
		// own group waits for. Every member waits the whole round (a
		// delay); the log serves one round at a time for the group, so
		// its queueing demand per transaction is the round over the
		// group size.
		round := ms(log.name+"_write") + ms(log.name+"_fsync")
		g, _ := metric(m, log.group)
		if !(round > 0) || !(g >= 1) {
			continue
		}
		stations = append(stations,
			twin.Station{Name: log.name + "_log", Demand: round / g, Servers: 1},
			twin.Station{Name: log.name + "_round", Demand: round * (1 - 1/g), Servers: 0})
	}
	// Page reads and stalls are waits the twin does not model: a delay.
	stations = append(stations, twin.Station{Name: "page_reads+stalls", Demand: ms("page_read") + ms("checkpoint_stall"), Servers: 0})
	e, err := twin.MVA(stations, c.Config.Workload.Sysbench.Threads, ms("client_rtt"))
	if err != nil {
		return nil
	}
	return twinResult("closed MVA: client round trips, cpu, log syncs", tps, e.Throughput, e.Bound, "")
}

func applierTwin(c *Case, m result.Metrics) *result.Twin {
	tps, ok := metric(m, "applier.tps")
	updates, _ := metric(m, "applier.updates_per_trx")
	if !ok || !(updates >= 0) {
		return nil
	}
	a := c.Config.Applier
	// The configured CPU per transaction, where the applier pays it: the
	// MTA's coordinator parses every event, CSA's scheduler only the GTID
	// event and its workers the rest.
	d := a.Demand(int(math.Round(updates)))
	coord, cpu := d.Scheduler.Seconds(), d.Worker.Seconds()
	// A worker holds its transaction until the commit is durable: the
	// wait for the log syncs, as measured, is part of its demand (not of
	// the CPU's).
	worker := cpu
	if wait, ok := metric(m, "applier.worker_commit_wait_s"); ok {
		if n, _ := metric(m, "applier.trx_committed"); n > 0 {
			worker += wait / n
		}
	}
	bound, name := math.Inf(1), ""
	for _, s := range []struct {
		name string
		x    float64
	}{{"coordinator", 1 / coord}, {"workers", float64(a.Workers) / worker}, {"cpu", float64(c.Config.Machine.Cores) / (coord + cpu)}} {
		if s.x < bound {
			bound, name = s.x, s.name
		}
	}
	note := ""
	if src, ok := metric(m, "applier.source_tps"); ok && src > 0 && src < bound {
		bound, name, note = src, "source", "online: the replica cannot apply faster than the source commits"
	}
	return twinResult("asymptotic bound: coordinator, workers, cpu", tps, bound, name, note)
}

func twinResult(model string, sim, est float64, bound, note string) *result.Twin {
	t := &result.Twin{Model: model, TPS: est, SimTPS: sim, Bound: bound, Note: note}
	if est > 0 {
		t.GapPct = (sim - est) / est * 100
		t.Flagged = math.Abs(t.GapPct) > twinGapPct
	}
	return t
}
