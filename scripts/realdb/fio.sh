#!/usr/bin/env bash
# fio jobs for simrun calibrate on the filesystem the harness uses:
#   scripts/realdb/fio.sh OUT.json [RUNTIME_S] [DIR]
# wr-qd1 and rd-qd1 give the device's write and read latency (16 KiB, the
# InnoDB page, O_DIRECT, one I/O at a time), fdatasync the flush latency
# (4 KiB O_DIRECT sequential writes with fdatasync after each, as the redo
# log does), qd32 a lower bound of the IOPS and bandwidth caps. The scratch
# file lives in a temporary directory under DIR (default $TMPDIR), removed
# on exit. FIO_SIZE sets the file size (default 256M).
set -euo pipefail
out=${1:?usage: fio.sh OUT.json [RUNTIME_S] [DIR]}
rt=${2:-10}
base=${3:-${TMPDIR:-/tmp}}
command -v fio >/dev/null || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends fio >/dev/null; }
tmp=$(mktemp -d "$base/simrun-fio-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
common=(--filename="$tmp/fio.dat" --size="${FIO_SIZE:-256M}" --runtime="$rt" --time_based --direct=1)
fio --output-format=json \
	--name=wr-qd1 "${common[@]}" --rw=randwrite --bs=16k --iodepth=1 --ioengine=psync \
	--name=rd-qd1 --stonewall "${common[@]}" --rw=randread --bs=16k --iodepth=1 --ioengine=psync \
	--name=fdatasync --stonewall "${common[@]}" --rw=write --bs=4k --iodepth=1 --ioengine=psync --fdatasync=1 \
	--name=qd32 --stonewall "${common[@]}" --rw=randwrite --bs=16k --iodepth=32 --ioengine=libaio \
	>"$tmp/out.json"
# The scratch directory is no part of the data.
sed "s|$tmp|\$RUNDIR|g" "$tmp/out.json" >"$out"
