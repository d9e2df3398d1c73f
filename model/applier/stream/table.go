package stream

// Open-addressing hash tables keyed by row key (table<<40 | row), with
// linear probing. They replace Go maps on the per-row paths: the source
// touches every row of every transaction twice (locks, history), and a
// million-transaction backlog must generate in about a second.

// genTable maps row keys to sequence numbers and clears in O(1) by
// bumping a generation: a slot whose generation is not current is empty.
// It is the writeset history.
type genTable struct {
	keys []uint64
	vals []int64
	gens []uint32
	gen  uint32
	mask uint64
	n    int
}

func newGenTable(capacity int) *genTable {
	size := 16
	for size < 2*capacity {
		size <<= 1
	}
	return &genTable{keys: make([]uint64, size), vals: make([]int64, size), gens: make([]uint32, size), gen: 1, mask: uint64(size - 1)}
}

func (t *genTable) len() int { return t.n }

// slot returns the slot of key and whether it holds key.
func (t *genTable) slot(key uint64) (int, bool) {
	i := mix(key) & t.mask
	for {
		if t.gens[i] != t.gen {
			return int(i), false
		}
		if t.keys[i] == key {
			return int(i), true
		}
		i = (i + 1) & t.mask
	}
}

func (t *genTable) get(key uint64) (int64, bool) {
	i, ok := t.slot(key)
	if !ok {
		return 0, false
	}
	return t.vals[i], true
}

// set stores key -> v. The table must have room: callers keep n below
// half the size (history_size bounds it).
func (t *genTable) set(key uint64, v int64) {
	i, ok := t.slot(key)
	if !ok {
		if 2*(t.n+1) > len(t.keys) {
			t.grow()
			i, _ = t.slot(key)
		}
		t.keys[i], t.gens[i] = key, t.gen
		t.n++
	}
	t.vals[i] = v
}

func (t *genTable) clear() {
	t.n = 0
	t.gen++
	if t.gen == 0 { // wrapped: really clear
		clear(t.gens)
		t.gen = 1
	}
}

func (t *genTable) grow() {
	old := *t
	size := 2 * len(t.keys)
	*t = genTable{keys: make([]uint64, size), vals: make([]int64, size), gens: make([]uint32, size), gen: 1, mask: uint64(size - 1)}
	for i, g := range old.gens {
		if g == old.gen {
			t.set(old.keys[i], old.vals[i])
		}
	}
}

// lockTable maps row keys to their holder; deletes shift back the
// following entries of the probe run, so no tombstones accumulate.
type lockTable struct {
	keys []uint64 // key+1; 0 = empty
	vals []*thread
	mask uint64
	n    int
}

func newLockTable(capacity int) *lockTable {
	size := 16
	for size < 4*capacity {
		size <<= 1
	}
	return &lockTable{keys: make([]uint64, size), vals: make([]*thread, size), mask: uint64(size - 1)}
}

func (t *lockTable) get(key uint64) *thread {
	k := key + 1
	for i := mix(key) & t.mask; t.keys[i] != 0; i = (i + 1) & t.mask {
		if t.keys[i] == k {
			return t.vals[i]
		}
	}
	return nil
}

func (t *lockTable) set(key uint64, v *thread) {
	if 2*(t.n+1) > len(t.keys) {
		t.grow()
	}
	k := key + 1
	i := mix(key) & t.mask
	for ; t.keys[i] != 0; i = (i + 1) & t.mask {
		if t.keys[i] == k {
			t.vals[i] = v
			return
		}
	}
	t.keys[i], t.vals[i] = k, v
	t.n++
}

// del removes key if it maps to v.
func (t *lockTable) del(key uint64, v *thread) {
	k := key + 1
	i := mix(key) & t.mask
	for ; t.keys[i] != k; i = (i + 1) & t.mask {
		if t.keys[i] == 0 {
			return
		}
	}
	if t.vals[i] != v {
		return
	}
	t.n--
	// Backward-shift deletion (Knuth 6.4 algorithm R).
	for {
		t.keys[i], t.vals[i] = 0, nil
		j := i
		for {
			j = (j + 1) & t.mask
			if t.keys[j] == 0 {
				return
			}
			home := mix(t.keys[j]-1) & t.mask
			// Move j back to i unless its home lies cyclically in (i, j].
			if (i <= j && (home <= i || home > j)) || (i > j && home <= i && home > j) {
				break
			}
		}
		t.keys[i], t.vals[i] = t.keys[j], t.vals[j]
		i = j
	}
}

func (t *lockTable) grow() {
	old := *t
	size := 2 * len(t.keys)
	*t = lockTable{keys: make([]uint64, size), vals: make([]*thread, size), mask: uint64(size - 1)}
	for i, k := range old.keys {
		if k != 0 {
			t.set(k-1, old.vals[i])
		}
	}
}
