#!/usr/bin/env bash
# Does a busy sibling vCPU slow this one? scripts/realdb/busy.c pinned to vCPU 0, alone and with
# the same loop on vCPU 1, alternating, for an ALU loop and pointer chases over 2, 64 and
# 1024 MiB (docs/realdb.md, "What grows from 1 to 16 threads"). Prints one line per pair.
#   scripts/realdb/busy.sh [ROUNDS] [SECONDS]
set -euo pipefail
rounds=${1:-4}; secs=${2:-3}
command -v cc >/dev/null || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends gcc libc6-dev >/dev/null; }
tmp=$(mktemp -d)
sib=""
trap '[ -n "$sib" ] && kill "$sib" 2>/dev/null; rm -rf "$tmp"' EXIT
cc -O2 -o "$tmp/busy" "$(dirname "$0")/busy.c"
for r in $(seq "$rounds"); do
	for kind in "c 0" "m 2" "m 64" "m 1024"; do
		set -- $kind
		alone=$(taskset -c 0 "$tmp/busy" "$1" "$secs" "$2")
		taskset -c 1 "$tmp/busy" "$1" "$(awk -v s="$secs" 'BEGIN { print s + 0.6 }')" "$2" >"$tmp/sib" &
		sib=$!
		sleep 0.3
		busy=$(taskset -c 0 "$tmp/busy" "$1" "$secs" "$2")
		wait "$sib"; sib=""
		echo "round $r kind $1$2 alone $alone sibling-busy $busy sibling $(cat "$tmp/sib")"
	done
done
