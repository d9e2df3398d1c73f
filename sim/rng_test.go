package sim

import "testing"

// SumUint64N must be exactly k calls of Uint64N: the same sum and the same
// stream state after, including bounds where Lemire's method rejects often.
func TestSumUint64NIsRepeatedUint64N(t *testing.T) {
	for _, n := range []uint64{1, 2, 7, 1_000_000, 1<<63 + 1, 3 << 62, ^uint64(0)} {
		for _, k := range []int{0, 1, 12, 1000} {
			a, b := NewStream(7, "sum"), NewStream(7, "sum")
			var want uint64
			for i := 0; i < k; i++ {
				want += a.Uint64N(n)
			}
			if got := b.SumUint64N(n, k); got != want {
				t.Errorf("n=%d k=%d: SumUint64N = %d, want %d", n, k, got, want)
			}
			if x, y := a.Uint64(), b.Uint64(); x != y {
				t.Errorf("n=%d k=%d: stream state differs after the sum", n, k)
			}
		}
	}
}
