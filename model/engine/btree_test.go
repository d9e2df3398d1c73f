package engine

import (
	"math"
	"testing"

	"simrun/sim"
)

// pages is a PageAllocator handing out consecutive ids.
type pages struct{ next int32 }

func (p *pages) NewPage() int32 { p.next++; return p.next - 1 }

func TestSeqIndexFill(t *testing.T) {
	for _, rec := range []int{44, 88, 200} {
		a := &pages{}
		s := NewSeqIndex(rec, 40, a)
		var tch Touched
		const n = 100_000
		for i := 0; i < n; i++ {
			tch.Reset()
			s.Insert(a, &tch)
		}
		per := (PageUsable - PageSize/16) / rec
		if want := int64((n + per - 1) / per); s.Leaves != want {
			t.Errorf("rec %d: %d leaves, want ceil(%d / %d) = %d", rec, s.Leaves, n, per, want)
		}
		// 15/16 of the page, to within one record's rounding.
		if f := s.FillFactor(); math.Abs(f-15.0/16) > float64(rec)/PageUsable+0.01 {
			t.Errorf("rec %d: fill %.3f, want about 15/16", rec, f)
		}
		if int(a.next) != int(s.Leaves+s.NonLeaf) {
			t.Errorf("rec %d: %d pages allocated, index has %d + %d", rec, a.next, s.Leaves, s.NonLeaf)
		}
	}
}

func TestRandIndexFill(t *testing.T) {
	tests := []struct {
		name   string
		key    func(i int, r *sim.Stream) uint64
		lo, hi float64
		reason string
	}{
		{"random", func(_ int, r *sim.Stream) uint64 { return r.Uint64() >> 2 }, 0.64, 0.74,
			"random inserts into middle-split leaves: about ln 2 (Yao 1978)"},
		{"ascending", func(i int, _ *sim.Stream) uint64 { return uint64(i+1) << 20 }, 0.97, 1.0,
			"inserts after the last one split at the insert point: full leaves"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			env := sim.New(3)
			rng := env.Stream("test")
			a := &pages{}
			own := NewPageOwners(1 << 16)
			ix := NewRandIndex(71, 75, a, 0, own)
			var tch Touched
			const n = 300_000
			for i := 0; i < n; i++ {
				k := tc.key(i, rng)
				tch.Reset()
				ix.Insert(ix.Find(k), k, 1, a, &tch)
			}
			if err := ix.Check(); err != nil {
				t.Fatal(err)
			}
			f := ix.FillFactor()
			if f < tc.lo || f > tc.hi {
				t.Errorf("fill %.3f, want in [%.2f, %.2f]: %s", f, tc.lo, tc.hi, tc.reason)
			}
			if got, want := float64(ix.Leaves), float64(n)/(f*float64(ix.PerLeaf())); math.Abs(got-want) > 1 {
				t.Errorf("%v leaves, records / (fill x capacity) = %.1f", got, want)
			}
			if int64(a.next) != ix.Leaves+ix.NonLeaf {
				t.Errorf("%d pages allocated, index has %d + %d", a.next, ix.Leaves, ix.NonLeaf)
			}
		})
	}
}

// A merge of many buffered records splits the leaf as often as needed and
// leaves every leaf within its capacity.
func TestRandIndexMerge(t *testing.T) {
	a := &pages{}
	ix := NewRandIndex(44, 48, a, 0, NewPageOwners(1024))
	var tch Touched
	ix.Insert(ix.Find(1<<40), 1<<40, 1, a, &tch)
	ix.Insert(ix.Find(1<<41), 1<<41, 3*ix.PerLeaf(), a, &tch)
	if err := ix.Check(); err != nil {
		t.Fatal(err)
	}
	if ix.Leaves < 4 {
		t.Errorf("%d leaves after merging %d records", ix.Leaves, 3*ix.PerLeaf()+1)
	}
}

func TestLogMaxAges51(t *testing.T) {
	// bulkload-notes §0: 2 x 5 MiB gives 7.42 MiB (async 6.49, sync 6.96);
	// 2 x 512 MiB gives 829 MiB (725 / 777).
	for _, tc := range []struct {
		size              sim.Bytes
		capa, sync, async float64 // MiB
	}{
		{5 * sim.MiB, 7.42, 6.96, 6.49},
		{512 * sim.MiB, 829, 777, 725},
	} {
		c, s, a := LogMaxAges51(tc.size, 2, 0)
		mib := func(x uint64) float64 { return float64(x) / (1 << 20) }
		for _, x := range []struct{ got, want float64 }{{mib(c), tc.capa}, {mib(s), tc.sync}, {mib(a), tc.async}} {
			if math.Abs(x.got-x.want) > 0.01*x.want {
				t.Errorf("%v: got %.2f MiB, want %.2f", tc.size, x.got, x.want)
			}
		}
	}
}
