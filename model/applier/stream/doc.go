// Package stream models the replication source of the applier study: a
// sysbench-like client pool of UPDATE transactions on a MySQL source, its
// binlog group commit, and the dependency information the source writes
// into every GTID event (last_committed, sequence_number).
//
// # What a source transaction does
//
// Each of Threads client threads loops: BEGIN, UpdatesPerTrx non-indexed
// column UPDATEs on one table (sysbench's execute_non_index_updates picks
// the table once per block), COMMIT. Each statement costs a client round
// trip and CPU on the source's cores (a FIFO station: with 256 threads on 32
// cores most of a transaction's time is the wait for a core). An UPDATE
// takes its row's lock; if another transaction holds it, the thread waits
// until that one commits, unless the wait would close a cycle, in which
// case InnoDB's deadlock detector rolls it back and the client starts a new
// transaction (sysbench ignores error 1213). Statements up to the first
// conflict run in one step, so an uncontended transaction costs two events.
// At COMMIT the thread records the last committed sequence number (the
// commit parent) and queues for the binlog group commit.
//
// The group commit is a single leader loop: it takes every queued
// transaction, assigns sequence numbers in queue order, computes each one's
// last_committed, waits one sync_latency (the source's redo + binlog
// fsyncs), then commits the group: the commit parent advances to the
// group's last sequence number and the row locks are released.
//
// # Dependency tracking
//
//   - commit_order: last_committed is the commit parent: the highest
//     sequence number committed when the transaction entered commit. Its
//     intervals are as wide as the binlog groups (MySQL 5.7 LOGICAL_CLOCK).
//   - writeset (WL#9556; the only mode from MySQL 8.4): last_committed =
//     min(commit parent, max(history_start, latest writer in the history of
//     any of its rows)). The history holds history_size row hashes; when a
//     transaction would overflow it, the history is cleared after use and
//     history_start becomes that transaction's sequence number
//     (rpl_trx_tracking.cc).
//
// Every transaction also carries RowDep: the latest earlier transaction that
// wrote one of its rows, tracked exactly (not truncated by the history). A
// replica applier that starts a transaction before RowDep committed would
// wait on an InnoDB row lock. RowDep <= Last always holds: a conflicting
// transaction committed before this one entered commit.
//
// Row ids follow sysbench 1.0's rand-type=special (rand-spec-pct,
// rand-spec-res: res % of draws uniform over the central pct % of the ids,
// the rest a bell curve of 12 uniform draws), uniform, or a hot-row option
// (hot_pct % of updates uniform over the first hot_rows ids) that creates
// conflicts on purpose.
package stream
