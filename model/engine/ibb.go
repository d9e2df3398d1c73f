package engine

import (
	"fmt"

	"simrun/internal/trace"
	"simrun/model/disk"
	"simrun/sim"
)

// ibbLog is the binary log stored in InnoDB (binlog_storage_engine=innodb,
// MariaDB 12.3, MDEV-34705): binlog records are written into 16 KiB pages
// of preallocated binlog-NNNNNN.ibb files through mini-transactions, so
// every binlog byte is also a redo byte. The pages reach their files in
// the background: a full page once the redo covering it is durable
// (write-ahead logging), the last partial page only at a checkpoint, which
// must not pass the LSN of any binlog data not yet in its file
// (Docs/replication/binlog.md; storage/innobase/fsp/fsp_binlog.cc).
//
// It is part of the engine, as in MariaDB, where the .ibb files are InnoDB
// tablespaces: the engine's checkpoint and its log writes drive it directly.
type ibbLog struct {
	env      *sim.Env
	vol      *disk.Volume
	e        *Engine
	src      disk.Source
	fileSize int64
	pagesPer int64
	files    []*disk.File

	batch    int   // full pages the flush thread writes at once
	pos      int64 // binlog bytes appended
	pending  sim.FIFO[ibbPage]
	partial  ibbPage // the page holding pos (firstLSN 0 when clean)
	busy     bool
	inflight uint64 // smallest first LSN of the pages being written, 0 if none
	nWrites  int
	batchEnd int64 // pages written by the running batch end before this page
	ckpt     []func()
	ckptRun  []func()
	walCB    func(any)
	doneCB   func(any)

	rec     *trace.Recorder // nil unless tracing
	track   trace.TrackID
	tBatch  sim.Time
	nPages  int64
	forCkpt bool

	// statistics
	PageWrites int64 // pages written (a partial page counts each time)
	Bytes      int64
}

type ibbPage struct {
	idx      int64
	firstLSN uint64
	lastLSN  uint64
}

func newIBB(e *Engine, maxSize int64, batch int, src disk.Source) *ibbLog {
	b := &ibbLog{env: e.env, vol: e.vol, e: e, src: src, fileSize: maxSize, batch: batch}
	b.pagesPer = maxSize / PageSize
	b.file(0) // two files are always preallocated (binlog.md)
	b.walCB = b.onWAL
	b.doneCB = b.onWritten
	e.Redo.onFlushed = b.trigger
	return b
}

// append places n binlog bytes written by the mini-transaction ending at
// lsn; pages that fill up join the pending list.
func (b *ibbLog) append(n int64, lsn uint64) {
	b.Bytes += n
	for n > 0 {
		idx := b.pos / PageSize
		if b.partial.firstLSN == 0 {
			b.partial = ibbPage{idx: idx, firstLSN: lsn}
		}
		b.partial.lastLSN = lsn
		room := (idx+1)*PageSize - b.pos
		k := min(room, n)
		b.pos += k
		n -= k
		if k == room {
			b.pending.Push(b.partial)
			b.partial = ibbPage{}
		}
	}
	b.trigger()
}

// oldestLSN is the checkpoint bound: the first LSN of binlog data not yet
// in its file.
func (b *ibbLog) oldestLSN() uint64 {
	var t uint64
	if b.inflight != 0 {
		t = b.inflight
	}
	if b.pending.Len() > 0 {
		if l := b.pending.At(0).firstLSN; t == 0 || l < t {
			t = l
		}
	}
	if l := b.partial.firstLSN; l != 0 && (t == 0 || l < t) {
		t = l
	}
	return t
}

// checkpoint writes every pending page and the partial page, then calls
// done.
func (b *ibbLog) checkpoint(lsn uint64, done func()) {
	b.ckpt = append(b.ckpt, done)
	b.trigger()
}

// syncFiles returns the .ibb files a checkpoint fdatasyncs.
func (b *ibbLog) syncFiles() []*disk.File { return b.files[len(b.files)-2:] }

// trigger starts a write batch if the writer is idle and there is work.
func (b *ibbLog) trigger() {
	if b.busy {
		return
	}
	if len(b.ckpt) > 0 {
		b.busy = true
		b.ckptRun, b.ckpt = b.ckpt, b.ckptRun[:0]
		// Write-ahead: the log up to now must be durable first.
		if b.e.Redo.Request(b.e.Redo.LSN(), true, nil, b.walCB, nil) {
			b.onWAL(nil)
		}
		return
	}
	if b.pending.Len() < b.batch {
		return
	}
	flushed := b.e.Redo.Flushed()
	n := 0
	for n < b.pending.Len() && b.pending.At(n).lastLSN <= flushed {
		n++
	}
	if n < b.batch {
		return
	}
	b.busy = true
	b.writePages(n, false)
}

func (b *ibbLog) onWAL(any) { b.writePages(b.pending.Len(), true) }

// writePages writes the first n pending pages (and the partial page if
// withPartial) as contiguous writes per file.
func (b *ibbLog) writePages(n int, withPartial bool) {
	b.inflight = 0
	b.nWrites = 1
	b.tBatch, b.forCkpt = b.env.Now(), withPartial
	before := b.PageWrites
	var runStart, runEnd int64 = -1, -1
	flush := func() {
		if runStart < 0 {
			return
		}
		for runStart < runEnd {
			f := b.file(runStart)
			inFile := runStart % b.pagesPer
			k := min(runEnd-runStart, b.pagesPer-inFile)
			b.nWrites++
			f.WriteAt(inFile*PageSize, k*PageSize, b.src, b.doneCB, nil)
			b.PageWrites += k
			runStart += k
		}
		runStart = -1
	}
	take := func(p ibbPage) { // extend the run with page p, or start a new one
		if b.inflight == 0 || p.firstLSN < b.inflight {
			b.inflight = p.firstLSN
		}
		if p.idx != runEnd {
			flush()
			runStart = p.idx
		}
		runEnd = p.idx + 1
	}
	for i := 0; i < n; i++ {
		take(b.pending.Pop())
	}
	if withPartial && b.partial.firstLSN != 0 {
		take(b.partial)
		// The page stays in use: later records dirty it again.
		b.partial = ibbPage{}
	}
	flush()
	b.nPages = b.PageWrites - before
	b.onWritten(nil)
}

// file returns the .ibb file holding page idx, opening (preallocating)
// files as the log advances.
func (b *ibbLog) file(idx int64) *disk.File {
	k := int(idx / b.pagesPer)
	for len(b.files) <= k+1 { // file k+1 is preallocated ahead
		f := b.vol.OpenFile(fmt.Sprintf("binlog-%06d.ibb", len(b.files)), true)
		f.Fallocate(0) // fresh: the first write converts unwritten extents
		b.files = append(b.files, f)
	}
	return b.files[k]
}

func (b *ibbLog) onWritten(any) {
	b.nWrites--
	if b.nWrites > 0 {
		return
	}
	b.inflight = 0
	b.busy = false
	if b.rec != nil {
		b.rec.Span(b.track, "binlog page write", b.tBatch, b.env.Now(), trace.Int("pages", b.nPages),
			trace.Bool("checkpoint", b.forCkpt))
	}
	run := b.ckptRun
	b.ckptRun = nil
	for _, d := range run {
		d()
	}
	if b.ckptRun == nil {
		clear(run)
		b.ckptRun = run[:0]
	}
	b.trigger()
}
