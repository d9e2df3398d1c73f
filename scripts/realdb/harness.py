#!/usr/bin/env python3
"""Real-server harness: measure a real MariaDB under sysbench oltp_write_only.

Starts its own mariadbd (own data directory, socket and loopback port) with
a generated my.cnf, prepares the sysbench tables once, then runs a matrix of
settings (binlog off/on x sync_binlog x innodb_flush_log_at_trx_commit) and
thread counts, every point `--repeat` times in alternating order, and writes
ONE JSON with, per run: sysbench TPS and latency percentiles, SHOW GLOBAL
STATUS deltas, the block device's /sys/block/DEV/stat deltas, the blkio
cgroup's per-process I/O counters, mariadbd's and sysbench's CPU time, the
machine's /proc/stat and /proc/loadavg. Everything it starts is stopped by
PID on exit and its temporary directory is removed.

Python 3 standard library only. See docs/realdb.md.
"""

import argparse
import atexit
import datetime
import json
import math
import os
import re
import resource
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

SCHEMA = "simrun-realdb/1"

STATUS_KEYS = [
    "Innodb_os_log_written", "Innodb_os_log_fsyncs", "Innodb_os_log_pending_fsyncs",
    "Innodb_log_writes", "Innodb_log_write_requests", "Innodb_log_waits",
    "Binlog_bytes_written", "Binlog_commits", "Binlog_group_commits",
    "Binlog_group_commit_trigger_count", "Binlog_group_commit_trigger_timeout",
    "Binlog_group_commit_trigger_lock_wait",
    "Innodb_data_fsyncs", "Innodb_data_writes", "Innodb_data_written",
    "Innodb_data_reads", "Innodb_data_read",
    "Innodb_dblwr_writes", "Innodb_dblwr_pages_written",
    "Innodb_pages_written", "Innodb_buffer_pool_pages_flushed",
    "Innodb_buffer_pool_pages_LRU_flushed", "Innodb_buffer_pool_pages_LRU_freed",
    "Innodb_buffer_pool_wait_free", "Innodb_buffer_pool_read_requests",
    "Innodb_buffer_pool_reads", "Innodb_buffer_pool_write_requests",
    "Innodb_checkpoint_age", "Innodb_checkpoint_max_age",
    "Innodb_buffer_pool_pages_dirty", "Innodb_buffer_pool_pages_free",
    "Innodb_buffer_pool_pages_data", "Innodb_buffer_pool_pages_total",
    "Innodb_lsn_current", "Innodb_lsn_flushed", "Innodb_lsn_last_checkpoint",
    "Innodb_rows_updated", "Innodb_rows_deleted", "Innodb_rows_inserted",
    "Com_commit", "Com_begin", "Com_update", "Com_delete", "Com_insert", "Questions",
    "Handler_commit", "Handler_prepare", "Threads_running",
]
# Gauges: reported as before/after, not as a delta.
GAUGES = {"Innodb_checkpoint_age", "Innodb_checkpoint_max_age", "Innodb_buffer_pool_pages_dirty",
          "Innodb_buffer_pool_pages_free", "Innodb_buffer_pool_pages_data",
          "Innodb_buffer_pool_pages_total", "Innodb_os_log_pending_fsyncs", "Threads_running"}
SAMPLE_KEYS = ["Innodb_checkpoint_age", "Innodb_buffer_pool_pages_dirty", "Innodb_buffer_pool_pages_free",
               "Innodb_buffer_pool_pages_flushed", "Innodb_buffer_pool_pages_LRU_flushed", "Com_commit"]
VARIABLES = [
    "version", "version_comment", "innodb_version", "log_bin", "sync_binlog",
    "innodb_flush_log_at_trx_commit", "innodb_flush_method", "innodb_buffer_pool_size",
    "innodb_log_file_size", "innodb_log_buffer_size", "innodb_io_capacity", "innodb_io_capacity_max",
    "innodb_flush_neighbors", "innodb_lru_scan_depth", "innodb_doublewrite",
    "innodb_log_file_buffering", "innodb_adaptive_flushing", "innodb_max_dirty_pages_pct",
    "binlog_format", "binlog_row_image", "max_binlog_size", "binlog_commit_wait_count",
    "innodb_flush_log_at_timeout", "thread_handling", "performance_schema",
]
DISKSTAT = ["reads", "reads_merged", "sectors_read", "ms_reading", "writes", "writes_merged",
            "sectors_written", "ms_writing", "in_flight", "io_ticks_ms", "time_in_queue_ms",
            "discards", "discards_merged", "sectors_discarded", "ms_discarding", "flushes", "ms_flushing"]
PROCSTAT = ["user", "nice", "system", "idle", "iowait", "irq", "softirq", "steal", "guest", "guest_nice"]
TICK = os.sysconf("SC_CLK_TCK")


def others_cpu_pct(cpu):
    """The machine's CPU that processes other than mariadbd and sysbench took,
    % of all CPU time (model/realdb's machine_other_cpu_pct): above a few per
    cent the run shared its vCPUs, nice or not (docs/realdb.md)."""
    t = cpu["machine_ticks_delta"]
    total = sum(t.values())
    if total <= 0:
        return 0.0
    busy = sum(t.get(k, 0) for k in ("user", "nice", "system", "irq", "softirq"))
    own = (cpu["mariadbd_utime_s"] + cpu["mariadbd_stime_s"] +
           cpu["children_utime_s"] + cpu["children_stime_s"]) * cpu["clk_tck"]
    return max(0.0, 100.0 * (busy - own) / total)


def log(*a):
    print("[realdb %s]" % time.strftime("%H:%M:%S"), *a, file=sys.stderr, flush=True)


class Harness:
    def __init__(self, args):
        self.a = args
        self.tmp = None
        self.server = None  # Popen of mariadbd
        self.bench = None  # Popen of a background sysbench (the alternation)
        self.cgroup = None
        self.sock = None
        self.port = None
        self.errlog = None
        atexit.register(self.cleanup)
        for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
            signal.signal(s, self._signal)

    def _signal(self, signum, _frame):
        log("signal %d: stopping" % signum)
        self.cleanup()
        sys.exit(128 + signum)

    # --- lifecycle -------------------------------------------------------
    def cleanup(self):
        if self.bench is not None and self.bench.poll() is None:
            self.bench.kill()
            self.bench.wait()
        self.bench = None
        self.stop_server()
        if self.cgroup and os.path.isdir(self.cgroup):
            try:
                os.rmdir(self.cgroup)
            except OSError as e:
                log("could not remove cgroup %s: %s" % (self.cgroup, e))
        self.cgroup = None
        if self.tmp and os.path.isdir(self.tmp) and not self.a.keep:
            shutil.rmtree(self.tmp, ignore_errors=True)
        self.tmp = None

    def stop_server(self):
        p = self.server
        if p is None:
            return
        self.server = None
        if p.poll() is None:
            log("stopping mariadbd pid %d" % p.pid)
            p.terminate()
            try:
                p.wait(timeout=120)
            except subprocess.TimeoutExpired:
                log("mariadbd pid %d did not stop in 120 s: SIGKILL" % p.pid)
                p.kill()
                p.wait()

    def mycnf(self, binlog):
        a = self.a
        lines = [
            "[mysqld]",
            "user = root",
            "datadir = %s" % os.path.join(self.tmp, "data"),
            "socket = %s" % self.sock,
            "port = %d" % self.port,
            "bind-address = 127.0.0.1",
            "pid-file = %s" % os.path.join(self.tmp, "mariadbd.pid"),
            "log-error = %s" % self.errlog,
            "tmpdir = %s" % self.tmp,
            "skip-name-resolve",
            "max_connections = 200",
            "innodb_buffer_pool_size = %s" % a.buffer_pool,
            "innodb_log_file_size = %s" % a.redo,
            "innodb_buffer_pool_load_at_startup = ON",
            "innodb_buffer_pool_dump_at_shutdown = ON",
            "innodb_buffer_pool_dump_pct = 100",  # default 25: a restart would bring back a quarter of the pages
        ]
        if a.monitor:
            lines.append("innodb_monitor_enable = %s" % a.monitor)
        if binlog:
            lines += ["log_bin = %s" % os.path.join(self.tmp, "data", "binlog"),
                      "server_id = 1", "binlog_format = ROW"]
        else:
            lines += ["skip-log-bin"]
        lines += [x for x in a.cnf]
        return "\n".join(lines) + "\n"

    def start_server(self, binlog):
        cnf = self.mycnf(binlog)
        path = os.path.join(self.tmp, "my.cnf")
        with open(path, "w") as f:
            f.write(cnf)
        log("starting mariadbd (binlog %s)" % ("on" if binlog else "off"))
        if self.a.caps and self.cgroup:
            # A caps matrix sets each run's cap as it starts; the previous
            # server's last cap must not throttle this one's start and
            # buffer-pool load.
            self.set_cap((0, 0))
        self.server = subprocess.Popen(["mariadbd", "--defaults-file=" + path],
                                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        if self.cgroup:
            with open(os.path.join(self.cgroup, "cgroup.procs"), "w") as f:
                f.write(str(self.server.pid))
        deadline = time.time() + 180
        while time.time() < deadline:
            if self.server.poll() is not None:
                raise RuntimeError("mariadbd exited with %s; see %s:\n%s" % (
                    self.server.returncode, self.errlog, tail(self.errlog)))
            if os.path.exists(self.sock) and self.sql_try("SELECT 1") is not None:
                break
            time.sleep(0.5)
        else:
            raise RuntimeError("mariadbd did not come up in 180 s:\n" + tail(self.errlog))
        self.wait_pool_loaded()
        return cnf

    def wait_pool_loaded(self, limit=600):
        """Wait until the buffer pool dump is loaded back
        (innodb_buffer_pool_load_at_startup): a run measured while the load
        still reads pages measures the load too (4 GiB of pages take 75 s
        at 54 MB/s)."""
        t0 = time.time()
        while time.time() - t0 < limit:
            st = self.sql_try("SHOW GLOBAL STATUS LIKE 'Innodb_buffer_pool_load_status'") or ""
            v = st.partition("\t")[2].strip()
            if not v or "completed" in v or "Cannot open" in v or "not started" in v or "aborted" in v:
                if time.time() - t0 > 1:
                    log("buffer pool loaded in %.0f s (%s)" % (time.time() - t0, v[:60]))
                return
            time.sleep(0.5)
        log("warning: the buffer pool load did not finish in %d s" % limit)

    def setup(self):
        a = self.a
        base = a.workdir or None
        self.tmp = tempfile.mkdtemp(prefix="simrun-realdb-", dir=base)
        self.sock = os.path.join(self.tmp, "mariadbd.sock")
        self.errlog = os.path.join(self.tmp, "mariadbd.err")
        self.port = a.port or free_port()
        os.mkdir(os.path.join(self.tmp, "data"))
        log("data directory %s, port %d" % (self.tmp, self.port))
        r = subprocess.run(["mariadb-install-db", "--no-defaults", "--user=root",
                            "--datadir=" + os.path.join(self.tmp, "data"),
                            "--auth-root-authentication-method=normal",
                            "--skip-test-db"], capture_output=True, text=True)
        if r.returncode != 0:
            raise RuntimeError("mariadb-install-db failed:\n" + r.stdout + r.stderr)
        self.setup_cgroup()

    def setup_cgroup(self):
        a = self.a
        root = "/sys/fs/cgroup/blkio"
        if not os.path.isdir(root):
            if a.write_bps or a.write_iops or a.read_bps or a.read_iops:
                raise RuntimeError("%s does not exist: no cgroup-v1 blkio here, cannot throttle" % root)
            log("no cgroup-v1 blkio: per-process I/O counters not recorded")
            return
        cg = os.path.join(root, "simrun-realdb-%d" % os.getpid())
        try:
            os.mkdir(cg)
        except OSError as e:
            if a.write_bps or a.write_iops or a.read_bps or a.read_iops:
                raise
            log("cannot create blkio cgroup: %s" % e)
            return
        self.cgroup = cg
        dev = "%d:%d" % self.devnum
        for knob, val in (("write_bps_device", a.write_bps), ("write_iops_device", a.write_iops),
                          ("read_bps_device", a.read_bps), ("read_iops_device", a.read_iops)):
            if val:
                with open(os.path.join(cg, "blkio.throttle." + knob), "w") as f:
                    f.write("%s %d\n" % (dev, val))
                log("blkio throttle %s = %d on %s" % (knob, val, dev))

    # --- SQL -------------------------------------------------------------
    def sql(self, q):
        r = subprocess.run(["mariadb", "--no-defaults", "-uroot", "-S", self.sock, "-N", "-B", "-e", q],
                           capture_output=True, text=True)
        if r.returncode != 0:
            raise RuntimeError("SQL %r failed: %s" % (q, r.stderr.strip()))
        return r.stdout

    def sql_try(self, q):
        try:
            return self.sql(q)
        except RuntimeError:
            return None

    def status(self):
        out = {}
        for line in self.sql("SHOW GLOBAL STATUS").splitlines():
            k, _, v = line.partition("\t")
            out[k] = v
        return out

    def variables(self):
        names = ",".join("'%s'" % v for v in VARIABLES)
        out = {}
        for line in self.sql("SELECT VARIABLE_NAME, VARIABLE_VALUE FROM information_schema.GLOBAL_VARIABLES "
                             "WHERE LOWER(VARIABLE_NAME) IN (%s)" % names).splitlines():
            k, _, v = line.partition("\t")
            out[k.lower()] = v
        return out

    def metrics(self):
        out = {}
        q = ("SELECT NAME, COUNT FROM information_schema.INNODB_METRICS WHERE ENABLED = 1 "
             "AND (NAME LIKE 'buffer_flush%' OR NAME LIKE 'buffer_LRU%' OR NAME LIKE 'log_%' "
             "OR NAME LIKE 'index_%' OR NAME LIKE 'trx_%' OR NAME LIKE 'purge_%' "
             "OR NAME LIKE 'buffer_page_written_%')")
        for line in (self.sql_try(q) or "").splitlines():
            k, _, v = line.partition("\t")
            try:
                out[k] = int(v)
            except ValueError:
                pass
        return out

    # --- counters ----------------------------------------------------------
    def snapshot(self):
        s = {"t": time.time(), "status": self.status(), "metrics": self.metrics(),
             "disk": read_diskstat(self.devname), "proc": read_procstat(),
             "mariadbd": read_pidstat(self.server.pid), "loadavg": read_loadavg(),
             "mariadbd_tasks": read_taskstats(self.server.pid),
             "interrupts": read_interrupts(), "kthreads": read_kthreads(),
             "children": resource.getrusage(resource.RUSAGE_CHILDREN)}
        if self.cgroup:
            s["cgroup"] = read_cgroup(self.cgroup, "%d:%d" % self.devnum)
        return s

    # --- sysbench --------------------------------------------------------
    def sysbench_argv(self, cmd, threads, seconds, histogram=True):
        a = self.a
        argv = ["sysbench", "oltp_write_only", "--db-driver=mysql", "--mysql-socket=" + self.sock,
                "--mysql-user=root", "--mysql-db=sbtest", "--tables=%d" % a.tables,
                "--table-size=%d" % a.table_size, "--threads=%d" % threads]
        if cmd == "run":
            argv += ["--time=%d" % seconds, "--report-interval=0"]
            if histogram:
                argv += ["--histogram=on", "--percentile=95"]
            argv += ["--rand-type=special"]
        return argv

    def sysbench(self, cmd, threads, seconds, extra=()):
        argv = self.sysbench_argv(cmd, threads, seconds) + list(extra) + [cmd]
        r = subprocess.run(argv, capture_output=True, text=True)
        if r.returncode != 0:
            raise RuntimeError("sysbench %s failed:\n%s%s" % (cmd, r.stdout[-3000:], r.stderr[-3000:]))
        return argv, r.stdout

    def prepare(self):
        a = self.a
        self.sql("CREATE DATABASE IF NOT EXISTS sbtest")
        self.sql("SET GLOBAL innodb_flush_log_at_trx_commit = 0")
        log("sysbench prepare: %d tables x %d rows" % (a.tables, a.table_size))
        t = time.time()
        self.sysbench("prepare", min(a.tables, 4), 0)
        log("prepared in %.0f s" % (time.time() - t))

    def age(self):
        """Run the load unmeasured for --age seconds (flush=0, the most threads), in slices, and
        record the redo per transaction of each slice: it falls while the data age."""
        a = self.a
        threads = max(int(x) for x in a.threads.split(","))
        self.sql("SET GLOBAL innodb_flush_log_at_trx_commit = 0")
        log("aging the data: %d s at %d threads" % (a.age, threads))
        slices = []
        left = a.age
        while left > 0:
            n = min(30, left)
            before, mb = self.status(), self.metrics()
            _, out = self.sysbench("run", threads, n)
            after, ma = self.status(), self.metrics()
            sb = parse_sysbench(out)
            d = status_delta(before, after)
            tx = sb.get("transactions") or 0
            # The index counters (index_page_splits, index_page_merge_*,
            # with --monitor module_index) say what the B-trees did in the slice.
            slices.append({"seconds": n, "tps": sb.get("tps"), "transactions": tx,
                           "redo_bytes_per_trx": round(d.get("Innodb_lsn_current", 0) / tx, 1) if tx else None,
                           "status_delta": d,
                           "status_gauges": {k: [num(before.get(k)), num(after.get(k))]
                                             for k in sorted(GAUGES) if k in after},
                           "innodb_metrics_delta": {k: ma[k] - mb.get(k, 0) for k in sorted(ma)
                                                    if ma[k] != mb.get(k, 0)}})
            left -= n
        log("aged: redo per transaction %s B" % [s["redo_bytes_per_trx"] for s in slices])
        return {"seconds": a.age, "threads": threads, "slices": slices}

    def set_cap(self, cap):
        """Write one cap (bytes/s, IOPS) to all four v1 blkio throttle knobs; 0 0 lifts it."""
        bps, iops = cap
        dev = "%d:%d" % self.devnum
        for knob, val in (("write_bps_device", bps), ("read_bps_device", bps),
                          ("write_iops_device", iops), ("read_iops_device", iops)):
            with open(os.path.join(self.cgroup, "blkio.throttle." + knob), "w") as f:
                f.write("%s %d\n" % (dev, val))

    def measure(self, point, rep, order):
        a = self.a
        binlog, sync_binlog, flush, threads, cap = point
        if cap is not None:
            self.set_cap(cap)
        elif self.a.caps and self.cgroup:
            self.set_cap((0, 0))  # a --base run beside a caps matrix runs uncapped
        self.sql("SET GLOBAL innodb_flush_log_at_trx_commit = %d" % flush)
        if binlog:
            self.sql("SET GLOBAL sync_binlog = %d" % sync_binlog)
        if a.warmup > 0:
            self.sysbench("run", threads, a.warmup)
        samples = []
        before = self.snapshot()
        argv, out = self.sysbench_sampled(threads, a.duration, samples)
        after = self.snapshot()
        res = {
            "setting": {"binlog": binlog, "sync_binlog": sync_binlog if binlog else None,
                        "innodb_flush_log_at_trx_commit": flush, "threads": threads},
            "cap": None if cap is None else {"bps": cap[0], "iops": cap[1]},
            "repeat": rep, "order": order,
            "start_utc": utc(before["t"]), "elapsed_s": round(after["t"] - before["t"], 3),
            "sysbench": parse_sysbench(out), "sysbench_argv": argv,
            "status_delta": status_delta(before["status"], after["status"]),
            "status_gauges": {k: [num(before["status"].get(k)), num(after["status"].get(k))]
                              for k in sorted(GAUGES) if k in after["status"]},
            "innodb_metrics_delta": {k: after["metrics"][k] - before["metrics"].get(k, 0)
                                     for k in sorted(after["metrics"])
                                     if after["metrics"][k] != before["metrics"].get(k, 0)},
            "loadavg_before": before["loadavg"], "loadavg_after": after["loadavg"],
            "samples": samples,
        }
        res.update(machine_deltas(before, after))
        res["cpu"]["children_utime_s"] = round(after["children"].ru_utime - before["children"].ru_utime, 4)
        res["cpu"]["children_stime_s"] = round(after["children"].ru_stime - before["children"].ru_stime, 4)
        if "cgroup" in after:
            res["cgroup_delta"] = {k: after["cgroup"][k] - before["cgroup"].get(k, 0) for k in after["cgroup"]}
        sb = res["sysbench"]
        d = res["disk_delta"]
        tx = sb.get("transactions") or 0
        # /sys/block counts each fdatasync's empty preflush bio as a write
        # too; the device's writes are the writes less the flushes.
        log("%-28s rep %d: %8.1f tps  p95 %6.2f ms  flush/tx %.3f  writes/tx %.3f  load %s  others %.0f%%" % (
            label(point), rep, sb.get("tps", 0), sb.get("latency_ms", {}).get("p95", 0),
            d["flushes"] / tx if tx else 0, (d["writes"] - d["flushes"]) / tx if tx else 0,
            after["loadavg"][0], others_cpu_pct(res["cpu"])))
        return res

    def sysbench_sampled(self, threads, seconds, samples):
        """sysbench run; when --sample-interval > 0, SHOW GLOBAL STATUS gauges are sampled."""
        a = self.a
        if a.sample_interval <= 0:
            return self.sysbench("run", threads, seconds)
        import threading
        stop = threading.Event()
        t0 = time.time()

        def loop():
            while not stop.wait(a.sample_interval):
                names = ",".join("'%s'" % k for k in SAMPLE_KEYS)
                out = self.sql_try("SELECT VARIABLE_NAME, VARIABLE_VALUE FROM information_schema.GLOBAL_STATUS "
                                   "WHERE VARIABLE_NAME IN (%s)" % names.upper())
                if out is None:
                    continue
                row = {"t_s": round(time.time() - t0, 2)}
                for line in out.splitlines():
                    k, _, v = line.partition("\t")
                    row[k.lower()] = num(v)
                samples.append(row)

        th = threading.Thread(target=loop, daemon=True)
        th.start()
        try:
            return self.sysbench("run", threads, seconds)
        finally:
            stop.set()
            th.join()

    def alternate(self, pair, threads):
        """One long sysbench run at `threads` while the setting alternates between the pair's two
        (both dynamic: innodb_flush_log_at_trx_commit, sync_binlog) every --alternate-period
        seconds, in the order A B B A A B B A ... so that a linear drift of the host's speed
        cancels in each block of four. Each slice is measured after --alternate-settle seconds of
        its setting: a paired measurement of what the setting costs, at one state of the page
        cleaner and nearly one speed of the host."""
        a = self.a
        period, settle = a.alternate_period, a.alternate_settle
        n = max(2, int(a.alternate_duration // period) // 4 * 4)
        # Each slice takes a little longer than its period (the SQL of the
        # switch and the snapshots); the client is stopped once the slices
        # are done.
        seconds = int(math.ceil(a.warmup + 1.2 * n * period + 30))

        def setting(p):
            binlog, sync_binlog, flush = p
            self.sql("SET GLOBAL innodb_flush_log_at_trx_commit = %d" % flush)
            if binlog:
                self.sql("SET GLOBAL sync_binlog = %d" % sync_binlog)

        def snap(pid):
            s = {"t": time.time(), "status": self.status(), "disk": read_diskstat(self.devname),
                 "proc": read_procstat(), "mariadbd": read_pidstat(self.server.pid),
                 "interrupts": read_interrupts()}
            try:
                s["sysbench"] = read_pidstat(pid)
            except OSError:
                s["sysbench"] = None
            return s

        setting(pair[0])
        argv, proc = self.sysbench_start(threads, seconds)
        slices = []
        try:
            time.sleep(a.warmup)
            t0 = time.time()
            for i in range(n):
                p = pair[0] if i % 4 in (0, 3) else pair[1]
                setting(p)
                time.sleep(settle)
                b = snap(proc.pid)
                time.sleep(max(0.1, period - settle - (time.time() - b["t"])))
                e = snap(proc.pid)
                if proc.poll() is not None or b["sysbench"] is None or e["sysbench"] is None:
                    raise RuntimeError("sysbench ended before the alternation did")
                binlog, sync_binlog, flush = p
                sl = {"setting": {"binlog": binlog, "sync_binlog": sync_binlog if binlog else None,
                                  "innodb_flush_log_at_trx_commit": flush, "threads": threads},
                      "t_s": round(b["t"] - t0, 3), "elapsed_s": round(e["t"] - b["t"], 3),
                      "status_delta": status_delta(b["status"], e["status"])}
                sl.update(machine_deltas(b, e))
                sl["cpu"]["sysbench_utime_s"] = (e["sysbench"][0] - b["sysbench"][0]) / TICK
                sl["cpu"]["sysbench_stime_s"] = (e["sysbench"][1] - b["sysbench"][1]) / TICK
                slices.append(sl)
        finally:
            stopped = proc.poll() is None
            if stopped:
                # Done (or an error above): stop the client before the server.
                proc.terminate()
            out, err = proc.communicate()
            self.bench = None
        if not stopped and proc.returncode != 0:
            raise RuntimeError("sysbench run failed:\n%s%s" % (out[-3000:], err[-3000:]))
        tps = {}
        for sl in slices:
            k = label((sl["setting"]["binlog"], sl["setting"]["sync_binlog"] or 0,
                       sl["setting"]["innodb_flush_log_at_trx_commit"], threads, None))
            tps.setdefault(k, []).append(sl["status_delta"].get("Com_commit", 0) / sl["elapsed_s"])
        log("alternation at %d threads, %d slices of %g s: %s" % (
            threads, len(slices), period, ", ".join("%s %.0f tps" % (k, sum(v) / len(v)) for k, v in tps.items())))
        return {"threads": threads, "period_s": period, "settle_s": settle,
                "order": "ABBA", "sysbench_argv": argv, "slices": slices}

    def sysbench_start(self, threads, seconds):
        """sysbench run in the background (the alternation reads its CPU from /proc)."""
        argv = self.sysbench_argv("run", threads, seconds, histogram=False) + ["run"]
        self.bench = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        return argv, self.bench

    def fio(self):
        """scripts/realdb/fio.sh right after the matrix, its JSON as one object."""
        out = os.path.join(self.tmp, "fio.json")
        log("fio: %d s a job on %s" % (self.a.fio, self.tmp))
        subprocess.run(["bash", os.path.join(os.path.dirname(os.path.abspath(__file__)), "fio.sh"), out,
                        str(self.a.fio), self.tmp], check=True, stdout=subprocess.DEVNULL)
        with open(out) as f:
            return json.load(f)

    def probe(self, script, rounds, key, what):
        """scripts/realdb/SCRIPT DIR ROUNDS 5 on the data's filesystem, one
        object a round; [] when the probe fails (one vCPU, no compiler)."""
        try:
            out = subprocess.run(["bash", os.path.join(os.path.dirname(os.path.abspath(__file__)), script),
                                  self.tmp, str(rounds), "5"], check=True,
                                 capture_output=True, text=True).stdout
        except subprocess.CalledProcessError as e:
            log("%s failed: %s" % (script, (e.stderr or "")[-500:]))
            return []
        runs = [json.loads(l) for l in out.splitlines() if l.strip()]
        if runs:
            us = sorted(r[key] for r in runs)
            log("%s: %.1f us %s (median of %d)" % (script, us[len(us) // 2], what, len(us)))
        return runs

    def irq_probe(self):
        """What a disk completion interrupt costs the busy vCPU that takes it."""
        return self.probe("irq-cost.sh", self.a.irq_probe, "cpu_us_per_interrupt",
                          "of a busy vCPU a completion interrupt")

    def kblockd_probe(self):
        """The CPU the kernel workers spend dispatching a device flush."""
        return self.probe("kblockd.sh", self.a.kblockd_probe, "kworker_cpu_us_per_flush",
                          "of kernel workers a device flush")

    def wake_probe(self):
        """scripts/realdb/wake.c, five runs pinned to vCPUs 0 and 1 (a
        wake-up is an IPI to the other vCPU) and five on vCPU 0; [] when
        there is no C compiler or one vCPU."""
        src = os.path.join(os.path.dirname(os.path.abspath(__file__)), "wake.c")
        exe = os.path.join(self.tmp, "wake")
        if not os.path.exists(exe):
            cc = shutil.which("cc") or shutil.which("gcc")
            if not cc or not os.path.exists(src):
                log("wake probe: no C compiler or no wake.c; skipped")
                return []
            subprocess.run([cc, "-O2", "-pthread", "-o", exe, src], check=True)
        runs = []
        pins = ["0 1", "0 0"] if os.cpu_count() and os.cpu_count() >= 2 else ["0 0"]
        for pin in pins:
            for _ in range(5):
                out = subprocess.run([exe, str(self.a.wake_probe)] + pin.split(), check=True,
                                     capture_output=True, text=True).stdout
                runs.append(json.loads(out))
        cross = sorted(r["cpu_us_per_wake"] for r in runs if r["pin"] == "0/1")
        if cross:
            log("wake probe: %.1f us of CPU a cross-vCPU wake-up (median of %d)" % (cross[len(cross) // 2], len(cross)))
        return runs

    # --- main --------------------------------------------------------------
    def run(self):
        a = self.a
        self.devname, self.devnum = backing_device(a.workdir or tempfile.gettempdir())
        self.setup()
        settings = parse_settings(a.settings)
        threads = [int(x) for x in a.threads.split(",")]
        caps = parse_caps(a.caps) if a.caps else [None]
        if a.caps and not self.cgroup:
            raise SystemExit("--caps needs a cgroup-v1 blkio hierarchy")
        base = parse_settings(a.base) if a.base else []
        modes = sorted({s[0] for s in settings + base})
        doc = {
            "schema": SCHEMA,
            "created_utc": utc(time.time()),
            "args": {k: v for k, v in vars(a).items() if k not in ("out",)},
            "machine": machine_info(self.devname),
            "versions": versions(),
            "device": {"name": self.devname, "majmin": "%d:%d" % self.devnum,
                       "rotational": readf("/sys/block/%s/queue/rotational" % self.devname),
                       "scheduler": readf("/sys/block/%s/queue/scheduler" % self.devname),
                       "write_cache": readf("/sys/block/%s/queue/write_cache" % self.devname),
                       "logical_block_size": readf("/sys/block/%s/queue/logical_block_size" % self.devname),
                       "max_sectors_kb": readf("/sys/block/%s/queue/max_sectors_kb" % self.devname),
                       "filesystem": fs_info(self.tmp)},
            "throttle": {"write_bps": a.write_bps, "write_iops": a.write_iops,
                         "read_bps": a.read_bps, "read_iops": a.read_iops,
                         "cgroup": "blkio v1" if self.cgroup else None},
            "my_cnf": {}, "server_variables": {}, "prepare": {}, "runs": [],
        }
        # The CPU of a thread's wake-up, before anything of the harness
        # runs and again at the end (the host's state moves it).
        if a.wake_probe > 0:
            doc["wake_probe"] = {"round_trips": a.wake_probe, "before": self.wake_probe()}
        # The data are prepared once, with the binlog off.
        doc["my_cnf"]["prepare"] = self.start_server(False)
        t = time.time()
        self.prepare()
        doc["prepare"] = {"seconds": round(time.time() - t, 1), "tables": a.tables, "table_size": a.table_size}
        if a.age > 0:
            # Age the data before anything is measured: the first minutes
            # after prepare write more redo per transaction than later ones
            # (docs/realdb.md, "Data age").
            doc["age"] = self.age()
        self.stop_server()
        order = 0
        for rep in range(a.repeat):
            ms = modes if rep % 2 == 0 else modes[::-1]
            for binlog in ms:
                cnf = self.start_server(binlog)
                key = "binlog_on" if binlog else "binlog_off"
                doc["my_cnf"][key] = cnf
                doc["server_variables"][key] = self.variables()
                if a.server_warmup > 0:
                    self.sysbench("run", max(threads), a.server_warmup)
                pts = [(b, sb, fl, th, cap) for (b, sb, fl) in settings if b == binlog
                       for th in threads for cap in caps]
                # The base runs (the calibration's points), uncapped, first
                # in the pass and last in the reversed one.
                pts = [(b, sb, fl, a.base_threads, None) for (b, sb, fl) in base if b == binlog] + pts
                if rep % 2 == 1:
                    pts = pts[::-1]
                for p in pts:
                    doc["runs"].append(self.measure(p, rep, order))
                    order += 1
                self.stop_server()
        # The paired alternations, after the matrix, one server start per
        # binlog mode they need.
        pairs = parse_pairs(a.alternate) if a.alternate else []
        if pairs:
            doc["alternations"] = []
        for binlog in sorted({p[0][0] for p in pairs}):
            cnf = self.start_server(binlog)
            key = "binlog_on" if binlog else "binlog_off"
            doc["my_cnf"][key] = cnf
            doc["server_variables"][key] = self.variables()
            if a.server_warmup > 0:
                self.sysbench("run", a.alternate_threads, a.server_warmup)
            for pair in pairs:
                if pair[0][0] != binlog:
                    continue
                try:
                    doc["alternations"].append(self.alternate(pair, a.alternate_threads))
                except RuntimeError as e:
                    # Keep what was measured (the matrix, the other pairs).
                    log("alternation %s failed: %s" % (pair, e))
                    doc["alternations"].append({"threads": a.alternate_threads, "error": str(e)[:2000],
                                                "slices": []})
            self.stop_server()
        if a.wake_probe > 0:
            doc["wake_probe"]["after"] = self.wake_probe()
        # The device's latencies in the same minutes as the runs, on the
        # same filesystem (simrun calibrate takes them from here when it is
        # given no fio JSON of its own): the host's load moves them.
        if a.fio > 0:
            doc["fio"] = self.fio()
        if a.irq_probe > 0:
            doc["irq_probe"] = self.irq_probe()
        if a.kblockd_probe > 0:
            doc["kblockd_probe"] = self.kblockd_probe()
        doc["finished_utc"] = utc(time.time())
        # The run's temporary directory is no part of the data: $RUNDIR.
        text = json.dumps(doc, indent=1, sort_keys=True).replace(self.tmp, "$RUNDIR")
        write_atomic(a.out, text + "\n")
        log("wrote %s (%d runs)" % (a.out, len(doc["runs"])))


# --- helpers ----------------------------------------------------------------

def label(p):
    b, sb, fl, th, cap = p
    s = ("binlog on sync_binlog=%d" % sb if b else "binlog off") + " flush=%d thr=%d" % (fl, th)
    return s if cap is None else s + " cap=%dMB/s,%d" % (cap[0] // 1000000, cap[1])


def parse_caps(spec):
    """'120M:15000,54M:6750' -> [(120000000, 15000), (54000000, 6750)]; M = 10^6 here, as volume caps are quoted.
    'none' is an uncapped point of the same matrix (None)."""
    out = []
    for item in spec.split(","):
        if item == "none":
            out.append(None)
            continue
        bps, _, iops = item.partition(":")
        m = re.fullmatch(r"(\d+)([KM]?)", bps)
        if not m or not iops.isdigit():
            raise SystemExit("bad cap %r: use BPS[K|M]:IOPS, e.g. 54M:6750" % item)
        out.append((int(m.group(1)) * {"": 1, "K": 1000, "M": 1000000}[m.group(2)], int(iops)))
    return out


def parse_settings(spec):
    """'off:0,off:1,on:0:1' -> [(binlog, sync_binlog, flush)]; 'all' = the full 9-setting matrix."""
    if spec == "all":
        spec = "off:0,off:1,off:2,on:0:0,on:0:1,on:0:2,on:1:0,on:1:1,on:1:2"
    if spec == "none":
        return []  # no matrix (the alternations only)
    out = []
    for item in spec.split(","):
        f = item.split(":")
        if f[0] == "off" and len(f) == 2:
            out.append((False, 0, int(f[1])))
        elif f[0] == "on" and len(f) == 3:
            out.append((True, int(f[1]), int(f[2])))
        else:
            raise SystemExit("bad setting %r: use off:FLUSH or on:SYNC_BINLOG:FLUSH" % item)
    return out


def parse_pairs(spec):
    """'off:0/off:1,on:0:1/on:1:1' -> [((binlog, sync_binlog, flush), (...))]: the two settings of a
    pair share the binlog mode (the others are dynamic)."""
    out = []
    for item in spec.split(","):
        ab = item.split("/")
        if len(ab) != 2:
            raise SystemExit("bad --alternate pair %r: use A/B, e.g. off:0/off:1" % item)
        pa, pb = parse_settings(ab[0])[0], parse_settings(ab[1])[0]
        if pa[0] != pb[0] or pa == pb:
            raise SystemExit("bad --alternate pair %r: two different settings of one binlog mode" % item)
        out.append((pa, pb))
    return out


def parse_sysbench(out):
    r = {}
    m = re.search(r"transactions:\s+(\d+)\s+\(([\d.]+) per sec", out)
    if m:
        r["transactions"], r["tps"] = int(m.group(1)), float(m.group(2))
    m = re.search(r"queries:\s+(\d+)\s+\(([\d.]+) per sec", out)
    if m:
        r["queries"], r["qps"] = int(m.group(1)), float(m.group(2))
    m = re.search(r"ignored errors:\s+(\d+)", out)
    if m:
        r["ignored_errors"] = int(m.group(1))
    m = re.search(r"total time:\s+([\d.]+)s", out)
    if m:
        r["total_time_s"] = float(m.group(1))
    lat = {}
    for k, key in (("min", "min"), ("avg", "avg"), ("max", "max"), ("95th percentile", "p95_sysbench")):
        m = re.search(r"^\s+%s:\s+([\d.]+)" % re.escape(k), out, re.M)
        if m:
            lat[key] = float(m.group(1))
    # Histogram lines: "   1.234 |*****   12" (value in ms, count).
    hist = [(float(v), int(c)) for v, c in re.findall(r"^\s+([\d.]+)\s+\|\*?[* ]*\s(\d+)\s*$", out, re.M)]
    n = sum(c for _, c in hist)
    if n:
        for p in (50, 90, 95, 99, 99.9):
            want, acc = n * p / 100.0, 0
            for v, c in hist:
                acc += c
                if acc >= want:
                    lat["p%g" % p] = v
                    break
        r["histogram_ms"] = hist
    r["latency_ms"] = lat
    return r


def status_delta(b, a):
    out = {}
    for k in STATUS_KEYS:
        if k in GAUGES or k not in a:
            continue
        x, y = num(b.get(k)), num(a.get(k))
        if isinstance(x, (int, float)) and isinstance(y, (int, float)):
            out[k] = y - x
    return out


def num(v):
    if v is None:
        return None
    try:
        return int(v)
    except ValueError:
        try:
            return float(v)
        except ValueError:
            return v


def read_diskstat(dev):
    f = readf("/sys/block/%s/stat" % dev).split()
    return {k: int(f[i]) for i, k in enumerate(DISKSTAT) if i < len(f)}


def read_procstat():
    with open("/proc/stat") as f:
        lines = f.read().splitlines()
    first = lines[0].split()
    out = {k: int(first[i + 1]) for i, k in enumerate(PROCSTAT)}
    for line in lines:
        if line.startswith("ctxt "):
            out["ctxt"] = int(line.split()[1])  # context switches since boot, all CPUs
    return out


def machine_deltas(b, e):
    """What the machine and mariadbd did between two snapshots: the disk's and the interrupts'
    counters, mariadbd's CPU, the machine's ticks and context switches."""
    return {"disk_delta": {k: e["disk"][k] - b["disk"][k] for k in e["disk"] if k != "in_flight"},
            "interrupts_delta": interrupts_delta(b["interrupts"], e["interrupts"]),
            "cpu": {"mariadbd_utime_s": (e["mariadbd"][0] - b["mariadbd"][0]) / TICK,
                    "mariadbd_stime_s": (e["mariadbd"][1] - b["mariadbd"][1]) / TICK,
                    "machine_ticks_delta": {k: e["proc"][k] - b["proc"][k] for k in PROCSTAT},
                    "machine_context_switches": e["proc"].get("ctxt", 0) - b["proc"].get("ctxt", 0),
                    "clk_tck": TICK},
            "sched_delta": sched_delta(b.get("mariadbd_tasks"), e.get("mariadbd_tasks")),
            "kthreads_cpu_s": kthreads_delta(b.get("kthreads"), e.get("kthreads"))}


def sched_delta(b, e):
    """mariadbd's threads' scheduler figures between two snapshots (/proc/PID/task/TID/schedstat,
    CONFIG_SCHED_INFO): time on a CPU, time runnable but waiting for one (run_delay), and the
    number of times a thread was put on a CPU. Threads created in between count from zero;
    threads that ended in between are lost (the connection threads stay in the thread cache)."""
    if not e:
        return {}
    b = b or {}
    out = {"run_ns": 0, "run_delay_ns": 0, "timeslices": 0, "threads": len(e)}
    for tid, v in e.items():
        w = b.get(tid, (0, 0, 0))
        out["run_ns"] += v[0] - w[0]
        out["run_delay_ns"] += v[1] - w[1]
        out["timeslices"] += v[2] - w[2]
    return out


def read_interrupts():
    """/proc/interrupts as {name: [count per CPU]}: numbered IRQs by their device (e.g.
    virtio1-req.0, the disk's completions), the others by mnemonic (RES: rescheduling IPIs,
    CAL: function-call IPIs, LOC: local timer)."""
    out = {}
    try:
        lines = readf("/proc/interrupts").splitlines()
    except OSError:
        return out
    ncpu = len(lines[0].split()) if lines else 0
    for line in lines[1:]:
        f = line.split()
        if len(f) < 1 + ncpu or not all(x.isdigit() for x in f[1:1 + ncpu]):
            continue
        irq = f[0].rstrip(":")
        name = f[-1] if irq.isdigit() else irq
        out[name] = [int(x) for x in f[1:1 + ncpu]]
    return out


def interrupts_delta(b, a):
    return {k: [y - x for x, y in zip(b.get(k, [0] * len(v)), v)] for k, v in sorted(a.items())
            if any(y - x for x, y in zip(b.get(k, [0] * len(v)), v))}


def read_pidstat(pid):
    with open("/proc/%d/stat" % pid) as f:
        s = f.read()
    rest = s[s.rindex(")") + 2:].split()
    return int(rest[11]), int(rest[12])  # utime, stime (fields 14, 15)


def read_taskstats(pid):
    """{tid: (ns on a CPU, ns waiting on a runqueue, timeslices)} of every thread of pid."""
    out = {}
    try:
        tids = os.listdir("/proc/%d/task" % pid)
    except OSError:
        return out
    for tid in tids:
        try:
            f = readf("/proc/%d/task/%s/schedstat" % (pid, tid)).split()
        except OSError:
            continue
        if len(f) >= 3:
            out[tid] = (int(f[0]), int(f[1]), int(f[2]))
    return out


PF_KTHREAD = 0x00200000  # include/linux/sched.h


def read_kthreads():
    """{pid: (group, utime + stime ticks)} of every kernel thread (PF_KTHREAD in /proc/PID/stat's
    flags), its group the name before the first "/", ".", ":" or "-" (kworker/1:0H-kblockd:
    kworker; kdamond.0: kdamond; jbd2/vda1-8: jbd2). The kernel's own background work (DAMON's
    kdamond, write-back and block kworkers, ksoftirqd, jbd2) runs on the same vCPUs as mariadbd
    and sysbench and is not in their CPU (docs/realdb.md, "A thread sweep held out")."""
    out = {}
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            s = readf("/proc/%s/stat" % pid)
        except OSError:
            continue
        if ")" not in s:  # the process ended while we read it
            continue
        rest = s[s.rindex(")") + 2:].split()
        if len(rest) < 13 or not int(rest[6]) & PF_KTHREAD:
            continue
        comm = s[s.index("(") + 1:s.rindex(")")]
        out[pid] = (re.split(r"[/.:-]", comm)[0] or comm, int(rest[11]) + int(rest[12]))
    return out


def kthreads_delta(b, e):
    """Seconds of CPU each group of kernel threads took between two snapshots (threads that
    started in between count from zero, those that ended are lost)."""
    out = {}
    for pid, (group, ticks) in (e or {}).items():
        d = ticks - (b or {}).get(pid, (group, 0))[1]
        if d > 0:
            out[group] = out.get(group, 0) + d / TICK
    return dict(sorted(out.items()))


def read_loadavg():
    return [float(x) for x in readf("/proc/loadavg").split()[:3]]


def read_cgroup(cg, dev):
    out = {}
    for fname, pre in (("blkio.throttle.io_serviced", "ios_"), ("blkio.throttle.io_service_bytes", "bytes_")):
        for line in readf(os.path.join(cg, fname)).splitlines():
            f = line.split()
            if len(f) == 3 and f[0] == dev:
                out[pre + f[1].lower()] = int(f[2])
    return out


def readf(p):
    try:
        with open(p) as f:
            return f.read().strip()
    except OSError:
        return ""


def backing_device(path):
    """The whole block device (name, (major, minor)) under path's filesystem."""
    st = os.stat(path)
    maj, mn = os.major(st.st_dev), os.minor(st.st_dev)
    sysdev = os.path.realpath("/sys/dev/block/%d:%d" % (maj, mn))
    if not os.path.exists(sysdev):
        raise SystemExit("no block device behind %s (%d:%d): not a disk filesystem" % (path, maj, mn))
    if os.path.exists(os.path.join(sysdev, "partition")):
        sysdev = os.path.dirname(sysdev)
    name = os.path.basename(sysdev)
    maj, mn = (int(x) for x in readf(os.path.join(sysdev, "dev")).split(":"))
    return name, (maj, mn)


def fs_info(path):
    st = os.stat(path)
    want = "%d:%d" % (os.major(st.st_dev), os.minor(st.st_dev))
    info = {}
    for line in readf("/proc/self/mountinfo").splitlines():
        f = line.split()
        if f[2] == want and path.startswith(f[4]) and len(f[4]) >= len(info.get("mount_point", "")):
            sep = f.index("-")
            info = {"mount_point": f[4], "mount_options": f[5], "fstype": f[sep + 1],
                    "super_options": f[sep + 3] if len(f) > sep + 3 else ""}
    dev = os.path.basename(os.path.realpath("/sys/dev/block/" + want))
    info["ext4_journal"] = os.path.isdir("/proc/fs/jbd2") and any(
        d.startswith(dev) for d in os.listdir("/proc/fs/jbd2"))
    return info


def machine_info(dev):
    cpu = ""
    for line in readf("/proc/cpuinfo").splitlines():
        if line.startswith("model name"):
            cpu = line.split(":", 1)[1].strip()
            break
    mem = readf("/proc/meminfo").splitlines()[0]
    return {"nproc": os.cpu_count(), "cpu_model": cpu, "mem": mem, "kernel": os.uname().release,
            "os": readf("/etc/debian_version"), "config_hz": kernel_hz(), "damon_sample_us": damon_sample_us()}


def damon_sample_us():
    """The sample intervals of the host's running DAMON contexts (kdamond's sleep between two
    samples of memory access, us), [] when DAMON does not run: the period of the background
    kernel work the harness measures in kthreads_cpu_s (docs/kernel.md)."""
    out = []
    base = "/sys/kernel/mm/damon/admin/kdamonds"
    try:
        kds = sorted(os.listdir(base))
    except OSError:
        return out
    for k in kds:
        try:
            if readf("%s/%s/state" % (base, k)).strip() != "on":
                continue
            for c in sorted(os.listdir("%s/%s/contexts" % (base, k))):
                if c.isdigit():
                    out.append(int(readf("%s/%s/contexts/%s/monitoring_attrs/intervals/sample_us" % (base, k, c))))
        except (OSError, ValueError):
            continue
    return out


def kernel_hz():
    """CONFIG_HZ of the running kernel (the jiffy that file timestamps move by), 0 if unknown."""
    text = readf("/boot/config-" + os.uname().release)
    if not text:
        try:
            import gzip
            with gzip.open("/proc/config.gz", "rt") as f:
                text = f.read()
        except OSError:
            text = ""
    for line in text.splitlines():
        if line.startswith("CONFIG_HZ="):
            try:
                return int(line.split("=", 1)[1])
            except ValueError:
                return 0
    return 0


def versions():
    def first(cmd):
        try:
            r = subprocess.run(cmd, capture_output=True, text=True)
            return (r.stdout or r.stderr).strip().splitlines()[0]
        except (OSError, IndexError):
            return ""
    return {"mariadbd": first(["mariadbd", "--version"]), "sysbench": first(["sysbench", "--version"]),
            "fio": first(["fio", "--version"]), "python": sys.version.split()[0]}


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    p = s.getsockname()[1]
    s.close()
    return p


def tail(p, n=30):
    return "\n".join(readf(p).splitlines()[-n:])


def utc(t):
    return datetime.datetime.fromtimestamp(t, datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def write_atomic(path, text):
    d = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(dir=d, prefix=".tmp-")
    with os.fdopen(fd, "w") as f:
        f.write(text)
    os.chmod(tmp, 0o644)
    os.replace(tmp, path)


def install():
    need = [p for p, exe in (("mariadb-server", "mariadbd"), ("mariadb-client", "mariadb"),
                             ("sysbench", "sysbench"), ("fio", "fio")) if shutil.which(exe) is None]
    if not need:
        return
    log("apt-get install %s" % " ".join(need))
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    subprocess.run(["apt-get", "update", "-qq"], check=True, env=env)
    subprocess.run(["apt-get", "install", "-y", "-qq", "--no-install-recommends"] + need, check=True, env=env,
                   stdout=subprocess.DEVNULL)


def size_arg(s):
    m = re.fullmatch(r"(\d+)([KMG]?)", s)
    if not m:
        raise argparse.ArgumentTypeError("want a number with optional K, M or G suffix, got %r" % s)
    return int(m.group(1)) * {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30}[m.group(2)]


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("-o", "--out", required=True, help="the JSON file to write (atomically)")
    p.add_argument("--tables", type=int, default=10)
    p.add_argument("--table-size", type=int, default=100000)
    p.add_argument("--duration", type=int, default=20, help="measured seconds per run")
    p.add_argument("--warmup", type=int, default=3, help="unmeasured seconds of the same load before each run")
    p.add_argument("--server-warmup", type=int, default=10, help="unmeasured seconds after each server start")
    p.add_argument("--threads", default="1,16", help="comma-separated sysbench thread counts")
    p.add_argument("--settings", default="all",
                   help="comma list of off:FLUSH and on:SYNC_BINLOG:FLUSH, 'all' (default) or 'none'")
    p.add_argument("--base", default="",
                   help="settings run uncapped at --base-threads in every pass beside the matrix, "
                        "e.g. off:0,off:2,off:1,on:0:0,on:1:0 (the points simrun calibrate reads)")
    p.add_argument("--base-threads", type=int, default=1, help="sysbench threads of the --base runs")
    p.add_argument("--age", type=int, default=0,
                   help="unmeasured seconds of load right after prepare, to age the data (0 = none)")
    p.add_argument("--repeat", type=int, default=2, help="passes over the matrix; odd passes run it in reverse")
    p.add_argument("--buffer-pool", default="1G", help="innodb_buffer_pool_size")
    p.add_argument("--redo", default="96M", help="innodb_log_file_size (MariaDB default 96M)")
    p.add_argument("--monitor", default="", help="innodb_monitor_enable (e.g. module_buffer)")
    p.add_argument("--cnf", action="append", default=[], help="extra my.cnf [mysqld] line (repeatable)")
    p.add_argument("--sample-interval", type=float, default=0, help="seconds between gauge samples (0 = none)")
    p.add_argument("--write-bps", type=size_arg, default=0, help="cgroup-v1 blkio write bytes/s cap")
    p.add_argument("--write-iops", type=int, default=0, help="cgroup-v1 blkio write IOPS cap")
    p.add_argument("--read-bps", type=size_arg, default=0, help="cgroup-v1 blkio read bytes/s cap")
    p.add_argument("--read-iops", type=int, default=0, help="cgroup-v1 blkio read IOPS cap")
    p.add_argument("--caps", default="", help="matrix of blkio caps BPS:IOPS (read and write each), e.g. 120M:15000,54M:6750; 'none' adds uncapped points")
    p.add_argument("--workdir", default="", help="parent of the temporary data directory (default $TMPDIR)")
    p.add_argument("--port", type=int, default=0, help="loopback TCP port (default: a free one)")
    p.add_argument("--keep", action="store_true", help="keep the data directory (debugging)")
    p.add_argument("--no-install", action="store_true", help="do not apt-get install missing packages")
    p.add_argument("--kblockd-probe", type=int, default=0,
                   help="rounds of scripts/realdb/kblockd.sh after the matrix (5 s each: the CPU the kernel workers spend dispatching a device flush, machine.flush_dispatch; 0 = none)")
    p.add_argument("--irq-probe", type=int, default=0,
                   help="rounds of scripts/realdb/irq-cost.sh after the matrix (5 s each: the CPU a disk completion interrupt takes from a busy vCPU, machine.irq_cost; 0 = none)")
    p.add_argument("--fio", type=int, default=0,
                   help="seconds a job of scripts/realdb/fio.sh run right after the matrix on the same "
                        "filesystem, kept in the document (simrun calibrate --harness then needs no fio "
                        "JSON of its own; 0 = none)")
    p.add_argument("--wake-probe", type=int, default=20000,
                   help="round trips of the wake-up CPU probe (scripts/realdb/wake.c) run before and after the matrix (0 = none)")
    p.add_argument("--alternate", default="",
                   help="paired alternations after the matrix: comma list of A/B settings of one binlog mode, "
                        "e.g. off:0/off:1,on:0:1/on:1:1 (one sysbench run each, the setting switched every period)")
    p.add_argument("--alternate-threads", type=int, default=16, help="sysbench threads of the alternations")
    p.add_argument("--alternate-period", type=float, default=5, help="seconds per slice of an alternation")
    p.add_argument("--alternate-settle", type=float, default=1,
                   help="seconds after each switch before a slice is measured")
    p.add_argument("--alternate-duration", type=float, default=160,
                   help="seconds of slices per alternation (rounded down to whole ABBA blocks)")
    a = p.parse_args()
    if a.alternate:
        parse_pairs(a.alternate)
        if not 0 <= a.alternate_settle < a.alternate_period:
            raise SystemExit("--alternate-settle must be in [0, --alternate-period)")
    if os.geteuid() != 0:
        raise SystemExit("run as root: it installs packages, reads /proc of mariadbd and uses cgroups")
    if not a.no_install:
        install()
    Harness(a).run()


if __name__ == "__main__":
    main()
