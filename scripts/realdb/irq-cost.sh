#!/usr/bin/env bash
# What a block completion interrupt costs a busy vCPU (docs/realdb.md, "A host that pays for
# waking a vCPU"): scripts/realdb/spin.c pinned to the vCPU that takes the virtio-blk request
# interrupts, alone and while fio (pinned to another vCPU) writes 4 KiB O_DIRECT at QD1 on a file
# in DIR; the loop's lost rounds over the interrupts counted in /proc/interrupts meanwhile is the
# CPU an interrupt took (its handler, the VM exit, and the wake-up of fio on the other vCPU).
# One JSON line per round.
#   scripts/realdb/irq-cost.sh DIR [ROUNDS] [SECONDS]
set -euo pipefail
dir=${1:?usage: irq-cost.sh DIR [ROUNDS] [SECONDS]}
rounds=${2:-3}; secs=${3:-5}
command -v cc >/dev/null || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends gcc libc6-dev >/dev/null; }
command -v fio >/dev/null || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends fio >/dev/null; }
tmp=$(mktemp -d)
fp=""
trap '[ -n "$fp" ] && kill "$fp" 2>/dev/null; rm -rf "$tmp" "$dir/irq-cost.dat"' EXIT
cc -O2 -o "$tmp/spin" "$(dirname "$0")/spin.c"
dev=$(df --output=source "$dir" | tail -1); dev=${dev#/dev/}; dev=${dev%%[0-9]*}
# The request interrupts' row and the vCPU that takes most of them.
row=$(grep -E "virtio[0-9]+-req" /proc/interrupts | head -1)
irqcpu=$(echo "$row" | awk '{m=0; c=0; for (i=2; i<=NF && $i ~ /^[0-9]+$/; i++) if ($i>m) {m=$i; c=i-2}; print c}')
other=$(( irqcpu == 0 ? 1 : 0 ))
count() { grep -E "virtio[0-9]+-req" /proc/interrupts | head -1 | awk '{s=0; for (i=2; i<=NF && $i ~ /^[0-9]+$/; i++) s+=$i; print s}'; }
for r in $(seq "$rounds"); do
	alone=$(taskset -c "$irqcpu" "$tmp/spin" "$secs")
	taskset -c "$other" fio --name=q --filename="$dir/irq-cost.dat" --size=64M --rw=randwrite --bs=4k --iodepth=1 \
		--ioengine=psync --direct=1 --runtime=$((secs + 2)) --time_based --output-format=json >/dev/null 2>&1 &
	fp=$!
	sleep 1
	i0=$(count)
	busy=$(taskset -c "$irqcpu" "$tmp/spin" "$secs")
	i1=$(count)
	wait "$fp" || true; fp=""
	awk -v a="$alone" -v b="$busy" -v n=$((i1 - i0)) -v s="$secs" -v c="$irqcpu" -v d="$dev" 'BEGIN {
		printf "{\"device\": \"%s\", \"irq_cpu\": %d, \"rounds_alone\": %.1f, \"rounds_with_io\": %.1f, \"interrupts\": %d, \"cpu_us_per_interrupt\": %.2f}\n",
			d, c, a, b, n, (1 - b / a) * s * 1e6 / n }'
done
