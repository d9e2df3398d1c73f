package trace

import (
	"fmt"
	"math"
	"strings"

	"simrun/sim"
)

// TrackID names a track of a Recorder. IDs are dense, from 0, in creation
// order; a nil Recorder hands out 0.
type TrackID int32

// DefaultLimit is the number of events a Recorder keeps before it starts
// dropping them (and counting the drops): about 100 MB of memory, far more
// than a person can read in a viewer.
const DefaultLimit = 1 << 20

// Arg is one key/value argument of an event, shown in the viewer's details
// pane. Build it with Int, Float, Str or Bool; the zero Arg is ignored.
type Arg struct {
	Key  string
	kind uint8
	num  int64
	f    float64
	str  string
}

const (
	argNone uint8 = iota
	argInt
	argFloat
	argStr
	argBool
)

// Int returns an integer argument.
func Int(key string, v int64) Arg { return Arg{Key: key, kind: argInt, num: v} }

// Float returns a floating-point argument.
func Float(key string, v float64) Arg { return Arg{Key: key, kind: argFloat, f: v} }

// Str returns a string argument.
func Str(key, v string) Arg { return Arg{Key: key, kind: argStr, str: v} }

// Bool returns a boolean argument.
func Bool(key string, v bool) Arg {
	a := Arg{Key: key, kind: argBool}
	if v {
		a.num = 1
	}
	return a
}

type kind uint8

const (
	kSpan kind = iota
	kInstant
	kCounter
	kFlow
)

// event is one recorded event. Spans use start and end; instants and
// counters use start; a flow runs from (track, start) to (track2, end).
type event struct {
	kind     kind
	track    TrackID // counter: counter index
	track2   TrackID // flow: destination track
	name     string
	start    sim.Time
	end      sim.Time
	val      float64
	argOff   int32
	argN     int32
	clipLeft bool
	clipRite bool
}

type track struct {
	name   string // full name as given
	group  int    // index into groups
	thread string // name shown for lane 1
}

type counter struct {
	name  string // as given
	group int
	label string // counter name within its group
	pre   float64
	hasPr bool
}

// Recorder collects events in a window of virtual time. It belongs to one
// simulation and, like the simulation, is used from one goroutine.
type Recorder struct {
	from, to sim.Time
	limit    int
	dropped  int64

	groups     []string
	groupIdx   map[string]int
	tracks     []track
	trackIdx   map[string]TrackID
	counters   []counter
	counterIdx map[string]int

	events []event
	args   []Arg
}

// NewRecorder returns a recorder that keeps what happens in [from, to).
// from must be >= 0 and to > from; they are programmer-chosen (validate a
// user's --window before calling), so bad ones panic.
func NewRecorder(from, to sim.Time) *Recorder {
	if from < 0 || to <= from {
		panic(fmt.Sprintf("trace: NewRecorder: window [%d, %d) ns is empty or negative", from, to))
	}
	return &Recorder{
		from: from, to: to, limit: DefaultLimit,
		groupIdx: map[string]int{}, trackIdx: map[string]TrackID{}, counterIdx: map[string]int{},
	}
}

// SetLimit changes the number of events kept (n >= 1); later events are
// dropped and counted in the file's otherData.dropped_events.
func (r *Recorder) SetLimit(n int) {
	if r == nil {
		return
	}
	if n < 1 {
		panic(fmt.Sprintf("trace: SetLimit: n must be >= 1, got %d", n))
	}
	r.limit = n
}

// Enabled reports whether r records anything: false for a nil Recorder. A
// model can use it to skip building an expensive argument.
func (r *Recorder) Enabled() bool { return r != nil }

// Window returns the recorded window [from, to).
func (r *Recorder) Window() (from, to sim.Time) {
	if r == nil {
		return 0, 0
	}
	return r.from, r.to
}

// Dropped returns the number of events dropped because the limit was hit.
func (r *Recorder) Dropped() int64 {
	if r == nil {
		return 0
	}
	return r.dropped
}

// Len returns the number of events kept so far.
func (r *Recorder) Len() int {
	if r == nil {
		return 0
	}
	return len(r.events)
}

// Track returns the ID of the track with this name, creating it if needed.
// The part before the first "/" is the group shown as a process ("disk/wal"
// is thread "wal" of group "disk"); a name without "/" is its own group.
// Call it once at wiring time and keep the ID: it looks up a map.
func (r *Recorder) Track(name string) TrackID {
	if r == nil {
		return 0
	}
	if id, ok := r.trackIdx[name]; ok {
		return id
	}
	g, thread := r.split(name)
	id := TrackID(len(r.tracks))
	r.tracks = append(r.tracks, track{name: name, group: g, thread: thread})
	r.trackIdx[name] = id
	return id
}

// split returns the group index of a "group/rest" name and the rest.
func (r *Recorder) split(name string) (int, string) {
	group, rest := name, name
	if i := strings.IndexByte(name, '/'); i >= 0 {
		group, rest = name[:i], name[i+1:]
		if rest == "" {
			rest = group
		}
	}
	g, ok := r.groupIdx[group]
	if !ok {
		g = len(r.groups)
		r.groups = append(r.groups, group)
		r.groupIdx[group] = g
	}
	return g, rest
}

func (r *Recorder) checkTrack(fn string, t TrackID) {
	if t < 0 || int(t) >= len(r.tracks) {
		panic(fmt.Sprintf("trace: %s: unknown track %d (create it with Track)", fn, t))
	}
}

// add appends e with args if there is room.
func (r *Recorder) add(e event, args []Arg) {
	if len(r.events) >= r.limit {
		r.dropped++
		return
	}
	e.argOff = int32(len(r.args))
	for _, a := range args {
		if a.kind != argNone {
			r.args = append(r.args, a)
		}
	}
	e.argN = int32(len(r.args)) - e.argOff
	r.events = append(r.events, e)
}

// Span records that something named name occupied track from start to end
// (a statement, a commit group, an fsync, a device I/O). end before start
// panics: it is a model bug.
func (r *Recorder) Span(t TrackID, name string, start, end sim.Time, args ...Arg) {
	if r == nil {
		return
	}
	if end < start {
		panic(fmt.Sprintf("trace: Span %q ends (%d ns) before it starts (%d ns)", name, end, start))
	}
	if start >= r.to || end < r.from || (end == r.from && start < r.from) {
		return
	}
	r.checkTrack("Span", t)
	e := event{kind: kSpan, track: t, name: name, start: start, end: end}
	if e.start < r.from {
		e.start, e.clipLeft = r.from, true
	}
	if e.end > r.to {
		e.end, e.clipRite = r.to, true
	}
	r.add(e, args)
}

// Instant records a point event on a track (a wake-up, a checkpoint, a
// stall beginning).
func (r *Recorder) Instant(t TrackID, name string, at sim.Time, args ...Arg) {
	if r == nil || at < r.from || at >= r.to {
		return
	}
	r.checkTrack("Instant", t)
	r.add(event{kind: kInstant, track: t, name: name, start: at}, args)
}

// Counter records the value of a counter at a time (queue depth, checkpoint
// age, dirty pages). The name is split like a track name: "disk/wal queue
// depth" is counter "wal queue depth" of group "disk". NaN and infinities
// are ignored.
func (r *Recorder) Counter(name string, at sim.Time, value float64) {
	if r == nil || at >= r.to || math.IsNaN(value) || math.IsInf(value, 0) {
		return
	}
	ci, ok := r.counterIdx[name]
	if !ok {
		g, label := r.split(name)
		ci = len(r.counters)
		r.counters = append(r.counters, counter{name: name, group: g, label: label})
		r.counterIdx[name] = ci
	}
	if at < r.from {
		c := &r.counters[ci]
		c.pre, c.hasPr = value, true
		return
	}
	r.add(event{kind: kCounter, track: TrackID(ci), name: name, start: at, val: value}, nil)
}

// Flow draws an arrow from the span enclosing fromAt on track from to the
// span enclosing toAt on track to: from a transaction's commit to the
// commit group that made it durable, from a group to its fsync. It is kept
// only when both ends are in the window.
func (r *Recorder) Flow(name string, from TrackID, fromAt sim.Time, to TrackID, toAt sim.Time) {
	if r == nil || fromAt < r.from || fromAt >= r.to || toAt < r.from || toAt >= r.to {
		return
	}
	r.checkTrack("Flow", from)
	r.checkTrack("Flow", to)
	r.add(event{kind: kFlow, track: from, track2: to, name: name, start: fromAt, end: toAt}, nil)
}
