package disk

import (
	"fmt"
	"strconv"
	"time"

	"simrun/sim"
)

// Array is a RAID 0 set of volumes as Linux md builds it, with a
// filesystem on it: the same File and jbd2 journal layer as a single
// Volume, over a block device that stripes.
//
// The array's address space is cut into chunks of chunk_size bytes dealt
// round-robin to the members: chunk k lives on member k mod n at member
// offset (k div n) x chunk. Each file's region starts at chunk (file id),
// so that small files do not all load member 0; the journal's starts at
// chunk 0. A request is split at chunk boundaries and the pieces that land
// contiguously on one member go as one request, so a large write costs one
// I/O per member it touches. A flush goes to every member (md forwards
// REQ_PREFLUSH to all members of a RAID 0 set) and completes when the
// slowest has flushed.
type Array struct {
	env   *sim.Env
	vols  []*Volume
	chunk int64
	cfg   Config // the members' configuration

	fs         fsys
	ops        sim.Pool[stripeOp]
	doneQueued time.Duration // QueueTime while a completion runs
	pieceDone  []func(any)   // per member: its QueueTime is the piece's
}

// stripeOp is one array request: its pieces on the members.
type stripeOp struct {
	pending int           // pieces still outstanding
	queued  time.Duration // longest member queue time among the pieces
	done    func(any)
	arg     any
}

// maxStripeMembers bounds the members whose pieces one request coalesces;
// members beyond it get one request per chunk.
const maxStripeMembers = 64

// NewArray builds a RAID 0 set of n volumes of configuration member, each
// drawing its own latencies (member i is named "<name>/member<i>"), with a
// stripe chunk of chunk bytes (a positive multiple of 512).
func NewArray(env *sim.Env, member Config, n int, chunk int64) (*Array, error) {
	if n < 1 || n > 1024 {
		return nil, fmt.Errorf("raid: members: must be in [1, 1024], got %d", n)
	}
	if chunk < 512 || chunk%512 != 0 {
		return nil, fmt.Errorf("raid: chunk_size: must be a positive multiple of 512 bytes, got %d", chunk)
	}
	if err := member.Validate(); err != nil {
		return nil, err
	}
	base := member.Name
	if base == "" {
		base = member.Kind
	}
	a := &Array{env: env, vols: make([]*Volume, n), chunk: chunk, cfg: member}
	for i := range a.vols {
		c := member
		c.Name = fmt.Sprintf("%s/member%d", base, i)
		v, err := New(env, c)
		if err != nil {
			return nil, err
		}
		a.vols[i] = v
	}
	a.pieceDone = make([]func(any), n)
	for i, v := range a.vols {
		a.pieceDone[i] = func(x any) { a.pieceFinished(x.(*stripeOp), v.QueueTime()) }
	}
	a.fs.init(env, a, &a.cfg, &a.doneQueued)
	return a, nil
}

// Volumes returns the members.
func (a *Array) Volumes() []*Volume { return a.vols }

// ChunkSize returns the stripe chunk in bytes.
func (a *Array) ChunkSize() int64 { return a.chunk }

// OpenFile creates a file on the array's filesystem; see Volume.OpenFile.
func (a *Array) OpenFile(name string, preallocated bool) *File {
	return a.fs.open(name, preallocated)
}

// RegisterSource registers name on every member and returns its Source
// (the members register in the same order, so it is the same on all).
func (a *Array) RegisterSource(name string) Source {
	s := a.vols[0].RegisterSource(name)
	for _, v := range a.vols[1:] {
		v.RegisterSource(name)
	}
	return s
}

// CommitJournal commits the filesystem journal; see Volume.CommitJournal.
func (a *Array) CommitJournal(done func(any), arg any) { a.fs.commitJournal(done, arg) }

// JournalCommits returns the number of filesystem journal commits so far.
func (a *Array) JournalCommits() int64 { return a.fs.journal.commits }

// QueueTime is Volume.QueueTime for the array: inside a request's Done, the
// longest time one of its pieces waited in its member's queue.
func (a *Array) QueueTime() time.Duration { return a.doneQueued }

// Submit stripes one request over the members; Done(Arg) runs when every
// piece has completed (a flush: when every member has flushed).
func (a *Array) Submit(r Request) {
	o := a.ops.Get()
	o.done, o.arg = r.Done, r.Arg
	o.pending = 1 // guard while issuing
	if r.Op == Flush {
		for i, v := range a.vols {
			o.pending++
			v.Submit(Request{Op: Flush, Source: r.Source, Kernel: r.Kernel, Done: a.pieceDone[i], Arg: o})
		}
	} else {
		if r.Size <= 0 || r.Offset < 0 {
			panic(fmt.Sprintf("raid: %v of %d bytes at offset %d", r.Op, r.Size, r.Offset))
		}
		a.stripe(r, o)
	}
	a.pieceFinished(o, 0) // drop the guard
}

// stripe sends the pieces of r, coalescing the contiguous ones per member.
func (a *Array) stripe(r Request, o *stripeOp) {
	type run struct{ off, size int64 }
	var runs [maxStripeMembers]run
	var used [maxStripeMembers]bool
	n := int64(len(a.vols))
	send := func(m, off, size int64) {
		o.pending++
		a.vols[m].Submit(Request{Op: r.Op, File: r.File, Offset: off, Size: size, Source: r.Source, Kernel: r.Kernel, Done: a.pieceDone[m], Arg: o})
	}
	start := max(int64(r.File), 0) * a.chunk // the file's region; the journal's is 0
	for pos, end := r.Offset, r.Offset+r.Size; pos < end; {
		logical := start + pos
		k, in := logical/a.chunk, logical%a.chunk
		take := min(a.chunk-in, end-pos)
		m, moff := k%n, (k/n)*a.chunk+in
		switch {
		case m >= maxStripeMembers:
			send(m, moff, take)
		case used[m] && runs[m].off+runs[m].size == moff:
			runs[m].size += take
		default:
			if used[m] {
				send(m, runs[m].off, runs[m].size)
			}
			runs[m], used[m] = run{moff, take}, true
		}
		pos += take
	}
	for m := range min(n, maxStripeMembers) {
		if used[m] {
			send(m, runs[m].off, runs[m].size)
		}
	}
}

func (a *Array) pieceFinished(o *stripeOp, queued time.Duration) {
	o.queued = max(o.queued, queued)
	o.pending--
	if o.pending > 0 {
		return
	}
	done, arg, q := o.done, o.arg, o.queued
	*o = stripeOp{}
	a.ops.Put(o)
	if done != nil {
		a.doneQueued = q
		done(arg)
		a.doneQueued = 0
	}
}

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
		"journal_commits":       a.fs.journal.commits,
		"write_bytes_by_source": bySrc,
		"member":                members,
	}
}
