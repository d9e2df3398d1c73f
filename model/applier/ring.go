package applier

import (
	"fmt"

	"simrun/sim"
)

// Transaction state flags.
const (
	fStarted    uint8 = 1 << iota // handed to a worker
	fApplied                      // its row changes are done (prepared)
	fRegistered                   // entered the ordered commit (rpco)
	fCommitted
	fWaitReg // applied, waiting for its turn to register
)

// trxState is the replica's view of one relay-log transaction. It is kept
// small: a backlog holds a million of them.
type trxState struct {
	lastGap int32    // seq - last_committed (>= 1)
	rowGap  int32    // seq - RowDep, 0 = none
	src     sim.Time // source commit time (online), for lag
	mark    sim.Time // when it entered its current wait (dependency, commit turn)
	start   sim.Time // when a worker took it (latency_ms)
	worker  int32    // worker holding it, -1 if none
	flags   uint8
}

// trxRing holds the transactions from the oldest uncommitted one (base)
// up to the newest received one, indexed by sequence number.
type trxRing struct {
	buf  []trxState
	mask int64
	base int64 // lowest seq held; everything below is committed
	top  int64 // highest seq held (base-1 when empty)
}

func newTrxRing(capacity int) *trxRing {
	size := int64(64)
	for size < int64(capacity) {
		size <<= 1
	}
	return &trxRing{buf: make([]trxState, size), mask: size - 1, base: 1, top: 0}
}

func (r *trxRing) len() int64 { return r.top - r.base + 1 }

// at returns the state of seq, which must be held.
func (r *trxRing) at(seq int64) *trxState {
	if seq < r.base || seq > r.top {
		panic(fmt.Sprintf("applier: trx %d outside the ring [%d, %d]", seq, r.base, r.top))
	}
	return &r.buf[seq&r.mask]
}

// push appends the next sequence number.
func (r *trxRing) push(t trxState) {
	if r.len() == int64(len(r.buf)) {
		r.grow()
	}
	r.top++
	r.buf[r.top&r.mask] = t
}

// popFront drops the oldest transaction.
func (r *trxRing) popFront() {
	r.buf[r.base&r.mask] = trxState{}
	r.base++
}

func (r *trxRing) grow() {
	n := int64(len(r.buf)) * 2
	buf := make([]trxState, n)
	for s := r.base; s <= r.top; s++ {
		buf[s&(n-1)] = r.buf[s&r.mask]
	}
	r.buf, r.mask = buf, n-1
}

// depItem is a transaction waiting for its dependencies, keyed by
// last_committed.
type depItem struct{ last, seq int64 }

// The blocked set is a sim.Heap of depItems by last_committed (ties by
// seq), so that a rising watermark releases waiting transactions in
// O(log n) each.
func (a depItem) less(b depItem) bool { return a.last < b.last || a.last == b.last && a.seq < b.seq }
