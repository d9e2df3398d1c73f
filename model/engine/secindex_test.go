package engine

import (
	"fmt"
	"testing"
	"time"

	"simrun/internal/configtest"
	"simrun/sim"
)

// The leaf geometry from the source's rules for 13-byte records of k:
// 13 n + page_dir_calc_reserved_space(n) <= 16,252 gives 1,203 records; the
// merge threshold 50 % of 16 KiB (8,192 B) is 630 records, so a delete from
// a leaf of at most 631 tries a merge.
func TestLeafShape(t *testing.T) {
	for _, tc := range []struct {
		name            string
		mod             func(*IndexConfig)
		full, built, lo int
	}{
		{"defaults", func(*IndexConfig) {}, 1203, 1203, 631},
		{"fill factor 90", func(c *IndexConfig) { c.FillFactor = 90 }, 1203, 1082, 631},
		{"merge threshold 25", func(c *IndexConfig) { c.MergeThreshold = 25 }, 1203, 1203, 316},
		{"27-byte records", func(c *IndexConfig) { c.RecordBytes = 27 }, 590, 590, 304},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := DefaultIndex()
			tc.mod(&c)
			got := newLeafShape(c)
			if got != (leafShape{tc.full, tc.built, tc.lo, c.RecordBytes}) {
				t.Errorf("shape = %+v, want full %d built %d low %d", got, tc.full, tc.built, tc.lo)
			}
			// The rule itself: full fits, full+1 does not.
			fits := func(n int) bool { return n*c.RecordBytes+dirReserve(n) <= PageUsable }
			if !fits(got.full) || fits(got.full+1) {
				t.Errorf("full %d does not sit at the page's limit", got.full)
			}
		})
	}
}

// A split of a full leaf and the merge that follows, record by record, with
// the redo each writes.
func TestSecIndexSplitMerge(t *testing.T) {
	c := DefaultIndex()
	sh := newLeafShape(c)
	x := newSecIndex(3*int64(sh.built), sh, 8, 100) // three full leaves, slots 0..2
	var op indexOp
	// An insert into the full middle leaf splits it: 602 stay, 602 go to a
	// new page (slot 3, the first past the built leaves: new extents at the
	// end of the file), 601 of them copied and the new record inserted there.
	ns := x.insert(1, true, &c, &op)
	if x.Splits != 1 || x.leaves != 4 || ns != 3 {
		t.Fatalf("after the insert: splits %d leaves %d, record in slot %d", x.Splits, x.leaves, ns)
	}
	if x.cnt[1] != 602 || x.cnt[ns] != 602 {
		t.Fatalf("halves %d and %d, want 602 and 602", x.cnt[1], x.cnt[ns])
	}
	if want := uint64(601*c.MovedRecordRedo + c.SplitRedo); op.redo != want {
		t.Errorf("split redo %d, want %d", op.redo, want)
	}
	if x.next[1] != int32(ns) || x.prev[ns] != 1 || x.next[ns] != 2 || x.prev[2] != int32(ns) {
		t.Errorf("key order broken: next[1]=%d prev[new]=%d next[new]=%d prev[2]=%d", x.next[1], x.prev[ns], x.next[ns], x.prev[2])
	}
	wantPages := []int32{101, 102, 100 + int32(ns)} // the leaf, its old right sibling's FIL_PAGE_PREV, the new page
	if fmt.Sprint(op.pages) != fmt.Sprint(wantPages) {
		t.Errorf("split touched %v, want %v", op.pages, wantPages)
	}
	// Purge removes a record from the new half: 601 left, below the merge
	// threshold; its left sibling (the old half, 602) has room for them.
	op.reset()
	x.remove(ns, &c, &op)
	if x.Merges != 1 || x.MergeAttempts != 1 || x.leaves != 3 || x.cnt[1] != 1203 || x.live(ns) {
		t.Fatalf("after the purge: merges %d attempts %d leaves %d, left leaf %d, new slot live %v",
			x.Merges, x.MergeAttempts, x.leaves, x.cnt[1], x.live(ns))
	}
	if want := uint64(601*c.MovedRecordRedo + c.MergeRedo); op.redo != want {
		t.Errorf("merge redo %d, want %d", op.redo, want)
	}
	if last := op.pages[len(op.pages)-1]; last != (100+int32(ns))|opFreed {
		t.Errorf("the emptied page is not freed last: %v", op.pages)
	}
	// A delete from a full leaf neither merges nor tries to.
	op.reset()
	x.remove(0, &c, &op)
	if x.MergeAttempts != 1 || op.redo != 0 {
		t.Errorf("a delete from a full leaf: attempts %d redo %d", x.MergeAttempts, op.redo)
	}
	// A leaf at the threshold whose siblings are full tries and fails.
	y := newSecIndex(3*int64(sh.built), sh, 8, 0)
	y.set(1, sh.low)
	y.records = 2*int64(sh.built) + int64(sh.low)
	op.reset()
	y.remove(1, &c, &op)
	if y.MergeAttempts != 1 || y.Merges != 0 || op.redo != 0 {
		t.Errorf("no sibling with room: attempts %d merges %d redo %d", y.MergeAttempts, y.Merges, op.redo)
	}
	for _, z := range []*secIndex{x, y} {
		if err := z.check(); err != nil {
			t.Error(err)
		}
	}
}

// checkFind compares find with a scan of the counts from slot 0, at both
// ends of the records, at every leaf's first and last entry, and at random.
func checkFind(t *testing.T, x *secIndex, rng *sim.Stream) {
	t.Helper()
	want := func(r int64) int {
		for s, c := range x.cnt {
			n := int64(max(c, 0))
			if r < n {
				return s
			}
			r -= n
		}
		return -1
	}
	rs := []int64{0, x.records - 1}
	var at int64
	for _, n := range x.cnt {
		if n > 0 {
			rs = append(rs, at, at+int64(n)-1)
			at += int64(n)
		}
	}
	for range 100 {
		rs = append(rs, int64(rng.Uint64N(uint64(x.records))))
	}
	for _, r := range rs {
		if got, w := x.find(r), want(r); got != w {
			t.Fatalf("find(%d) = slot %d, the counts say %d", r, got, w)
		}
	}
}

// Random inserts and deletes at the workload's rates (each picks a leaf in
// proportion to its records) keep the index consistent: records and slots
// conserved, no leaf above a page, the tree and the list agreeing; and
// splits and merges fall as the packed sorted build relaxes.
func TestSecIndexProperties(t *testing.T) {
	c := DefaultIndex()
	const rows = 100_000
	x := builtIndex(rows, c)
	rng := sim.New(1).Stream("t")
	var op indexOp
	var events [4]int64 // splits+merges per quarter of the run
	const steps = 400_000
	for i := 0; i < steps; i++ {
		op.reset()
		before := x.Splits + x.Merges
		switch i % 2 {
		case 0: // UPDATE k=k+1
			x.remove(x.insert(x.pick(rng), rng.Uint64()&1 == 1, &c, &op), &c, &op)
		default: // DELETE + INSERT
			x.remove(x.pick(rng), &c, &op)
			x.insert(x.pick(rng), rng.Uint64()&1 == 1, &c, &op)
		}
		events[i*4/steps] += x.Splits + x.Merges - before
		if x.records != rows {
			t.Fatalf("step %d: %d records, want %d", i, x.records, rows)
		}
		if i%20_000 == 0 {
			if err := x.check(); err != nil {
				t.Fatalf("step %d: %v", i, err)
			}
			checkFind(t, x, rng)
		}
	}
	if err := x.check(); err != nil {
		t.Fatal(err)
	}
	if x.Full != 0 {
		t.Errorf("%d inserts found no free slot", x.Full)
	}
	if !(events[0] > events[1] && events[1] > events[3]) {
		t.Errorf("splits+merges per quarter %v: they must fall with the data's age", events)
	}
	sh := x.shape
	fill := float64(x.records) / float64(x.leaves*sh.full)
	if fill < 0.5 || fill > 0.95 {
		t.Errorf("fill after %d steps %.2f, want between a half and a packed page", steps, fill)
	}
	t.Logf("events per quarter %v, leaves %d (built %d), fill %.3f", events, x.leaves, builtLeaves(rows, sh), fill)
}

// In the engine, the pages of index k exist exactly while their leaves do:
// a page a split creates takes a frame and is dirty, a page a merge frees
// gives its frame back and is never written; records are conserved per
// transaction; and the redo of splits and merges is in the log.
func TestIndexPagesOccupyFrames(t *testing.T) {
	for _, pool := range []sim.Bytes{512 * sim.MiB, 64 * sim.MiB} {
		t.Run(fmt.Sprint(pool), func(t *testing.T) {
			cfg := DefaultConfig()
			cfg.BufferPool.Size = pool
			cfg.Redo.LogFileSize = 64 * sim.MiB
			cfg.Redo.LogBufferSize = 2 * sim.MiB
			d := newLoadDriver(t, cfg, 4, 50_000)
			e := d.e
			var failed string
			d.check = func() {
				if failed != "" {
					return
				}
				if failed = poolProperties(e); failed != "" {
					return
				}
				stray := 0
				for p := int32(0); p < e.rsegBase; p++ {
					if e.pageExists(p) {
						continue
					}
					if e.BP.IsDirty(p) {
						failed = fmt.Sprintf("page %d of a freed or unused slot is dirty", p)
						return
					}
					if e.BP.IsResident(p) {
						stray++ // freed while its write was in flight
					}
				}
				if stray > 64 {
					failed = fmt.Sprintf("%d freed pages hold frames", stray)
					return
				}
				for _, x := range e.ix {
					if x.records != 50_000 {
						failed = fmt.Sprintf("index holds %d records, want 50000", x.records)
					}
				}
			}
			lsn0 := e.Redo.lsn
			d.run(8, 3*time.Second)
			if failed != "" {
				t.Fatal(failed)
			}
			if err := e.CheckIndex(); err != nil {
				t.Fatal(err)
			}
			st := e.Stats().Index
			if st.Splits == 0 || st.Merges == 0 || st.Leaves <= st.BuiltLeaves {
				t.Fatalf("index stats %+v: the packed build must split", st)
			}
			// The log holds the statements' fixed redo plus the index's.
			r := e.cfg.Redo
			perTx := uint64(r.UpdateIndex + r.UpdateNonIndex + r.Delete + r.Insert + r.Purge + r.Commit)
			if got, want := e.Redo.lsn-lsn0, uint64(d.txs)*perTx+uint64(e.IndexRedo); got < want || got > want+1<<20 {
				t.Errorf("redo %d, want %d (%d tx, index %d) plus checkpoint records", got, want, d.txs, e.IndexRedo)
			}
			if pool == 512*sim.MiB {
				// The pool holds every page: each existing one is resident.
				n, stray := 0, 0
				for p := 0; p < e.BP.npages; p++ {
					switch {
					case e.pageExists(int32(p)):
						n++
						if !e.BP.IsResident(int32(p)) {
							t.Fatalf("existing page %d not resident", p)
						}
					case e.BP.IsResident(int32(p)):
						stray++
					}
				}
				if n+stray != e.BP.resident {
					t.Errorf("%d pages exist and %d freed ones hold frames, %d resident", n, stray, e.BP.resident)
				}
			}
		})
	}
}

// index.age replays the load before the run: an aged index splits less.
func TestIndexAge(t *testing.T) {
	run := func(age int64) IndexStats {
		cfg := DefaultConfig()
		cfg.BufferPool.Size = 512 * sim.MiB
		cfg.Index.Age = age
		d := newLoadDriver(t, cfg, 4, 50_000)
		if age > 0 && d.e.Stats().Index.Leaves <= d.e.Stats().Index.BuiltLeaves {
			t.Fatalf("age %d left the built leaves", age)
		}
		d.run(8, 2*time.Second)
		st := d.e.Stats().Index
		st.Redo /= max(d.txs, 1)
		return st
	}
	fresh, aged := run(0), run(200_000)
	if !(aged.Splits < fresh.Splits/2 && aged.Redo < fresh.Redo/2) {
		t.Errorf("fresh %+v, aged %+v: the aged index must split and log less", fresh, aged)
	}
}

func TestIndexConfigValidate(t *testing.T) {
	configtest.RejectsNaming(t, DefaultConfig, []configtest.Case[Config]{
		configtest.Bad(func(c *Config) { c.Index.FillFactor = 5 }, "index.fill_factor"),
		configtest.Bad(func(c *Config) { c.Index.MergeThreshold = 60 }, "index.merge_threshold"),
		configtest.Bad(func(c *Config) { c.Index.RecordBytes = 2 }, "index.record_bytes"),
		configtest.Bad(func(c *Config) { c.Index.SplitRedo = -1 }, "index.split_redo"),
		configtest.Bad(func(c *Config) { c.Index.Age = -1 }, "index.age"),
	})
}

// Index operations allocate nothing once the index and the operation
// buffer have their working size (one simulation is allocation-free per
// event in steady state).
func TestSecIndexNoAllocs(t *testing.T) {
	c := DefaultIndex()
	sh := newLeafShape(c)
	x := newSecIndex(50_000, sh, indexSlots(builtLeaves(50_000, sh)), 0)
	rng := sim.New(2).Stream("t")
	var op indexOp
	step := func() {
		op.reset()
		x.remove(x.insert(x.pick(rng), rng.Uint64()&1 == 1, &c, &op), &c, &op)
		x.remove(x.pick(rng), &c, &op)
		x.insert(x.pick(rng), rng.Uint64()&1 == 1, &c, &op)
	}
	for i := 0; i < 20_000; i++ {
		step()
	}
	if a := testing.AllocsPerRun(2000, step); a != 0 {
		t.Errorf("%v allocations per transaction's index operations", a)
	}
}

// BenchmarkSecIndexFind draws leaves of a study-sized index (1M rows, aged
// by splits and merges) as PlanPages does.
func BenchmarkSecIndexFind(b *testing.B) {
	c := DefaultIndex()
	x := builtIndex(1_000_000, c)
	rng := sim.New(1).Stream("b")
	var op indexOp
	for range 200_000 {
		op.reset()
		x.remove(x.pick(rng), &c, &op)
		x.insert(x.pick(rng), rng.Uint64()&1 == 1, &c, &op)
	}
	b.ResetTimer()
	s := 0
	for range b.N {
		s += x.pick(rng)
	}
	if s < 0 {
		b.Fatal(s)
	}
}

// builtIndex is a table's index k of rows records as the sorted build
// leaves it, with the engine's slots for it.
func builtIndex(rows int64, c IndexConfig) *secIndex {
	sh := newLeafShape(c)
	return newSecIndex(rows, sh, indexSlots(builtLeaves(rows, sh)), 0)
}
