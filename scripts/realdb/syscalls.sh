#!/usr/bin/env bash
# How long mariadbd's log syscalls take at 1 and 16 threads (docs/realdb.md,
# "Inside a sync"): the harness prepares and ages the reference's data
# (10 x 100k rows, 1 GiB pool, 96 MiB redo) and keeps its data directory;
# this restarts mariadbd on it with SETTING (harness syntax: off:FLUSH or
# on:SYNC_BINLOG:FLUSH), runs sysbench oltp_write_only at 1, 16, 1, 16
# threads for 22 s each, and traces pwrite64/fdatasync/write of mariadbd
# with perf trace for 15 s of each run. syscalls.py summarises OUT/ into
# OUT/summary.json (per file: count, mean and percentiles in us). With MODE
# sched it records the scheduler instead (perf sched record, 5 s of each
# run) and the summary gives how long each woken mariadbd and sysbench
# thread waited for a vCPU (perf sched timehist's "sch delay"). With MODE
# profile it runs 16 threads four times, switching
# innodb_flush_log_at_trx_commit between runs in the order FLUSH_ORDER
# (default "0 1 1 0", so the pair shares the host's state), and profiles the
# whole machine (perf record -a, 999 Hz, 15 s of each run); the summary gives
# the CPU a transaction by process and binary (user code, libc, kernel),
# and by process and symbol (the 60 hottest, from symbols-N-fF.txt). An item
# of FLUSH_ORDER may also be a whole setting (off:0, on:0:0): mariadbd is then
# restarted with it before the run, so that "off:0 on:0:0 on:0:0 off:0"
# profiles the binlog's cost at 16 threads on one data directory.
# With MODE ipi it runs 16 threads over FLUSH_ORDER as profile does and records the machine's
# inter-processor interrupts and wake-ups (perf record of ipi:ipi_send_cpu,
# ipi:ipi_send_cpumask and sched:sched_wakeup, 8 s of each run); the summary
# gives, a transaction, the IPIs by the kernel function that sent them
# (wakeup_preempt: a reschedule IPI, RES; ttwu_queue_wakelist: the wake-up
# of an idle vCPU, CAL) and the wake-ups by waker and wakee process, on the
# waker's vCPU or the other (docs/realdb.md, "Reschedule interrupts").
# TABLES, SIZE, BP and REDO override the data's size (e.g. 10, 1000000, 4G,
# 2G for the capped runs' data); THREADS the sysbench threads of the profile
# and ipi modes (default 16).
#   scripts/realdb/syscalls.sh OUT_DIR [SETTING [trace|sched|profile|ipi]]
set -euo pipefail
out=${1:?usage: syscalls.sh OUT_DIR [SETTING]}
setting=${2:-on:1:1}
mode=${3:-trace}
case $mode in trace | sched | profile | ipi) ;; *) echo "syscalls.sh: MODE is trace, sched, profile or ipi, not $mode" >&2; exit 2 ;; esac
tables=${TABLES:-10} size=${SIZE:-100000} bp=${BP:-1G} redo=${REDO:-96M}
here=$(cd "$(dirname "$0")" && pwd)
command -v perf >/dev/null || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends linux-perf >/dev/null; }
mkdir -p "$out"
work=$(mktemp -d "${TMPDIR:-/tmp}/simrun-syscalls-XXXXXX")
mp=""
cleanup() {
	if [ -n "$mp" ]; then kill "$mp" 2>/dev/null || true; wait "$mp" 2>/dev/null || true; fi
	rm -rf "$work"
}
trap cleanup EXIT
python3 "$here/harness.py" -o "$work/prepare.json" --tables $tables --table-size $size --duration 5 --warmup 1 \
	--server-warmup 1 --threads 1 --settings off:0 --repeat 1 --buffer-pool $bp --redo $redo --age 60 \
	--wake-probe 0 --keep --workdir "$work" >"$work/harness.log" 2>&1
run=$(ls -d "$work"/simrun-realdb-*)
sock=$run/mariadbd.sock
# start SETTING: (re)start mariadbd on the prepared data with a harness setting.
start() {
	if [ -n "$mp" ]; then
		mariadb -S "$sock" -uroot -e shutdown || true
		wait "$mp" || true
		mp=""
	fi
	grep -v '^log_bin\|^server_id\|^binlog_format\|^skip-log-bin\|^sync_binlog\|^innodb_flush_log_at_trx_commit' "$run/my.cnf" >"$work/my.cnf"
	local binlog a b
	IFS=: read -r binlog a b <<<"$1"
	if [ "$binlog" = on ]; then
		printf 'log_bin = %s/data/binlog\nserver_id = 1\nbinlog_format = ROW\nsync_binlog = %s\ninnodb_flush_log_at_trx_commit = %s\n' "$run" "$a" "$b" >>"$work/my.cnf"
	else
		printf 'skip-log-bin\ninnodb_flush_log_at_trx_commit = %s\n' "$a" >>"$work/my.cnf"
	fi
	mariadbd --defaults-file="$work/my.cnf" >/dev/null 2>&1 &
	mp=$!
	for _ in $(seq 240); do mariadb -S "$sock" -uroot -e 'SELECT 1' >/dev/null 2>&1 && break; sleep 0.5; done
}
start "$setting"
commits() { mariadb -S "$sock" -uroot -N -e "SHOW GLOBAL STATUS LIKE 'Com_commit'" | awk '{print $2}'; }
sb() {
	sysbench oltp_write_only --db-driver=mysql --mysql-socket="$sock" --mysql-user=root --mysql-db=sbtest \
		--tables=$tables --table-size=$size --threads="$1" --time="$2" --report-interval=0 --rand-type=special run
}
threads=${THREADS:-16}
sb 16 15 >/dev/null
# fd -> file, so that the summary can name the redo log and the binlog.
ls -l "/proc/$mp/fd" | awk '$10 == "->" {n = split($11, p, "/"); print $9, p[n]}' >"$out/fds.txt"
printf '{"setting": "%s", "mode": "%s", "tables": %d, "table_size": %d, "buffer_pool": "%s", "redo": "%s", "started_utc": "%s"}\n' \
	"$setting" "$mode" "$tables" "$size" "$bp" "$redo" "$(date -u +%Y-%m-%dT%H:%M:%SZ)" >"$out/meta.json"
: >"$out/tx.txt"
i=0
if [ "$mode" = profile ]; then
	for f in ${FLUSH_ORDER:-0 1 1 0}; do
		i=$((i + 1))
		case $f in
		*:*) start "$f"; sb $threads 10 >/dev/null ;; # a whole setting: restart, warm the pool again
		*) mariadb -S "$sock" -uroot -e "SET GLOBAL innodb_flush_log_at_trx_commit = $f" ;;
		esac
		sb $threads 3 >/dev/null
		c0=$(commits)
		tag=f${f//:/-}
		sb $threads 15 >"$out/sb-$i-$tag.txt" 2>&1 &
		sp=$!
		perf record -q -a -F 999 -o "$work/perf.data" -- sleep 15 >/dev/null 2>&1 || true
		wait $sp
		perf report -i "$work/perf.data" --sort comm,dso --stdio -q -F sample,comm,dso >"$out/profile-$i-$tag.txt" 2>/dev/null || true
		perf report -i "$work/perf.data" --sort comm,sym --stdio -q -F sample,comm,sym 2>/dev/null | sort -rn | head -400 >"$out/symbols-$i-$tag.txt" || true
		rm -f "$work/perf.data"
		echo "$i $threads $(($(commits) - c0)) $f" >>"$out/tx.txt"
	done
elif [ "$mode" = ipi ]; then
	for f in ${FLUSH_ORDER:-0 1 1 0}; do
		i=$((i + 1))
		case $f in
		*:*) start "$f"; sb $threads 10 >/dev/null ;;
		*) mariadb -S "$sock" -uroot -e "SET GLOBAL innodb_flush_log_at_trx_commit = $f" ;;
		esac
		tag=f${f//:/-}
		sb $threads 3 >/dev/null
		sb $threads 12 >"$out/sb-$i-$tag.txt" 2>&1 &
		sp=$!
		sleep 2
		c1=$(commits)
		perf record -q -a -o "$work/ipi.data" -e ipi:ipi_send_cpu -e ipi:ipi_send_cpumask -e sched:sched_wakeup -- sleep 8 >/dev/null 2>&1 || true
		c2=$(commits)
		wait $sp
		perf script -i "$work/ipi.data" -F comm,cpu,event,trace 2>/dev/null | python3 "$here/syscalls.py" --ipi >"$out/ipi-$i-$tag.json"
		rm -f "$work/ipi.data"
		echo "$i $threads $((c2 - c1)) $f" >>"$out/tx.txt"
	done
else
	for t in 1 16 1 16; do
		i=$((i + 1))
		c0=$(commits)
		sb $t 22 >"$out/sb-$i-t$t.txt" 2>&1 &
		sp=$!
		sleep 4
		if [ "$mode" = trace ]; then
			perf trace -p "$mp" -e pwrite64,fdatasync,write -o "$out/trace-$i-t$t.txt" -- sleep 15 || true
		else
			perf sched record -o "$work/sched.data" -- sleep 5 >/dev/null 2>&1 || true
			perf sched timehist -i "$work/sched.data" >"$out/sched-$i-t$t.txt" 2>/dev/null || true
			rm -f "$work/sched.data"
		fi
		wait $sp
		echo "$i $t $(($(commits) - c0))" >>"$out/tx.txt"
	done
fi
mariadb -S "$sock" -uroot -e shutdown || true
wait "$mp" || true
mp=""
python3 "$here/syscalls.py" "$out" >"$out/summary.json"
