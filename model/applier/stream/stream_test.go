package stream

import (
	"math"
	"strings"
	"testing"
)

func gen(t *testing.T, mod func(*Config), n int) ([]Trx, float64) {
	t.Helper()
	cfg := DefaultConfig()
	if mod != nil {
		mod(&cfg)
	}
	trx, g, err := Generate(cfg, 1, n)
	if err != nil {
		t.Fatal(err)
	}
	return trx, g
}

// TestDependencyInvariants: sequence numbers are dense, last_committed is
// earlier, and a transaction's real row dependency never lies after its
// last_committed (a replica honouring last_committed never applies two
// conflicting transactions at once).
func TestDependencyInvariants(t *testing.T) {
	for _, tc := range []struct {
		name string
		mod  func(*Config)
	}{
		{"special commit_order", nil},
		{"special writeset", func(c *Config) { c.Dependency = "writeset" }},
		{"hot writeset", func(c *Config) { c.Dependency, c.KeyDist, c.HotRows, c.HotPct = "writeset", "hot", 50, 50 }},
		{"hot commit_order 10u", func(c *Config) { c.UpdatesPerTrx, c.KeyDist, c.HotRows, c.HotPct = 10, "hot", 100, 30 }},
		{"tiny history", func(c *Config) { c.Dependency, c.HistorySize, c.UpdatesPerTrx = "writeset", 30, 10 }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			trx, _ := gen(t, tc.mod, 20000)
			var prevCommit int64
			for i, x := range trx {
				if x.Seq != int64(i+1) {
					t.Fatalf("trx %d has seq %d", i+1, x.Seq)
				}
				if x.Last < 0 || x.Last >= x.Seq {
					t.Fatalf("trx %d: last_committed %d not in [0, seq)", x.Seq, x.Last)
				}
				if x.RowDep > x.Last {
					t.Fatalf("trx %d: row dependency %d after last_committed %d", x.Seq, x.RowDep, x.Last)
				}
				if int64(x.Committed) < prevCommit {
					t.Fatalf("trx %d committed before its predecessor", x.Seq)
				}
				prevCommit = int64(x.Committed)
			}
		})
	}
}

// TestWritesetWidensIntervals: writeset parents are never later than
// commit-order parents, so its intervals are at least as wide.
func TestWritesetWidensIntervals(t *testing.T) {
	co, _ := gen(t, func(c *Config) { c.UpdatesPerTrx, c.Dependency = 10, "commit_order" }, 20000)
	ws, _ := gen(t, func(c *Config) { c.UpdatesPerTrx, c.Dependency = 10, "writeset" }, 20000)
	var gco, gws float64
	for i := range co {
		if ws[i].Last > co[i].Last {
			t.Fatalf("trx %d: writeset parent %d after commit-order parent %d", i+1, ws[i].Last, co[i].Last)
		}
		gco += float64(co[i].Seq - co[i].Last)
		gws += float64(ws[i].Seq - ws[i].Last)
	}
	if gws < 10*gco {
		t.Errorf("mean interval: writeset %.0f, commit_order %.0f; want writeset far wider", gws/20000, gco/20000)
	}
}

// TestGroupSizes: with 256 threads the binlog groups hold tens of
// transactions, and commit-order intervals span about one to two groups.
func TestGroupSizes(t *testing.T) {
	for _, n := range []int{1, 10} {
		trx, g := gen(t, func(c *Config) { c.UpdatesPerTrx, c.Dependency = n, "commit_order" }, 30000)
		var gap float64
		for _, x := range trx {
			gap += float64(x.Seq - x.Last)
		}
		gap /= float64(len(trx))
		if g < 10 || gap < g || gap > 3*g {
			t.Errorf("%du: group %.1f, mean interval %.1f: want groups >= 10 and interval in [group, 3 x group]", n, g, gap)
		}
	}
}

// TestSpecialDistribution: sysbench's special distribution puts res % of
// the draws in the central pct % of the ids.
func TestSpecialDistribution(t *testing.T) {
	cfg := DefaultConfig()
	s, err := New(testEnv(), cfg, func(Trx) {})
	if err != nil {
		t.Fatal(err)
	}
	rows := uint64(cfg.TableRows)
	lo, hi := rows/2-rows/200, rows/2+rows/200
	in := 0
	const n = 200000
	for range n {
		if r := s.keys.row(); r >= lo && r < hi {
			in++
		}
	}
	// 75 % land there by construction, plus the bell curve's share of 1 %.
	got := float64(in) / n
	if math.Abs(got-0.76) > 0.01 {
		t.Errorf("share in the hot 1 %% = %.3f, want ~0.76", got)
	}
}

func TestValidate(t *testing.T) {
	c := DefaultConfig()
	c.Threads, c.KeyDist = 0, "zipf"
	err := c.Validate()
	if err == nil || !strings.Contains(err.Error(), "threads:") || !strings.Contains(err.Error(), "key_dist:") {
		t.Errorf("got %v, want errors naming threads and key_dist", err)
	}
}
