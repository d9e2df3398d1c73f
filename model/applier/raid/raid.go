// Package raid stripes files over several block volumes (RAID 0, as Linux
// md builds it) so that a model can treat "4 x 1 TB block volumes in RAID 0"
// as one device with files on it.
//
// # Layout
//
// The array's address space is cut into chunks of chunk_size bytes dealt
// round-robin to the members: chunk k lives on member k mod n at member
// offset (k div n) x chunk. Each file occupies its own region; its first
// chunk is on member (file id mod n), so that small files do not all load
// member 0. A write is split at chunk boundaries and the pieces that land
// contiguously on one member are sent as one request, so a large write
// costs one I/O per member it touches.
//
// # Sync
//
// Sync (fsync) waits for every write to the file issued before it, then
// flushes every member: Linux md forwards a flush (REQ_PREFLUSH) to all
// members of a RAID 0 set, so the sync completes when the slowest member
// has flushed. A file that grew since its last sync also needs the
// filesystem's metadata journal committed first: one journal write of the
// members' journal_write_size, on the member holding the journal's current
// block, then the flush. Journal commits are batched as jbd2 does: syncs
// arriving during a commit share the next one. This mirrors disk.File for a
// single volume.
package raid

import (
	"fmt"
	"strconv"
	"time"

	"simrun/model/disk"
	"simrun/sim"
)

// Array is a RAID 0 set of volumes.
type Array struct {
	env   *sim.Env
	vols  []*disk.Volume
	chunk int64

	files   []*File
	journal journal

	ops sim.Pool[op]

	pieceDone, flushDone func(any)
}

// op is the callback context of a striped write, read, flush or sync.
type op struct {
	f       *File
	seq     uint64 // write: its seq; sync: last write it covers
	pending int    // pieces or member flushes still outstanding
	grown   bool
	size    int64
	kind    uint8
	done    func(any)
	arg     any
}

const (
	opWrite uint8 = iota
	opRead
	opFlush // flush every member, then finish the sync in arg
)

// File is a file striped over the array.
type File struct {
	a        *Array
	id       int32
	name     string
	prealloc bool

	size       int64
	syncedSize int64

	issued uint64
	prefix uint64
	done   []bool
	syncs  []*op
}

// fileIDBase keeps the array's member-level file ids apart from ids that
// callers of the members might use directly.
const fileIDBase = 1 << 20

// New builds an array over vols with the given chunk size. The volumes
// must be fresh (no sources registered beyond the predefined ones) and at
// least one; chunk must be a positive multiple of 512 bytes.
func New(env *sim.Env, vols []*disk.Volume, chunk int64) (*Array, error) {
	if len(vols) == 0 {
		return nil, fmt.Errorf("raid: members: need at least one volume")
	}
	if chunk < 512 || chunk%512 != 0 {
		return nil, fmt.Errorf("raid: chunk_size: must be a positive multiple of 512 bytes, got %d", chunk)
	}
	a := &Array{env: env, vols: vols, chunk: chunk}
	a.pieceDone = a.onPieceDone
	a.flushDone = a.onFlushDone
	a.journal.init(a)
	return a, nil
}

// Volumes returns the members.
func (a *Array) Volumes() []*disk.Volume { return a.vols }

// ChunkSize returns the stripe chunk in bytes.
func (a *Array) ChunkSize() int64 { return a.chunk }

// RegisterSource registers name on every member and returns its Source.
// Members are registered in the same order, so the Source is the same on
// all of them; a mismatch is a programming error and panics.
func (a *Array) RegisterSource(name string) disk.Source {
	s := a.vols[0].RegisterSource(name)
	for _, v := range a.vols[1:] {
		if v.RegisterSource(name) != s {
			panic(fmt.Sprintf("raid: source %q registered in a different order on the members", name))
		}
	}
	return s
}

// OpenFile creates a file; see disk.Volume.OpenFile for preallocated.
func (a *Array) OpenFile(name string, preallocated bool) *File {
	f := &File{a: a, id: int32(len(a.files) + 1), name: name, prealloc: preallocated, done: make([]bool, 64)}
	a.files = append(a.files, f)
	return f
}

// Name returns the file's name.
func (f *File) Name() string { return f.name }

// Size returns the end of the furthest write issued.
func (f *File) Size() int64 { return f.size }

func (a *Array) newOp() *op { return a.ops.Get() }

func (a *Array) release(o *op) {
	*o = op{}
	a.ops.Put(o)
}

// stripe issues the pieces of [off, off+size) of a file (whose region
// starts at chunk startChunk) and returns how many requests it sent.
func (a *Array) stripe(rop disk.Op, fileID int32, startChunk, off, size int64, src disk.Source, o *op) int {
	n := int64(len(a.vols))
	sent := 0
	// Walk the range chunk by chunk, coalescing per member: the pieces of
	// one member in one call are contiguous on that member.
	type run struct{ off, size int64 }
	var runs [64]run // members beyond 64 fall back to per-chunk requests
	var used [64]bool
	flushRun := func(m int64) {
		a.vols[m].Submit(disk.Request{Op: rop, File: fileIDBase + fileID, Offset: runs[m].off, Size: runs[m].size, Source: src, Done: a.pieceDone, Arg: o})
		sent++
		used[m] = false
	}
	for pos, end := off, off+size; pos < end; {
		logical := startChunk*a.chunk + pos
		k := logical / a.chunk
		inChunk := logical % a.chunk
		take := min(a.chunk-inChunk, end-pos)
		m := k % n
		moff := (k/n)*a.chunk + inChunk
		if m < 64 {
			if used[m] && runs[m].off+runs[m].size == moff {
				runs[m].size += take
			} else {
				if used[m] {
					flushRun(m)
				}
				runs[m], used[m] = run{moff, take}, true
			}
		} else {
			a.vols[m].Submit(disk.Request{Op: rop, File: fileIDBase + fileID, Offset: moff, Size: take, Source: src, Done: a.pieceDone, Arg: o})
			sent++
		}
		pos += take
	}
	for m := int64(0); m < min(n, 64); m++ {
		if used[m] {
			flushRun(m)
		}
	}
	return sent
}

// Append writes size bytes at the end of the file.
func (f *File) Append(size int64, src disk.Source, done func(any), arg any) {
	f.WriteAt(f.size, size, src, done, arg)
}

// WriteAt writes size bytes at off; done(arg) runs when every piece is
// acknowledged.
func (f *File) WriteAt(off, size int64, src disk.Source, done func(any), arg any) {
	if size <= 0 || off < 0 {
		panic(fmt.Sprintf("raid: file %s: write of %d bytes at %d", f.name, size, off))
	}
	a := f.a
	f.issued++
	if f.issued-f.prefix >= uint64(len(f.done)) {
		f.grow()
	}
	f.done[f.issued%uint64(len(f.done))] = false
	f.size = max(f.size, off+size)
	o := a.newOp()
	o.f, o.seq, o.kind, o.done, o.arg = f, f.issued, opWrite, done, arg
	o.pending = 1 << 30 // guard while issuing: pieces may not complete synchronously, but be safe
	sent := a.stripe(disk.Write, f.id, int64(f.id), off, size, src, o)
	o.pending += sent - 1<<30
}

// ReadAt reads size bytes at off.
func (f *File) ReadAt(off, size int64, src disk.Source, done func(any), arg any) {
	if size <= 0 || off < 0 {
		panic(fmt.Sprintf("raid: file %s: read of %d bytes at %d", f.name, size, off))
	}
	a := f.a
	o := a.newOp()
	o.f, o.kind, o.done, o.arg = f, opRead, done, arg
	o.pending = 1 << 30
	sent := a.stripe(disk.Read, f.id, int64(f.id), off, size, src, o)
	o.pending += sent - 1<<30
}

func (a *Array) onPieceDone(x any) {
	o := x.(*op)
	o.pending--
	if o.pending > 0 {
		return
	}
	f := o.f
	done, arg := o.done, o.arg
	if o.kind == opWrite {
		f.done[o.seq%uint64(len(f.done))] = true
		for f.prefix < f.issued && f.done[(f.prefix+1)%uint64(len(f.done))] {
			f.prefix++
		}
		n := 0
		for n < len(f.syncs) && f.syncs[n].seq <= f.prefix {
			n++
		}
		if n > 0 {
			for _, s := range f.syncs[:n] {
				a.syncData(s)
			}
			m := copy(f.syncs, f.syncs[n:])
			clear(f.syncs[m:])
			f.syncs = f.syncs[:m]
		}
	}
	a.release(o)
	if done != nil {
		done(arg)
	}
}

func (f *File) grow() {
	n := make([]bool, 2*len(f.done))
	for s := f.prefix + 1; s <= f.issued-1; s++ {
		n[s%uint64(len(n))] = f.done[s%uint64(len(f.done))]
	}
	f.done = n
}

// Sync is fsync: it waits for the file's earlier writes, commits the
// filesystem journal if the file grew (and is not preallocated), then
// flushes every member.
func (f *File) Sync(done func(any), arg any) {
	a := f.a
	o := a.newOp()
	o.f, o.seq, o.done, o.arg = f, f.issued, done, arg
	o.grown = !f.prealloc && f.size > f.syncedSize
	o.size = f.size
	if f.prefix >= o.seq {
		a.syncData(o)
		return
	}
	f.syncs = append(f.syncs, o)
}

func (a *Array) syncData(o *op) {
	if o.grown {
		a.journal.request(o)
		return
	}
	a.flushAll(o)
}

// flushAll sends a flush to every member; the sync o finishes when all
// have completed.
func (a *Array) flushAll(sync *op) {
	fo := a.newOp()
	fo.kind, fo.pending, fo.arg = opFlush, len(a.vols), sync
	for _, v := range a.vols {
		v.Submit(disk.Request{Op: disk.Flush, Source: disk.SourceOther, Done: a.flushDone, Arg: fo})
	}
}

func (a *Array) onFlushDone(x any) {
	fo := x.(*op)
	fo.pending--
	if fo.pending > 0 {
		return
	}
	target := fo.arg
	a.release(fo)
	switch t := target.(type) {
	case *op:
		a.finishSync(t)
	case *journal:
		t.onFlushed()
	}
}

func (a *Array) finishSync(o *op) {
	if o.f != nil {
		o.f.syncedSize = max(o.f.syncedSize, o.size)
	}
	done, arg := o.done, o.arg
	a.release(o)
	if done != nil {
		done(arg)
	}
}

// journalID is the file id of the filesystem journal on the members.
const journalID int32 = 0

// journalSize is the circular journal's size (ext4 default for large
// filesystems is 1 GiB; the size only matters for placement).
const journalSize = 128 << 20

type journal struct {
	a          *Array
	busy       bool
	off        int64
	waiting    []*op
	committing []*op
	commits    int64
	wrote      func(any)
}

func (j *journal) init(a *Array) {
	j.a = a
	j.wrote = j.onWrote
}

func (j *journal) request(o *op) {
	j.waiting = append(j.waiting, o)
	if !j.busy {
		j.commit()
	}
}

func (j *journal) commit() {
	a := j.a
	j.busy = true
	j.commits++
	j.waiting, j.committing = j.committing[:0], j.waiting
	size := int64(a.vols[0].Config().JournalWriteSize)
	if j.off+size > journalSize {
		j.off = 0
	}
	off := j.off
	j.off += size
	// The journal is a region of the array like a file: its block lands on
	// the member its offset maps to.
	n := int64(len(a.vols))
	k := off / a.chunk
	m := k % n
	moff := (k/n)*a.chunk + off%a.chunk
	a.vols[m].Submit(disk.Request{Op: disk.Write, File: fileIDBase + journalID, Offset: moff, Size: size, Source: disk.SourceJournal, Done: j.wrote})
}

func (j *journal) onWrote(any) {
	a := j.a
	fo := a.newOp()
	fo.kind, fo.pending, fo.arg = opFlush, len(a.vols), j
	for _, v := range a.vols {
		v.Submit(disk.Request{Op: disk.Flush, Source: disk.SourceJournal, Done: a.flushDone, Arg: fo})
	}
}

func (j *journal) onFlushed() {
	for i, o := range j.committing {
		j.committing[i] = nil
		j.a.finishSync(o)
	}
	j.committing = j.committing[:0]
	j.busy = false
	if len(j.waiting) > 0 {
		j.commit()
	}
}

// JournalCommits returns the number of journal commits so far.
func (a *Array) JournalCommits() int64 { return a.journal.commits }

// ResetStats resets every member's statistics.
func (a *Array) ResetStats() {
	for _, v := range a.vols {
		v.ResetStats()
	}
}

// Metrics returns the array's iostat figures: rates and bytes summed over
// the members, utilisation and await averaged (and the busiest member's
// utilisation), bytes written per source, and each member's own block.
func (a *Array) Metrics() map[string]any {
	var rps, wps, fps, rkb, wkb, util, maxUtil, await float64
	var wbytes, rbytes int64
	bySrc := map[string]any{}
	members := make(map[string]any, len(a.vols)) // "0", "1", ...: a nested block per member
	var elapsed time.Duration
	for i, v := range a.vols {
		io := v.Iostat()
		elapsed = io.Elapsed
		rps += io.ReadsPerS
		wps += io.WritesPerS
		fps += io.FlushesPerS
		rkb += io.ReadKBPerS
		wkb += io.WriteKBPerS
		util += io.UtilPct
		maxUtil = max(maxUtil, io.UtilPct)
		await += io.AwaitMs
		wbytes += io.WriteBytes
		rbytes += io.ReadBytes
		m := v.Metrics()
		if src, ok := m["write_bytes_by_source"].(map[string]any); ok {
			for k, b := range src {
				prev, _ := bySrc[k].(int64)
				bySrc[k] = prev + b.(int64)
			}
		}
		delete(m, "series")
		members[strconv.Itoa(i)] = m
	}
	n := float64(len(a.vols))
	return map[string]any{
		"members":               int64(len(a.vols)),
		"chunk_bytes":           a.chunk,
		"elapsed_s":             elapsed.Seconds(),
		"reads_per_s":           rps,
		"writes_per_s":          wps,
		"flushes_per_s":         fps,
		"read_kB_per_s":         rkb,
		"write_kB_per_s":        wkb,
		"read_bytes":            rbytes,
		"write_bytes":           wbytes,
		"util_pct":              util / n,
		"util_pct_max":          maxUtil,
		"await_ms":              await / n,
		"journal_commits":       a.journal.commits,
		"write_bytes_by_source": bySrc,
		"member":                members,
	}
}
