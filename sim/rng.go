package sim

import (
	"hash/fnv"
	"math/bits"
	"math/rand/v2"
)

// Stream is a named source of random numbers. Its bits come from PCG
// (math/rand/v2's PCG, whose output is specified); the conversions to
// floats and bounded integers are written here so that they never change
// under a Go upgrade.
type Stream struct {
	pcg rand.PCG
}

// NewStream returns the stream for (seed, name): PCG seeded with the seed and
// the FNV-1a hash of the name.
func NewStream(seed uint64, name string) *Stream {
	h := fnv.New64a()
	h.Write([]byte(name))
	s := &Stream{}
	s.pcg.Seed(seed, h.Sum64())
	return s
}

// Stream returns the random stream of the named component. Asking twice for
// the same name returns two streams with the same sequence; components
// should ask once and keep it.
func (e *Env) Stream(name string) *Stream { return NewStream(e.seed, name) }

// Uint64 returns 64 uniformly random bits. With it a Stream is a
// rand.Source, so gonum code that wants one can be fed.
func (s *Stream) Uint64() uint64 { return s.pcg.Uint64() }

// Float64 returns a uniform value in [0, 1) with 53 random bits.
func (s *Stream) Float64() float64 {
	return float64(s.pcg.Uint64()>>11) * 0x1p-53
}

// OpenFloat64 returns a uniform value in (0, 1), for inverse-CDF sampling of
// distributions whose quantile is infinite at 0 or 1.
func (s *Stream) OpenFloat64() float64 {
	for {
		if u := s.Float64(); u != 0 {
			return u
		}
	}
}

// IntN returns a uniform integer in [0, n) without modulo bias (Lemire's
// multiply-and-reject method). It panics if n <= 0.
func (s *Stream) IntN(n int) int {
	if n <= 0 {
		panic("sim: IntN with n <= 0")
	}
	return int(s.Uint64N(uint64(n)))
}

// Uint64N returns a uniform integer in [0, n). It panics if n == 0.
func (s *Stream) Uint64N(n uint64) uint64 {
	if n == 0 {
		panic("sim: Uint64N with n == 0")
	}
	return lemire(&s.pcg, n)
}

// lemire draws a uniform integer in [0, n), n > 0, from p by Lemire's
// multiply-and-reject method.
func lemire(p *rand.PCG, n uint64) uint64 {
	hi, lo := bits.Mul64(p.Uint64(), n)
	if lo < n {
		thresh := -n % n
		for lo < thresh {
			hi, lo = bits.Mul64(p.Uint64(), n)
		}
	}
	return hi
}

// SumUint64N returns the sum of k draws of Uint64N(n), drawn in order: the
// same value and the same stream state as k calls, with the generator's
// state kept in registers for the loop (sysbench's gaussian ids are the
// mean of 12 such draws). It panics if n == 0.
func (s *Stream) SumUint64N(n uint64, k int) uint64 {
	if n == 0 {
		panic("sim: SumUint64N with n == 0")
	}
	p := s.pcg
	var sum uint64
	for ; k > 0; k-- {
		sum += lemire(&p, n)
	}
	s.pcg = p
	return sum
}

// Bernoulli returns true with probability p.
func (s *Stream) Bernoulli(p float64) bool { return s.Float64() < p }
