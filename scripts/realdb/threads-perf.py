#!/usr/bin/env python3
"""Summarise threads-perf.sh's profiles: CPU microseconds per transaction of
mariadbd and sysbench by category, at 1 and at 16 threads.

  threads-perf.py TX.txt SETTING

TX.txt lines: PERF.data THREADS TRANSACTIONS. The categories are read from
symbols (the Debian mariadbd has its exported symbols; InnoDB's spin loop is
found by its PAUSE instruction in the text around each unresolved address).
Python 3 standard library and perf only.
"""
import collections
import re
import shutil
import subprocess
import sys

HZ = 999.0
SCHED = {"finish_task_switch.isra.0", "_raw_spin_unlock_irqrestore", "__schedule", "schedule",
         "try_to_wake_up", "irqentry_exit_to_user_mode", "_raw_spin_unlock_irq"}
_pause = {}
# perf report names the binary by its short name
MARIADBD = shutil.which("mariadbd") or "/usr/sbin/mariadbd"


def spins(dso, addr):
    """Whether the instruction at addr in dso is in a PAUSE loop (within 16 bytes)."""
    key = (dso, addr & ~0xF)
    if key not in _pause:
        a = addr & ~0xF
        out = subprocess.run(["objdump", "-d", "--start-address=%#x" % (a - 16), "--stop-address=%#x" % (a + 32), dso],
                             capture_output=True, text=True).stdout
        _pause[key] = "pause" in out
    return _pause[key]


def category(comm, dso, sym):
    if sym in SCHED:
        return "scheduler: switch and wake-up"
    if "malloc" in sym or sym in ("_int_free", "free", "cfree"):
        return "malloc/free"
    if sym in ("__send", "__libc_send", "__sendto"):
        return "send (wakes the idle peer vCPU)"
    if "iowrite16" in sym:
        return "virtio notify"
    m = re.match(r"0x([0-9a-f]+)$", sym)
    if m and comm == "mariadbd" and dso.endswith("mariadbd") and spins(MARIADBD, int(m.group(1), 16)):
        return "InnoDB spin-wait (PAUSE loop)"
    return "rest"


def load(path):
    out = subprocess.run(["perf", "report", "-i", path, "-n", "--no-children", "--sort", "comm,dso,sym",
                          "--stdio", "-F", "overhead,sample,comm,dso,sym"], capture_output=True, text=True).stdout
    c = collections.Counter()
    for line in out.splitlines():
        m = re.match(r"\s*[\d.]+%\s+(\d+)\s+(\S+)\s+(\S+)\s+\[.\]\s+(.*)$", line)
        if not m or m.group(2) == "swapper":
            continue
        comm = m.group(2) if m.group(2) in ("mariadbd", "sysbench") else "other"
        c[(comm, category(comm, m.group(3), m.group(4).strip()))] += int(m.group(1))
    return c


def main():
    rows, setting = sys.argv[1], sys.argv[2]
    acc = collections.defaultdict(collections.Counter)
    tx = collections.Counter()
    for line in open(rows):
        path, t, n = line.split()
        acc[int(t)].update(load(path))
        tx[int(t)] += int(n)
    print("setting %s; transactions: %s" % (setting, ", ".join("%d at %d threads" % (tx[t], t) for t in sorted(tx))))
    print("%-9s %-34s %10s %10s" % ("process", "category", "1 thread", "16 threads"))
    keys = sorted(set(acc[1]) | set(acc[16]))
    for k in keys:
        print("%-9s %-34s %10.1f %10.1f" % (k[0], k[1], acc[1][k] / HZ / tx[1] * 1e6, acc[16][k] / HZ / tx[16] * 1e6))
    for t in (1, 16):
        print("total at %2d threads: %.1f us/tx" % (t, sum(acc[t].values()) / HZ / tx[t] * 1e6))


main()
