package sim

import (
	"fmt"
	"time"
)

// An Alarm is a timer whose callback is fixed when it is made and which has
// at most one firing pending: a processor's end of segment, re-armed at
// every one of its events. It runs in the same (time, sequence) order as
// every other event (arming takes the next sequence number, as At does),
// but it takes no slab slot and no queue entry: the Env keeps the armed
// alarms in a short array sorted from last to first and merges its end,
// the earliest, with its queue. Arming is an insertion into that array,
// firing a pop from its end.
//
// Arming and stopping shift the alarms due before (or after) the one
// moved, so an Env is meant to hold a handful of them (one per processor
// of a machine), not thousands.
type Alarm struct {
	env   *Env
	fn    func(any)
	arg   any
	id    int32 // index in env.alarms, and the low bits of its entry's key
	armed bool
}

// NewAlarm returns a disarmed alarm that runs fn(arg) when it fires. It
// panics if fn is nil or more than 2^24 alarms are made on one Env.
func (e *Env) NewAlarm(fn func(any), arg any) *Alarm {
	if fn == nil {
		panic("sim: nil alarm callback")
	}
	if len(e.alarms) > maxSlot {
		panic("sim: more than 2^24 alarms on one Env")
	}
	a := &Alarm{env: e, fn: fn, arg: arg, id: int32(len(e.alarms))}
	e.alarms = append(e.alarms, a)
	e.armed = append(e.armed, entry{}) // room for every alarm: arming never grows it
	return a
}

// At arms the alarm to fire at absolute time t. It panics if t is before
// now or the alarm is armed already (Stop it first: re-arming is a new
// event, with a new sequence number).
func (a *Alarm) At(t Time) {
	e := a.env
	if t < e.now {
		panic(fmt.Sprintf("sim: alarm set in the past: at %v, now %v", t, e.now))
	}
	if a.armed {
		panic("sim: alarm armed twice")
	}
	e.nextSeq()
	a.armed = true
	// Insert into e.armed[:narmed], sorted from last to first, in place:
	// no slice header is stored, so no write barrier runs.
	en := entry{at: t, key: e.seq<<slotBits | uint64(a.id)}
	r := e.armed[:e.narmed+1]
	i := e.narmed
	for i > 0 && r[i-1].before(en) {
		r[i] = r[i-1]
		i--
	}
	r[i] = en
	e.narmed++
}

// After arms the alarm to fire d after now. It panics if d is negative or
// the alarm is armed.
func (a *Alarm) After(d time.Duration) {
	if d < 0 {
		panic(fmt.Sprintf("sim: negative alarm delay %v at %v", d, a.env.now))
	}
	a.At(a.env.now + Time(d))
}

// Stop disarms the alarm. It reports whether it was armed.
func (a *Alarm) Stop() bool {
	if !a.armed {
		return false
	}
	e := a.env
	e.peeked = false
	a.armed = false
	r := e.armed[:e.narmed]
	for i := len(r) - 1; i >= 0; i-- {
		if r[i].slot() == a.id {
			copy(r[i:], r[i+1:])
			e.narmed--
			return true
		}
	}
	panic("sim: armed alarm missing from its Env")
}

// Armed reports whether the alarm has a firing pending.
func (a *Alarm) Armed() bool { return a.armed }

// fireAlarm takes the earliest armed alarm, due at en, and runs it.
func (e *Env) fireAlarm(en entry) {
	e.narmed--
	a := e.alarms[en.slot()]
	a.armed = false
	e.now = en.at
	e.events++
	a.fn(a.arg)
}
