// Package server assembles a database server for a run: a machine whose
// vCPUs are a k-server station (SMT threads count as servers), a block
// volume shared by every writer, the engine and its commit pipeline, and
// sysbench client threads in a closed loop.
//
// A client thread runs BEGIN, its statements and COMMIT as: log_free_check
// (maybe a checkpoint stall), page reads for buffer-pool misses, the
// round-trip latency of its six queries, one CPU job holding the server and
// client CPU of all of them, then the commit pipeline; the acknowledgement
// starts the next transaction. Every span of the transaction is charged to
// a category, so the commit_breakdown_ms of the result adds up to the mean
// latency.
//
// Each query's server CPU varies around its mean (engine cpu.cv), so a
// CPU-bound run has a latency distribution rather than a single value.
//
// RunSysbench is the entry point the scenario runner calls; it returns the
// metrics block documented in docs/model-commit.md. RunSysbenchTraced also
// records a window of the run for a Perfetto trace (Sysbench.SetTrace):
// client threads with their statements and the stage each commit waited
// in, redo and binlog group commits, fsyncs, page-cleaner and doublewrite
// batches, and device I/Os, each on its own track.
package server
