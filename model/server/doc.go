// Package server is the database server, whatever drives it: a machine
// whose vCPUs are a sim.CPU (SMT threads count as servers), a block volume
// shared by every writer, the engine and its commit pipeline (Server).
//
// Drivers talk to it through one narrow seam, a Session per connection:
// Execute hands over a transaction's statement work (the rows it changes,
// from which the server derives pages, redo and CPU; its binlog bytes; the
// client's CPU and round trips), Commit commits it, and the session's
// callback says when the commit is acknowledged (durable as the commit
// policy requires). Execute runs log_free_check (maybe a checkpoint stall),
// page reads for buffer-pool misses, the round trips, then one CPU job
// holding the server and client CPU of every query; the changes then enter
// the buffer pool and the log. Every span is charged to a category of the
// session's Timeline, so a driver's latency breakdown adds up.
//
// Each query's server CPU varies around its mean (engine cpu.cv), so a
// CPU-bound run has a latency distribution rather than a single value.
//
// Bulk (bulk.go) is the same server as a MySQL 5.1 server with the InnoDB
// plugin over one tablespace, ibdata1, for the bulk loader of
// model/workload/bulkload: NewBulk sizes the redo ring as 5.1 does
// (log_calc_max_ages) and owns the tablespace and the insert undo log; the
// loader hands it statement work (CPU on the server's processors, pages
// read and created, mini-transactions of redo bytes over dirtied pages),
// commits through it and learns when a commit is durable.
//
// Replica is the server a replication applier drives (model/applier): the
// vCPUs, a RAID 0 set (disk.Array), InnoDB's redo log and the ordered
// commit of the MySQL 8.4/9.x flavour of model/commit. Its narrow seam is a
// ReplicaSession per applier worker (Execute the statement work, Commit
// unordered and learn when durable) and CommitInOrder for commit order.
//
// Sysbench is the sysbench client threads in a closed loop, a driver of the
// server. RunSysbench is the entry point the scenario runner calls; it
// returns the metrics block documented in docs/model-commit.md.
// RunSysbenchTraced also records a window of the run for a Perfetto trace
// (Sysbench.SetTrace): client threads with their statements and the stage
// each commit waited in, redo and binlog group commits, fsyncs,
// page-cleaner and doublewrite batches, and device I/Os, each on its own
// track.
package server
