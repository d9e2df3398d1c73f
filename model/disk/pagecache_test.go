package disk

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"simrun/sim"
)

func newCache(t *testing.T, capacity int, expire, period time.Duration) (*sim.Env, *Volume, *PageCache) {
	t.Helper()
	env := sim.New(1)
	cfg := DefaultConfig()
	vol, err := New(env, cfg)
	if err != nil {
		t.Fatal(err)
	}
	src := vol.RegisterSource("data")
	f := vol.OpenFile("ibdata1", true)
	return env, vol, NewPageCache(env, f, src, 16384, 64, capacity, expire, period)
}

// TestPageCacheSyncSorted: writes are copies that complete at once and
// reach the device only at fsync, sorted by offset with adjacent pages in
// one request; a rewritten dirty page is written once.
func TestPageCacheSyncSorted(t *testing.T) {
	env, vol, c := newCache(t, 8, 0, 0)
	done := 0
	for _, p := range []int64{10, 4, 3, 5, 4} {
		c.WriteAt(p*16384, 16384, 0, func(any) { done++ }, nil)
	}
	env.RunUntil(sim.At(time.Millisecond))
	if done != 5 || vol.Iostat().Writes != 0 {
		t.Fatalf("before the sync: %d writes done, %d device writes; want 5 and 0", done, vol.Iostat().Writes)
	}
	synced := false
	c.Sync(func(any) { synced = true }, nil)
	env.Run()
	io := vol.Iostat()
	got := []int64{io.Writes, io.WriteBytes, int64(c.Dirty()), c.Synced}
	if want := []int64{2, 4 * 16384, 0, 4}; !synced || !cmp.Equal(got, want) {
		t.Errorf("sync: done %v, [writes bytes dirty synced] = %v, want %v", synced, got, want)
	}
}

// TestPageCacheReads: a written or read page is then a hit; beyond the
// capacity the least recently referenced clean page is evicted (CLOCK);
// with no room for clean pages, a written page leaves once written.
func TestPageCacheReads(t *testing.T) {
	env, vol, c := newCache(t, 2, 0, 0)
	read := func(p int64) {
		c.ReadAt(p*16384, 16384, 0, func(any) {}, nil)
		env.Run()
	}
	c.WriteAt(0, 16384, 0, nil, nil)
	read(0) // hit: the dirty page
	read(1) // miss
	read(1) // hit
	read(2) // miss: the cache is full, evicts a clean page by CLOCK
	if c.Cached() != 2 {
		t.Errorf("cached %d pages, want the capacity 2", c.Cached())
	}
	got := []int64{c.Hits, c.Misses, vol.Iostat().Reads}
	if want := []int64{2, 2, 2}; !cmp.Equal(got, want) {
		t.Errorf("[hits misses device reads] = %v, want %v", got, want)
	}

	env, _, c = newCache(t, 0, 0, 0)
	c.WriteAt(16384, 16384, 0, nil, nil)
	c.ReadAt(16384, 16384, 0, func(any) {}, nil)
	c.Sync(func(any) {}, nil)
	env.Run()
	c.ReadAt(16384, 16384, 0, func(any) {}, nil)
	env.Run()
	if c.Hits != 1 || c.Misses != 1 {
		t.Errorf("capacity 0: hits %d misses %d, want 1 (dirty) and 1 (after write-back)", c.Hits, c.Misses)
	}
}

// TestPageCacheFlusher: the kernel flusher writes dirty pages back once
// they have been dirty for dirty_expire, at its next period.
func TestPageCacheFlusher(t *testing.T) {
	env, vol, c := newCache(t, 8, 30*time.Second, 5*time.Second)
	env.RunUntil(sim.At(time.Second))
	c.WriteAt(0, 2*16384, 0, nil, nil)
	env.RunUntil(sim.At(30 * time.Second))
	if vol.Iostat().Writes != 0 {
		t.Fatalf("written back before dirty_expire")
	}
	env.RunUntil(sim.At(36 * time.Second))
	if w, d := vol.Iostat().Writes, c.Dirty(); w != 1 || d != 0 || c.Writebacks != 1 {
		t.Errorf("after expire: %d device writes, %d dirty, %d write-backs; want 1, 0, 1", w, d, c.Writebacks)
	}
}
