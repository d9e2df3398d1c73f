package sim

import "math/bits"

// radixQueue is a monotone priority queue (a radix heap) of entries ordered
// by (at, key). It relies on the kernel's rule that nothing is scheduled
// before the current time: every entry's time is >= the time last popped.
//
// It is a radix heap with digits of digitBits bits (a hierarchical timing
// wheel whose levels are relative to last, the time of the most recently
// extracted minimum). Bucket 0 holds entries whose time equals last. Any
// other entry lives at the level of the highest digit in which its time
// differs from last, in the slot named by its value of that digit. Every
// entry of a lower level, and of a lower slot at the same level, is earlier.
// When bucket 0 runs dry, the lowest non-empty slot is scanned for its
// minimum time, which becomes last, and its entries move to strictly lower
// levels. An entry moves at most once per level (eleven) and, with 64 slots
// per level, usually twice, so push is O(1) and pop is O(1) amortised
// whatever the number of pending events — unlike a heap, whose cost grows
// with log N. (A binary radix heap, one bit per level, moved each entry
// about six times in the hold benchmark at 1,000 pending; this layout about
// two and a half.)
//
// Bucket 0 must yield entries in sequence order. Entries pushed straight into
// it arrive in sequence order and after any entry already there, so only the
// group moved there by a redistribution needs sorting (by insertion sort;
// such groups are ties at one instant and small).
type radixQueue struct {
	early  heap4 // entries earlier than last; see push
	last   Time
	n      int
	head0  int // bucket 0 is consumed from head0
	zero   []entry
	levels uint64              // bit l set when level l has a non-empty slot
	slots  [radixLevels]uint64 // bit s of slots[l] set when slot s of level l is non-empty
	bucket [radixLevels][radixSlots][]entry
	spare  [][]entry // arrays of emptied slots, reused most recent first
}

const (
	digitBits   = 6
	radixSlots  = 1 << digitBits
	radixLevels = (64 + digitBits - 1) / digitBits
)

func (q *radixQueue) len() int { return q.n }

// place files e, whose time is > last, at its level and slot.
func (q *radixQueue) place(e entry) {
	h := 63 - bits.LeadingZeros64(uint64(e.at)^uint64(q.last))
	l := h / digitBits
	s := int(uint64(e.at)>>(uint(l)*digitBits)) & (radixSlots - 1)
	if q.slots[l]&(1<<s) == 0 {
		// An empty slot borrows the array emptied last: it is warm in the
		// cache, and a few hundred slots share a handful of arrays, so the
		// queue stops allocating as soon as the arrays reach the high-water
		// mark instead of once per slot the clock first reaches.
		if n := len(q.spare); n > 0 {
			q.bucket[l][s] = q.spare[n-1]
			q.spare = q.spare[:n-1]
		}
		q.slots[l] |= 1 << s
		q.levels |= 1 << l
	}
	q.bucket[l][s] = append(q.bucket[l][s], e)
}

func (q *radixQueue) push(e entry) {
	q.n++
	switch {
	case e.at == q.last:
		q.zero = append(q.zero, e)
	case e.at > q.last:
		q.place(e)
	default:
		// Looking at the next event (Env.NextAt, RunUntil's stop test)
		// settles the queue, moving last up to that event's time, ahead of
		// the clock. An event scheduled afterwards may fall between the
		// clock and last; it cannot join the buckets, which hold only
		// times >= last, so it waits in a small heap that is served first.
		q.early.push(e)
	}
}

// settle makes bucket 0 non-empty if any entry is pending.
func (q *radixQueue) settle() {
	if q.head0 < len(q.zero) || q.n == q.early.len() {
		return
	}
	q.zero = q.zero[:0]
	q.head0 = 0
	l := bits.TrailingZeros64(q.levels)
	s := bits.TrailingZeros64(q.slots[l])
	src := q.bucket[l][s]
	if q.slots[l] &^= 1 << s; q.slots[l] == 0 {
		q.levels &^= 1 << l
	}
	q.bucket[l][s] = nil
	if len(src) == 1 {
		q.last = src[0].at
		q.zero = append(q.zero, src[0])
		q.spare = append(q.spare, src[:0])
		return
	}
	min := src[0].at
	for _, e := range src[1:] {
		if e.at < min {
			min = e.at
		}
	}
	q.last = min
	for _, e := range src {
		if e.at != min {
			q.place(e)
			continue
		}
		// Insertion sort by sequence: ties moved together.
		z := append(q.zero, e)
		for i := len(z) - 1; i > 0 && z[i].key < z[i-1].key; i-- {
			z[i], z[i-1] = z[i-1], z[i]
		}
		q.zero = z
	}
	q.spare = append(q.spare, src[:0])
}

func (q *radixQueue) top() entry {
	if q.early.len() > 0 {
		return q.early.top()
	}
	q.settle()
	return q.zero[q.head0]
}

func (q *radixQueue) pop() entry {
	if q.early.len() > 0 {
		q.n--
		return q.early.pop()
	}
	q.settle()
	e := q.zero[q.head0]
	q.head0++
	q.n--
	return e
}
