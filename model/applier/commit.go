package applier

import (
	"time"

	"simrun/model/disk"
)

// redoLog is InnoDB's redo log with innodb_flush_log_at_trx_commit=1 as
// MySQL 8.0's log_writer/log_flusher threads run it: commits wait until the
// flushed LSN passes theirs; one flush (write of everything not yet
// written, then fsync of the preallocated log file) covers every waiter
// that arrived before it started, and the next flush starts as soon as one
// ends if anyone is still waiting.
type redoLog struct {
	r       *replica
	file    *disk.File
	src     disk.Source
	lsn     int64
	written int64
	flushed int64
	target  int64
	busy    bool
	waiters []redoWaiter
	done    []redoWaiter

	flushes     int64
	flushWaiter int64 // waiters served, summed over flushes
	synced      func(any)
}

// redoWaiter is a commit waiting for durability: seq > 0 is a transaction,
// seq == 0 the leader of an ordered commit stage.
type redoWaiter struct{ lsn, seq int64 }

func newRedoLog(r *replica) *redoLog {
	l := &redoLog{r: r, file: r.arr.OpenFile("ib_redo", true), src: r.arr.RegisterSource("redo")}
	l.synced = l.onSynced
	return l
}

// add appends n bytes of redo and returns the new LSN.
func (l *redoLog) add(n int64) int64 {
	l.lsn += n
	return l.lsn
}

func (l *redoLog) waitDurable(lsn, seq int64) {
	if lsn <= l.flushed {
		l.r.redoDone(seq)
		return
	}
	l.waiters = append(l.waiters, redoWaiter{lsn, seq})
	if !l.busy {
		l.flush()
	}
}

func (l *redoLog) flush() {
	l.busy = true
	l.target = l.lsn
	if l.target > l.written {
		l.file.Append(l.target-l.written, l.src, nil, nil)
		l.written = l.target
	}
	l.file.Sync(l.synced, nil)
}

func (l *redoLog) onSynced(any) {
	l.flushed = l.target
	l.busy = false
	l.flushes++
	l.done = l.done[:0]
	n := 0
	for _, w := range l.waiters {
		if w.lsn <= l.flushed {
			l.done = append(l.done, w)
		} else {
			l.waiters[n] = w
			n++
		}
	}
	clear(l.waiters[n:])
	l.waiters = l.waiters[:n]
	l.flushWaiter += int64(len(l.done))
	// The flusher loops on its own: the next flush starts before the
	// waiters of this one are told.
	if len(l.waiters) > 0 {
		l.flush()
	}
	for _, w := range l.done {
		l.r.redoDone(w.seq)
	}
}

func (l *redoLog) resetStats() { l.flushes, l.flushWaiter = 0, 0 }

// binlogGC is MySQL's binlog group commit (MYSQL_BIN_LOG::ordered_commit)
// with sync_binlog=1, replica_preserve_commit_order=ON and
// binlog_order_commits=ON. Transactions register in sequence order; three
// stages, each with its own leader, work on contiguous ranges:
//
//	flush:  one redo flush (write + fsync) covering every prepared
//	        transaction of the group, then the group's binlog caches are
//	        written to the binlog file (page cache);
//	sync:   one fsync of the binlog (a growing file: data plus the
//	        filesystem journal), covering every flushed group waiting;
//	commit: the leader commits each transaction in the engine, in order
//	        (commit_per_trx each, serially), then signals the group.
//
// The stages pipeline: group k+1 flushes while group k syncs.
type binlogGC struct {
	r    *replica
	file *disk.File
	src  disk.Source

	regHi, flushHi, syncHi, commitHi int64
	curFlush, curSync, curCommit     int64
	flushBusy, syncBusy, commitBusy  bool
	unwritten                        int64

	burst    burst // the commit stage leader's
	syncs    int64
	syncTrx  int64
	synced   func(any)
	commited func(any)
}

func newBinlogGC(r *replica) *binlogGC {
	b := &binlogGC{r: r, file: r.arr.OpenFile("binlog.000001", false), src: r.arr.RegisterSource("binlog")}
	b.synced = b.onSynced
	b.commited = b.onCommitted
	return b
}

func (b *binlogGC) registered(seq int64) {
	b.regHi = seq
	if !b.flushBusy {
		b.startFlush()
	}
}

func (b *binlogGC) startFlush() {
	b.flushBusy = true
	b.curFlush = b.regHi
	b.r.groups++
	b.r.groupTrx += b.curFlush - b.flushHi
	b.r.redo.waitDurable(b.r.redo.lsn, 0)
}

// redoFlushed continues the flush stage once the group's prepares are
// durable.
func (b *binlogGC) redoFlushed() {
	b.unwritten += (b.curFlush - b.flushHi) * b.r.trxBytes
	b.flushHi = b.curFlush
	b.flushBusy = false
	if !b.syncBusy {
		b.startSync()
	}
	if b.regHi > b.flushHi {
		b.startFlush()
	}
}

func (b *binlogGC) startSync() {
	b.syncBusy = true
	b.curSync = b.flushHi
	b.syncs++
	b.syncTrx += b.curSync - b.syncHi
	if b.unwritten > 0 {
		b.file.Append(b.unwritten, b.src, nil, nil)
		b.unwritten = 0
	}
	b.file.Sync(b.synced, nil)
}

func (b *binlogGC) onSynced(any) {
	b.syncHi = b.curSync
	b.syncBusy = false
	if !b.commitBusy {
		b.startCommit()
	}
	if b.flushHi > b.syncHi {
		b.startSync()
	}
}

func (b *binlogGC) startCommit() {
	b.commitBusy = true
	b.curCommit = b.syncHi
	n := b.curCommit - b.commitHi
	b.r.run(&b.burst, time.Duration(n)*b.r.commitCost, b.commited, nil)
}

func (b *binlogGC) onCommitted(any) {
	hi := b.curCommit
	for s := b.commitHi + 1; s <= hi; s++ {
		b.r.finishCommit(s)
	}
	b.commitHi = hi
	b.commitBusy = false
	if b.syncHi > b.commitHi {
		b.startCommit()
	}
}

func (b *binlogGC) resetStats() { b.syncs, b.syncTrx = 0, 0 }

// orderedStage is the commit-order stage without a binlog
// (Commit_stage_manager's COMMIT_ORDER_FLUSH_STAGE): transactions register
// in sequence order; the leader flushes the redo log once for the group if
// it is on, then commits each transaction in the engine in order.
type orderedStage struct {
	r            *replica
	regHi, done  int64
	cur          int64
	busy         bool
	burst        burst // the stage leader's
	commitCPUEnd func(any)
}

func newOrderedStage(r *replica) *orderedStage {
	o := &orderedStage{r: r}
	o.commitCPUEnd = o.onCommitCPU
	return o
}

func (o *orderedStage) registered(seq int64) {
	o.regHi = seq
	if !o.busy {
		o.start()
	}
}

func (o *orderedStage) start() {
	o.busy = true
	o.cur = o.regHi
	o.r.groups++
	o.r.groupTrx += o.cur - o.done
	if o.r.redo != nil {
		o.r.redo.waitDurable(o.r.redo.lsn, 0)
		return
	}
	o.redoFlushed()
}

func (o *orderedStage) redoFlushed() {
	o.r.run(&o.burst, time.Duration(o.cur-o.done)*o.r.commitCost, o.commitCPUEnd, nil)
}

func (o *orderedStage) onCommitCPU(any) {
	hi := o.cur
	for s := o.done + 1; s <= hi; s++ {
		o.r.finishCommit(s)
	}
	o.done = hi
	o.busy = false
	if o.regHi > o.done {
		o.start()
	}
}

// redoDone routes a redo durability notification.
func (r *replica) redoDone(seq int64) {
	if seq > 0 {
		r.finishCommit(seq)
		return
	}
	if r.binlog != nil {
		r.binlog.redoFlushed()
		return
	}
	r.order.redoFlushed()
}
