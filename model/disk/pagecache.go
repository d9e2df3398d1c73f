package disk

import (
	"fmt"
	"slices"
	"time"

	"simrun/sim"
)

// PageCache is the kernel's page cache in front of one File opened without
// O_DIRECT, as a database that writes whole pages at page-aligned offsets
// uses it (InnoDB's data files under MySQL 5.1's default flush method).
// A write copies into the cache and completes at once; the page stays
// dirty until a Sync (fsync: every dirty page is written, sorted by offset
// as the elevator dispatches them, adjacent pages in one request, then the
// file's flush) or the kernel flusher writes it back (every writeback
// period, the file's pages once they have been dirty for dirty_expire). A
// read of a cached page is a copy; a miss reads the device and caches the
// page. Clean pages are kept up to capacity pages and replaced by CLOCK
// (a second-chance approximation of the kernel's active/inactive lists);
// dirty pages are never evicted. The write-back throttle (dirty_ratio) is
// not modelled: the caller is expected to sync often.
type PageCache struct {
	env   *sim.Env
	f     *File
	src   Source
	page  int64
	limit int // page slots (the file's size in pages)
	cap   int

	state []uint8 // per page: pcCached, pcDirty, pcRef
	ring  []int32 // cached pages in CLOCK order
	hand  int
	dirty []int32 // dirty pages, unsorted
	since sim.Time

	expire, period time.Duration
	reads          sim.Pool[pcRead]
	readCB         func(any)
	flushCB        func()

	Hits, Misses, Writebacks, Synced int64 // reads served / read from the device; flusher runs that wrote; pages written
}

const (
	pcCached uint8 = 1 << iota
	pcDirty
	pcRef
	pcExtra // held beyond capacity, not in the ring: leaves once written
)

type pcRead struct {
	c    *PageCache
	p    int32
	done func(any)
	arg  any
}

// NewPageCache puts a page cache of capacity pages of page bytes in front
// of f, whose offsets are below pages × page; src tags the write-back.
// expire and period are the flusher's dirty_expire and writeback period
// (0: no background write-back). It panics on a size out of range.
func NewPageCache(env *sim.Env, f *File, src Source, page int64, pages, capacity int, expire, period time.Duration) *PageCache {
	if page < 512 || pages < 1 || capacity < 0 {
		panic(fmt.Sprintf("disk: page cache of %d pages of %d B, capacity %d", pages, page, capacity))
	}
	c := &PageCache{env: env, f: f, src: src, page: page, limit: pages, cap: capacity, state: make([]uint8, pages),
		expire: expire, period: period}
	c.readCB = c.onRead
	c.flushCB = c.flusher
	if period > 0 {
		env.After(period, c.flushCB)
	}
	return c
}

// File returns the file behind the cache.
func (c *PageCache) File() *File { return c.f }

// Dirty returns the number of dirty pages.
func (c *PageCache) Dirty() int { return len(c.dirty) }

// Cached returns the number of pages in the cache.
func (c *PageCache) Cached() int { return len(c.ring) }

func (c *PageCache) pages(off, size int64) (int32, int32) {
	if off < 0 || size <= 0 || off%c.page != 0 || size%c.page != 0 || (off+size)/c.page > int64(c.limit) {
		panic(fmt.Sprintf("disk: page cache of %s: I/O of %d B at %d", c.f.name, size, off))
	}
	return int32(off / c.page), int32((off + size) / c.page)
}

// WriteAt copies size bytes at off into the cache; done(arg) runs now,
// from the event loop.
func (c *PageCache) WriteAt(off, size int64, _ Source, done func(any), arg any) {
	from, to := c.pages(off, size)
	for p := from; p < to; p++ {
		c.insert(p)
		if c.state[p]&pcDirty == 0 {
			if len(c.dirty) == 0 {
				c.since = c.env.Now()
			}
			c.state[p] |= pcDirty
			c.dirty = append(c.dirty, p)
		}
	}
	if done != nil {
		c.env.AfterArg(0, done, arg)
	}
}

// ReadAt reads size bytes at off: a copy if every page is cached,
// otherwise a device read of the range, whose pages are then cached.
func (c *PageCache) ReadAt(off, size int64, src Source, done func(any), arg any) {
	from, to := c.pages(off, size)
	hit := true
	for p := from; p < to; p++ {
		if c.state[p]&pcCached == 0 {
			hit = false
			break
		}
	}
	if hit {
		c.Hits++
		for p := from; p < to; p++ {
			c.state[p] |= pcRef
		}
		c.env.AfterArg(0, done, arg)
		return
	}
	c.Misses++
	r := c.reads.Get()
	*r = pcRead{c: c, p: from, done: done, arg: arg}
	// A multi-page read (none of InnoDB's page reads is one) caches its
	// first page only.
	c.f.ReadAt(off, size, src, c.readCB, r)
}

func (c *PageCache) onRead(a any) {
	r := a.(*pcRead)
	c.insert(r.p)
	done, arg := r.done, r.arg
	*r = pcRead{}
	c.reads.Put(r)
	done(arg)
}

// insert caches page p (referenced), evicting clean pages beyond capacity.
func (c *PageCache) insert(p int32) {
	if c.state[p]&pcCached != 0 {
		c.state[p] |= pcRef
		return
	}
	if c.cap == 0 {
		// No room for clean pages: only dirty ones are held, until written.
		c.state[p] |= pcCached | pcExtra
		return
	}
	if len(c.ring) < c.cap {
		c.ring = append(c.ring, p)
		c.state[p] |= pcCached | pcRef
		return
	}
	for n := 0; n < 2*len(c.ring); n++ {
		v := c.ring[c.hand]
		s := c.state[v]
		switch {
		case s&pcDirty != 0:
		case s&pcRef != 0:
			c.state[v] = s &^ pcRef
		default:
			c.state[v] = 0
			c.ring[c.hand] = p
			c.state[p] |= pcCached | pcRef
			c.hand = (c.hand + 1) % len(c.ring)
			return
		}
		c.hand = (c.hand + 1) % len(c.ring)
	}
	// Every cached page is dirty: hold p beyond capacity until written.
	c.state[p] |= pcCached | pcExtra
}

// writeDirty sends every dirty page to the device, sorted by offset, one
// request per run of adjacent pages (the volume splits at max_io_size);
// kernel says the flusher thread submits them, not the syncing process.
func (c *PageCache) writeDirty(kernel bool) {
	if len(c.dirty) == 0 {
		return
	}
	slices.Sort(c.dirty)
	run := c.dirty[0]
	for i, p := range c.dirty {
		c.clean(p)
		if i+1 < len(c.dirty) && c.dirty[i+1] == p+1 {
			continue
		}
		c.f.write(int64(run)*c.page, int64(p-run+1)*c.page, c.src, kernel, nil, nil)
		if i+1 < len(c.dirty) {
			run = c.dirty[i+1]
		}
	}
	c.Synced += int64(len(c.dirty))
	c.dirty = c.dirty[:0]
}

// clean marks p written; a page held beyond capacity leaves the cache.
func (c *PageCache) clean(p int32) {
	s := c.state[p] &^ pcDirty
	if s&pcExtra != 0 {
		s = 0
	}
	c.state[p] = s
}

// Sync is fsync: the dirty pages are written, then the file is flushed;
// done(arg) runs when that completes.
func (c *PageCache) Sync(done func(any), arg any) {
	c.writeDirty(false)
	c.f.Sync(done, arg)
}

// flusher is one run of the kernel's flusher thread: the file's dirty
// pages are written back once the inode has been dirty for expire.
func (c *PageCache) flusher() {
	if len(c.dirty) > 0 && c.env.Now().Sub(c.since) >= c.expire {
		c.Writebacks++
		c.writeDirty(true)
	}
	c.env.After(c.period, c.flushCB)
}
