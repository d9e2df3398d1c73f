#!/usr/bin/env python3
"""Summarise scripts/realdb/syscalls.sh's perf traces: per run and per file
(the redo log, the binlog, others by name), the count, mean and percentiles
of each syscall's duration in microseconds, as one JSON document on stdout.
perf trace splits a call that another one interrupts into a start line and a
"... [continued]" line of the same thread; the two are paired. For the
sched mode, per run and per process (mariadbd, sysbench, kernel workers):
the timeslices, how many began with a wake-up (perf sched timehist's wait
time > 0), and the wait for a vCPU after it ("sch delay"). For the profile
mode, per run: the flush setting, TPS and the CPU microseconds a transaction
by process and binary (perf's samples at 999 Hz over the run's 15 s)."""
import glob
import json
import os
import re
import sys

FULL = re.compile(r'^\s*[\d.?]+ \(\s*([\d.]+) ms\): mariadbd/(\d+) (\w+)\(fd: (\d+)')
START = re.compile(r'^\s*[\d.?]+ \(\s*\): mariadbd/(\d+) (\w+)\(fd: (\d+)')
CONT = re.compile(r'^\s*[\d.?]+ \(\s*([\d.]+) ms\): mariadbd/(\d+)\s+\.\.\. \[continued\]: (\w+)\(')


def kind(name):
    if name.startswith("ib_logfile"):
        return "redo"
    if re.match(r"binlog\.\d+$", name):
        return "binlog"
    return name


def pct(v, p):
    return round(v[min(len(v) - 1, int(p * len(v)))], 1)


def sched_run(path):
    """Timeslices of one perf sched timehist listing, by process."""
    by = {}
    t0 = t1 = None
    for line in open(path):
        p = line.split()
        if len(p) < 6 or not p[0][:1].isdigit():
            continue
        try:
            t, wait, delay, run = float(p[0]), float(p[3]), float(p[4]), float(p[5])
        except ValueError:
            continue
        t0 = t if t0 is None else t0
        t1 = t
        name = p[2].split("[")[0]
        proc = name if name in ("mariadbd", "sysbench") else ("kernel workers" if name.startswith(("kworker", "jbd2")) else None)
        if proc:
            by.setdefault(proc, []).append((wait * 1e3, delay * 1e3, run * 1e3))
    out = []
    for proc, xs in sorted(by.items()):
        woke = sorted(d for w, d, _ in xs if w > 0)
        r = {"process": proc, "timeslices": len(xs), "woken": len(woke),
             "run_us_mean": round(sum(x[2] for x in xs) / len(xs), 1)}
        if woke:
            r.update({"sch_delay_us_mean": round(sum(woke) / len(woke), 1), "sch_delay_us_p50": pct(woke, 0.5),
                      "sch_delay_us_p90": pct(woke, 0.9), "sch_delay_us_p99": pct(woke, 0.99)})
        out.append(r)
    return round((t1 or 0) - (t0 or 0), 3), out


def summarise(d):
    files = {}
    if os.path.exists(os.path.join(d, "fds.txt")):
        for line in open(os.path.join(d, "fds.txt")):
            fd, name = line.split()[:2]
            files[fd] = kind(name)
    tx, flush = {}, {}
    for line in open(os.path.join(d, "tx.txt")):
        f = line.split()
        tx[f[0]] = (int(f[1]), int(f[2]))
        if len(f) > 3:  # a flush setting, or a whole harness setting (off:0, on:0:0)
            flush[f[0]] = int(f[3]) if f[3].isdigit() else f[3]
    runs = []
    for f in sorted(glob.glob(os.path.join(d, "trace-*.txt"))):
        i = os.path.basename(f).split("-")[1]
        calls, pend, lost = {}, {}, 0
        for line in open(f):
            m = FULL.match(line)
            if m:
                calls.setdefault((m.group(3), m.group(4)), []).append(float(m.group(1)) * 1e3)
                continue
            m = START.match(line)
            if m:
                pend[m.group(1)] = (m.group(2), m.group(3))
                continue
            m = CONT.match(line)
            if m:
                p = pend.pop(m.group(2), None)
                if p and p[0] == m.group(3):
                    calls.setdefault(p, []).append(float(m.group(1)) * 1e3)
                else:
                    lost += 1
        out = []
        for (call, fd), v in sorted(calls.items()):
            if len(v) < 50:
                continue
            v.sort()
            out.append({"call": call, "fd": int(fd), "file": files.get(fd, "?"), "n": len(v),
                        "mean_us": round(sum(v) / len(v), 1), "p10_us": pct(v, 0.1), "p50_us": pct(v, 0.5),
                        "p90_us": pct(v, 0.9)})
        t, n = tx.get(i, (0, 0))
        runs.append({"run": int(i), "threads": t, "commits_in_22s": n, "unpaired": lost, "calls": out})
    for f in sorted(glob.glob(os.path.join(d, "sched-*.txt"))):
        i = os.path.basename(f).split("-")[1]
        span, procs = sched_run(f)
        t, n = tx.get(i, (0, 0))
        runs.append({"run": int(i), "threads": t, "commits_in_22s": n, "recorded_s": span, "processes": procs})
    for f in sorted(glob.glob(os.path.join(d, "profile-*.txt"))):
        i = os.path.basename(f).split("-")[1]
        t, n = tx.get(i, (0, 0))
        cpu = {}
        for line in open(f):
            p = line.split(None, 2)
            if len(p) == 3 and p[0].isdigit() and n > 0:
                cpu["%s %s" % (p[1], p[2].strip())] = round(int(p[0]) / 999.0 / n * 1e6, 1)
        item = flush.get(i)
        run = {"run": int(i), "threads": t, "setting" if isinstance(item, str) else "flush": item, "tps": round(n / 15.0, 1),
               "cpu_us_per_tx": dict(sorted(cpu.items(), key=lambda kv: -kv[1])[:12]),
               "cpu_us_per_tx_total": round(sum(cpu.values()), 1)}
        # The hottest symbols by process (symbols-N-fF.txt: samples, comm,
        # [k] or [.], symbol), in us a transaction.
        sf = f.replace("profile-", "symbols-")
        if os.path.exists(sf) and n > 0:
            sym = {}
            for line in open(sf):
                p = line.split(None, 3)
                if len(p) == 4 and p[0].isdigit():
                    sym["%s %s %s" % (p[1], p[2], p[3].strip())] = round(int(p[0]) / 999.0 / n * 1e6, 2)
            run["symbols_us_per_tx"] = dict(sorted(sym.items(), key=lambda kv: -kv[1])[:60])
        runs.append(run)
    runs += ipi_runs(d, tx, flush)
    meta = {}
    if os.path.exists(os.path.join(d, "meta.json")):
        meta = json.load(open(os.path.join(d, "meta.json")))
    return {"schema": "simrun-syscalls/1", **meta, "runs": runs}


def ipi_counts(lines):
    """Counts of `perf script -F comm,cpu,event,trace` lines of the ipi and
    sched_wakeup tracepoints: IPIs by the function that sent them, wake-ups by
    waker and wakee process and whether the wakee is placed on the waker's
    vCPU, and the wake-ups that preempted: a reschedule IPI from
    wakeup_preempt is sent inside try_to_wake_up before its sched_wakeup
    event (ttwu_do_activate, then ttwu_do_wakeup), so it belongs to the next
    wake-up on the same vCPU."""
    ipis, wakes, preempting, pending = {}, {}, {}, set()
    for line in lines:
        m = re.match(r"\s*(\S.*?)\s+\[(\d+)\]\s+(\S+):\s+(.*)", line)
        if not m:
            continue
        comm, cpu, event, trace = m.group(1), int(m.group(2)), m.group(3), m.group(4)
        if event.startswith("ipi:"):
            site = re.search(r"callsite=([A-Za-z_0-9.]+)", trace)
            k = site.group(1) if site else "?"
            ipis[k] = ipis.get(k, 0) + 1
            if k.startswith("wakeup_preempt"):
                pending.add(cpu)
        elif event == "sched:sched_wakeup":
            t = re.search(r"target_cpu=(\d+)", trace)
            c = re.search(r"comm=(\S+)", trace)
            if not t or not c:
                continue
            wakee = re.split(r"[/:]", c.group(1))[0]
            waker = re.split(r"[/:]", comm.split()[0])[0]
            k = "%s -> %s %s" % (waker, wakee, "same vCPU" if int(t.group(1)) == cpu else "other vCPU")
            wakes[k] = wakes.get(k, 0) + 1
            if cpu in pending:
                pending.discard(cpu)
                preempting[k] = preempting.get(k, 0) + 1
    top = lambda m: dict(sorted(m.items(), key=lambda kv: -kv[1])[:20])
    return {"ipis": top(ipis), "wakeups": top(wakes), "preempting_wakeups": top(preempting)}


def ipi_runs(d, tx, flush):
    runs = []
    for f in sorted(glob.glob(os.path.join(d, "ipi-*.json"))):
        i = os.path.basename(f).split("-")[1]
        t, n = tx.get(i, (0, 0))
        c = json.load(open(f))
        per = lambda m: {k: round(v / n, 3) for k, v in m.items()} if n > 0 else {}
        item = flush.get(i)
        runs.append({"run": int(i), "threads": t, "setting" if isinstance(item, str) else "flush": item,
                     "commits_in_8s": n, "tps": round(n / 8.0, 1),
                     "ipis_per_tx": per(c["ipis"]), "wakeups_per_tx": per(c["wakeups"]),
                     "preempting_wakeups_per_tx": per(c.get("preempting_wakeups", {}))})
    return runs


if __name__ == "__main__":
    if sys.argv[1:] == ["--ipi"]:
        json.dump(ipi_counts(sys.stdin), sys.stdout)
        print()
        sys.exit(0)
    json.dump(summarise(sys.argv[1]), sys.stdout, indent=1)
    print()
