package sim

import "testing"

// rawQueue is what the queue benchmarks drive: the radix queue the kernel
// uses and the 4-ary heap it is measured against.
type rawQueue interface {
	push(entry)
	pop() entry
}

// benchmarkRaw measures one push and one pop at 1,000 pending entries.
func benchmarkRaw(b *testing.B, q rawQueue) {
	s := NewStream(1, "h")
	for i := 0; i < 1000; i++ {
		q.push(entry{at: Time(s.Exp() * 1e6), key: uint64(i) << slotBits})
	}
	var seq uint64 = 1000
	b.ResetTimer()
	stop := cpuTimer(b)
	for i := 0; i < b.N; i++ {
		e := q.pop()
		seq++
		q.push(entry{at: e.at + Time(s.Uint64()&0xfffff), key: seq << slotBits})
	}
	stop()
}

func BenchmarkHeap4Raw(b *testing.B) { benchmarkRaw(b, &heap4{}) }
func BenchmarkRadixRaw(b *testing.B) { benchmarkRaw(b, &radixQueue{}) }

// TestRadixQueueOrder is a property test: whatever the mix of times, ties
// and interleaving of pushes and pops, the radix queue yields entries in
// (at, seq) order, exactly as a reference heap does.
func TestRadixQueueOrder(t *testing.T) {
	s := NewStream(9, "radix-property")
	for trial := 0; trial < 200; trial++ {
		var q radixQueue
		var ref heap4
		var seq uint64
		now := Time(0)
		spread := 1 + s.IntN(1<<uint(s.IntN(40)))
		for op := 0; op < 3000; op++ {
			if ref.len() == 0 || s.IntN(3) > 0 {
				seq++
				at := now
				if s.IntN(4) > 0 {
					at += Time(s.IntN(spread))
				}
				e := entry{at: at, key: seq << slotBits}
				q.push(e)
				ref.push(e)
				continue
			}
			if s.IntN(3) == 0 {
				// Only look, as Env.NextAt does: it settles the queue
				// ahead of the clock, and later pushes may be earlier.
				if want, got := ref.top(), q.top(); want != got {
					t.Fatalf("trial %d op %d: top %+v, want %+v", trial, op, got, want)
				}
				continue
			}
			want, got := ref.pop(), q.pop()
			if want != got {
				t.Fatalf("trial %d op %d: popped %+v, want %+v", trial, op, got, want)
			}
			now = got.at
		}
		for ref.len() > 0 {
			if want, got := ref.pop(), q.pop(); want != got {
				t.Fatalf("trial %d drain: popped %+v, want %+v", trial, got, want)
			}
		}
		if q.len() != 0 {
			t.Fatalf("radix queue not empty")
		}
	}
}
