package disk

import "fmt"

// File is a file on the volume as a database sees it: appends, positioned
// reads and writes, and fsync. It tracks which of its writes are
// acknowledged, so that Sync waits for exactly the writes issued before it,
// and whether it grew since its last sync, which decides whether the
// filesystem must also commit its metadata journal.
type File struct {
	v        *Volume
	id       int32
	name     string
	prealloc bool

	size       int64 // end of the furthest write issued
	syncedSize int64 // size made durable by the last completed sync

	issued uint64 // writes issued so far; write k has seq k (1-based)
	prefix uint64 // every write with seq <= prefix is acknowledged
	done   []bool // done[seq % len] for seq in (prefix, issued]

	syncs []*fileOp // syncs waiting for their writes, in issue order
}

// fileOp is the callback context of a file write or sync.
type fileOp struct {
	f     *File
	seq   uint64 // write: its seq; sync: the last write it covers
	grown bool   // sync: the file grew since the last sync
	size  int64  // sync: file size it makes durable
	done  func(any)
	arg   any
	next  *fileOp
}

// OpenFile creates a file on the volume. Files get ids 1, 2, ... in open
// order (callers that Submit raw requests should use ids from 1<<20 up to
// stay clear of them). A preallocated file (InnoDB redo log, .ibb binlog,
// a tablespace written in full) never changes its metadata on write, so
// its Sync is one device flush; a growing file's Sync also commits the
// filesystem journal.
func (v *Volume) OpenFile(name string, preallocated bool) *File {
	f := &File{v: v, id: int32(len(v.files) + 1), name: name, prealloc: preallocated, done: make([]bool, 64)}
	v.files = append(v.files, f)
	return f
}

// ID returns the file id used in the volume's requests.
func (f *File) ID() int32 { return f.id }

// Name returns the name given to OpenFile.
func (f *File) Name() string { return f.name }

// Size returns the end of the furthest write issued.
func (f *File) Size() int64 { return f.size }

// Append writes size bytes at the end of the file.
func (f *File) Append(size int64, src Source, done func(any), arg any) {
	f.WriteAt(f.size, size, src, done, arg)
}

// WriteAt writes size bytes at off; writing past the end grows the file.
func (f *File) WriteAt(off, size int64, src Source, done func(any), arg any) {
	if size <= 0 || off < 0 {
		panic(fmt.Sprintf("disk: file %s: write of %d bytes at %d", f.name, size, off))
	}
	f.issued++
	if f.issued-f.prefix >= uint64(len(f.done)) {
		f.grow()
	}
	f.done[f.issued%uint64(len(f.done))] = false
	f.size = max(f.size, off+size)
	op := f.v.newFileOp()
	op.f, op.seq, op.done, op.arg = f, f.issued, done, arg
	f.v.Submit(Request{Op: Write, File: f.id, Offset: off, Size: size, Source: src, Done: f.v.fileWriteDone, Arg: op})
}

// ReadAt reads size bytes at off.
func (f *File) ReadAt(off, size int64, src Source, done func(any), arg any) {
	f.v.Submit(Request{Op: Read, File: f.id, Offset: off, Size: size, Source: src, Done: done, Arg: arg})
}

// Sync is fsync/fdatasync: it waits until every write issued to this file
// before the call is acknowledged, then makes it durable with a device
// flush. If the file grew since its last sync and is not preallocated, the
// new size is metadata that must be durable too: the filesystem commits its
// journal (ext4 data=ordered, xfs: one small journal write of
// journal_write_size, then the flush). Journal commits are shared: syncs
// that arrive while one commit is running are batched into the next (jbd2).
// This is why an appending file pays about 1.5-2 flushes per sync where a
// preallocated one pays one (mechanisms-notes §1.3).
func (f *File) Sync(done func(any), arg any) {
	op := f.v.newFileOp()
	op.f, op.seq, op.done, op.arg = f, f.issued, done, arg
	op.grown = !f.prealloc && f.size > f.syncedSize
	op.size = f.size
	if f.prefix >= op.seq {
		f.v.syncData(op)
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

func (v *Volume) newFileOp() *fileOp {
	if o := v.freeFileOp; o != nil {
		v.freeFileOp = o.next
		o.next = nil
		return o
	}
	return &fileOp{}
}

func (v *Volume) freeFileOpNode(o *fileOp) {
	*o = fileOp{next: v.freeFileOp}
	v.freeFileOp = o
}

// onFileWriteDone marks a write acknowledged, advances the prefix and
// releases the syncs it completes, then calls the caller.
func (v *Volume) onFileWriteDone(a any) {
	op := a.(*fileOp)
	f := op.f
	f.done[op.seq%uint64(len(f.done))] = true
	for f.prefix < f.issued && f.done[(f.prefix+1)%uint64(len(f.done))] {
		f.prefix++
	}
	done, arg := op.done, op.arg
	v.freeFileOpNode(op)
	n := 0
	for n < len(f.syncs) && f.syncs[n].seq <= f.prefix {
		n++
	}
	if n > 0 {
		ready := f.syncs[:n]
		for _, s := range ready {
			v.syncData(s)
		}
		m := copy(f.syncs, f.syncs[n:])
		clear(f.syncs[m:])
		f.syncs = f.syncs[:m]
	}
	if done != nil {
		done(arg)
	}
}

// syncData runs once a sync's writes are acknowledged.
func (v *Volume) syncData(op *fileOp) {
	if op.grown {
		v.journal.request(op)
		return
	}
	v.Submit(Request{Op: Flush, Source: SourceOther, Done: v.syncFlushed, Arg: op})
}

func (v *Volume) onSyncFlushed(a any) { v.finishSync(a.(*fileOp)) }

func (v *Volume) finishSync(op *fileOp) {
	f := op.f
	f.syncedSize = max(f.syncedSize, op.size)
	done, arg := op.done, op.arg
	v.freeFileOpNode(op)
	if done != nil {
		done(arg)
	}
}

// journalFile is the file id of the filesystem journal.
const journalFile int32 = -1

// journalSize is the circular journal's size (ext4's default for volumes
// over 128 GiB is 1 GiB; the size only moves the hdd head).
const journalSize = 128 << 20

// journal is the filesystem's metadata journal: one commit at a time, each
// a journal write followed by a flush; the syncs that arrive during a
// commit wait for the next one, which covers them all.
type journal struct {
	v          *Volume
	busy       bool
	off        int64
	waiting    []*fileOp
	committing []*fileOp
	wrote      func(any)
	flushed    func(any)
	commits    int64
}

func (j *journal) init(v *Volume) {
	j.v = v
	j.wrote = j.onWrote
	j.flushed = j.onFlushed
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
	size := int64(j.v.cfg.JournalWriteSize)
	if j.off+size > journalSize {
		j.off = 0
	}
	off := j.off
	j.off += size
	j.v.Submit(Request{Op: Write, File: journalFile, Offset: off, Size: size, Source: SourceJournal, Done: j.wrote})
}

func (j *journal) onWrote(any) {
	j.v.Submit(Request{Op: Flush, Source: SourceJournal, Done: j.flushed})
}

func (j *journal) onFlushed(any) {
	for i, op := range j.committing {
		j.committing[i] = nil
		j.v.finishSync(op)
	}
	j.committing = j.committing[:0]
	j.busy = false
	if len(j.waiting) > 0 {
		j.commit()
	}
}

// JournalCommits returns the number of filesystem journal commits so far.
func (v *Volume) JournalCommits() int64 { return v.journal.commits }
