package engine

import (
	"fmt"

	"simrun/sim"
)

// A page's word holds its oldest-modification LSN in the low 61 bits and
// three state bits, so that an access touches one cache line.
const (
	pgResident uint64 = 1 << 63
	pgRef      uint64 = 1 << 62 // referenced since the clock hand last passed
	pgIOFix    uint64 = 1 << 61 // a write of the page is in flight: its frame cannot be freed (buf_page_t::io_fix)
	lsnMask    uint64 = pgIOFix - 1
)

// The buffer pool's memory is allocated in extents of 8 MiB, and each
// extent begins with the block descriptors (buf_block_t) of its own frames,
// so a 16 KiB-page extent holds floor(8 MiB / (16 KiB + descriptor)) frames
// (MariaDB >= 10.11.12, buf0buf.cc first_page() and pages_in_extent[];
// innodb_buffer_pool_extent_size in buf0buf.h). sizeof(buf_block_t) is not
// in the source as a number: the realdb host's Innodb_buffer_pool_pages_total
// (162,240 for 2560M, 259,584 for 4G: 507 per extent) puts it in (128, 161]
// bytes.
const (
	poolExtent      = 8 << 20
	blockDescriptor = 160
)

// PoolFrames returns the page frames of a buffer pool of size bytes.
func PoolFrames(size sim.Bytes) int {
	per := int64(poolExtent / (PageSize + blockDescriptor))
	n := int64(size) / poolExtent * per
	n += int64(size) % poolExtent / (PageSize + blockDescriptor)
	return int(max(n, 1))
}

// BufferPool tracks, per page id, whether the page is resident and its
// oldest modification LSN (0 = clean), and keeps dirty pages in a flush
// list ordered by that LSN. A page's oldest-modification LSN is set when it
// turns dirty and never changes until it is written, so the flush list is a
// FIFO (InnoDB's buf_pool.flush_list is exactly this). Pages cleaned out of
// order (evictions) leave stale entries that are skipped when they reach
// the head.
//
// Replacement is CLOCK (second chance), a standard approximation of
// InnoDB's LRU with its midpoint insertion: hot pages keep their reference
// bit and survive, cold clean pages are evicted.
type BufferPool struct {
	npages   int
	frames   int
	word     []uint64             // per page: state bits | oldest modification LSN (0 = clean)
	fl       sim.FIFO[flushEntry] // the flush list: dirty pages by oldest modification
	dirty    int
	resident int
	hand     int

	Hits, Misses int64
}

// flushEntry is one flush-list entry: the page and the LSN at which it
// turned dirty; stale when the page's oldest LSN no longer equals it.
type flushEntry struct {
	lsn  uint64
	page int32
}

// NewBufferPool returns a pool of frames frames over npages page ids. If
// warm, the first min(frames, npages) pages start resident (and clean).
func NewBufferPool(npages, frames int, warm bool) *BufferPool {
	if npages < 1 || frames < 1 {
		panic(fmt.Sprintf("engine: buffer pool of %d frames over %d pages", frames, npages))
	}
	b := &BufferPool{npages: npages, frames: frames, word: make([]uint64, npages)}
	if warm {
		n := min(frames, npages)
		for p := 0; p < n; p++ {
			b.word[p] = pgResident
		}
		b.resident = n
	}
	return b
}

// Pages returns the number of page ids.
func (b *BufferPool) Pages() int { return b.npages }

// Frames returns the pool size in pages.
func (b *BufferPool) Frames() int { return b.frames }

// Dirty returns the number of dirty pages.
func (b *BufferPool) Dirty() int { return b.dirty }

// Resident returns the number of resident pages.
func (b *BufferPool) Resident() int { return b.resident }

// IsResident reports whether page p is in the pool.
func (b *BufferPool) IsResident(p int32) bool { return b.word[p]&pgResident != 0 }

// IsDirty reports whether page p is dirty.
func (b *BufferPool) IsDirty(p int32) bool { return b.word[p]&lsnMask != 0 }

// oldest returns page p's oldest modification LSN (0 = clean).
func (b *BufferPool) oldest(p int32) uint64 { return b.word[p] & lsnMask }

// Touch records an access to resident page p that modifies it at lsn
// (lsn 0 = a read only). It reports false, and does nothing, if p is not
// resident: the caller must read it first.
func (b *BufferPool) Touch(p int32, lsn uint64) bool {
	w := b.word[p]
	if w&pgResident == 0 {
		b.Misses++
		return false
	}
	b.Hits++
	if lsn != 0 && w&lsnMask == 0 {
		w |= lsn
		b.fl.Push(flushEntry{lsn, p})
		b.dirty++
	}
	b.word[p] = w | pgRef
	return true
}

// HasFree reports whether a frame is free.
func (b *BufferPool) HasFree() bool { return b.resident < b.frames }

// Free returns the length of the free list: frames holding no page.
func (b *BufferPool) Free() int { return b.frames - b.resident }

// IsOld reports whether resident page p is in the old end of the LRU: not
// referenced since the clock hand last passed (buf_page_t::is_old).
func (b *BufferPool) IsOld(p int32) bool {
	return b.word[p]&(pgResident|pgRef) == pgResident
}

// IOFix marks page p as being written: Victim, NextOld and Evict leave its
// frame alone until IOUnfix.
func (b *BufferPool) IOFix(p int32) { b.word[p] |= pgIOFix }

// IOUnfix ends the write of page p.
func (b *BufferPool) IOUnfix(p int32) { b.word[p] &^= pgIOFix }

// IsIOFixed reports whether a write of page p is in flight.
func (b *BufferPool) IsIOFixed(p int32) bool { return b.word[p]&pgIOFix != 0 }

// NextOld advances the clock hand to the next resident page that is not
// referenced and not being written, giving referenced pages their second
// chance on the way (they are made young), and returns it: the tail of the
// LRU list that buf_flush_LRU_list_batch walks. ok is false after two full
// turns without one.
func (b *BufferPool) NextOld() (p int32, ok bool) {
	if b.resident == 0 {
		return 0, false
	}
	for steps := 0; steps < 2*b.npages+2; steps++ {
		if p, ok := b.step(); ok {
			return p, true
		}
	}
	return 0, false
}

// step advances the clock hand by one page and returns it if it is
// resident, not being written and was not referenced; a referenced page
// loses its bit (its second chance).
func (b *BufferPool) step() (int32, bool) {
	h := b.hand
	b.hand++
	if b.hand == b.npages {
		b.hand = 0
	}
	w := b.word[h]
	if w&pgResident == 0 || w&pgIOFix != 0 {
		return 0, false
	}
	if w&pgRef != 0 {
		b.word[h] = w &^ pgRef
		return 0, false
	}
	return int32(h), true
}

// Preload makes page p resident and clean in a free frame without a
// reference, as a warm pool starts. It panics if none is free.
func (b *BufferPool) Preload(p int32) {
	if b.resident >= b.frames {
		panic("engine: buffer pool Preload without a free frame")
	}
	if b.word[p]&pgResident == 0 {
		b.word[p] = pgResident
		b.resident++
	}
}

// Load makes page p resident in a free frame. It panics if none is free.
func (b *BufferPool) Load(p int32) {
	if b.resident >= b.frames {
		panic("engine: buffer pool Load without a free frame")
	}
	if b.word[p]&pgResident != 0 {
		return
	}
	b.word[p] = pgResident | pgRef | b.word[p]&(lsnMask|pgIOFix)
	b.resident++
}

// Victim runs the clock hand and returns a page to evict: the first
// resident, unreferenced, clean page among the next scan resident pages
// (innodb_lru_scan_depth), giving referenced pages a second chance. If
// only dirty candidates were seen, it returns the first of them with
// dirty = true: it must be written before its frame is reused. ok is false
// when nothing is resident.
func (b *BufferPool) Victim(scan int) (p int32, dirty bool, ok bool) {
	if b.resident == 0 {
		return 0, false, false
	}
	firstDirty := int32(-1)
	seen := 0
	for steps := 0; steps < 2*b.npages+2; steps++ {
		p, ok := b.step()
		if !ok {
			continue
		}
		if b.word[p]&lsnMask == 0 {
			return p, false, true
		}
		if firstDirty < 0 {
			firstDirty = p
		}
		if seen++; seen >= scan {
			break
		}
	}
	if firstDirty >= 0 {
		return firstDirty, true, true
	}
	return 0, false, false
}

// Evict removes clean resident page p from the pool.
func (b *BufferPool) Evict(p int32) {
	if b.word[p]&(lsnMask|pgIOFix) != 0 {
		panic("engine: evicting a dirty page or one being written")
	}
	if b.word[p]&pgResident != 0 {
		b.word[p] = 0
		b.resident--
	}
}

// Clean marks page p clean (its write has been issued) and returns the LSN
// it had been dirty since.
func (b *BufferPool) Clean(p int32) uint64 {
	l := b.word[p] & lsnMask
	if l != 0 {
		b.word[p] &^= lsnMask
		b.dirty--
	}
	return l
}

// skipStale drops stale entries at the head of the flush list.
func (b *BufferPool) skipStale() {
	for b.fl.Len() > 0 {
		e := b.fl.Front()
		if b.word[e.page]&lsnMask == e.lsn {
			return
		}
		b.fl.Pop()
	}
}

// OldestLSN returns the oldest modification LSN of any dirty page, or 0.
func (b *BufferPool) OldestLSN() uint64 {
	b.skipStale()
	if b.fl.Len() == 0 {
		return 0
	}
	return b.fl.Front().lsn
}

// TakeOldest removes up to n pages from the head of the flush list whose
// oldest modification is below limit (0 = no limit), marks them clean and
// appends them to dst. It returns dst and the smallest LSN taken (0 if
// none).
func (b *BufferPool) TakeOldest(dst []int32, n int, limit uint64) ([]int32, uint64) {
	var minLSN uint64
	for n > 0 {
		b.skipStale()
		if b.fl.Len() == 0 {
			break
		}
		e := b.fl.Front()
		if limit != 0 && e.lsn >= limit {
			break
		}
		b.fl.Pop()
		b.word[e.page] &^= lsnMask
		b.dirty--
		if minLSN == 0 {
			minLSN = e.lsn
		}
		dst = append(dst, e.page)
		n--
	}
	return dst, minLSN
}

// CountBelow counts dirty pages whose oldest modification is at most
// target, stopping at limit (page_cleaner_flush_pages_recommendation's
// pages_for_lsn scan).
func (b *BufferPool) CountBelow(target uint64, limit int) int {
	n := 0
	for i := 0; i < b.fl.Len() && n < limit; i++ {
		e := b.fl.At(i)
		if b.word[e.page]&lsnMask != e.lsn {
			continue
		}
		if e.lsn > target {
			break
		}
		n++
	}
	return n
}
