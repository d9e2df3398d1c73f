// Package engine models InnoDB (as MariaDB 10.5+ runs it) under a sysbench
// write load: the pages of the tables in a buffer pool, the redo log with
// its group commit, the page cleaner with the doublewrite buffer, and the
// checkpoints that bound the redo ring.
//
// # Pages
//
// Every clustered and secondary-index leaf of every table has a page id; a
// BufferPool keeps one word per page (resident, referenced, oldest
// modification LSN) and the flush list, which is a FIFO because a page's
// oldest-modification LSN is fixed when it turns dirty. A statement dirties
// its clustered leaf (row id / rows_per_page) and, if it changes index k, a
// uniformly chosen leaf of k. Re-dirtying a dirty page costs nothing; how
// often a page is written therefore follows from the real access pattern
// and from how long pages stay dirty, which the redo size and the page
// cleaner decide.
//
// # Redo
//
// Redo holds lsn >= written >= flushed >= checkpoint. Mini-transactions
// append bytes; Request waits for the log to be written or made durable up
// to an LSN. One round at a time writes everything generated so far and
// fdatasyncs if any waiter needs it; whoever arrives meanwhile is served by
// the next round (MariaDB's write_lock/flush_lock group commit). An O_DIRECT
// log writes whole 4 KiB blocks and rewrites the last partial one; a
// buffered log copies into the page cache and pays the device write at the
// sync.
//
// # The binlog tablespace
//
// With binlog_storage_engine=innodb the binary log is an InnoDB tablespace
// of .ibb files (ibb.go): the commit pipeline writes each transaction's
// binlog in its commit mini-transaction (CommitBinlogMTR), the pages go to
// their files once their redo is durable, and a checkpoint writes the
// partial page and may not pass the oldest unwritten binlog byte. The
// engine drives all of it itself; package commit only calls in.
//
// # Flushing and checkpoints
//
// The page cleaner runs MariaDB's buf_flush_page_cleaner: asleep while idle
// (with innodb_max_dirty_pages_pct_lwm = 0 only the async or sync point, a
// free-page shortage or max_dirty_pages_pct wake it), back-to-back batches
// of io_capacity_max pages past the async point (flush-ahead), furious
// flushing past the sync point while log_free_check stalls user threads,
// an adaptive batch (page_cleaner_flush_pages_recommendation) once a second
// while awake past innodb_adaptive_flushing_lwm, and after every flush-list
// batch the LRU batch that keeps lru_scan_depth pages free. Flush-list and
// LRU batches write each page's dirty neighbours (innodb_flush_neighbors on
// a rotational device). Each batch first makes the log durable
// (write-ahead logging), then writes doublewrite batches (one sequential
// write and fdatasync of up to 128 pages, then the pages in place); a
// checkpoint follows furious flushing and going idle (and every batch with
// flushing.checkpoint_after_batch).
//
// # Time
//
// A Timeline charges every nanosecond of a transaction to one category
// (CPU, device queue, redo fsync, checkpoint stall, ...); shared operations
// describe themselves as Phases, which each waiting member charges from the
// moment it joined. The device-queue part of a log or binlog I/O is what the
// volume reports for it (disk.Volume.QueueTime), not an estimate. With a
// trace recorder (SetTrace, Timeline.SetTrace) every charged stretch is also
// a span on the transaction's track, and the engine records its group
// commits, syncs, flush batches and checkpoints. docs/model-engine.md has
// the equations, parameters and sources.
package engine
