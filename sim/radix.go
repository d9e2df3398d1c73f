package sim

import "math/bits"

// runMax is the largest bucket a settle sorts whole into the run instead of
// splitting it into lower buckets. Sorting a few entries by insertion costs
// less than moving each of them down bucket after bucket. Measured: 8, 16,
// 32 and 64 are within noise of each other in the hold model; 16 is kept.
const runMax = 16

// runSpill is the length at which pushes into the run have made it long
// enough that inserting costs more than splitting it back into buckets.
const runSpill = 64

// radixQueue is a monotone priority queue (a radix heap) of entries ordered
// by (at, key). It relies on the kernel's rule that nothing is scheduled
// before the current time: every push is >= the time last popped.
//
// The entries due first sit in the run, sorted by (at, key) from last to
// first, so that the next one is popped from its end: every pending entry
// with at <= hi is in the run. The others sit in 64 buckets relative to base
// (base <= hi): bucket b >= 1 holds the entries whose time first differs
// from base in bit b-1 (counting from the least significant), so every entry
// of a lower bucket is earlier than every entry of a higher one. When the run
// is used up, the lowest non-empty bucket is settled: if it holds at most
// runMax entries they are sorted into the run and hi becomes the top of that
// bucket's span (no other pending entry lies in it), else they are split
// into strictly lower buckets relative to the start of that span (the
// classic radix heap; only the ties at the start go to the run). An entry
// moves down at most 64 times in its life and usually a few times, so push
// is O(1) and pop is O(1) amortised whatever the number of pending events,
// unlike a heap, whose cost grows with log N.
//
// A push at or below hi is inserted into the run by a shift of the entries
// due before it, at the run's end. Most pushes are due soon (a CPU segment,
// a device's latency) while the run may also hold later events, so keeping
// the earliest at the end makes that shift short. A run grown past runSpill
// by such pushes is split back into buckets.
type radixQueue struct {
	run     []entry // sorted from last to first: run[len-1] is next
	base    Time
	hi      Time // every pending entry with at <= hi is in the run
	n       int
	buckets [65][]entry // index 0 unused
	nonZero uint64      // bit b-1 set when bucket b (1..64) is non-empty
}

func (q *radixQueue) len() int { return q.n }

func (q *radixQueue) push(e entry) {
	q.n++
	if e.at <= q.hi {
		q.insert(e)
		return
	}
	b := 64 - bits.LeadingZeros64(uint64(e.at)^uint64(q.base))
	q.buckets[b] = append(q.buckets[b], e)
	q.nonZero |= 1 << (b - 1)
}

// insert puts e into the run in (at, key) order, after the entries due
// before it (ties included: e has the largest sequence number).
func (q *radixQueue) insert(e entry) {
	q.run = insertLastFirst(q.run, e)
	if len(q.run) > runSpill && q.hi > q.base {
		q.spill()
	}
}

// insertLastFirst adds e to r, kept sorted from last to first, by shifting
// the entries due before e one place towards the end.
func insertLastFirst(r []entry, e entry) []entry {
	r = append(r, e)
	i := len(r) - 1
	for i > 0 && r[i-1].before(e) {
		r[i] = r[i-1]
		i--
	}
	r[i] = e
	return r
}

// spill splits a long run: its entries after base go to buckets relative
// to base, below every non-empty bucket (they are <= hi, which shares base's
// bits from the lowest non-empty bucket's up), and hi comes down to base.
func (q *radixQueue) spill() {
	r := q.run
	k := len(r) // r[k:] are the entries <= base
	for k > 0 && r[k-1].at <= q.base {
		k--
	}
	for _, e := range r[:k] {
		b := 64 - bits.LeadingZeros64(uint64(e.at)^uint64(q.base))
		q.buckets[b] = append(q.buckets[b], e)
		q.nonZero |= 1 << (b - 1)
	}
	q.hi = q.base
	q.run = r[:copy(r, r[k:])]
}

// settle refills the run from the lowest non-empty bucket if the run is used
// up and any entry is pending.
func (q *radixQueue) settle() {
	if len(q.run) > 0 || q.n == 0 {
		return
	}
	b := bits.TrailingZeros64(q.nonZero) + 1
	src := q.buckets[b]
	q.buckets[b] = src[:0]
	q.nonZero &^= 1 << (b - 1)
	r := q.run[:0]
	if len(src) <= runMax {
		for _, e := range src {
			r = insertLastFirst(r, e)
		}
		q.run = r
		// The bucket spans base's bits below b-1; every other pending
		// entry is later than its top.
		q.base = r[len(r)-1].at
		q.hi = q.base | (1<<(b-1) - 1)
		return
	}
	// Split relative to the start of the bucket's span rather than its
	// minimum: no pass to find the minimum, and the entries spread over
	// the lower buckets just the same.
	q.base = src[0].at &^ (1<<(b-1) - 1)
	q.hi = q.base
	for _, e := range src {
		if e.at == q.base {
			// Ties at base, kept in sequence order (last first).
			r = append(r, e)
			for i := len(r) - 1; i > 0 && r[i].key > r[i-1].key; i-- {
				r[i], r[i-1] = r[i-1], r[i]
			}
			continue
		}
		nb := 64 - bits.LeadingZeros64(uint64(e.at)^uint64(q.base))
		q.buckets[nb] = append(q.buckets[nb], e)
		q.nonZero |= 1 << (nb - 1)
	}
	q.run = r
	// The run may be empty: the minimum is in a lower bucket now.
	q.settle()
}

// top and pop are called with entries pending; they settle only when the
// run is used up, so that the common case is inlined.
func (q *radixQueue) top() entry {
	if len(q.run) == 0 {
		q.settle()
	}
	return q.run[len(q.run)-1]
}

// dropTop removes the entry top just returned (the run is settled then).
func (q *radixQueue) dropTop() {
	q.run = q.run[:len(q.run)-1]
	q.n--
}

func (q *radixQueue) pop() entry {
	if len(q.run) == 0 {
		q.settle()
	}
	n := len(q.run) - 1
	e := q.run[n]
	q.run = q.run[:n]
	q.n--
	return e
}
