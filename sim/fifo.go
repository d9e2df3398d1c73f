package sim

// FIFO is a growable first-in first-out queue of values, backed by a ring
// buffer that doubles when full and never shrinks, so a queue that has
// reached its high-water mark pushes and pops without allocating. Models
// use it for their own queues (I/O queues, commit queues, pending jobs).
// The zero value is an empty queue.
type FIFO[T any] struct {
	buf  []T // its length is 0 or a power of two: indices wrap by a mask, not a division
	head int
	n    int
}

// Len returns the number of queued values.
func (q *FIFO[T]) Len() int { return q.n }

// Push appends v at the back.
func (q *FIFO[T]) Push(v T) {
	if q.n == len(q.buf) {
		grown := make([]T, max(8, 2*len(q.buf)))
		for i := 0; i < q.n; i++ {
			grown[i] = q.buf[(q.head+i)&(len(q.buf)-1)]
		}
		q.buf, q.head = grown, 0
	}
	q.buf[(q.head+q.n)&(len(q.buf)-1)] = v
	q.n++
}

// Front returns the value at the front. It panics if the queue is empty.
func (q *FIFO[T]) Front() T {
	if q.n == 0 {
		panic("sim: Front of an empty FIFO")
	}
	return q.buf[q.head]
}

// At returns the i-th value from the front (0 is the front).
func (q *FIFO[T]) At(i int) T {
	if i < 0 || i >= q.n {
		panic("sim: FIFO index out of range")
	}
	return q.buf[(q.head+i)&(len(q.buf)-1)]
}

// Pop removes and returns the value at the front, clearing its slot so the
// queue keeps no references. It panics if the queue is empty.
func (q *FIFO[T]) Pop() T {
	if q.n == 0 {
		panic("sim: Pop of an empty FIFO")
	}
	var zero T
	v := q.buf[q.head]
	q.buf[q.head] = zero
	q.head++
	if q.head == len(q.buf) {
		q.head = 0
	}
	q.n--
	return v
}

// Swap exchanges the i-th and j-th values from the front: a scheduler that
// serves out of order (an elevator picking the nearest request) swaps its
// choice to the front, then pops.
func (q *FIFO[T]) Swap(i, j int) {
	if i < 0 || i >= q.n || j < 0 || j >= q.n {
		panic("sim: FIFO index out of range")
	}
	m := len(q.buf) - 1
	a, b := (q.head+i)&m, (q.head+j)&m
	q.buf[a], q.buf[b] = q.buf[b], q.buf[a]
}
