package sim

import (
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// alarmActor keeps one timer, as an alarm or as plain events, so that the
// same model can run both ways.
type alarmActor struct {
	m     *alarmModel
	id    int
	alarm *Alarm
	timer Timer
}

func (a *alarmActor) arm(d time.Duration) {
	if a.alarm != nil {
		a.alarm.After(d)
		return
	}
	a.timer = a.m.env.AfterArg(d, a.m.fire, a)
}

func (a *alarmActor) stop() bool {
	if a.alarm != nil {
		return a.alarm.Stop()
	}
	return a.m.env.Cancel(a.timer)
}

func (a *alarmActor) armed() bool {
	if a.alarm != nil {
		return a.alarm.Armed()
	}
	return a.m.env.Scheduled(a.timer)
}

// alarmModel: actors that fire, re-arm themselves (often with no delay, or
// with delays on a coarse grid, so that ties are common), and stop or move
// each other's timers; plain events are scheduled among them. Its trace is
// the order in which everything ran.
type alarmModel struct {
	env    *Env
	s      *Stream
	actors []*alarmActor
	fire   func(any)
	trace  []string
}

func (m *alarmModel) delay() time.Duration {
	switch m.s.IntN(4) {
	case 0:
		return 0
	case 1:
		return time.Duration(m.s.IntN(4)) * 100
	}
	return time.Duration(1 + m.s.IntN(1000))
}

func runAlarmModel(seed uint64, alarms bool, events int) []string {
	m := &alarmModel{env: New(seed)}
	m.s = m.env.Stream("alarm-model")
	m.fire = func(x any) {
		a := x.(*alarmActor)
		m.trace = append(m.trace, fmt.Sprintf("%d a%d", m.env.Now(), a.id))
		if m.s.IntN(5) > 0 {
			a.arm(m.delay())
		}
		if o := m.actors[m.s.IntN(len(m.actors))]; o != a && m.s.IntN(3) == 0 {
			stopped := o.stop()
			m.trace = append(m.trace, fmt.Sprintf("stop a%d %v", o.id, stopped))
			if m.s.IntN(2) == 0 {
				o.arm(m.delay())
			}
		}
		if m.s.IntN(3) == 0 {
			id := len(m.trace)
			m.env.AfterArg(m.delay(), func(any) {
				m.trace = append(m.trace, fmt.Sprintf("%d e%d", m.env.Now(), id))
			}, nil)
		}
		for _, o := range m.actors {
			if !o.armed() && m.s.IntN(4) == 0 {
				o.arm(m.delay())
			}
		}
	}
	for i := 0; i < 6; i++ {
		a := &alarmActor{m: m, id: i}
		if alarms {
			a.alarm = m.env.NewAlarm(m.fire, a)
		}
		m.actors = append(m.actors, a)
	}
	for _, a := range m.actors {
		a.arm(m.delay())
	}
	for i := 0; i < events && m.env.Step(); i++ {
		if m.env.Pending() == 0 {
			m.actors[0].arm(m.delay())
		}
	}
	return m.trace
}

// TestAlarmOrder: a model whose timers are alarms runs exactly as the same
// model with its timers as plain events (ties, zero delays, stops and
// re-arming included).
func TestAlarmOrder(t *testing.T) {
	for seed := uint64(1); seed <= 50; seed++ {
		want := runAlarmModel(seed, false, 3000)
		got := runAlarmModel(seed, true, 3000)
		if len(want) < 1000 {
			t.Fatalf("seed %d: only %d trace lines", seed, len(want))
		}
		if d := cmp.Diff(want, got); d != "" {
			t.Fatalf("seed %d: alarms run in another order (-events +alarms):\n%s", seed, d)
		}
	}
}

func TestAlarmBasics(t *testing.T) {
	e := New(1)
	var ran []string
	rec := func(x any) { ran = append(ran, fmt.Sprintf("%d %v", int64(e.Now()), x)) }
	a := e.NewAlarm(rec, "a")
	b := e.NewAlarm(rec, "b")
	a.At(10)
	e.At(10, func() { ran = append(ran, "10 event") }) // after a: scheduled later
	b.After(5)
	if !a.Armed() || e.Pending() != 3 || e.NextAt() != 5 {
		t.Fatalf("armed %v, pending %d, next %v; want true, 3, 5ns", a.Armed(), e.Pending(), e.NextAt())
	}
	if !b.Stop() || b.Stop() || b.Armed() {
		t.Fatal("Stop: want true once, then false, and disarmed")
	}
	b.At(10) // re-armed: after the event
	e.RunUntil(20)
	if want := []string{"10 a", "10 event", "10 b"}; !cmp.Equal(ran, want) {
		t.Fatalf("ran %v, want %v", ran, want)
	}
	if e.Events() != 3 || e.Pending() != 0 || a.Armed() {
		t.Fatalf("events %d, pending %d, armed %v; want 3, 0, false", e.Events(), e.Pending(), a.Armed())
	}
}

func TestAlarmNoAllocs(t *testing.T) {
	e := New(1)
	s := e.Stream("x")
	var alarms []*Alarm
	fire := func(x any) { x.(*Alarm).After(time.Duration(1 + s.IntN(1000))) }
	for i := 0; i < 4; i++ {
		a := e.NewAlarm(fire, nil)
		a.arg = a
		alarms = append(alarms, a)
		a.After(time.Duration(i))
	}
	for i := 0; i < 1000; i++ {
		e.Step()
	}
	if n := testing.AllocsPerRun(10000, func() { e.Step() }); n != 0 {
		t.Fatalf("alarms allocate %v per event", n)
	}
	_ = alarms
}
