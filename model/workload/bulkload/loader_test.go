package bulkload

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"simrun/sim"
)

// checkPool verifies the buffer-pool properties: never more resident pages
// than frames, and no page that left the pool still dirty (every dirty
// page was written before its frame was reused).
func checkPool(l *Loader) error {
	bp := l.e.BP
	if bp.Resident() > bp.Frames() {
		return fmt.Errorf("%d pages resident in %d frames", bp.Resident(), bp.Frames())
	}
	if s := l.e.Invariants(); s != "" {
		return fmt.Errorf("engine: %s", s)
	}
	for p := 0; p < bp.Pages(); p++ {
		if !bp.IsResident(int32(p)) && bp.IsDirty(int32(p)) {
			return fmt.Errorf("page %d was evicted dirty", p)
		}
	}
	return nil
}

// TestLoaderProperties runs small loads of every method and checks, all
// along, the pool's properties and, at the end, that every row of the dump
// is in every index (directly or still in the insert buffer) and the
// B-trees are well formed.
func TestLoaderProperties(t *testing.T) {
	for _, s := range ladder() {
		t.Run(s.name, func(t *testing.T) {
			ec := mysql51()
			s.eng(&ec)
			wc := DefaultConfig()
			wc.Rows = 250_000
			wc.Categories = 3000
			s.wl(&wc)
			// The smallest pool the engine takes, so that the 250,000 rows (about
			// 75 MB of indexes) do not fit in it.
			ec.Engine.BufferPool.Size = 64 * sim.MiB
			env, l := newLoader(t, ec, wc, 7)
			l.Start(nil)
			n := 0
			var bad error
			env.RunWhile(func() bool {
				if n++; n%997 == 0 && bad == nil {
					bad = checkPool(l)
				}
				return bad == nil && !l.Done() && env.Now() < sim.At(10*time.Hour)
			})
			if bad != nil {
				t.Fatal(bad)
			}
			if err := checkPool(l); err != nil {
				t.Fatal(err)
			}
			r := l.Result()
			if !r.Done || r.Rows != wc.Rows {
				t.Fatalf("done %v, %d rows loaded of %d", r.Done, r.Rows, wc.Rows)
			}
			var clust, sec [2]int64
			for _, set := range l.sets {
				if set.clust == nil {
					continue
				}
				clust[0] += set.clust.Records
				for k, ix := range set.sec {
					sec[k] += ix.Records
					if err := ix.Check(); err != nil {
						t.Fatalf("index %d: %v", k, err)
					}
				}
			}
			if clust[0] != wc.Rows {
				t.Errorf("clustered indexes hold %d rows, the dump %d", clust[0], wc.Rows)
			}
			if got := sec[0] + sec[1] + l.ib.Records(); got != 2*wc.Rows {
				t.Errorf("secondaries hold %d + %d and the insert buffer %d entries, want 2 x %d", sec[0], sec[1], l.ib.Records(), wc.Rows)
			}
		})
	}
}

// TestLoaderDeterministic: the same configuration and seed give the same
// result.
func TestLoaderDeterministic(t *testing.T) {
	ec := mysql51()
	wc := DefaultConfig()
	wc.Rows = 20_000
	a, _ := run(t, ec, wc, time.Hour)
	b, _ := run(t, ec, wc, time.Hour)
	if a.ElapsedS != b.ElapsedS || a.Pool != b.Pool || a.Index != b.Index {
		t.Errorf("two runs differ: %v vs %v s", a.ElapsedS, b.ElapsedS)
	}
}

// BenchmarkLoad reports simulated rows and events per wall second for a
// load of 200,000 rows with each method.
func BenchmarkLoad(b *testing.B) {
	for _, s := range ladder() {
		b.Run("case="+s.name, func(b *testing.B) {
			var rows, events int64
			start := time.Now()
			for i := 0; i < b.N; i++ {
				env, l := newStep(b, s, 200_000)
				l.Start(nil)
				env.RunWhile(func() bool { events++; return !l.Done() })
				rows += 200_000
			}
			secs := time.Since(start).Seconds()
			b.ReportMetric(float64(rows)/secs, "sim_rows/s")
			b.ReportMetric(float64(events)/secs, "events/s")
		})
	}
}

// TestLoaderMemoryPerRow: once the load runs, memory grows only with the
// B-tree leaves (one 24-byte entry each, a leaf per ~100 rows across the
// three indexes) and the slices that hold them, never per row or per event:
// the bytes allocated between the 100,000th and the 200,000th row stay
// under 4 per row (a per-row allocation would be at least 16).
func TestLoaderMemoryPerRow(t *testing.T) {
	for _, s := range ladder()[1:3] {
		t.Run(s.name, func(t *testing.T) {
			env, l := newStep(t, s, 300_000)
			l.Start(nil)
			alloc := func(rows int64) uint64 {
				env.RunWhile(func() bool { return !l.Done() && l.st_.rows < rows })
				var m runtime.MemStats
				runtime.ReadMemStats(&m)
				return m.TotalAlloc
			}
			a := alloc(100_000)
			b := alloc(200_000)
			perRow := float64(b-a) / 100_000
			t.Logf("%s: %.2f B allocated per row between rows 100,000 and 200,000", s.name, perRow)
			if perRow > 4 {
				t.Errorf("%s: %.1f B allocated per row, want < 4 (memory grows with the rows)", s.name, perRow)
			}
		})
	}
}

// TestConfigFlushMethod: the page-cache keys reject values out of range,
// naming the key.
func TestConfigFlushMethod(t *testing.T) {
	for _, tc := range []struct {
		name string
		set  func(*Config)
		key  string
	}{
		{"O_DSYNC", func(c *Config) { c.FlushMethod = "O_DSYNC" }, "innodb_flush_method"},
		{"negative cache", func(c *Config) { c.OSPageCache = -1 }, "os_page_cache"},
	} {
		c := DefaultConfig()
		tc.set(&c)
		err := c.Validate()
		if err == nil || !strings.Contains(err.Error(), tc.key) {
			t.Errorf("%s: error %v, want one naming %s", tc.name, err, tc.key)
		}
	}
	if err := DefaultConfig().Validate(); err != nil {
		t.Errorf("defaults: %v", err)
	}
}
