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
// alarms in a short array and merges the earliest of them with its queue.
// Arming, disarming and firing cost a few stores, against a queue insertion
// and removal for an event.
//
// The earliest armed alarm is found by a scan of the armed ones after the
// earliest fires or moves, so an Env is meant to hold a handful of them
// (one per processor of a machine), not thousands.
type Alarm struct {
	env *Env
	fn  func(any)
	arg any
	id  int32 // index in env.alarms
	pos int32 // index in env.armed, or -1 when not armed
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
	a := &Alarm{env: e, fn: fn, arg: arg, id: int32(len(e.alarms)), pos: -1}
	e.alarms = append(e.alarms, a)
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
	if a.pos >= 0 {
		panic(fmt.Sprintf("sim: alarm armed twice (pending at %v)", e.armed[a.pos].at))
	}
	e.peeked = false
	e.seq++
	if e.seq > maxSeq {
		panic("sim: more than 2^40 events scheduled in one run")
	}
	en := entry{at: t, key: e.seq<<slotBits | uint64(a.id)}
	a.pos = int32(len(e.armed))
	e.armed = append(e.armed, en)
	if e.earliestOK && (e.earliest < 0 || en.before(e.armed[e.earliest])) {
		e.earliest = a.pos
	}
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
	if a.pos < 0 {
		return false
	}
	a.env.peeked = false
	a.env.disarm(a)
	return true
}

// Armed reports whether the alarm has a firing pending.
func (a *Alarm) Armed() bool { return a.pos >= 0 }

// disarm takes armed alarm a out of the armed array (the last one takes
// its place).
func (e *Env) disarm(a *Alarm) {
	p := a.pos
	last := int32(len(e.armed) - 1)
	if p != last {
		moved := e.armed[last]
		e.armed[p] = moved
		e.alarms[moved.slot()].pos = p
	}
	e.armed = e.armed[:last]
	a.pos = -1
	switch e.earliest {
	case p:
		e.earliestOK = false
	case last:
		e.earliest = p
	}
}

// earliestAlarm returns the position in e.armed of the earliest armed
// alarm, or -1 if none is armed.
func (e *Env) earliestAlarm() int32 {
	if !e.earliestOK {
		e.earliestOK = true
		e.earliest = -1
		for i := range e.armed {
			if e.earliest < 0 || e.armed[i].before(e.armed[e.earliest]) {
				e.earliest = int32(i)
			}
		}
	}
	return e.earliest
}
