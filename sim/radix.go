package sim

import "math/bits"

// radixQueue is a monotone priority queue (a radix heap) of entries ordered
// by (at, key). It relies on the kernel's rule that nothing is scheduled
// before the current time: every entry's time is >= the time last popped.
//
// Entries live in 65 buckets: bucket 0 holds entries whose time equals last,
// the time of the most recently extracted minimum; bucket b >= 1 holds
// entries whose time first differs from last in bit b-1 (counting from the
// least significant). When bucket 0 runs dry, the lowest non-empty bucket is
// scanned for its minimum time, which becomes last, and its entries are
// redistributed into strictly lower buckets. Each entry moves down at most 64
// times in its life and usually a handful, so push is O(1) and pop is O(1)
// amortised whatever the number of pending events — unlike a heap, whose cost
// grows with log N.
//
// Bucket 0 must yield entries in sequence order. Entries pushed straight into
// it arrive in sequence order and after any entry already there, so only the
// group moved there by a redistribution needs sorting (by insertion sort;
// such groups are ties at one instant and small).
type radixQueue struct {
	early   heap4 // entries earlier than last; see push
	last    Time
	n       int
	head0   int // bucket 0 is consumed from head0
	buckets [65][]entry
	nonZero uint64 // bit b-1 set when bucket b (1..64) is non-empty
}

func (q *radixQueue) len() int { return q.n }

func (q *radixQueue) bucketOf(at Time) int {
	if at == q.last {
		return 0
	}
	return 64 - bits.LeadingZeros64(uint64(at)^uint64(q.last))
}

func (q *radixQueue) push(e entry) {
	if e.at < q.last {
		// Looking at the next event (Env.NextAt, RunUntil's stop test)
		// settles the queue, moving last up to that event's time, ahead of
		// the clock. An event scheduled afterwards may fall between the
		// clock and last; it cannot join the buckets, which hold only
		// times >= last, so it waits in a small heap that is served first.
		q.early.push(e)
		q.n++
		return
	}
	b := q.bucketOf(e.at)
	q.buckets[b] = append(q.buckets[b], e)
	if b > 0 {
		q.nonZero |= 1 << (b - 1)
	}
	q.n++
}

// settle makes bucket 0 non-empty if any entry is pending.
func (q *radixQueue) settle() {
	if q.head0 < len(q.buckets[0]) || q.n == q.early.len() {
		return
	}
	q.buckets[0] = q.buckets[0][:0]
	q.head0 = 0
	b := bits.TrailingZeros64(q.nonZero) + 1
	src := q.buckets[b]
	min := src[0].at
	for _, e := range src[1:] {
		if e.at < min {
			min = e.at
		}
	}
	q.last = min
	q.buckets[b] = src[:0]
	q.nonZero &^= 1 << (b - 1)
	for _, e := range src {
		nb := q.bucketOf(e.at)
		if nb == 0 {
			// Insertion sort by sequence: ties moved together.
			z := append(q.buckets[0], e)
			for i := len(z) - 1; i > 0 && z[i].key < z[i-1].key; i-- {
				z[i], z[i-1] = z[i-1], z[i]
			}
			q.buckets[0] = z
			continue
		}
		q.buckets[nb] = append(q.buckets[nb], e)
		q.nonZero |= 1 << (nb - 1)
	}
}

func (q *radixQueue) top() entry {
	if q.early.len() > 0 {
		return q.early.top()
	}
	q.settle()
	return q.buckets[0][q.head0]
}

func (q *radixQueue) pop() entry {
	if q.early.len() > 0 {
		q.n--
		return q.early.pop()
	}
	q.settle()
	z := q.buckets[0]
	e := z[q.head0]
	q.head0++
	q.n--
	return e
}
