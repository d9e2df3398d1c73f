// Package realdb reads the JSON that scripts/realdb/harness.py writes
// about a real MariaDB under sysbench, derives the per-transaction
// figures the model is compared on, calibrates machine, volume, engine and
// workload presets from it, and compares simrun's predictions with it.
//
// A harness document holds one run per (setting, thread count, repeat):
// sysbench's TPS and latency, SHOW GLOBAL STATUS deltas, the block
// device's /sys/block/DEV/stat deltas and the CPU time of mariadbd and
// sysbench. Derive turns a run into per-transaction figures (device
// flushes and writes, redo syncs, binlog groups, CPU); Summarise groups
// the repeats of a setting into ranges.
//
// Calibrate takes the 1-thread run with no sync on the commit path
// (binlog off, innodb_flush_log_at_trx_commit=0) and fio JSON: the volume
// comes from fio (model/fio), the server's settings from the run's SHOW
// VARIABLES, the CPU per statement and per query and the redo bytes per
// transaction from the run's counters, and the CPU of a sync point from the
// 1-thread run with flush_log_at_trx_commit=1. Everything else the model
// predicts. Compare checks predictions against the measured ranges with
// the thresholds of issue 12 (docs/realdb.md).
package realdb
