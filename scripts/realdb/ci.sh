#!/usr/bin/env bash
# CI check of the real-server harness (docs/realdb.md), about 2-3 minutes:
# a brief harness run (2 tables x 10k rows aged by 10 s of load, 1 thread, 3 s per setting,
# binlog off at flush 0, 1, 2 and on, each setting twice) with its short fio run on the same
# filesystem right after, simrun calibrate from it, the measured device flushes per
# transaction of each setting (with the lower bounds durability implies),
# and simrun's predictions of every setting against the measurement
# (model/realdb TestPredictRealServer). Every check is printed; the model's
# device flushes per transaction must be within 0.05 of each measured
# setting's (CI fails otherwise): durability fixes that figure whatever
# else the shared machine does. The CPU and latency checks are printed and
# not enforced: a 3 s run at 1 thread on a shared 2-vCPU host moves by up
# to 2x between repeats (docs/realdb.md, "CI"). REALDB_STRICT=1 enforces
# every check, or a comma-separated list of check names those.
set -euo pipefail
cd "$(dirname "$0")/../.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# A hung server must not hang CI: the harness stops what it started on SIGTERM.
# Its fio run (--fio, 2 s a job on a 64 MiB file) follows the matrix on the same filesystem and
# stays in the document, which calibrates the volume: no fio JSON is passed below.
FIO_SIZE=64M timeout 300 python3 scripts/realdb/harness.py -o "$tmp/harness.json" --tables 2 --table-size 10000 \
	--duration 3 --warmup 1 --server-warmup 2 --threads 1 --age 10 \
	--settings off:0,off:1,off:2,on:0:0,on:1:1 --repeat 2 --buffer-pool 256M --wake-probe 5000 --fio 2
go run ./cmd/simrun calibrate --harness "$tmp/harness.json" -o "$tmp/calibrated"

python3 - "$tmp/harness.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
# Durability gives lower bounds whatever else the shared machine does:
# a synced commit flushes the device at least once per sync point.
need = {(False, None, 1): 0.9, (True, 1, 1): 1.9}
bad = 0
print("device flushes per transaction (measured):")
for r in d["runs"]:
    s, n = r["setting"], r["sysbench"]["transactions"]
    # /sys/block counts each fdatasync's empty preflush bio as a write too
    # (docs/realdb.md): the device's writes are the writes less the flushes.
    f = r["disk_delta"]["flushes"] / n
    w = (r["disk_delta"]["writes"] - r["disk_delta"]["flushes"]) / n
    key = (s["binlog"], s["sync_binlog"], s["innodb_flush_log_at_trx_commit"])
    lo = need.get(key)
    mark = "" if lo is None else ("  >= %.1f ok" % lo if f >= lo else "  < %.1f FAIL" % lo)
    bad += lo is not None and f < lo
    print("  binlog %-3s sync_binlog=%-4s flush=%d  rep %d  %7.0f tps  flushes/tx %.3f  writes/tx %.2f%s" % (
        "on" if s["binlog"] else "off", s["sync_binlog"], s["innodb_flush_log_at_trx_commit"], r["repeat"],
        r["sysbench"]["tps"], f, w, mark))
sys.exit(1 if bad else 0)
PY

echo "simrun predictions against the measurement:"
SIMRUN_REALDB_JSON="$tmp/harness.json" SIMRUN_REALDB_STRICT="${REALDB_STRICT:-device flushes/tx}" \
	SIMRUN_REALDB_DURATION=5s go test ./model/realdb -run TestPredictRealServer -count=1 -v | grep -v '^=== RUN'
