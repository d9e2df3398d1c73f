#!/usr/bin/env bash
# The CPU of a thread's wake-up on this machine (docs/model-engine.md,
# engine.cpu.wakeup; harness.py runs the same probe before and after its
# matrix, and simrun calibrate --harness takes it from there): scripts/realdb/wake.c, two threads handing a futex turn
# back and forth, pinned to vCPUs 0 and 1 (each wake-up an IPI to the other
# vCPU, as when a group-commit leader wakes a follower) and both on vCPU 0;
# five runs of each, one JSON document:
#   scripts/realdb/wake.sh OUT.json [ROUND_TRIPS]
set -euo pipefail
out=${1:?usage: wake.sh OUT.json [ROUND_TRIPS]}
n=${2:-20000}
command -v cc >/dev/null || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends gcc libc6-dev >/dev/null; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cc -O2 -pthread -o "$tmp/wake" "$(dirname "$0")/wake.c"
nproc=$(nproc)
{
	printf '{"schema": "simrun-wake/1", "nproc": %d, "created_utc": "%s", "runs": [\n' "$nproc" "$(date -u +%Y-%m-%dT%H:%M:%SZ)"
	sep=""
	for pin in "0 1" "0 0"; do
		[ "$nproc" -lt 2 ] && [ "$pin" = "0 1" ] && continue
		for _ in 1 2 3 4 5; do
			printf '%s  %s' "$sep" "$("$tmp/wake" "$n" $pin)"
			sep=$',\n'
		done
	done
	printf '\n]}\n'
} >"$tmp/out.json"
mv "$tmp/out.json" "$out"
