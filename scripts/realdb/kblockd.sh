#!/usr/bin/env bash
# The CPU the block layer's kblockd workers spend on each device flush (docs/realdb.md,
# "Reschedule interrupts"): fio writes 4 KiB with an fdatasync after each (QD1, buffered) on a
# file in DIR for SECONDS, ROUNDS times; the run time of the high-priority kworkers
# (/proc/PID/schedstat, the pool kblockd runs on) over the device's completed flushes
# (/sys/block/DEV/stat, field 16) is the CPU a flush costs outside the thread that syncs.
# blk-flush dispatches every flush request from kblockd (blk_kick_flush ->
# blk_mq_kick_requeue_list), so a 1-thread calibration, which reads mariadbd's CPU, cannot see it.
# One JSON line a round.
#   scripts/realdb/kblockd.sh DIR [ROUNDS] [SECONDS]
set -euo pipefail
dir=${1:?usage: kblockd.sh DIR [ROUNDS] [SECONDS]}
rounds=${2:-3}; secs=${3:-5}
command -v fio >/dev/null || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends fio >/dev/null; }
trap 'rm -f "$dir/kblockd.dat"' EXIT
dev=$(df --output=source "$dir" | tail -1); dev=${dev#/dev/}; dev=${dev%%[0-9]*}
kworkers() {
	local s=0 p c r
	for p in /proc/[0-9]*; do
		c=$(cat "$p/comm" 2>/dev/null) || continue
		case $c in kworker/*H*) r=$(cut -d' ' -f1 "$p/schedstat" 2>/dev/null) || r=0; s=$((s + ${r:-0})) ;; esac
	done
	echo "$s"
}
flushes() { awk '{print $16}' "/sys/block/$dev/stat"; }
for _ in $(seq "$rounds"); do
	k0=$(kworkers); f0=$(flushes)
	fio --name=k --filename="$dir/kblockd.dat" --size=64M --rw=randwrite --bs=4k --iodepth=1 --ioengine=psync \
		--direct=0 --fdatasync=1 --runtime="$secs" --time_based --output-format=json >/dev/null 2>&1
	k1=$(kworkers); f1=$(flushes)
	awk -v k=$((k1 - k0)) -v n=$((f1 - f0)) -v d="$dev" 'BEGIN {
		printf "{\"device\": \"%s\", \"flushes\": %d, \"kworker_cpu_us_per_flush\": %.2f}\n", d, n, (n > 0 ? k / 1e3 / n : 0) }'
done
