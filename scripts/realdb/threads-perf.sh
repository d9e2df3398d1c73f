#!/usr/bin/env bash
# Where a transaction's CPU goes at 1 and at 16 sysbench threads (docs/realdb.md,
# "What grows from 1 to 16 threads"): prepares the tables with harness.py --keep,
# then for one setting starts mariadbd on that data directory and profiles the
# whole machine (perf record -a, 999 Hz) over 25 s runs at 1, 16, 1 and 16 threads,
# and prints the CPU per transaction of mariadbd and sysbench by category
# (threads-perf.py). Everything it starts is stopped by PID; the data directory
# and the profiles are removed on exit.
#   scripts/realdb/threads-perf.sh OUT.txt [SETTING] [TABLES] [TABLE_SIZE] [BUFFER_POOL] [REDO]
# SETTING is off:FLUSH or on:0:FLUSH (default off:0).
set -euo pipefail
out=${1:?usage: threads-perf.sh OUT.txt [off:FLUSH|on:0:FLUSH] [TABLES] [TABLE_SIZE] [BUFFER_POOL] [REDO]}
setting=${2:-off:0}; tables=${3:-10}; size=${4:-1000000}; bp=${5:-4G}; redo=${6:-2G}
here=$(cd "$(dirname "$0")" && pwd)
command -v perf >/dev/null || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends linux-perf >/dev/null; }
work=$(mktemp -d "${TMPDIR:-/tmp}/simrun-perf-XXXXXX")
mp=""
cleanup() {
	[ -n "$mp" ] && kill "$mp" 2>/dev/null && wait "$mp" 2>/dev/null || true
	rm -rf "$work"
}
trap cleanup EXIT
python3 "$here/harness.py" -o "$work/keep.json" --tables "$tables" --table-size "$size" --duration 5 --warmup 1 \
	--server-warmup 1 --threads 1 --settings off:0 --repeat 1 --buffer-pool "$bp" --redo "$redo" --age 0 \
	--wake-probe 0 --keep --workdir "$work" >"$work/harness.log" 2>&1
run=$(ls -d "$work"/simrun-realdb-*)
sock=$run/mariadbd.sock
binlog=${setting%%:*}; flush=${setting##*:}
grep -v '^log_bin\|^server_id\|^binlog_format\|^skip-log-bin' "$run/my.cnf" >"$work/my.cnf"
if [ "$binlog" = on ]; then
	printf 'log_bin = %s/data/binlog\nserver_id = 1\nbinlog_format = ROW\nsync_binlog = 0\n' "$run" >>"$work/my.cnf"
else
	echo skip-log-bin >>"$work/my.cnf"
fi
echo "innodb_flush_log_at_trx_commit = $flush" >>"$work/my.cnf"
mariadbd --defaults-file="$work/my.cnf" >/dev/null 2>&1 &
mp=$!
for _ in $(seq 240); do
	mariadb -S "$sock" -uroot -e 'SELECT 1' >/dev/null 2>&1 && break
	sleep 0.5
done
commits() { mariadb -S "$sock" -uroot -N -e "SHOW GLOBAL STATUS LIKE 'Com_commit'" | awk '{print $2}'; }
sb() {
	sysbench oltp_write_only --db-driver=mysql --mysql-socket="$sock" --mysql-user=root --mysql-db=sbtest \
		--tables="$tables" --table-size="$size" --threads="$1" --time="$2" --report-interval=0 --rand-type=special run
}
sb 16 20 >/dev/null # warm the pool
: >"$work/tx.txt"
i=0
for t in 1 16 1 16; do
	i=$((i + 1))
	c0=$(commits)
	perf record -q -a -F 999 -o "$work/perf-$i-t$t.data" -- \
		sysbench oltp_write_only --db-driver=mysql --mysql-socket="$sock" --mysql-user=root --mysql-db=sbtest \
		--tables="$tables" --table-size="$size" --threads="$t" --time=25 --report-interval=0 --rand-type=special run \
		>/dev/null 2>&1
	echo "$work/perf-$i-t$t.data $t $(($(commits) - c0))" >>"$work/tx.txt"
done
mariadb -S "$sock" -uroot -e shutdown || true
wait "$mp" || true
mp=""
python3 "$here/threads-perf.py" "$work/tx.txt" "$setting" >"$work/out.txt"
mv "$work/out.txt" "$out"
