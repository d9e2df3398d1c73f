package sim

// Pool is a free list of *T for objects that live across events (an I/O's
// context, a callback argument): Get reuses a released object or allocates
// a zero one, Put takes one back, so a model that has reached its
// high-water mark allocates nothing. Put does not clear the object: the
// caller resets what it wants reset (and may keep a slice's capacity). The
// zero value is an empty pool.
type Pool[T any] struct {
	free []*T
}

// Get returns a released object, or a new zero one.
func (p *Pool[T]) Get() *T {
	if n := len(p.free); n > 0 {
		x := p.free[n-1]
		p.free[n-1] = nil
		p.free = p.free[:n-1]
		return x
	}
	return new(T)
}

// Put releases x for reuse; the caller must not use it afterwards.
func (p *Pool[T]) Put(x *T) { p.free = append(p.free, x) }
