package realdb

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// CaseName names a measured point as a scenario case: "off-f1-t16",
// "sb1-f1-t1" (binlog file, sync_binlog=1, flush=1, 1 thread).
func CaseName(s Setting) string {
	n := fmt.Sprintf("sb%d-f%d-t%d", s.sync(), s.Flush, s.Threads)
	if !s.Binlog {
		n = fmt.Sprintf("off-f%d-t%d", s.Flush, s.Threads)
	}
	if s.capped() {
		// "sb1-f1-t16-cap54MB": the blkio cap in MB/s (10^6 B/s).
		n += fmt.Sprintf("-cap%sMB", strconv.FormatFloat(float64(s.CapBPS)/1e6, 'f', -1, 64))
	}
	return n
}

// Scenario writes a scenario file with one case per point, on the
// presets machine.toml, volume.toml, engine.toml, commit.toml and workload.toml of dir
// (a path relative to the scenario file). The binlog on the real server
// is the classic file binlog (MariaDB 10.11), binlog_storage_engine=file.
func Scenario(name, dir string, pts []Point, duration, warmup string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# The real-server matrix of scripts/realdb/harness.py on its calibrated presets\n")
	fmt.Fprintf(&b, "# (simrun calibrate --harness; docs/realdb.md). One case per measured point.\n")
	fmt.Fprintf(&b, "name = %q\ndescription = %q\nseed = 1\nduration = %q\nwarmup = %q\n\n", name,
		"sysbench oltp_write_only on the harness host's MariaDB, as measured by scripts/realdb", duration, warmup)
	for _, sec := range []string{"machine", "volume", "engine", "commit", "workload"} {
		fmt.Fprintf(&b, "[%s]\npreset = %q\n\n", sec, dir+"/"+sec+".toml")
	}
	for _, p := range pts {
		s := p.Setting
		fmt.Fprintf(&b, "[[case]]\nname = %q\n", CaseName(s))
		if s.Binlog {
			fmt.Fprintf(&b, "commit.binlog_storage_engine = \"file\"\ncommit.sync_binlog = %d\n", s.sync())
		} else {
			b.WriteString("commit.binlog_storage_engine = \"off\"\n")
		}
		fmt.Fprintf(&b, "commit.innodb_flush_log_at_trx_commit = %d\nworkload.sysbench.threads = %d\n", s.Flush, s.Threads)
		if s.capped() {
			// The harness's cgroup-v1 blkio throttle on mariadbd, the same
			// figure on reads and on writes: a per-process allowance in
			// front of the volume (disk.Throttle), not a cap of the volume.
			fmt.Fprintf(&b, "volume.throttle.read_bps = \"%[1]dB/s\"\nvolume.throttle.write_bps = \"%[1]dB/s\"\nvolume.throttle.read_iops = %[2]d\nvolume.throttle.write_iops = %[2]d\n", s.CapBPS, s.CapIOPS)
		}
		// The data's age when the point's runs began (their mean): index
		// k's splits and merges depend on it (Doc.RunAges).
		fmt.Fprintf(&b, "engine.index.age = %d\n\n", int64(math.Round(p.Range(func(f Figures) float64 { return f.AgeTx }).Mean)))
	}
	return b.String()
}
