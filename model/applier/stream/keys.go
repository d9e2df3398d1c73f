package stream

import "simrun/sim"

// keyGen draws tables and row ids the way sysbench does.
type keyGen struct {
	rng    *sim.Stream
	tables int
	rows   uint64
	dist   string

	// special
	gaussP  float64 // probability of the bell-curve part
	hotBase uint64
	hotN    uint64

	// hot
	hotPct  float64
	hotRows uint64
}

func newKeyGen(c Config, rng *sim.Stream) keyGen {
	k := keyGen{rng: rng, tables: c.Tables, rows: uint64(c.TableRows), dist: c.KeyDist}
	switch c.KeyDist {
	case "special":
		// sysbench 1.0 sb_rand_special: a draw in [0, t/(1-res)) below t
		// takes the bell curve, the rest map onto the central pct % of ids.
		k.gaussP = 1 - c.SpecialRes/100
		k.hotN = max(1, uint64(float64(k.rows)*c.SpecialPct/100))
		k.hotBase = k.rows/2 - uint64(float64(k.rows)*c.SpecialPct/200)
	case "hot":
		k.hotPct = c.HotPct / 100
		k.hotRows = uint64(c.HotRows)
	}
	return k
}

// table returns a table index in [0, tables): sysbench.rand.uniform.
func (k *keyGen) table() int { return k.rng.IntN(k.tables) }

// row returns a row id in [0, rows).
func (k *keyGen) row() uint64 {
	switch k.dist {
	case "special":
		if k.rng.Float64() < k.gaussP {
			const iter = 12 // sysbench --rand-spec-iter default
			var sum uint64
			for range iter {
				sum += k.rng.Uint64N(k.rows)
			}
			return sum / iter
		}
		return k.hotBase + k.rng.Uint64N(k.hotN)
	case "hot":
		if k.hotPct > 0 && k.rng.Float64() < k.hotPct {
			return k.rng.Uint64N(k.hotRows)
		}
	}
	return k.rng.Uint64N(k.rows)
}
