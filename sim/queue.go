package sim

// entry is one pending event as the heap sees it: small and pointer-free so
// that sift operations move little memory and the GC never scans the heap.
// It packs the sequence number (high 40 bits) and the slab slot (low 24
// bits) into one word, so an entry is 16 bytes and four siblings share a
// cache line. Comparing keys compares sequence numbers, which are unique.
type entry struct {
	at  Time
	key uint64
}

const (
	slotBits = 24
	maxSlot  = 1<<slotBits - 1
	maxSeq   = 1<<(64-slotBits) - 1
)

func (a entry) seq() uint64 { return a.key >> slotBits }
func (a entry) slot() int32 { return int32(a.key & maxSlot) }

func (a entry) before(b entry) bool {
	return a.at < b.at || (a.at == b.at && a.key < b.key)
}

// heap4 is a 4-ary min-heap of entries ordered by (at, seq). The kernel
// uses the radix queue; the heap is the reference it is tested against.
type heap4 struct{ a []entry }

func (h *heap4) len() int { return len(h.a) }

func (h *heap4) push(e entry) {
	h.a = append(h.a, e)
	i := len(h.a) - 1
	for i > 0 {
		p := (i - 1) >> 2
		if !e.before(h.a[p]) {
			break
		}
		h.a[i] = h.a[p]
		i = p
	}
	h.a[i] = e
}

func (h *heap4) top() entry { return h.a[0] }

func (h *heap4) pop() entry {
	top := h.a[0]
	n := len(h.a) - 1
	last := h.a[n]
	h.a = h.a[:n]
	if n == 0 {
		return top
	}
	i := 0
	for {
		c := i<<2 + 1
		if c >= n {
			break
		}
		m := c
		end := c + 4
		if end > n {
			end = n
		}
		for j := c + 1; j < end; j++ {
			if h.a[j].before(h.a[m]) {
				m = j
			}
		}
		if !h.a[m].before(last) {
			break
		}
		h.a[i] = h.a[m]
		i = m
	}
	h.a[i] = last
	return top
}
