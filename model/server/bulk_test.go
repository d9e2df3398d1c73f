package server

import (
	"testing"
	"time"

	"simrun/model/commit"
	"simrun/model/disk"
	"simrun/model/engine"
	"simrun/sim"
)

func bulkServer(t *testing.T, cc commit.Config, xa bool) (*sim.Env, *Bulk) {
	t.Helper()
	env := sim.New(1)
	vol, err := disk.New(env, disk.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	e := engine.DefaultConfig()
	e.BufferPool.Size = 64 * sim.MiB
	opt := BulkOptions{Pages: 8192, LogFileSize: 5 * sim.MiB, LogFilesInGroup: 2, LogBufferSize: 8 * sim.MiB,
		SupportXA: xa, Tablespace: engine.DefaultTablespace()}
	b, err := NewBulk(env, 2, vol, e, cc, opt)
	if err != nil {
		t.Fatal(err)
	}
	b.Start()
	return env, b
}

// TestBulkCommitFlushes: with the statement binlog, XA and trx_commit = 1 a
// MySQL 5.1 commit syncs the redo log twice (the prepare, then the commit
// record, trx_commit_complete_for_mysql), and the driver learns of the
// commit only once the commit record is durable; without XA it syncs once
// (the pipeline's flush stands for the commit's).
func TestBulkCommitFlushes(t *testing.T) {
	for _, tc := range []struct {
		name  string
		xa    bool
		syncs int64
	}{{"xa", true, 2}, {"no xa", false, 1}} {
		t.Run(tc.name, func(t *testing.T) {
			cc := commit.DefaultConfig()
			cc.BinlogStorageEngine, cc.SyncBinlog, cc.FlushLogAtTrxCommit = commit.BinlogFile, 0, 1
			env, b := bulkServer(t, cc, tc.xa)
			env.RunUntil(sim.At(time.Second))
			e := b.Engine()
			before := e.Redo.Syncs
			p := b.NewPage()
			b.Mtr(200, []int32{p})
			done := false
			b.Commit(1000, func(any) { done = true }, nil)
			env.RunUntil(env.Now().Add(500 * time.Millisecond))
			if !done {
				t.Fatal("commit not acknowledged")
			}
			if got := e.Redo.Syncs - before; got != tc.syncs {
				t.Errorf("redo syncs per commit = %d, want %d", got, tc.syncs)
			}
			if tc.xa && e.FlushedLSN() < e.Redo.LSN() {
				t.Errorf("acknowledged at flushed LSN %d < %d", e.FlushedLSN(), e.Redo.LSN())
			}
		})
	}
}

// TestBulkRejectsInnoDBBinlog: MySQL 5.1 has no binlog in InnoDB.
func TestBulkRejectsInnoDBBinlog(t *testing.T) {
	env := sim.New(1)
	vol, err := disk.New(env, disk.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	cc := commit.DefaultConfig()
	cc.BinlogStorageEngine = commit.BinlogInnoDB
	if _, err := NewBulk(env, 2, vol, engine.DefaultConfig(), cc, BulkOptions{Pages: 4096, LogFileSize: 5 * sim.MiB, LogFilesInGroup: 2}); err == nil {
		t.Error("NewBulk accepted binlog_storage_engine = innodb")
	}
}
