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
// the share of the run spent held at the cap is kept as evidence), the
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
