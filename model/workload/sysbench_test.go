package workload

import (
	"math"
	"testing"

	"simrun/internal/configtest"
	"simrun/sim"
)

func TestSpecialDistribution(t *testing.T) {
	cfg := DefaultSysbench()
	g := NewGenerator(cfg, sim.NewStream(1, "test"))
	const n = 400_000
	size := cfg.TableSize
	lo := size/2 - size/200
	hi := size/2 + size/200
	var hot int
	var sum, sum2 float64
	var bell int
	for i := 0; i < n; i++ {
		r := g.Row()
		if r < 1 || r > size {
			t.Fatalf("row %d outside [1, %d]", r, size)
		}
		if r > lo && r <= hi+1 {
			hot++
		} else {
			bell++
			x := float64(r) - float64(size)/2
			sum += x
			sum2 += x * x
		}
	}
	// 75 % of draws land in the hot 1 %, plus the bell's share of it.
	frac := float64(hot) / n
	if frac < 0.75 || frac > 0.79 {
		t.Errorf("hot fraction %.4f, want 0.75 plus a little of the bell", frac)
	}
	// The bell is the mean of 12 uniforms over the range: sd = size/12.
	sd := math.Sqrt(sum2 / float64(bell))
	if want := float64(size) / 12; math.Abs(sd-want)/want > 0.08 {
		t.Errorf("bell sd %.0f, want about %.0f", sd, want)
	}
}

func TestUniformAndPareto(t *testing.T) {
	for _, rt := range []string{"uniform", "gaussian", "pareto"} {
		cfg := DefaultSysbench()
		cfg.RandType = rt
		g := NewGenerator(cfg, sim.NewStream(2, rt))
		var mean float64
		for i := 0; i < 100_000; i++ {
			r := g.Row()
			if r < 1 || r > cfg.TableSize {
				t.Fatalf("%s: row %d out of range", rt, r)
			}
			mean += float64(r) / 100_000
		}
		if rt == "uniform" && math.Abs(mean-float64(cfg.TableSize)/2)/float64(cfg.TableSize) > 0.01 {
			t.Errorf("uniform mean %.0f", mean)
		}
	}
}

func TestTransactionShape(t *testing.T) {
	cfg := DefaultSysbench()
	g := NewGenerator(cfg, sim.NewStream(3, "tx"))
	var tx Tx
	for i := 0; i < 1000; i++ {
		g.Next(&tx)
		if len(tx.Stmts) != 4 || tx.Queries() != 6 {
			t.Fatalf("tx has %d statements, %d queries; want 4 and 6", len(tx.Stmts), tx.Queries())
		}
		want := []StmtKind{UpdateIndex, UpdateNonIndex, Delete, Insert}
		for j, s := range tx.Stmts {
			if s.Kind != want[j] {
				t.Fatalf("statement %d is %v, want %v", j, s.Kind, want[j])
			}
			if s.Table < 0 || int(s.Table) >= cfg.Tables {
				t.Fatalf("table %d out of range", s.Table)
			}
		}
		if tx.Stmts[2].Table != tx.Stmts[3].Table || tx.Stmts[2].Row != tx.Stmts[3].Row {
			t.Fatalf("DELETE and INSERT must share table and id: %+v", tx.Stmts)
		}
	}
	cfg.IndexUpdates, cfg.DeleteInserts = 0, 0
	g = NewGenerator(cfg, sim.NewStream(3, "tx"))
	g.Next(&tx)
	if len(tx.Stmts) != 1 || tx.Stmts[0].Kind != UpdateNonIndex {
		t.Fatalf("non-index only: %+v", tx.Stmts)
	}
}

func TestValidate(t *testing.T) {
	if err := DefaultConfig().Validate(); err != nil {
		t.Fatalf("default config invalid: %v", err)
	}
	configtest.RejectsNaming(t, DefaultConfig, []configtest.Case[Config]{
		configtest.Bad(func(c *Config) { c.Kind = "tpcc" }, "kind"),
		configtest.Bad(func(c *Config) { c.Sysbench.Threads = 0 }, "sysbench.threads"),
		configtest.Bad(func(c *Config) { c.Sysbench.Tables = -1 }, "sysbench.tables"),
		configtest.Bad(func(c *Config) { c.Sysbench.TableSize = 5 }, "sysbench.table_size"),
		configtest.Bad(func(c *Config) { c.Sysbench.RandType = "zipf" }, "sysbench.rand_type"),
		configtest.Bad(func(c *Config) { c.Sysbench.RandSpecPct = 0 }, "sysbench.rand_spec_pct"),
		configtest.Bad(func(c *Config) { c.Sysbench.RandSpecRes = 100 }, "sysbench.rand_spec_res"),
		configtest.Bad(func(c *Config) { c.Sysbench.Test = "oltp_read_only" }, "sysbench.test"),
		configtest.Bad(func(c *Config) {
			c.Sysbench.IndexUpdates, c.Sysbench.NonIndexUpdates, c.Sysbench.DeleteInserts = 0, 0, 0
		}, "sysbench.index_updates"),
		configtest.Bad(func(c *Config) { c.Sysbench.ClientCPU = -1 }, "sysbench.client_cpu"),
	})
}

func BenchmarkNext(b *testing.B) {
	g := NewGenerator(DefaultSysbench(), sim.NewStream(1, "bench"))
	var tx Tx
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		g.Next(&tx)
	}
}
