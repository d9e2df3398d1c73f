package disk

import (
	"fmt"
	"time"

	"simrun/sim"
)

// File is a file on the volume as a database sees it: appends, positioned
// reads and writes, and fsync. It tracks which of its writes are
// acknowledged, so that Sync waits for exactly the writes issued before it,
// and whether it grew since its last sync, which decides whether the
// filesystem must also commit its metadata journal.
type File struct {
	fs       *fsys
	id       int32
	name     string
	prealloc bool

	size       int64 // end of the furthest write issued
	syncedSize int64 // size made durable by the last completed sync

	issued uint64 // writes issued so far; write k has seq k (1-based)
	prefix uint64 // every write with seq <= prefix is acknowledged
	done   []bool // done[seq % len] for seq in (prefix, issued]

	syncs []*fileOp // syncs waiting for their writes, in issue order

	// Unwritten extents (Fallocate): bytes from unwrittenFrom on were
	// allocated by posix_fallocate but never written (-1: none).
	unwrittenFrom int64
	converted     bool // a write converted unwritten extents since the last sync

	appended bool  // a write reached the end of a growing file since the last sync
	written  bool  // a write changed the mtime since the last sync
	mtick    int64 // the coarse-clock tick of the file's mtime (timestamp_tick), -1: never written

	// inodeTx is the jbd2 transaction that last journaled the file's
	// inode block (0: none); see DirtyInode.
	inodeTx int64
}

// blockDev is the block device a filesystem sits on: one Volume, or a
// RAID 0 Array that stripes the same requests over its members.
type blockDev interface {
	Submit(r Request)
}

// fsys is the filesystem on a block device: its files, the bookkeeping of
// their writes and syncs, and the jbd2 metadata journal. A Volume and an
// Array each have one, so a file behaves the same on either.
type fsys struct {
	env    *sim.Env
	dev    blockDev
	cfg    *Config        // journal_write_size and write_cache (an array's members')
	queued *time.Duration // the device's QueueTime, set while a completion runs

	files   []*File
	ops     sim.Pool[fileOp]
	journal journal

	writeDone, flushed, inodeWritten func(any)
	dataSynced, flushNow             func(any)
}

func (fs *fsys) init(env *sim.Env, dev blockDev, cfg *Config, queued *time.Duration) {
	fs.env, fs.dev, fs.cfg, fs.queued = env, dev, cfg, queued
	fs.writeDone = fs.onWriteDone
	fs.flushed = fs.onSyncFlushed
	fs.inodeWritten = fs.onInodeWritten
	fs.dataSynced = fs.onDataWoke
	fs.flushNow = fs.submitFlush
	fs.journal.init(fs)
}

// fileOp is the callback context of a file write or sync.
type fileOp struct {
	f       *File
	seq     uint64        // write: its seq; sync: the last write it covers
	grown   bool          // sync: the file's size or extents changed since the last sync
	written bool          // sync: the file was written since the last sync
	size    int64         // sync: file size it makes durable
	queue   time.Duration // sync: queue time of its flush or journal commit
	by      Sleeper       // sync: the thread asleep in it (nil: none on a processor)
	done    func(any)
	arg     any
}

// OpenFile creates a file on the volume. Files get ids 1, 2, ... in open
// order (callers that Submit raw requests should use ids from 1<<20 up to
// stay clear of them). A preallocated file (InnoDB redo log, .ibb binlog,
// a tablespace written in full) never changes its metadata on write, so
// its Sync is one device flush; a growing file's Sync also commits the
// filesystem journal.
func (v *Volume) OpenFile(name string, preallocated bool) *File {
	return v.fs.open(name, preallocated)
}

func (fs *fsys) open(name string, preallocated bool) *File {
	f := &File{fs: fs, id: int32(len(fs.files) + 1), name: name, prealloc: preallocated, done: make([]bool, 64), unwrittenFrom: -1, mtick: -1}
	fs.files = append(fs.files, f)
	return f
}

// ID returns the file id used in the volume's requests.
func (f *File) ID() int32 { return f.id }

// Name returns the name given to OpenFile.
func (f *File) Name() string { return f.name }

// Size returns the end of the furthest write issued.
func (f *File) Size() int64 { return f.size }

// Fallocate declares that the file's space was allocated with
// posix_fallocate (as InnoDB does for ib_logfile0, .ibb binlog files and
// tablespace extensions) and that only its first written bytes have been
// written since: ext4 keeps the rest as unwritten extents. The first write
// into them converts the extents when it completes, a metadata change, so
// the next Sync commits the filesystem journal as for a growing file
// (ext4_convert_unwritten_extents sets i_datasync_tid: even fdatasync waits
// for the commit; PostgreSQL's wal_init_zero exists to avoid this). The
// model assumes the file is first written sequentially, as a log or an
// appending binlog is: a write ending beyond the mark converts, and moves
// the mark to its end.
func (f *File) Fallocate(written int64) {
	if written < 0 {
		written = 0
	}
	f.unwrittenFrom = written
}

// Append writes size bytes at the end of the file.
func (f *File) Append(size int64, src Source, done func(any), arg any) {
	f.WriteAt(f.size, size, src, done, arg)
}

// WriteAt writes size bytes at off; writing past the end grows the file.
// The server's thread submits it (an O_DIRECT write, or the pages its
// fsync writes), so the server's blkio throttle charges it.
func (f *File) WriteAt(off, size int64, src Source, done func(any), arg any) {
	f.write(off, size, src, false, done, arg)
}

// WriteBackAt is WriteAt submitted by the kernel's flusher thread (the
// periodic write-back of a buffered file's dirty pages): outside the
// server's cgroup, so its blkio throttle neither charges nor holds it.
func (f *File) WriteBackAt(off, size int64, src Source, done func(any), arg any) {
	f.write(off, size, src, true, done, arg)
}

func (f *File) write(off, size int64, src Source, kernel bool, done func(any), arg any) {
	if size <= 0 || off < 0 {
		panic(fmt.Sprintf("disk: file %s: write of %d bytes at %d", f.name, size, off))
	}
	f.issued++
	if f.issued-f.prefix >= uint64(len(f.done)) {
		f.grow()
	}
	f.done[f.issued%uint64(len(f.done))] = false
	// A file that is not preallocated is only ever appended to through the
	// page cache (binlog, relay log): a write that reaches its end carries
	// bytes appended since the last one, so i_size changed even when the
	// write only rewrites the last partial page.
	f.appended = f.appended || !f.prealloc && off+size >= f.size
	// file_update_time: the mtime is the coarse clock's, so a write
	// dirties the inode only in a tick the mtime is not already in.
	tick := int64(f.fs.env.Now())
	if d := int64(f.fs.cfg.TimestampTick); d > 0 {
		tick /= d
	}
	if tick != f.mtick {
		f.mtick = tick
		f.written = true
	}
	grows := !f.prealloc && off+size > f.size
	f.size = max(f.size, off+size)
	if f.unwrittenFrom >= 0 && off+size > f.unwrittenFrom {
		f.converted = true
		f.unwrittenFrom = off + size
		grows = true
	}
	if grows {
		// The size or the extents change: the inode block joins the
		// running transaction (written back by a kernel thread, which
		// the model does not stall; see DirtyInode).
		f.inodeTx = f.fs.journal.running()
	}
	op := f.fs.ops.Get()
	op.f, op.seq, op.done, op.arg = f, f.issued, done, arg
	f.fs.dev.Submit(Request{Op: Write, File: f.id, Offset: off, Size: size, Source: src, Kernel: kernel, Done: f.fs.writeDone, Arg: op})
}

// DirtyInode is a write(2) that changes the file's inode now: a buffered
// append that moves i_size (generic_write_end -> mark_inode_dirty), as the
// binlog's writes do. ext4_dirty_inode starts a jbd2 handle and
// ext4_reserve_inode_write asks for write access to the inode's
// inode-table block. If the committing transaction carries that block and
// is writing it to the journal (BH_Shadow: set by
// jbd2_journal_write_metadata_buffer, cleared by the journal write's
// completion, journal_end_buffer_io_sync), do_get_write_access sleeps until
// that write completes: DirtyInode then returns true and done(arg) runs
// when the journal's metadata write does. Otherwise it returns false and
// the write goes on at once. Either way the block joins the running
// transaction. Each file's inode is assumed to have its own inode-table
// block (see syncInode). Without a journal nothing waits.
func (f *File) DirtyInode(done func(any), arg any) bool {
	if f.fs.cfg.Journal == JournalNone {
		return false
	}
	j := &f.fs.journal
	if j.logging && f.inodeTx == j.commits {
		j.shadowed = append(j.shadowed, shadowWait{f, done, arg})
		j.shadowWaits++
		return true
	}
	f.inodeTx = j.running()
	return false
}

// ReadAt reads size bytes at off.
func (f *File) ReadAt(off, size int64, src Source, done func(any), arg any) {
	f.fs.dev.Submit(Request{Op: Read, File: f.id, Offset: off, Size: size, Source: src, Done: done, Arg: arg})
}

// Sync is fsync/fdatasync: it waits until every write issued to this file
// before the call is acknowledged, then makes it durable with a device
// flush. If the file was appended to since its last sync and is not
// preallocated (or a write converted unwritten extents, see Fallocate),
// the new size is metadata that must be durable too, on every such sync:
// the write-back of the appended bytes moves i_disksize, ext4_do_update_inode
// then records the transaction as the inode's datasync tid, and
// ext4_sync_file waits for its commit even under fdatasync. With
// journal = ordered the filesystem commits its journal instead of the
// plain flush (see journal: the descriptor and metadata blocks, a flush,
// then the commit block); commits are shared: syncs that arrive while one
// commit is running are batched into the next (jbd2). This is why an
// appending file pays about two more device round trips per sync than a
// preallocated one (mechanisms-notes §1.3). With journal = none see
// syncInode.
func (f *File) Sync(done func(any), arg any) { f.SyncBy(nil, done, arg) }

// Sleeper is the thread asleep in a blocking file operation. Linux puts
// the caller of fdatasync to sleep at each device wait inside the call,
// and each completion only makes it runnable: it needs a processor again
// before it submits the next step (fs/ext4/fsync.c, ext4_sync_file:
// file_write_and_wait_range waits for the data's write-back or the
// O_DIRECT write before it; without a journal ext4_fsync_nojournal's
// sync_mapping_buffers waits for the inode block; blkdev_issue_flush waits
// in submit_bio_wait). Wake runs next(arg) once the thread runs again.
type Sleeper interface {
	Wake(next func(any), arg any)
}

// SyncBy is Sync called by thread s, which sleeps through each device wait
// inside the call: the writes it waits for, the inode block (journal =
// none), each needing s back on a processor before the next step (see
// Sleeper). With a journal the caller sleeps once more, in
// jbd2_log_wait_commit, until the commit is durable (jbd2's own thread and
// its wake-ups are not modelled). done(arg) runs when the last device wait
// ends; the caller's own wake-up from it is the caller's. s nil is Sync.
func (f *File) SyncBy(s Sleeper, done func(any), arg any) {
	op := f.fs.ops.Get()
	op.f, op.seq, op.done, op.arg, op.by = f, f.issued, done, arg, s
	op.grown = !f.prealloc && (f.size > f.syncedSize || f.appended) || f.converted
	op.written = f.written
	f.converted, f.appended, f.written = false, false, false
	op.size = f.size
	if f.prefix >= op.seq {
		f.fs.syncData(op)
		return
	}
	f.syncs = append(f.syncs, op)
}

func (f *File) grow() {
	n := make([]bool, 2*len(f.done))
	for s := f.prefix + 1; s <= f.issued-1; s++ {
		n[s%uint64(len(n))] = f.done[s%uint64(len(f.done))]
	}
	f.done = n
}

func (fs *fsys) free(o *fileOp) {
	*o = fileOp{}
	fs.ops.Put(o)
}

// onFileWriteDone marks a write acknowledged, advances the prefix and
// releases the syncs it completes, then calls the caller.
func (fs *fsys) onWriteDone(a any) {
	op := a.(*fileOp)
	f := op.f
	f.done[op.seq%uint64(len(f.done))] = true
	for f.prefix < f.issued && f.done[(f.prefix+1)%uint64(len(f.done))] {
		f.prefix++
	}
	done, arg := op.done, op.arg
	fs.free(op)
	n := 0
	for n < len(f.syncs) && f.syncs[n].seq <= f.prefix {
		n++
	}
	if n > 0 {
		ready := f.syncs[:n]
		for _, s := range ready {
			if s.by != nil {
				// The syncing thread slept on these writes.
				s.by.Wake(fs.dataSynced, s)
				continue
			}
			fs.syncData(s)
		}
		m := copy(f.syncs, f.syncs[n:])
		clear(f.syncs[m:])
		f.syncs = f.syncs[:m]
	}
	if done != nil {
		done(arg)
	}
}

// onDataWoke: the thread that slept on a sync's writes runs again.
func (fs *fsys) onDataWoke(a any) { fs.syncData(a.(*fileOp)) }

// syncData runs once a sync's writes are acknowledged.
func (fs *fsys) syncData(op *fileOp) {
	if fs.cfg.Journal == JournalNone {
		fs.syncInode(op)
		return
	}
	if op.grown {
		fs.journal.request(op)
		return
	}
	fs.submitFlush(op)
}

// inodeFile is the file id of the inode table (journal = none).
const inodeFile int32 = -2

// syncInode is the sync of a filesystem without a journal (ext4 mounted
// without one: ext4_sync_file -> ext4_fsync_nojournal ->
// generic_buffers_fsync_noflush). Any write updates the inode (mtime, and
// i_size when it appends): with no journal handle ext4_mark_iloc_dirty
// marks the inode table block dirty against the inode
// (mark_buffer_dirty_inode), and sync_mapping_buffers writes it on fsync
// and fdatasync alike, before the device flush (blkdev_issue_flush). So a
// sync that follows a write that changed the mtime (or the size) is one
// 4 KiB write and a flush, with no second write or flush as a jbd2 commit
// has; any other sync is the flush alone. The mtime is the kernel's coarse
// clock (timestamp_tick, one jiffy): block-layer tracing of a 4 KiB
// O_DIRECT write + fdatasync loop on the realdb host (ext4 without a
// journal) shows the inode block write (a REQ_META write to the inode
// table) after every write when the writes are 10 ms apart, and after
// about half of them when they are 3 ms apart (docs/realdb.md). Each file's inode block is its own (inode tables
// are per block group; files of one directory share blocks in reality,
// which only moves the head of an hdd).
func (fs *fsys) syncInode(op *fileOp) {
	if !op.written && !op.grown {
		fs.submitFlush(op)
		return
	}
	var id int64
	if op.f != nil {
		id = int64(op.f.id)
	}
	fs.dev.Submit(Request{Op: Write, File: inodeFile, Offset: id * journalBlock, Size: journalBlock, Source: SourceJournal, Done: fs.inodeWritten, Arg: op})
}

// onInodeWritten: the inode block is on the device; flush, once the
// thread that slept on the block runs again.
func (fs *fsys) onInodeWritten(a any) {
	op := a.(*fileOp)
	op.queue += *fs.queued
	if op.by != nil {
		op.by.Wake(fs.flushNow, op)
		return
	}
	fs.submitFlush(op)
}

// submitFlush sends a sync's device flush (blkdev_issue_flush).
func (fs *fsys) submitFlush(a any) {
	fs.dev.Submit(Request{Op: Flush, Source: SourceOther, Done: fs.flushed, Arg: a})
}

func (fs *fsys) onSyncFlushed(a any) {
	op := a.(*fileOp)
	op.queue += *fs.queued
	fs.finishSync(op)
}

func (fs *fsys) finishSync(op *fileOp) {
	if f := op.f; f != nil {
		f.syncedSize = max(f.syncedSize, op.size)
	}
	done, arg, q := op.done, op.arg, op.queue
	fs.free(op)
	if done != nil {
		*fs.queued = q
		done(arg)
		*fs.queued = 0
	}
}

// CommitJournal commits the filesystem journal as jbd2's periodic commit
// does (ext4 commit=5): metadata changed without an fsync, such as the block
// allocations of written-back data, becomes durable. It shares commits with
// the syncs of growing files. done(arg) runs when the commit is durable.
func (v *Volume) CommitJournal(done func(any), arg any) { v.fs.commitJournal(done, arg) }

func (fs *fsys) commitJournal(done func(any), arg any) {
	if fs.cfg.Journal == JournalNone {
		// No jbd2: the allocations are written with the inodes' syncs
		// and write-back; nothing to commit.
		if done != nil {
			done(arg)
		}
		return
	}
	op := fs.ops.Get()
	op.done, op.arg = done, arg
	fs.journal.request(op)
}

// journalFile is the file id of the filesystem journal.
const journalFile int32 = -1

// journalSize is the circular journal's size (ext4's default for volumes
// over 128 GiB is 1 GiB; the size only moves the hdd head).
const journalSize = 128 << 20

// journalBlock is the filesystem block size (ext4's default, 4 KiB): the
// commit record is one block.
const journalBlock = 4096

// journal is the filesystem's metadata journal as ext4 (data=ordered)
// commits it through jbd2 with barriers on (ext4's default barrier=1,
// async_commit off). jbd2_journal_commit_transaction writes the descriptor
// block and the changed metadata blocks (inode table block, block bitmap,
// group descriptor) to the journal and waits for them; then
// journal_submit_commit_record writes the commit block with
// REQ_PREFLUSH | REQ_FUA: a device flush first, so that the journal blocks
// are durable before the record that validates them, then the commit
// block, durable when it completes. The block layer (blk-flush.c) turns FUA
// into a post-flush on a device with a volatile cache; on a volume whose
// writes are durable when acknowledged (write_cache = false) the commit
// write alone suffices. So a commit is
//
//	write(journal_write_size - 4 KiB) → flush → write(4 KiB) [→ flush if write_cache]
//
// One commit at a time (jbd2 has one committing transaction); the syncs
// that arrive during a commit wait for the next one, which covers them all.
type journal struct {
	fs         *fsys
	busy       bool
	off        int64
	commitOff  int64
	commitSize int64
	queue      time.Duration // queue time of the running commit's I/Os
	waiting    []*fileOp
	committing []*fileOp
	wrote      func(any)
	preflushed func(any)
	recorded   func(any)
	flushed    func(any)
	commits    int64 // transactions committed or committing; the running one is commits+1

	// logging: the committing transaction's descriptor and metadata
	// blocks are being written; the inode blocks it carries are shadowed.
	logging  bool
	shadowed []shadowWait // writes asleep on a shadowed inode block
	spare    []shadowWait
	// shadowWaits counts the writes that slept on a shadowed block.
	shadowWaits int64
}

// shadowWait is a write(2) asleep in do_get_write_access.
type shadowWait struct {
	f    *File
	done func(any)
	arg  any
}

// running is the id of jbd2's running transaction, the one a handle
// started now joins (T_LOCKED, when a new handle would wait for the commit
// to switch transactions, lasts no virtual time here: the model's handles
// hold no I/O, so jbd2_journal_wait_updates has nothing to wait for).
func (j *journal) running() int64 { return j.commits + 1 }

func (j *journal) init(fs *fsys) {
	j.fs = fs
	j.wrote = j.onWrote
	j.preflushed = j.onPreflushed
	j.recorded = j.onCommitRecord
	j.flushed = j.onFlushed
}

// sizes splits journal_write_size into the descriptor + metadata write and
// the commit block (4 KiB, or half of a journal_write_size below 8 KiB).
func (j *journal) sizes() (meta, commit int64) {
	total := int64(j.fs.cfg.JournalWriteSize)
	commit = max(1, min(journalBlock, total/2))
	return max(1, total-commit), commit
}

func (j *journal) request(op *fileOp) {
	j.waiting = append(j.waiting, op)
	if !j.busy {
		j.commit()
	}
}

func (j *journal) commit() {
	j.busy = true
	j.commits++
	j.waiting, j.committing = j.committing[:0], j.waiting
	meta, commit := j.sizes()
	if j.off+meta+commit > journalSize {
		j.off = 0
	}
	off := j.off
	j.commitOff, j.commitSize = off+meta, commit
	j.queue = 0
	j.off += meta + commit
	j.logging = true
	j.fs.dev.Submit(Request{Op: Write, File: journalFile, Offset: off, Size: meta, Source: SourceJournal, Kernel: true, Done: j.wrote})
}

// onWrote: the journal blocks are written; REQ_PREFLUSH of the commit
// record. Their completion clears BH_Shadow: the writes asleep on it go on
// and journal the inode in the running transaction.
func (j *journal) onWrote(any) {
	j.queue += *j.fs.queued
	j.logging = false
	j.fs.dev.Submit(Request{Op: Flush, Source: SourceJournal, Kernel: true, Done: j.preflushed})
	if len(j.shadowed) == 0 {
		return
	}
	w := j.shadowed
	j.shadowed = j.spare[:0]
	for i := range w {
		w[i].f.inodeTx = j.running()
		if w[i].done != nil {
			w[i].done(w[i].arg)
		}
		w[i] = shadowWait{}
	}
	j.spare = w[:0]
}

// onPreflushed: the journal blocks are durable; write the commit block.
func (j *journal) onPreflushed(any) {
	j.queue += *j.fs.queued
	j.fs.dev.Submit(Request{Op: Write, File: journalFile, Offset: j.commitOff, Size: j.commitSize, Source: SourceJournal, Kernel: true, Done: j.recorded})
}

// onCommitRecord: REQ_FUA, emulated by a flush on a volatile write cache.
func (j *journal) onCommitRecord(any) {
	j.queue += *j.fs.queued
	if j.fs.cfg.WriteCache {
		j.fs.dev.Submit(Request{Op: Flush, Source: SourceJournal, Kernel: true, Done: j.flushed})
		return
	}
	j.finish()
}

func (j *journal) onFlushed(any) {
	j.queue += *j.fs.queued
	j.finish()
}

// finish completes the syncs the commit covered and starts the next commit.
func (j *journal) finish() {
	for i, op := range j.committing {
		j.committing[i] = nil
		op.queue += j.queue
		j.fs.finishSync(op)
	}
	j.committing = j.committing[:0]
	j.busy = false
	if len(j.waiting) > 0 {
		j.commit()
	}
}

// ShadowWaits returns the number of writes that slept on an inode block
// the journal commit was writing (DirtyInode).
func (v *Volume) ShadowWaits() int64 { return v.fs.journal.shadowWaits }

// JournalCommits returns the number of filesystem journal commits so far.
func (v *Volume) JournalCommits() int64 { return v.fs.journal.commits }
