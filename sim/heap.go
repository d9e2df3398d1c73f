package sim

// Heap is a binary min-heap of values ordered by a less function, for the
// ordered sets models keep: transactions ready to run by sequence number,
// transactions blocked until a watermark passes their dependency. The zero
// value is not usable; make one with NewHeap. Push and Pop allocate only
// while the heap grows past its high-water mark.
type Heap[T any] struct {
	a    []T
	less func(a, b T) bool
}

// NewHeap returns an empty heap ordered by less.
func NewHeap[T any](less func(a, b T) bool) *Heap[T] {
	if less == nil {
		panic("sim: NewHeap with a nil less function")
	}
	return &Heap[T]{less: less}
}

// Len returns the number of values.
func (h *Heap[T]) Len() int { return len(h.a) }

// Min returns the smallest value. It panics if the heap is empty.
func (h *Heap[T]) Min() T {
	if len(h.a) == 0 {
		panic("sim: Min of an empty Heap")
	}
	return h.a[0]
}

// Push adds x.
func (h *Heap[T]) Push(x T) {
	h.a = append(h.a, x)
	i := len(h.a) - 1
	for i > 0 {
		p := (i - 1) / 2
		if !h.less(x, h.a[p]) {
			break
		}
		h.a[i] = h.a[p]
		i = p
	}
	h.a[i] = x
}

// Pop removes and returns the smallest value. It panics if the heap is
// empty.
func (h *Heap[T]) Pop() T {
	if len(h.a) == 0 {
		panic("sim: Pop of an empty Heap")
	}
	top := h.a[0]
	n := len(h.a) - 1
	last := h.a[n]
	var zero T
	h.a[n] = zero
	h.a = h.a[:n]
	if n == 0 {
		return top
	}
	i := 0
	for {
		c := 2*i + 1
		if c >= n {
			break
		}
		if c+1 < n && h.less(h.a[c+1], h.a[c]) {
			c++
		}
		if !h.less(h.a[c], last) {
			break
		}
		h.a[i] = h.a[c]
		i = c
	}
	h.a[i] = last
	return top
}
