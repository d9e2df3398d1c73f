package scenarios

import (
	"fmt"
	"math"
	"sort"

	"simrun/internal/result"
)

// Bottleneck ranks the resources of a row by utilisation, from the metrics
// the models emit (nothing is measured twice): the machine's CPU, the
// volume's bandwidth and IOPS caps (throughput over the configured cap, an
// I/O counting max(1, ceil(size/io_unit)) IOPS as the volume counts it;
// the share of the run spent held at the cap is kept as evidence), its
// burst-credit bucket, for a fio job the busy time of a device that serves
// one I/O at a time and the round trip of a job with one I/O in flight
// (fioCandidates), the
// redo and binlog logs (rounds per second × a round's write + sync as its
// transactions see it: a log runs one group-commit round at a time), and
// for a replica the coordinator, the workers and commit order. The
// first is the resource that binds. It returns nil when no candidate is
// present.
func Bottleneck(c *Case, m result.Metrics) *result.Bottleneck {
	var rs []result.Resource
	add := func(name, evidence string, pct float64, ok bool) {
		if ok && !math.IsNaN(pct) {
			rs = append(rs, result.Resource{Name: name, UtilPct: math.Min(pct, 100), Evidence: evidence})
		}
	}
	cpu, ok := metric(m, "cpu_util_pct")
	add("cpu", "cpu_util_pct", cpu, ok)
	// A bulk load is one loading thread on one serial disk: its own CPU
	// share and the disk's busy time (a seek-bound HDD is busy long before
	// any byte cap binds).
	if el, ok := metric(m, "elapsed_s"); ok && el > 0 {
		lc, ok := metric(m, "time_s.cpu")
		add("loader_cpu", "time_s.cpu / elapsed_s", lc/el*100, ok)
		busy, ok := metric(m, "io.util_pct")
		add("volume_busy", "io.util_pct (device busy, one request at a time)", busy, ok)
	}
	if wk, ok := metric(m, "disk.write_kB_per_s"); ok {
		rk, _ := metric(m, "disk.read_kB_per_s")
		held, _ := metric(m, "disk.bw_cap_bound_pct")
		if bw := float64(c.Config.Volume.BandwidthMax); bw > 0 {
			add("volume_bandwidth", fmt.Sprintf("(disk.read_kB_per_s + disk.write_kB_per_s) / volume.bandwidth_max; held at the cap %.1f %% of the time", held),
				(rk+wk)*1000/bw*100, true)
		}
		ws, _ := metric(m, "disk.writes_per_s")
		rs, _ := metric(m, "disk.reads_per_s")
		wsz, _ := metric(m, "disk.avg_write_kB")
		rsz, _ := metric(m, "disk.avg_read_kB")
		held, _ = metric(m, "disk.iops_cap_bound_pct")
		unit := float64(c.Config.Volume.IOUnit) / 1000
		pieces := func(kb float64) float64 {
			if unit <= 0 {
				return 1
			}
			return math.Max(1, math.Ceil(kb/unit))
		}
		if iops := float64(c.Config.Volume.IOPSMax); iops > 0 {
			add("volume_iops", fmt.Sprintf("(disk.reads_per_s + disk.writes_per_s) in io_unit pieces / volume.iops_max; held at the cap %.1f %% of the time", held),
				(rs*pieces(rsz)+ws*pieces(wsz))/iops*100, true)
		}
	}
	// A burst-credit bucket (gp2): the credits the window's I/Os took over
	// the credits it offered, its starting balance plus the refill at
	// baseline_iops. 100 % once the bucket has run dry: from then on the
	// volume is held to baseline_iops, below iops_max.
	if taken, ok := metric(m, "disk.credits.taken"); ok {
		start, _ := metric(m, "disk.credits.balance_start")
		refill, _ := metric(m, "disk.credits.refill")
		held, _ := metric(m, "disk.credits.bound_pct")
		if start+refill > 0 {
			add("volume_credits", fmt.Sprintf("disk.credits.taken / (disk.credits.balance_start + disk.credits.refill); held to credits.baseline_iops %.1f %% of the time", held),
				taken/(start+refill)*100, true)
		}
	}
	if c.Config.Workload.Kind == "fio" {
		fioCandidates(c, m, add)
	}
	if tx, ok := metric(m, "transactions"); ok && tx > 0 {
		tps, _ := metric(m, "tps")
		for _, log := range []string{"redo", "binlog"} {
			n, ok := metric(m, "commit_fsyncs."+log)
			if !ok || !(n > 0) {
				continue
			}
			// A group-commit round, write then sync, as a transaction of
			// the group sees it; the log runs one round at a time.
			w, _ := metric(m, "commit_breakdown_ms."+log+"_write")
			f, _ := metric(m, "commit_breakdown_ms."+log+"_fsync")
			add(log+"_fsync", "commit_fsyncs."+log+"/s × (commit_breakdown_ms."+log+"_write + "+log+"_fsync)", n/tx*tps*(w+f)/1000*100, true)
		}
	}
	coord, ok := metric(m, "applier.coordinator_busy_pct")
	add("coordinator", "applier.coordinator_busy_pct", coord, ok)
	sched, ok := metric(m, "applier.scheduler_busy_pct") // CSA's coordinator
	add("coordinator", "applier.scheduler_busy_pct", sched, ok)
	wk, ok := metric(m, "applier.worker_busy_pct")
	add("applier_workers", "applier.worker_busy_pct", wk, ok)
	acpu, ok := metric(m, "applier.cpu_util_pct")
	add("cpu", "applier.cpu_util_pct", acpu, ok)
	if parked, ok := metric(m, "applier.parked_s"); ok {
		el, _ := metric(m, "applier.elapsed_s")
		workers, _ := metric(m, "applier.workers")
		if el > 0 && workers > 0 {
			add("commit_order", "applier.parked_s / (workers × elapsed_s)", parked/(workers*el)*100, true)
		}
	}
	if hol, ok := metric(m, "applier.hol_blocked_pct"); ok {
		add("head_of_line", "applier.hol_blocked_pct", hol, true)
	}
	if len(rs) == 0 {
		return nil
	}
	sort.SliceStable(rs, func(i, j int) bool { return rs[i].UtilPct > rs[j].UtilPct })
	return &result.Bottleneck{Resource: rs[0].Name, UtilPct: rs[0].UtilPct, Evidence: rs[0].Evidence, Ranked: rs}
}

// fioCandidates adds what can bind a fio job beside the volume's caps:
//
//   - volume_busy, on a device that serves one I/O at a time (an HDD: one
//     actuator), its busy time, disk.util_pct (iostat's %util: the share of
//     time with an I/O at the device). A seek-bound HDD is busy long before
//     its IOPS or byte cap binds. A device that serves I/Os in parallel (a
//     network volume, an SSD) is not saturated at 100 % util, so it gets no
//     such candidate.
//   - round_trip, for a job with one I/O in flight (iodepth x numjobs = 1):
//     the share of time that I/O (or fsync) was in flight, by Little's law
//     the sum over read, write and sync of rate x mean latency, less the
//     share of time it was held at a cap (disk.*_bound_pct: at depth 1 the
//     queue head is the job's I/O). What is left is the job's own round
//     trip through the device: near 100 % means it is latency bound, and
//     only a lower latency or more I/Os in flight would go faster.
func fioCandidates(c *Case, m result.Metrics, add func(name, evidence string, pct float64, ok bool)) {
	if c.Config.Volume.Kind == "hdd" {
		busy, ok := metric(m, "disk.util_pct")
		add("volume_busy", "disk.util_pct (the HDD's one actuator busy)", busy, ok)
	}
	depth, _ := metric(m, "iodepth")
	jobs, _ := metric(m, "numjobs")
	secs, _ := metric(m, "runtime_s")
	if depth*jobs != 1 || !(secs > 0) {
		return
	}
	inflight := 0.0 // seconds of latency per second
	for _, dir := range []string{"read", "write"} {
		n, _ := metric(m, dir+".iops")
		lat, _ := metric(m, dir+".clat_ms.mean")
		inflight += n * lat / 1000
	}
	if n, ok := metric(m, "sync.total_ios"); ok {
		lat, _ := metric(m, "sync.lat_ms.mean")
		inflight += n / secs * lat / 1000
	}
	held := 0.0 // the queue head waits for one cap at a time
	for _, p := range []string{"disk.iops_cap_bound_pct", "disk.bw_cap_bound_pct", "disk.credits.bound_pct"} {
		h, _ := metric(m, p)
		held += h
	}
	add("round_trip", "(read.iops × read.clat_ms.mean + write.iops × write.clat_ms.mean + sync.total_ios / runtime_s × sync.lat_ms.mean) − disk.*_bound_pct: the job's one I/O in flight, not held at a cap",
		math.Max(0, inflight*100-held), true)
}
