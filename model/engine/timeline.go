package engine

import (
	"simrun/internal/trace"
	"simrun/sim"
)

// Cat is a category of a transaction's time: where its latency went.
type Cat uint8

// Latency categories. Every nanosecond of a transaction, from sending BEGIN
// to receiving the COMMIT acknowledgement, is charged to exactly one of
// them, so the per-category means add up to the mean latency.
const (
	CatCPU             Cat = iota // on a CPU server (statement execution, client work)
	CatCPUWait                    // runnable, waiting for a CPU server
	CatClient                     // client/server round trips (non-CPU latency)
	CatPageRead                   // buffer-pool misses: synchronous page reads (and the eviction writes they need)
	CatCheckpointStall            // log_free_check: waiting for furious flushing to advance the checkpoint
	CatLogBufferWait              // log buffer full: waiting for a log write
	CatGroupCommitWait            // queued behind an earlier group (redo flush lock, binlog LOCK_log)
	CatRedoWrite                  // own group's redo write on the device
	CatRedoFsync                  // own group's redo fdatasync
	CatBinlogWrite                // own group's binlog write (leader CPU copying the caches, device write)
	CatBinlogFsync                // own group's binlog fdatasync (with the filesystem journal commit of a grown file)
	CatDeviceQueue                // an I/O of the own group waiting in the volume queue behind other I/O
	NumCats
)

var catNames = [...]string{
	"cpu", "cpu_wait", "client_rtt", "page_read", "checkpoint_stall", "log_buffer_wait",
	"group_commit_wait", "redo_write", "redo_fsync", "binlog_write", "binlog_fsync", "device_queue",
}

// catLabels name the categories on a trace's client tracks.
var catLabels = [...]string{
	"cpu", "cpu wait", "client round trips", "page read", "checkpoint stall", "log buffer wait",
	"group commit wait", "redo write", "redo fsync", "binlog write", "binlog fsync", "device queue",
}

func (c Cat) String() string {
	if int(c) < len(catNames) {
		return catNames[c]
	}
	return "cat?"
}

// Label returns the category's name as a trace shows it ("redo fsync").
func (c Cat) Label() string {
	if int(c) < len(catLabels) {
		return catLabels[c]
	}
	return "cat?"
}

// Timeline accumulates one transaction's time per category. Last is the
// time up to which the transaction's time has been charged; Mark charges
// the span since then.
//
// With a trace recorder (SetTrace), every charged stretch is also a span
// named after its category on the transaction's track: the sequence of
// Mark calls is exactly where the transaction waited, so the trace needs
// no bookkeeping of its own.
type Timeline struct {
	Start sim.Time
	Last  sim.Time
	Comp  [NumCats]int64 // ns

	rec   *trace.Recorder
	track trace.TrackID

	// Thread is the CPU thread whose transaction this is (nil for
	// background work): the log's wake-ups of it use its caches
	// (sim.CPU.WakeAs). Begin keeps it.
	Thread *sim.CPUThread

	// The redo log's callback for the thread while its wake-up waits for
	// a processor (wake-ups need not finish in the order they were made).
	wakeFn  func(any)
	wakeArg any
	// leadWake: the redo log woke the thread to lead its next round and
	// it has not run yet.
	leadWake bool
}

// SetTrace records the timeline's stretches on track of rec (nil: off).
func (t *Timeline) SetTrace(rec *trace.Recorder, track trace.TrackID) {
	t.rec, t.track = rec, track
}

// Trace returns the recorder and track set by SetTrace.
func (t *Timeline) Trace() (*trace.Recorder, trace.TrackID) { return t.rec, t.track }

// Begin starts a transaction at now.
func (t *Timeline) Begin(now sim.Time) {
	*t = Timeline{Start: now, Last: now, rec: t.rec, track: t.track, Thread: t.Thread}
}

// Mark charges [Last, now] to c. A now at or before Last charges nothing.
func (t *Timeline) Mark(now sim.Time, c Cat) {
	if now > t.Last {
		if t.rec != nil {
			t.rec.Span(t.track, c.Label(), t.Last, now)
		}
		t.Comp[c] += int64(now - t.Last)
		t.Last = now
	}
}

// MarkCPU charges a CPU job that ended now after service d: the service to
// CPU and the rest since Last to CPU wait.
func (t *Timeline) MarkCPU(now sim.Time, service int64) {
	span := int64(now - t.Last)
	if service > span {
		service = span
	}
	if t.rec != nil {
		if span > service {
			t.rec.Span(t.track, CatCPUWait.Label(), t.Last, now-sim.Time(service))
		}
		if service > 0 {
			t.rec.Span(t.track, CatCPU.Label(), now-sim.Time(service), now)
		}
	}
	t.Comp[CatCPU] += service
	t.Comp[CatCPUWait] += span - service
	t.Last = now
}

// Phase is one stretch of a shared operation (a group's flush): until End,
// waiting members are charged to Cat.
type Phase struct {
	End sim.Time
	Cat Cat
}

// Phases is the fixed-size timeline of a shared operation. The longest is
// a binlog-file group whose write sleeps on the journal, then syncs and
// rotates: ten phases.
type Phases struct {
	P [12]Phase
	N int
}

// Reset empties the list.
func (p *Phases) Reset() { p.N = 0 }

// Add appends a phase ending at end; phases must be added in time order.
func (p *Phases) Add(end sim.Time, c Cat) {
	if p.N == len(p.P) {
		panic("engine: too many phases")
	}
	p.P[p.N] = Phase{end, c}
	p.N++
}

// Charge charges a member's time up to each phase end to that phase.
func (t *Timeline) Charge(p *Phases) {
	for i := 0; i < p.N; i++ {
		t.Mark(p.P[i].End, p.P[i].Cat)
	}
}
