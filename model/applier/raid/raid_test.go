package raid

import (
	"testing"
	"time"

	"simrun/model/disk"
	"simrun/sim"
)

func newArray(t testing.TB, env *sim.Env, n int, chunk int64) *Array {
	t.Helper()
	vols := make([]*disk.Volume, n)
	for i := range vols {
		cfg := disk.DefaultConfig()
		cfg.Name = cfg.Name + "-" + string(rune('a'+i))
		cfg.ReadLatency = sim.ConstantDist(sim.Duration(500 * time.Microsecond))
		cfg.WriteLatency = sim.ConstantDist(sim.Duration(800 * time.Microsecond))
		cfg.FlushLatency = sim.ConstantDist(sim.Duration(400 * time.Microsecond))
		cfg.TransferRate = 0
		v, err := disk.New(env, cfg)
		if err != nil {
			t.Fatal(err)
		}
		vols[i] = v
	}
	a, err := New(env, vols, chunk)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func TestStripeSpreadsBytes(t *testing.T) {
	tests := []struct {
		name        string
		members     int
		chunk, size int64
		wantPer     int64 // bytes on every member
	}{
		{"full rounds", 4, 64 << 10, 1 << 20, 256 << 10},
		{"one member", 1, 64 << 10, 300 << 10, 300 << 10},
		{"eight chunks on two", 2, 4096, 8 * 4096, 4 * 4096},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			env := sim.New(1)
			a := newArray(t, env, tc.members, tc.chunk)
			src := a.RegisterSource("data")
			f := a.OpenFile("f", true)
			done := false
			f.WriteAt(0, tc.size, src, func(any) { done = true }, nil)
			env.Run()
			if !done {
				t.Fatal("write never completed")
			}
			for i, v := range a.Volumes() {
				io := v.Iostat()
				if io.WriteBytes != tc.wantPer {
					t.Errorf("member %d wrote %d bytes, want %d", i, io.WriteBytes, tc.wantPer)
				}
			}
		})
	}
}

func TestSyncFlushesAllMembersAndJournalsGrowth(t *testing.T) {
	for _, prealloc := range []bool{true, false} {
		env := sim.New(1)
		a := newArray(t, env, 4, 64<<10)
		src := a.RegisterSource("log")
		f := a.OpenFile("log", prealloc)
		var at sim.Time
		f.Append(4096, src, nil, nil)
		f.Sync(func(any) { at = env.Now() }, nil)
		env.Run()
		for i, v := range a.Volumes() {
			if got := v.Iostat().Flushes; got != 1 {
				t.Errorf("prealloc=%v: member %d flushes = %d, want 1", prealloc, i, got)
			}
		}
		want := sim.At(800*time.Microsecond + 400*time.Microsecond)
		commits := int64(0)
		if !prealloc {
			want += sim.At(800 * time.Microsecond) // journal block write
			commits = 1
		}
		if at != want {
			t.Errorf("prealloc=%v: sync done at %v, want %v", prealloc, at, want)
		}
		if got := a.JournalCommits(); got != commits {
			t.Errorf("prealloc=%v: journal commits = %d, want %d", prealloc, got, commits)
		}
	}
}

func TestSyncWaitsForEarlierWritesOnly(t *testing.T) {
	env := sim.New(1)
	a := newArray(t, env, 2, 4096)
	src := a.RegisterSource("log")
	f := a.OpenFile("log", true)
	var order []string
	f.Append(8192, src, func(any) { order = append(order, "w1") }, nil)
	f.Sync(func(any) { order = append(order, "sync") }, nil)
	env.Run()
	if len(order) != 2 || order[0] != "w1" || order[1] != "sync" {
		t.Fatalf("order = %v, want [w1 sync]", order)
	}
}

func TestBadChunk(t *testing.T) {
	env := sim.New(1)
	v, _ := disk.New(env, disk.DefaultConfig())
	if _, err := New(env, []*disk.Volume{v}, 1000); err == nil {
		t.Fatal("chunk 1000 accepted")
	}
	if _, err := New(env, nil, 4096); err == nil {
		t.Fatal("no members accepted")
	}
}
