package sim

import (
	"fmt"
	"time"
)

// Timer identifies a scheduled event so that it can be cancelled.
// The zero Timer refers to no event.
type Timer struct {
	seq  uint64
	slot int32
}

// record holds an event's callback; the heap refers to it by slot.
type record struct {
	fn  func(any)
	arg any
	seq uint64 // 0 when the slot is free
}

// Env is one simulation: a clock, its pending events and its random
// streams. An Env is not safe for concurrent use; run independent
// simulations on independent Envs.
type Env struct {
	now     Time
	seq     uint64
	queue   radixQueue
	nowq    FIFO[entry] // events due at the current instant, in order
	slab    []record
	free    []int32
	seed    uint64
	events  uint64
	stopped bool
	// The next live entry as head found it for NextAt, valid while peeked is set:
	// a model's stop test (NextAt) and the Step that follows look once.
	// Scheduling or cancelling anything clears it.
	peeked    bool
	peekSrc   source
	peekEntry entry
	// Alarms (alarm.go): all of them by id, and the armed ones' entries,
	// armed[:narmed] (the key's low bits are the alarm's id), sorted from
	// last to first; armed has room for every alarm.
	alarms []*Alarm
	armed  []entry
	narmed int
}

// source says where the next event is: the FIFO of events due now, the
// radix queue or an alarm.
type source uint8

const (
	fromNone source = iota
	fromNow
	fromQueue
	fromAlarm
)

// New returns an empty simulation at time zero whose random streams derive
// from seed.
func New(seed uint64) *Env {
	return &Env{seed: seed}
}

// Now returns the current virtual time.
func (e *Env) Now() Time { return e.now }

// Seed returns the run seed the streams derive from.
func (e *Env) Seed() uint64 { return e.seed }

// Events returns the number of events run so far (cancelled ones excluded).
func (e *Env) Events() uint64 { return e.events }

// Pending returns the number of scheduled events not yet run, counting
// cancelled events whose entries have not yet been discarded.
func (e *Env) Pending() int { return e.queue.len() + e.nowq.Len() + e.narmed }

func callNullary(a any) { a.(func())() }

// At schedules fn to run at absolute time t. It panics if t is in the past.
func (e *Env) At(t Time, fn func()) Timer { return e.AtArg(t, callNullary, fn) }

// After schedules fn to run d after now. It panics if d is negative.
func (e *Env) After(d time.Duration, fn func()) Timer {
	return e.AfterArg(d, callNullary, fn)
}

// AfterArg schedules fn(arg) to run d after now. It panics if d is negative.
func (e *Env) AfterArg(d time.Duration, fn func(any), arg any) Timer {
	if d < 0 {
		panic(fmt.Sprintf("sim: negative delay %v at %v", d, e.now))
	}
	return e.AtArg(e.now+Time(d), fn, arg)
}

// nextSeq takes the sequence number of a new event or armed alarm, which
// orders it after every event scheduled before it for the same time, and
// drops the cached head. It panics past 2^40 in one run.
func (e *Env) nextSeq() {
	e.peeked = false
	e.seq++
	if e.seq > maxSeq {
		panic("sim: more than 2^40 events scheduled in one run")
	}
}

// AtArg schedules fn(arg) to run at absolute time t. It panics if t is
// before now or fn is nil. Events due at the same time run in the order
// they were scheduled.
func (e *Env) AtArg(t Time, fn func(any), arg any) Timer {
	if t < e.now {
		panic(fmt.Sprintf("sim: event scheduled in the past: at %v, now %v", t, e.now))
	}
	if fn == nil {
		panic("sim: nil event callback")
	}
	e.nextSeq()
	var slot int32
	if n := len(e.free); n > 0 {
		slot = e.free[n-1]
		e.free = e.free[:n-1]
	} else {
		if len(e.slab) > maxSlot {
			panic("sim: more than 2^24 events pending at once")
		}
		slot = int32(len(e.slab))
		e.slab = append(e.slab, record{})
	}
	e.slab[slot] = record{fn: fn, arg: arg, seq: e.seq}
	en := entry{at: t, key: e.seq<<slotBits | uint64(slot)}
	if t == e.now {
		e.nowq.Push(en)
	} else {
		e.queue.push(en)
	}
	return Timer{seq: e.seq, slot: slot}
}

// Cancel removes a pending event. It reports whether the event was still
// pending; cancelling an event that ran or was cancelled is a no-op.
func (e *Env) Cancel(t Timer) bool {
	if t.seq == 0 || int(t.slot) >= len(e.slab) || e.slab[t.slot].seq != t.seq {
		return false
	}
	e.peeked = false
	e.release(t.slot)
	return true
}

// Scheduled reports whether the timer's event is still pending.
func (e *Env) Scheduled(t Timer) bool {
	return t.seq != 0 && int(t.slot) < len(e.slab) && e.slab[t.slot].seq == t.seq
}

func (e *Env) release(slot int32) {
	e.slab[slot] = record{}
	e.free = append(e.free, slot)
}

// head returns the next live entry and where it is without removing it,
// discarding cancelled entries on the way (fromNone when nothing is
// pending).
func (e *Env) head() (entry, source) {
	if e.peeked {
		return e.peekEntry, e.peekSrc
	}
	for {
		if e.nowq.Len() == 0 && e.narmed == 0 { // the queue alone
			if e.queue.len() == 0 {
				return entry{}, fromNone
			}
			if en := e.queue.top(); e.slab[en.slot()].seq == en.seq() {
				return en, fromQueue
			}
			e.queue.dropTop()
			continue
		}
		var en entry
		src := fromNone
		if e.nowq.Len() > 0 {
			en, src = e.nowq.Front(), fromNow
		}
		if e.queue.len() > 0 {
			if t := e.queue.top(); src == fromNone || t.before(en) {
				en, src = t, fromQueue
			}
		}
		if e.narmed > 0 {
			if a := e.armed[e.narmed-1]; src == fromNone || a.before(en) {
				return a, fromAlarm
			}
		}
		if src == fromNone || e.slab[en.slot()].seq == en.seq() {
			return en, src
		}
		// Cancelled: its slot was freed (and maybe reused) already.
		if src == fromNow {
			e.nowq.Pop()
		} else {
			e.queue.dropTop()
		}
	}
}

// NextAt returns the time of the next pending event, or Never.
func (e *Env) NextAt() Time {
	en, src := e.head()
	if src == fromNone {
		return Never
	}
	e.peeked, e.peekSrc, e.peekEntry = true, src, en
	return en.at
}

// Step runs the next event. It returns false when no event is pending.
func (e *Env) Step() bool {
	en, src := e.head()
	if src == fromNone {
		return false
	}
	e.take(en, src)
	return true
}

// take removes the next live entry, en from src as head returned it, and
// runs its event.
func (e *Env) take(en entry, src source) {
	e.peeked = false
	switch src {
	case fromNow:
		e.nowq.Pop()
	case fromQueue:
		e.queue.dropTop()
	case fromAlarm:
		e.fireAlarm(en)
		return
	}
	e.run(en)
}

// run frees the slot of a live entry just taken from the queue and runs it.
// Unlike Cancel it clears only the slot's sequence number: the callback and
// its argument stay until the slot is reused, which writes them anyway.
func (e *Env) run(en entry) {
	slot := en.slot()
	r := &e.slab[slot]
	fn, arg := r.fn, r.arg
	r.seq = 0
	e.free = append(e.free, slot)
	e.now = en.at
	e.events++
	fn(arg)
}

// Stop makes the running Run, RunUntil or RunWhile return after the
// current event.
func (e *Env) Stop() { e.stopped = true }

// Run runs events until none is pending or Stop is called.
func (e *Env) Run() {
	e.stopped = false
	for !e.stopped && e.Step() {
	}
}

// RunUntil runs every event due at or before t, then advances the clock to
// t (unless Stop was called first). Events after t stay pending.
func (e *Env) RunUntil(t Time) {
	if t < e.now {
		panic(fmt.Sprintf("sim: RunUntil(%v) is in the past, now %v", t, e.now))
	}
	e.runUntil(t, 0, nil)
}

// RunUntilEvery is RunUntil(t) that also calls check before every n-th
// event (n > 0) and returns at once, the clock left at the last event run,
// when check returns false. It reports whether it reached t. A caller that
// polls for cancellation uses it instead of a RunWhile whose condition
// would be a call per event.
func (e *Env) RunUntilEvery(t Time, n int, check func() bool) bool {
	if t < e.now {
		panic(fmt.Sprintf("sim: RunUntilEvery(%v) is in the past, now %v", t, e.now))
	}
	if n <= 0 {
		panic(fmt.Sprintf("sim: RunUntilEvery every %d events: must be > 0", n))
	}
	return e.runUntil(t, n, check)
}

// runUntil is RunUntil's loop; with n > 0 it calls check before every n-th
// event and returns false at once when check does.
func (e *Env) runUntil(t Time, n int, check func() bool) bool {
	e.stopped = false
	k := n
	for !e.stopped {
		en, src := e.head()
		if src == fromNone || en.at > t {
			break
		}
		if k--; k == 0 {
			k = n
			if !check() {
				return false
			}
			e.Step() // as before check, unless check scheduled something
			continue
		}
		e.take(en, src)
	}
	if e.stopped {
		return false
	}
	e.now = t
	return true
}

// RunWhile runs events while cond returns true (checked before each event)
// and events are pending.
func (e *Env) RunWhile(cond func() bool) {
	e.stopped = false
	for !e.stopped && cond() && e.Step() {
	}
}
