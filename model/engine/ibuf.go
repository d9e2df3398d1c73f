package engine

import (
	"errors"
	"fmt"
	"math"

	"simrun/sim"
)

// IbufConfig is the insert buffer of MySQL 5.1 (the InnoDB plugin's
// change buffer restricted to inserts).
type IbufConfig struct {
	ChangeBuffering string `toml:"change_buffering" enum:"inserts|none" doc:"innodb_change_buffering (plugin 1.0.3+): inserts (default) buffers inserts into non-unique secondary leaves that are not in the buffer pool; none never buffers"`
	RecordOverhead  int    `toml:"record_overhead" unit:"bytes" doc:"bytes an insert-buffer record adds to the secondary-index entry it carries: space id 4, marker 1, page number 4, and the 5.1 format's 4-byte type descriptor per field plus a record header (ibuf_entry_build); [derived] about 25"`
	MergePages      int    `toml:"merge_pages" unit:"pages" doc:"leaf pages one contraction reads and merges (IBUF_MAX_N_PAGES_MERGED = 8 in ibuf0ibuf.c)"`
	AsyncReads      int    `toml:"async_reads" unit:"reads" doc:"merge reads that may be pending before a non-synchronous contraction is skipped: the simulated-AIO read slots of one read thread (assumption: 32, SRV_N_PENDING_IOS_PER_THREAD)"`
	BackgroundPages int    `toml:"background_pages" unit:"pages per 10 s" doc:"pages the master thread merges every 10 s whatever the load: 5 % of innodb_io_capacity = 10 (srv_master_thread); the once-a-second merge runs only when the server is nearly idle, never during a load"`
}

// DefaultIbuf returns the 5.1 plugin's behaviour.
func DefaultIbuf() IbufConfig {
	return IbufConfig{ChangeBuffering: "inserts", RecordOverhead: 25, MergePages: 8, AsyncReads: 32, BackgroundPages: 10}
}

// Validate checks the settings.
func (c IbufConfig) Validate() error {
	var errs []error
	switch c.ChangeBuffering {
	case "inserts", "none":
	default:
		errs = append(errs, fmt.Errorf("change_buffering: must be inserts or none, got %q", c.ChangeBuffering))
	}
	if c.RecordOverhead < 0 || c.RecordOverhead > 1024 {
		errs = append(errs, fmt.Errorf("record_overhead: must be in [0, 1024], got %d", c.RecordOverhead))
	}
	if c.MergePages < 1 || c.MergePages > 1024 {
		errs = append(errs, fmt.Errorf("merge_pages: must be in [1, 1024], got %d", c.MergePages))
	}
	if c.AsyncReads < 0 || c.AsyncReads > 4096 {
		errs = append(errs, fmt.Errorf("async_reads: must be in [0, 4096], got %d", c.AsyncReads))
	}
	if c.BackgroundPages < 0 || c.BackgroundPages > 1<<20 {
		errs = append(errs, fmt.Errorf("background_pages: must be in [0, %d], got %d", 1<<20, c.BackgroundPages))
	}
	return errors.Join(errs...)
}

// Insert-buffer size thresholds above max_size (ibuf0ibuf.c): at max an
// insert triggers a non-synchronous contraction, at max+5 a synchronous
// one, at max+10 inserts are no longer buffered.
const (
	ibufContractSync   = 5
	ibufDoNotInsert    = 10
	ibufPoolPerMaxSize = 2 // IBUF_POOL_SIZE_PER_MAX_SIZE
)

// Ibuf is the insert buffer: per target leaf page the number and bytes of
// buffered records, and the insert-buffer tree's size in pages. The tree
// is ordered by (space, page number), so the tree page holding a target's
// records is the target's rank scaled to the tree; its pages are pages of
// the tablespace and compete for buffer-pool frames like any other. The
// tree's pages fill to ln 2 (random inserts), which sets its size from the
// buffered bytes.
type Ibuf struct {
	cfg   IbufConfig
	limit int32
	max   int // max_size in pages: pool pages / 2

	count []int32 // per target page: buffered records
	bytes []int32 // per target page: buffered bytes
	nrec  int64
	nbyte int64
	pages []int32 // tree pages allocated so far (the tree never gives them back here)

	Inserts    int64 // records buffered
	Merged     int64 // records merged into their leaves
	Contracts  int64
	Refused    int64 // inserts not buffered (ibuf full or the leaf would overflow)
	PeakPages  int
	PeakRecord int64
}

// NewIbuf returns an empty insert buffer over limit page ids for a pool of
// frames frames.
func NewIbuf(cfg IbufConfig, limit, frames int) *Ibuf {
	return &Ibuf{cfg: cfg, limit: int32(limit), max: frames / ibufPoolPerMaxSize,
		count: make([]int32, limit), bytes: make([]int32, limit)}
}

// On reports whether inserts may be buffered at all.
func (b *Ibuf) On() bool { return b.cfg.ChangeBuffering == "inserts" }

// MaxSize returns max_size in pages.
func (b *Ibuf) MaxSize() int { return b.max }

// Size returns the tree's size in pages: ceil(bytes / (usable x ln 2)),
// at least the root.
func (b *Ibuf) Size() int {
	return max(1, int(math.Ceil(float64(b.nbyte)/(PageUsable*math.Ln2))))
}

// Records returns the buffered records.
func (b *Ibuf) Records() int64 { return b.nrec }

// Buffered returns the records buffered for page p.
func (b *Ibuf) Buffered(p int32) int { return int(b.count[p]) }

// Full reports the state at the size thresholds: 0 below max_size, 1 at
// max (contract asynchronously), 2 at max+5 (contract synchronously), 3 at
// max+10 (do not buffer).
func (b *Ibuf) Full() int {
	s := b.Size()
	switch {
	case s >= b.max+ibufDoNotInsert:
		return 3
	case s >= b.max+ibufContractSync:
		return 2
	case s >= b.max:
		return 1
	}
	return 0
}

// TreePage returns the insert-buffer tree page that holds (or will hold)
// the records for target page p, allocating tree pages as the tree grows.
func (b *Ibuf) TreePage(p int32, a PageAllocator) int32 {
	n := b.Size()
	for len(b.pages) < n {
		b.pages = append(b.pages, a.NewPage())
	}
	return b.pages[int(int64(p)*int64(n)/int64(b.limit))]
}

// Add buffers one record of entry bytes for page p.
func (b *Ibuf) Add(p int32, entry int) {
	sz := int32(entry + b.cfg.RecordOverhead)
	b.count[p]++
	b.bytes[p] += sz
	b.nrec++
	b.nbyte += int64(sz)
	b.Inserts++
	b.PeakPages = max(b.PeakPages, b.Size())
	b.PeakRecord = max(b.PeakRecord, b.nrec)
}

// RecordBytes returns the size of one buffered record for an entry.
func (b *Ibuf) RecordBytes(entry int) int { return entry + b.cfg.RecordOverhead }

// Take removes page p's buffered records (a merge) and returns how many.
func (b *Ibuf) Take(p int32) int {
	n := b.count[p]
	b.nrec -= int64(n)
	b.nbyte -= int64(b.bytes[p])
	b.count[p], b.bytes[p] = 0, 0
	b.Merged += int64(n)
	return int(n)
}

// Pick appends to dst up to merge_pages target pages with buffered
// records, starting from a random position of the tree as
// ibuf_contract_ext does (btr_pcur_open_at_rnd_pos, then the page numbers
// of the records that follow).
func (b *Ibuf) Pick(rng *sim.Stream, dst []int32) []int32 {
	if b.nrec == 0 {
		return dst
	}
	b.Contracts++
	start := int32(rng.IntN(int(b.limit)))
	p := start
	for n := int32(0); n < b.limit && len(dst) < b.cfg.MergePages; n++ {
		if b.count[p] > 0 {
			dst = append(dst, p)
		}
		p++
		if p == b.limit {
			p = 0
		}
	}
	return dst
}
