package engine

import "simrun/sim"

// Zip models the pages of a ROW_FORMAT=COMPRESSED table (InnoDB plugin
// 1.0, page0zip.c): each page is a zlib stream of key_block_size bytes
// with a modification log in its free space.
//
//   - An insert appends the record to the modification log; when the log
//     is full the page is recompressed (page_zip_compress), and the
//     compressed image is written to the redo log (MLOG_ZIP_PAGE_COMPRESS).
//     A page holds the records whose stream fits: room x ratio / rec
//     (room = 90 % of the block, the rest is the dense directory and
//     trailer), which the B-tree gets as its leaf capacity; a split
//     compresses both halves after a failed attempt.
//   - The buffer pool holds every resident page compressed and, in the
//     I/O-bound state of a load, an uncompressed 16 KiB frame for about a
//     tenth of them: buf_LRU_evict_from_unzip_LRU evicts uncompressed
//     copies first while unzip_LRU is longer than LRU/10. A compressed
//     page without its frame is decompressed on access, without a read.
//     So a pool of M bytes holds M / (block + 0.1 x 16 KiB) pages.
//
// What is approximated: the uncompressed frames are the most recently
// accessed pages (a FIFO of a tenth of the pool), and page I/O is still
// done in 16 KiB units by the engine (a transfer of 0.1 ms more per I/O
// on the disk of the study).
type Zip struct {
	block float64
	room  float64
	ratio float64

	zip    []bool  // page of the compressed table
	slack  []int32 // bytes left in the page's modification log
	uncomp []bool  // has an uncompressed frame
	ring   []int32 // the uncompressed frames, oldest first (a ring)
	head   int
	n      int

	Compressions   int64
	Failures       int64 // compressions that did not fit: splits
	Decompressions int64
	RedoBytes      int64
}

// zipUnzipShare is the share of resident compressed pages that keep an
// uncompressed frame when the pool is I/O-bound (unzip_LRU <= LRU/10).
const zipUnzipShare = 0.1

// zipMlogRec is the modification-log bytes of a record beyond its data
// (the heap number and the dense-directory slot).
const zipMlogRec = 4

// ZipFrames returns the pages a pool of size bytes holds when its pages
// are compressed to block bytes (see Zip).
func ZipFrames(size, block sim.Bytes) int {
	return int(float64(size) / (float64(block) + zipUnzipShare*PageSize))
}

// NewZip returns the state for pages page ids in a pool of frames pages.
func NewZip(block sim.Bytes, ratio float64, pages, frames int) *Zip {
	u := max(16, int(zipUnzipShare*float64(frames)))
	return &Zip{block: float64(block), room: 0.9 * float64(block), ratio: ratio,
		zip: make([]bool, pages), slack: make([]int32, pages), uncomp: make([]bool, pages), ring: make([]int32, u)}
}

// Capacity returns the records of rec bytes a compressed leaf holds.
func (z *Zip) Capacity(rec int) int { return int(z.room * z.ratio / float64(rec)) }

// Access records an access to page p, which needs its uncompressed frame:
// it returns the decompressions that costs (0 or 1).
func (z *Zip) Access(p int32) int {
	if !z.zip[p] || z.uncomp[p] {
		return 0
	}
	z.Decompressions++
	z.frame(p)
	return 1
}

// frame gives p an uncompressed frame, dropping the oldest one's.
func (z *Zip) frame(p int32) {
	if z.n == len(z.ring) {
		old := z.ring[z.head]
		z.uncomp[old] = false
		z.ring[z.head] = p
		z.head = (z.head + 1) % len(z.ring)
	} else {
		z.ring[(z.head+z.n)%len(z.ring)] = p
		z.n++
	}
	z.uncomp[p] = true
}

// Insert records k records of rec bytes added to page p, which now holds
// n: the modification log takes them, and a full log recompresses the
// page. It returns the compressions and their redo bytes.
func (z *Zip) Insert(p int32, n, k, rec int) (ops int, redo uint64) {
	if !z.zip[p] {
		z.zip[p] = true
		z.slack[p] = int32(z.room - float64((n-k)*rec)/z.ratio)
	}
	z.slack[p] -= int32(k * (rec + zipMlogRec))
	if z.slack[p] >= 0 {
		return 0, 0
	}
	return 1, z.compress(p, n, rec)
}

// Split records the split of page p, which held n records of rec bytes
// with the one that did not fit: the failed compression, then both halves
// compressed. The new half's log is set up by its first Insert. It returns
// the compressions and the redo of the two images.
func (z *Zip) Split(p int32, n, rec int) (ops int, redo uint64) {
	z.zip[p] = true
	z.Compressions++
	z.Failures++
	half := n / 2
	redo = z.compress(p, half, rec)
	z.Compressions++
	b := uint64(min(float64(half*rec)/z.ratio, z.block)) + redoPageCreate
	z.RedoBytes += int64(b)
	return 3, redo + b
}

func (z *Zip) compress(p int32, n, rec int) uint64 {
	z.Compressions++
	stream := float64(n*rec) / z.ratio
	z.slack[p] = int32(max(0, z.room-stream))
	b := uint64(min(stream, z.block)) + redoPageCreate
	z.RedoBytes += int64(b)
	return b
}

// TailLeaf returns the rightmost leaf and its record count.
func (s *SeqIndex) TailLeaf() (int32, int) { return s.leaf, s.n }
