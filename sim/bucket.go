package sim

import (
	"fmt"
	"math"
	"math/bits"
)

// nano is the number of nano-tokens in a token. Keeping the level in
// nano-tokens makes refill exact in integers: a rate of r tokens per second
// adds exactly r nano-tokens per nanosecond.
const nano = 1_000_000_000

// TokenBucket limits a rate: tokens refill at Rate per second up to Burst,
// and an operation takes tokens. It is exact integer arithmetic, so a cap is
// never exceeded by rounding. The level may go negative (debt) through
// Take, so an operation larger than the burst can still pass once enough
// time has been paid back.
type TokenBucket struct {
	rate     int64 // tokens per second
	capacity int64 // nano-tokens
	level    int64 // nano-tokens; negative is debt
	last     Time
}

// NewTokenBucket returns a full bucket refilling at rate tokens per second
// and holding at most burst tokens. It panics if rate or burst is not
// positive, or if burst is too large to count in nano-tokens.
func NewTokenBucket(rate, burst int64) *TokenBucket {
	if rate <= 0 {
		panic(fmt.Sprintf("sim: token bucket rate must be > 0, got %d", rate))
	}
	if burst <= 0 {
		panic(fmt.Sprintf("sim: token bucket burst must be > 0, got %d", burst))
	}
	if burst > math.MaxInt64/(2*nano) {
		panic(fmt.Sprintf("sim: token bucket burst %d too large", burst))
	}
	return &TokenBucket{rate: rate, capacity: burst * nano, level: burst * nano}
}

// Rate returns the refill rate in tokens per second.
func (b *TokenBucket) Rate() int64 { return b.rate }

// Burst returns the capacity in tokens.
func (b *TokenBucket) Burst() int64 { return b.capacity / nano }

func (b *TokenBucket) refill(now Time) {
	if now < b.last {
		panic(fmt.Sprintf("sim: token bucket used at %v after %v", now, b.last))
	}
	dt := int64(now - b.last)
	b.last = now
	if dt == 0 || b.level >= b.capacity {
		return
	}
	// Full once dt*rate >= need: compared as a 128-bit product, which is
	// exact and saves the division of dt >= ceil(need/rate).
	need := b.capacity - b.level
	hi, lo := bits.Mul64(uint64(dt), uint64(b.rate))
	if hi != 0 || lo >= uint64(need) {
		b.level = b.capacity
		return
	}
	b.level += int64(lo)
}

// Level returns the whole tokens available at now (negative in debt).
func (b *TokenBucket) Level(now Time) int64 {
	b.refill(now)
	return floorDiv(b.level, nano)
}

// TryTake takes n tokens if they are all available at now.
func (b *TokenBucket) TryTake(now Time, n int64) bool {
	b.refill(now)
	if b.level >= n*nano {
		b.level -= n * nano
		return true
	}
	return false
}

// Take takes n tokens at now, going into debt if fewer are available.
func (b *TokenBucket) Take(now Time, n int64) {
	b.refill(now)
	b.level -= n * nano
}

// ReadyAt returns the earliest time at or after now at which n tokens are
// available, or, when n exceeds the burst, at which the bucket is full (the
// caller then Takes and goes into debt).
func (b *TokenBucket) ReadyAt(now Time, n int64) Time {
	b.refill(now)
	want := min(n*nano, b.capacity)
	if b.level >= want {
		return now
	}
	deficit := want - b.level
	return now + Time((deficit+b.rate-1)/b.rate)
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}
