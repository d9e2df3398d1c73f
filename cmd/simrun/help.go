package main

const usage = `simrun — a deterministic simulator of storage and commit pipelines

Usage:
  simrun run [FILE] [flags]          run each case of a scenario, print a table, JSON or CSV
  simrun sweep FILE --set K=V1,V2    run a grid over parameters (shardable)
  simrun plan FILE --goal G --vary K=LO..HI  the smallest (or largest) value that meets the goals
  simrun merge PART.json...          join the partial results of a sharded sweep
  simrun explain [FILE] [flags]      show every resolved parameter, its unit and where it came from
  simrun validate FILE...            check scenario files without running them
  simrun list                        list built-in scenarios and presets
  simrun calibrate FIO.json -o V.toml  turn a real fio JSON result into a volume preset
  simrun plot IN --kind K -o out.png  chart a result (bar, sweep, latency, series, breakdown)
  simrun export IN --format ipynb -o F  a Jupyter notebook, a docs page (md) or tidy CSV
  simrun trace FILE --case C --window A:B -o t.json  a Perfetto trace of a window of one case
  simrun help COMMAND                more about one command
  simrun --version                   the version and commit simrun was built from

FILE is a scenario file, or the name of a built-in one (simrun list), e.g.
binlog/innodb-vs-file-120mbs or demo/mmc. Without FILE, run and explain use the built-in default
scenario, binlog/quick. Sizes and rates need units (16KiB, 120MB/s).

Examples:
  simrun run                                     # binlog in InnoDB vs binlog file, 9 cases, 20 s each
  simrun run demo/mmc --case mm4 --format json   # one case as JSON (schema simrun.result/v1)
  simrun run my.toml --replications 5            # mean ± 95 % CI over 5 seeds
  simrun sweep demo/mmc --case mm4 --set workload.demo.servers=4,5,6,8
  simrun explain demo/mmc --case md4

Exit status: 0 ok, 1 runtime failure or interrupted, 2 bad input or usage.
Same file + same seed => byte-identical JSON. Docs: docs/cli.md, docs/scenarios.md, docs/results.md.
`

var commandHelp = map[string]string{
	"run": `Usage: simrun run [FILE] [flags]

Runs every case of the scenario (or those named with --case), in parallel on
separate simulations; results are printed in file order. Without FILE it runs
the built-in default scenario.

Flags:
  --case NAME          run only this case (repeatable)
  --seed N             override the scenario's seed
  --duration D         override the measured duration (e.g. 30s); warm-up is unchanged
  --set KEY=VALUE      override any parameter by its key path (repeatable),
                       e.g. --set workload.demo.servers=8 --set machine.preset=old-pc
  --replications N     run N independent seeds per case; every metric becomes the
                       mean, with NAME_ci95 the half-width of its 95 % confidence interval
  --format F           table (default), json or csv; default: from -o's extension
  -o FILE              write the result to FILE atomically (checked before the run)
  --workers N          parallel runs (default 0: all cores)
  --metrics P,...      table columns: metric paths or blocks, e.g. tps,latency_ms
                       (checked before the run; table format only)
  --report-interval D  after the table, per-interval lines like sysbench's, every D
  --iostat             after the table, per-interval device rows like iostat -x
  --cpuprofile FILE    write a CPU profile of the run for go tool pprof

Ctrl-C stops cleanly: rows already complete are written, marked "partial": true,
and the exit status is 1.

Examples:
  simrun run demo/mmc
  simrun run demo/mmc --case mm4 --case md4 --format json -o out.json
  simrun run scenarios/demo/pooling.toml --replications 10 --duration 20s
`,
	"sweep": `Usage: simrun sweep FILE --set KEY=V1,V2,... [--set ...] [flags]

Runs the grid of all combinations of the --set values for every selected case:
one result row per case and point, cases in file order, the last --set varying
fastest. Values are TOML values (8, 1.5, true, "x") or, unquoted, strings such
as 1.5ms or 120MB/s. A numeric parameter also takes a range: LO..HI:N is N
evenly spaced points, LO..HI*F multiplies by F from LO, and a bare LO..HI steps
an integer parameter by 1 (e.g. volume.bandwidth_max=40MB/s..400MB/s:10,
applier.workers=1..64*2). A progress bar is drawn on stderr when it is a
terminal.

Flags: those of run, plus
  --shard I/N          run only rows I, I+N, I+2N, ... (0 <= I < N) and write a
                       partial JSON result; simrun merge joins the N parts into a
                       result byte-identical to the unsharded sweep

Examples:
  simrun sweep demo/mmc --case mm4 --set workload.demo.servers=4,5,6,8
  simrun sweep demo/mmc --set workload.demo.arrival_rate=2k,2.5k,3k,3.5k --format csv
  simrun sweep binlog/quick --case Case2 --set volume.bandwidth_max=40MB/s..400MB/s:10
  simrun sweep demo/mmc --set workload.demo.servers=4,8 --shard 0/2 -o part-0.json
`,
	"merge": `Usage: simrun merge PART.json... [--format json|table|csv] [-o FILE] [--metrics P,...]

Joins the partial results written by simrun sweep --shard I/N. Every shard
0..N-1 must be given once, from the same scenario, seed and grid. The merged
JSON is byte-identical to the unsharded sweep's. --metrics picks the table's
columns, as in run.

Example:
  for i in 0 1 2; do simrun sweep demo/mmc --set workload.demo.servers=4,5,6,8 --shard $i/3 -o part-$i.json; done
  simrun merge part-*.json -o sweep.json
`,
	"explain": `Usage: simrun explain [FILE] [--case NAME]... [--set KEY=VALUE]... [--seed N]
                      [--duration D] [--format table|json] [-o FILE]

Prints the fully resolved configuration of each case: every parameter's key
path, value, unit, meaning and source — default, preset NAME, file PATH:LINE,
case NAME or flag --NAME. --seed and --duration override those two as run's do;
-o writes to FILE atomically (checked first).

Example:
  simrun explain demo/mmc --case mg4-lognormal
`,
	"validate": `Usage: simrun validate FILE...

Loads and checks each file without running it: syntax, unknown keys, types,
units, ranges, case names, extends and presets. A preset file (one section
such as [volume], as simrun calibrate writes) is checked as a preset of that
section: "ok FILE (preset volume)". Prints "ok FILE" or one line
per problem, FILE:LINE: key.path: message (allowed: ...). Exit status 2 if any
file has a problem.
`,
	"list": `Usage: simrun list

Lists the built-in scenarios (run them by name, e.g. simrun run demo/mmc) and
the built-in presets by section.
`,
	"plot": `Usage: simrun plot RESULT.json|FILE.toml --kind KIND -o out.png|out.svg
        [--width PX] [--height PX] [--metric PATH] [--case NAME]... [--title T]
        [--seed N] [--duration D]

Draws a chart with gonum/plot. IN is a result written by simrun run
--format json, or a scenario file (or built-in name) that is run first
(--seed, --duration and --case then apply to that run).
Kinds: bar (one metric per case, grouped by "group/label" case names),
sweep (throughput and p99 against the swept parameter, the knee or, along
a capacity, the least value that is enough marked; named values as points
side by side), latency (percentile curve), series (TPS, device MB/s,
%util, checkpoint age, queue depth over time), breakdown (stacked commit
latency). Any workload's result plots: without --metric each kind picks
what the result has; --metric chooses (a metric, a block, or
comma-separated series).
See docs/export.md.

Example:
  simrun plot binlog/innodb-vs-file-120mbs --duration 20s --kind breakdown -o b.png
`,
	"export": `Usage: simrun export RESULT.json|FILE.toml --format ipynb|md|csv -o FILE [--image png|svg]
        [--case NAME]... [--seed N] [--duration D]

Exports a result as a Jupyter notebook (nbformat 4, charts pre-rendered; it
reads NAME.result.json, written beside it, and its parameter cell can point
elsewhere), a markdown docs page with its charts beside it, or tidy CSV (one
row per case x metric). A scenario file is run first; --case, --seed and
--duration apply to that run. The same input gives byte-identical files;
no path, host name or timestamp is written. See docs/export.md.
`,
	"trace": `Usage: simrun trace FILE.toml --case NAME --window FROM:TO [-o trace.json]
        [--seed N] [--duration D]

Runs one case and records a window of virtual time as Chrome Trace Event
JSON, which ui.perfetto.dev and chrome://tracing open: client threads,
statements, commit groups, fsyncs, page flushes and device I/Os on their own
tracks, so you see where each transaction waited (fio: device I/Os; demo:
queue waits and services). Replication and bulk-load cases are refused
(exit 2): they record no trace yet. The window counts from the start of the
run, warm-up included (the series of plot and --report-interval count from
its end). Keep windows short (a few hundred milliseconds): every event in
it is kept.

Example:
  simrun trace binlog/innodb-vs-file-120mbs --case Case8 --window 10s:10.05s -o case8.json
`,
	"calibrate": `Usage: simrun calibrate FIO.json [-o volume.toml] [--name NAME] [--harness H.json]
       simrun calibrate --harness H.json -o DIR [--name NAME] [--irq-probe IRQ.jsonl]
                        [--kblockd-probe KBLOCKD.jsonl]

Reads the output of a real fio run (fio 3.x, --output-format=json) and writes
a volume preset: the IOPS and bandwidth caps from the measured maxima, and
read, write and flush latency distributions (empirical) from the completion
latency percentiles; when two iodepth-1 direct write jobs used different
block sizes, a transfer rate from their difference, so that small writes
cost less than large ones. Use the preset in a scenario by its path,
relative to the scenario file:
  [volume]
  preset = "my-volume.toml"
or copy its [volume] table into the scenario. preset = "NAME" (no .toml)
names a built-in preset: those are compiled into simrun, so a file added to
scenarios/library/volume/ counts only after rebuilding simrun. simrun
validate my-volume.toml checks the preset. See docs/model-disk.md.

Lines fio writes ahead of its JSON (fio 3.33's "note: ..." when a
synchronous engine is given iodepth > 1) are skipped and kept as comments.
Warnings go to stderr as well as into the preset: a latency measured with
more than one I/O in flight (an asynchronous engine such as libaio at
iodepth > 1; psync and the other synchronous engines keep one), and values
from a buffered job (direct=0 with no fsync, fdatasync or sync), which
measure the page cache rather than the device.

Example:
  fio --name=t --filename=/data/fio.dat --size=1G --rw=randwrite --bs=16k \
      --iodepth=16 --ioengine=libaio --direct=1 --runtime=60 --time_based \
      --output-format=json > fio.json
  simrun calibrate fio.json -o my-volume.toml

With --harness H.json (the JSON of scripts/realdb/harness.py, a real MariaDB
measured under sysbench), -o names a directory that receives machine.toml,
volume.toml, engine.toml, commit.toml and workload.toml presets: CPU per
statement and per query, redo bytes per transaction and the server's
settings from the 1-thread run with no sync; the CPU of a log write, of a
flush and of a binlog sync from the 1-thread runs that add one; the CPU of
a wake-up from the harness's wake probe; the caches' refill
(machine.cache_refill) and the host's background kernel threads' CPU
(machine.background_burst) from the 16-thread run with no sync, when there
is one (0 otherwise); the volume from fio: FIO.json, or
without it the fio run the harness made right after its matrix (harness.py
--fio), the device's latencies of the same minutes; the CPU a disk
completion interrupt takes from a busy vCPU (machine.irq_cost) from
scripts/realdb/irq-cost.sh's output, --irq-probe, or the probe the harness
kept (harness.py --irq-probe); the CPU of the kernel worker that dispatches
each device flush (machine.flush_dispatch) from scripts/realdb/kblockd.sh's
output, --kblockd-probe, or the probe the harness kept (harness.py
--kblockd-probe). See docs/realdb.md.
  simrun calibrate fio.json --harness matrix.json -o calibrated
  simrun calibrate --harness matrix.json -o calibrated
`,
}
