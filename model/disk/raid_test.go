package disk

import (
	"testing"
	"time"

	"simrun/sim"
)

// constMember is a member volume with constant latencies and no transfer
// time, so that the array's timing can be checked by hand.
func constMember(writeCache bool) Config {
	cfg := DefaultConfig()
	cfg.ReadLatency = sim.ConstantDist(sim.Duration(500 * time.Microsecond))
	cfg.WriteLatency = sim.ConstantDist(sim.Duration(800 * time.Microsecond))
	cfg.FlushLatency = sim.ConstantDist(sim.Duration(400 * time.Microsecond))
	cfg.TransferRate = 0
	if writeCache {
		cfg.WriteCache, cfg.WriteCacheSize, cfg.DestageRate = true, 64*sim.MiB, 500*sim.Rate(sim.MB)
	}
	return cfg
}

func newTestArray(t testing.TB, env *sim.Env, n int, chunk int64, cfg Config) *Array {
	t.Helper()
	a, err := NewArray(env, cfg, n, chunk)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func TestArrayStripeSpreadsBytes(t *testing.T) {
	tests := []struct {
		name        string
		members     int
		chunk, size int64
		wantPer     int64 // bytes on every member
		wantWrites  int64 // device writes on every member
	}{
		{"full rounds", 4, 64 << 10, 1 << 20, 256 << 10, 1},
		{"one member", 1, 64 << 10, 300 << 10, 300 << 10, 2}, // max_io_size 256 KiB splits it
		{"eight chunks on two", 2, 4096, 8 * 4096, 4 * 4096, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			env := sim.New(1)
			a := newTestArray(t, env, tc.members, tc.chunk, constMember(false))
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
				if io.WriteBytes != tc.wantPer || io.Writes != tc.wantWrites {
					t.Errorf("member %d wrote %d bytes in %d I/Os, want %d in %d", i, io.WriteBytes, io.Writes, tc.wantPer, tc.wantWrites)
				}
			}
		})
	}
}

// A sync flushes every member; a grown file's sync commits the same jbd2
// journal as on one volume (journal blocks, a flush of every member, the
// commit block, and a flush after it on a volatile write cache).
func TestArraySyncFlushesAllMembersAndJournalsGrowth(t *testing.T) {
	const w, fl = 800 * time.Microsecond, 400 * time.Microsecond
	tests := []struct {
		prealloc, cache bool
		flushes         int64 // per member
		at              time.Duration
		commits         int64
	}{
		{true, false, 1, w + fl, 0},
		{false, false, 1, w + w + fl + w, 1},
		{false, true, 2, 0, 1}, // times depend on the cache's destaging
	}
	for _, tc := range tests {
		env := sim.New(1)
		a := newTestArray(t, env, 4, 64<<10, constMember(tc.cache))
		src := a.RegisterSource("log")
		f := a.OpenFile("log", tc.prealloc)
		var at sim.Time
		f.Append(4096, src, nil, nil)
		f.Sync(func(any) { at = env.Now() }, nil)
		env.Run()
		for i, v := range a.Volumes() {
			if got := v.Iostat().Flushes; got != tc.flushes {
				t.Errorf("%+v: member %d flushes = %d, want %d", tc, i, got, tc.flushes)
			}
		}
		if want := sim.At(tc.at); tc.at > 0 && at != want {
			t.Errorf("%+v: sync done at %v, want %v", tc, at, want)
		}
		if got := a.JournalCommits(); got != tc.commits {
			t.Errorf("%+v: journal commits = %d, want %d", tc, got, tc.commits)
		}
	}
}

func TestArraySyncWaitsForEarlierWritesOnly(t *testing.T) {
	env := sim.New(1)
	a := newTestArray(t, env, 2, 4096, constMember(false))
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

// With one member and a chunk larger than any request the array is the
// volume: the same I/Os at the same times.
func TestArrayOfOneIsTheVolume(t *testing.T) {
	run := func(dev interface {
		OpenFile(string, bool) *File
		RegisterSource(string) Source
	}, env *sim.Env) []sim.Time {
		src := dev.RegisterSource("log")
		f := dev.OpenFile("log", false)
		var at []sim.Time
		for i := range 20 {
			f.Append(int64(512*(i+1)), src, nil, nil)
			f.Sync(func(any) { at = append(at, env.Now()) }, nil)
		}
		env.Run()
		return at
	}
	cfg := DefaultConfig()
	env1 := sim.New(3)
	v, err := New(env1, func() Config { c := cfg; c.Name = cfg.Name + "/member0"; return c }())
	if err != nil {
		t.Fatal(err)
	}
	want := run(v, env1)
	env2 := sim.New(3)
	got := run(newTestArray(t, env2, 1, 1<<30, cfg), env2)
	if len(got) != len(want) {
		t.Fatalf("%d syncs on the array, %d on the volume", len(got), len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("sync %d done at %v on the array, %v on the volume", i, got[i], want[i])
		}
	}
}

func TestArrayBadConfig(t *testing.T) {
	env := sim.New(1)
	if _, err := NewArray(env, DefaultConfig(), 2, 1000); err == nil {
		t.Error("chunk 1000 accepted")
	}
	if _, err := NewArray(env, DefaultConfig(), 0, 4096); err == nil {
		t.Error("no members accepted")
	}
	bad := DefaultConfig()
	bad.QueueDepth = 0
	if _, err := NewArray(env, bad, 2, 4096); err == nil {
		t.Error("a bad member configuration accepted")
	}
}

// Steady state allocates nothing per I/O on an array either.
func TestArraySteadyStateAllocs(t *testing.T) {
	env := sim.New(1)
	a := newTestArray(t, env, 4, 64<<10, loadPreset(t, "nvme-consumer"))
	c := newCommitter(a.OpenFile("log", false), a.RegisterSource("log"), 96<<10)
	c.next()
	noSteadyAllocs(t, env)
	if c.commits == 0 {
		t.Fatal("no commits")
	}
}
