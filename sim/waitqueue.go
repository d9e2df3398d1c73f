package sim

// WaitQueue is a FIFO of parked callbacks: a thread waiting for the log to
// become durable, a writer waiting for free space. Wake-ups run at the
// current instant through the event queue, in the order the waiters parked.
type WaitQueue struct {
	env *Env
	q   FIFO[waiter]
}

type waiter struct {
	fn  func(any)
	arg any
}

// NewWaitQueue returns an empty wait queue on env.
func NewWaitQueue(env *Env) *WaitQueue { return &WaitQueue{env: env} }

// Len returns the number of parked waiters.
func (q *WaitQueue) Len() int { return q.q.Len() }

// Wait parks fn(arg) until a wake-up.
func (q *WaitQueue) Wait(fn func(any), arg any) {
	if fn == nil {
		panic("sim: nil waiter")
	}
	q.q.Push(waiter{fn, arg})
}

// WakeOne schedules the longest-parked waiter to run now. It reports
// whether there was one.
func (q *WaitQueue) WakeOne() bool {
	if q.q.Len() == 0 {
		return false
	}
	w := q.q.Pop()
	q.env.AtArg(q.env.now, w.fn, w.arg)
	return true
}

// WakeAll schedules every parked waiter to run now, in parking order, and
// returns how many there were. Waiters parked while they run wait for the
// next wake-up.
func (q *WaitQueue) WakeAll() int {
	n := q.q.Len()
	for i := 0; i < n; i++ {
		w := q.q.Pop()
		q.env.AtArg(q.env.now, w.fn, w.arg)
	}
	return n
}

// Latch releases its waiters when its count reaches zero: a barrier for "all
// page writes of this batch are done" or "all workers reached the commit
// point". Waiting on an open latch runs the waiter now.
type Latch struct {
	count   int
	waiters WaitQueue
}

// NewLatch returns a latch that opens after count CountDown calls.
// It panics if count is negative.
func NewLatch(env *Env, count int) *Latch {
	if count < 0 {
		panic("sim: negative latch count")
	}
	return &Latch{count: count, waiters: WaitQueue{env: env}}
}

// Count returns the remaining count.
func (l *Latch) Count() int { return l.count }

// Wait runs fn(arg) once the latch is open (now, if it is already open).
func (l *Latch) Wait(fn func(any), arg any) {
	l.waiters.Wait(fn, arg)
	if l.count == 0 {
		l.waiters.WakeAll()
	}
}

// CountDown decrements the count and opens the latch at zero. It panics if
// the latch is already open.
func (l *Latch) CountDown() {
	if l.count == 0 {
		panic("sim: CountDown on an open latch")
	}
	l.count--
	if l.count == 0 {
		l.waiters.WakeAll()
	}
}

// Reset re-arms the latch with a new count; waiters still parked stay.
func (l *Latch) Reset(count int) {
	if count < 0 {
		panic("sim: negative latch count")
	}
	l.count = count
}
