// Package bulkload is the bulk loader of the bulk-load study: a mysqldump
// file of extended INSERTs (each its own autocommit transaction), LOAD
// DATA INFILE (one transaction) or a CSV-engine table converted by ALTER
// TABLE ... ENGINE=InnoDB, loading MediaWiki's categorylinks into MySQL 5.1
// with the InnoDB plugin.
//
// The Loader is the client session as a state machine. Per row it passes
// log_free_check, reserves tablespace pages (autoextend) and buffer-pool
// frames (LRU writes), appends to the clustered index, writes an insert
// undo record, and inserts into the two secondary indexes: into the leaf
// if it is resident, through the insert buffer if not, or after reading
// the leaf. It pays CPU in blocks of rows and blocks only where the server
// would, so events are per I/O, not per row, and memory is per page.
//
// It is a driver of the shared database server (model/server's Bulk, as
// sysbench is of its Server): the engine (model/engine: redo, buffer pool,
// page cleaner, doublewrite, checkpoints, and the B-trees, insert buffer,
// undo log, tablespace and compressed pages added for it), the commit
// pipeline (model/commit) and the volume (model/disk), reached through
// Bulk's narrow seam: CPU, page reads and creations, mini-transactions,
// commit and its durability. Result is its report; its
// json tags are the result contract. docs/model-bulkload.md has the
// mechanisms, equations, parameters and sources.
package bulkload
