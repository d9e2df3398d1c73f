package disk

// nodeRing is a growable FIFO of I/O nodes; it keeps its buffer, so pushes
// and pops allocate nothing once it has grown to the run's high-water mark.
type nodeRing struct {
	buf  []*ioNode
	head int
	n    int
}

func (r *nodeRing) push(x *ioNode) {
	if r.n == len(r.buf) {
		grown := make([]*ioNode, max(16, 2*len(r.buf)))
		for i := 0; i < r.n; i++ {
			grown[i] = r.buf[(r.head+i)%len(r.buf)]
		}
		r.buf, r.head = grown, 0
	}
	r.buf[(r.head+r.n)%len(r.buf)] = x
	r.n++
}

func (r *nodeRing) front() *ioNode { return r.buf[r.head] }

// at returns the i-th node from the front.
func (r *nodeRing) at(i int) *ioNode { return r.buf[(r.head+i)%len(r.buf)] }

func (r *nodeRing) pop() *ioNode {
	x := r.buf[r.head]
	r.buf[r.head] = nil
	r.head++
	if r.head == len(r.buf) {
		r.head = 0
	}
	r.n--
	return x
}
