package workload

import (
	"math"

	"simrun/sim"
)

// StmtKind is the kind of one SQL statement of a transaction.
type StmtKind uint8

// Statement kinds of oltp_write_only.
const (
	UpdateIndex    StmtKind = iota // UPDATE sbtestN SET k=k+1 WHERE id=?
	UpdateNonIndex                 // UPDATE sbtestN SET c=? WHERE id=?
	Delete                         // DELETE FROM sbtestN WHERE id=?
	Insert                         // INSERT INTO sbtestN (id, k, c, pad) VALUES (?, ?, ?, ?)
	NumStmtKinds
)

var stmtNames = [...]string{"update_index", "update_non_index", "delete", "insert"}

func (k StmtKind) String() string {
	if int(k) < len(stmtNames) {
		return stmtNames[k]
	}
	return "stmt?"
}

// Stmt is one data-changing statement: its kind, table (0-based) and row
// id (1..table_size).
type Stmt struct {
	Kind  StmtKind
	Table int32
	Row   int64
}

// Tx is one transaction: BEGIN, Stmts in order, COMMIT. Generators fill a
// caller-owned Tx so that the steady state allocates nothing.
type Tx struct {
	Stmts []Stmt
}

// Queries returns the number of queries the client sends for the
// transaction: BEGIN, the statements and COMMIT (sysbench counts all of
// them in its queries/s figure).
func (t *Tx) Queries() int { return len(t.Stmts) + 2 }

// Generator draws sysbench transactions from its own random stream.
type Generator struct {
	cfg Sysbench
	rng *sim.Stream
	n   uint64 // table_size - 1 as the range size t of sb_rand.c

	// special: precomputed bounds
	specRange uint64 // floor(t * 100/(100-res)), the enlarged range
	specD     uint64 // size of the hot range
	specBase  uint64 // first hot id offset
	paretoPow float64
	randType  randType // cfg.RandType, so that Row does not compare strings
}

type randType uint8

const (
	randSpecial randType = iota
	randUniform
	randGaussian
	randPareto
)

// NewGenerator returns a generator for a valid configuration.
func NewGenerator(cfg Sysbench, rng *sim.Stream) *Generator {
	g := &Generator{cfg: cfg, rng: rng}
	t := uint64(cfg.TableSize - 1)
	g.n = t
	g.specRange = uint64(float64(t) * (100.0 / (100.0 - cfg.RandSpecRes)))
	d := uint64(float64(t) * cfg.RandSpecPct / 100)
	if d < 1 {
		d = 1
	}
	g.specD = d
	g.specBase = t/2 - uint64(float64(t)*cfg.RandSpecPct/200)
	g.paretoPow = math.Log(cfg.RandParetoH) / math.Log(1-cfg.RandParetoH)
	switch cfg.RandType {
	case "uniform":
		g.randType = randUniform
	case "gaussian":
		g.randType = randGaussian
	case "pareto":
		g.randType = randPareto
	}
	return g
}

// StmtsPerTx returns the number of data-changing statements per transaction.
func (c Sysbench) StmtsPerTx() int {
	return c.IndexUpdates + c.NonIndexUpdates + 2*c.DeleteInserts
}

// Next fills tx with the next transaction, in oltp_write_only's order:
// index updates, non-index updates, delete/insert pairs. Each block picks
// its table uniformly (get_table_num); every statement draws its id from
// the configured distribution (get_id); a DELETE and the INSERT after it
// share table and id.
func (g *Generator) Next(tx *Tx) {
	tx.Stmts = tx.Stmts[:0]
	c := &g.cfg
	if c.IndexUpdates > 0 {
		t := g.table()
		for i := 0; i < c.IndexUpdates; i++ {
			tx.Stmts = append(tx.Stmts, Stmt{UpdateIndex, t, g.Row()})
		}
	}
	if c.NonIndexUpdates > 0 {
		t := g.table()
		for i := 0; i < c.NonIndexUpdates; i++ {
			tx.Stmts = append(tx.Stmts, Stmt{UpdateNonIndex, t, g.Row()})
		}
	}
	if c.DeleteInserts > 0 {
		t := g.table()
		for i := 0; i < c.DeleteInserts; i++ {
			id := g.Row()
			g.Row() // k = get_id(): drawn, used only as a value
			tx.Stmts = append(tx.Stmts, Stmt{Delete, t, id}, Stmt{Insert, t, id})
		}
	}
}

func (g *Generator) table() int32 { return int32(g.rng.IntN(g.cfg.Tables)) }

// Row draws a row id in [1, table_size] from the configured distribution.
func (g *Generator) Row() int64 {
	switch g.randType {
	case randUniform:
		return 1 + int64(g.rng.Uint64N(g.n+1))
	case randGaussian:
		return 1 + int64(g.bell())
	case randPareto:
		return 1 + int64(float64(g.n)*math.Pow(g.rng.Float64(), g.paretoPow))
	}
	return 1 + int64(g.special())
}

// bell is sb_rand_gaussian's offset: the mean of rand_spec_iter uniform
// draws over [0, t].
func (g *Generator) bell() uint64 {
	return g.rng.SumUint64N(g.n+1, g.cfg.RandSpecIter) / uint64(g.cfg.RandSpecIter)
}

// special is sb_rand_special's offset (sysbench 1.0 sb_rand.c): draw res
// uniformly in the range enlarged by 100/(100-res); below t use the bell
// curve, otherwise map res into the hot rand_spec_pct % around the centre.
func (g *Generator) special() uint64 {
	res := g.rng.Uint64N(g.specRange + 1)
	if res < g.n {
		return g.bell()
	}
	return g.specBase + res%g.specD
}
