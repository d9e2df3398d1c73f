#!/usr/bin/env bash
# What a reschedule IPI costs on this host (docs/realdb.md, "Reschedule interrupts"):
# scripts/realdb/res-cost.c in ROUNDS pairs of runs, its baseline (the waker's futex_wake finds
# no one) then a wake-up that preempts a thread on the other, busy vCPU; one JSON line a pair:
# the reschedule IPIs counted a wake-up, the CPU the preempted vCPU loses a wake-up
# (receive_us, the woken thread's own switch included) and the CPU the waker spends sending it
# (send_us).
#   scripts/realdb/res-cost.sh [ROUNDS] [SECONDS]
set -euo pipefail
rounds=${1:-5}; secs=${2:-3}
command -v cc >/dev/null || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends gcc libc6-dev >/dev/null; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cc -O2 -pthread -o "$tmp/res-cost" "$(dirname "$0")/res-cost.c"
res() { awk '$1=="RES:" {s=0; for (i=2; i<=NF && $i ~ /^[0-9]+$/; i++) s+=$i; print s}' /proc/interrupts; }
for r in $(seq "$rounds"); do
	base=$("$tmp/res-cost" 0 1 "$secs" 50 nowaiter)
	r0=$(res)
	wake=$("$tmp/res-cost" 0 1 "$secs" 50 remote)
	r1=$(res)
	python3 - "$base" "$wake" "$((r1 - r0))" "$secs" <<'PY'
import json, sys
b, w, res, secs = json.loads(sys.argv[1]), json.loads(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4])
n = w["wakes"]
print(json.dumps({
    "wakes": n, "res_per_wake": round(res / n, 3),
    "receive_us": round((1 - w["rounds_per_s"] / b["rounds_per_s"]) * secs * 1e6 / n, 2),
    "receive_us_accounted": round((b["spinner_cpu_share"] - w["spinner_cpu_share"]) * secs * 1e6 / n, 2),
    "send_us": round(w["us_in_futex_wake"] - b["us_in_futex_wake"], 2),
    "baseline": b, "remote": w}))
PY
done
