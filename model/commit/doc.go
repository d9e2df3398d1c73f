// Package commit models MariaDB's commit pipelines on top of the engine:
// no binary log, the classic binlog file with two-phase commit, and the
// binlog stored in InnoDB (binlog_storage_engine=innodb, MariaDB 12.3).
//
//	off     commit mtr -> redo write/sync per innodb_flush_log_at_trx_commit
//	file    prepare mtr -> redo sync (trx_commit 1, 3) -> binlog group
//	        commit: the leader copies the queued binlog caches to the file,
//	        fdatasyncs it every sync_binlog groups (a grown file: data,
//	        journal commit, flush), runs commit_ordered -> (trx_commit 3:
//	        redo sync; 2: redo write)
//	innodb  binlog group commit: the leader writes each binlog into .ibb
//	        pages inside the commit mtr (every binlog byte is redo) -> one
//	        redo sync per innodb_flush_log_at_trx_commit; sync_binlog ignored
//
// Both group-commit stages serve whoever queued while the previous group
// ran. The binlog file without sync_binlog is written back by the kernel
// (dirty_expire / dirty_writeback), sharing the volume with everything
// else; .ibb pages are written in the background once their redo is
// durable, and the partial last page at each checkpoint.
//
// The pipeline drives the engine through the Engine interface (prepare and
// commit mini-transactions, log_write_up_to, the durable LSN) and owns its
// configuration, the [commit] section; BinlogMode and FlushPolicy are typed
// and interpreted in one place.
//
// Events computes the ROW-format binlog size of a sysbench transaction from
// MariaDB's event layouts. docs/model-commit.md gives the sources.
package commit
