package engine

import (
	"errors"
	"fmt"

	"simrun/model/workload"
	"simrun/sim"
)

// IndexConfig is [engine.index]: the leaves of each table's secondary index
// k, as sysbench prepare leaves them (CREATE INDEX after the rows: a sorted
// build) and as the workload's inserts, purge's deletes, page splits and
// page merges change them (docs/model-engine.md, "Index k: splits and
// merges").
type IndexConfig struct {
	Splits          bool  `toml:"splits" unit:"" doc:"model the leaves of index k as record counts that split when full and merge below merge_threshold, each split and merge writing the redo of the records it moves and dirtying the pages it touches (default true). false: the leaves are secondary_entries_per_page entries each and never change, and no split or merge redo is written (the statement bytes stay those calibrated with the splits, docs/validation.md)"`
	FillFactor      int   `toml:"fill_factor" unit:"%" doc:"innodb_fill_factor (MariaDB default 100): how full the sorted build of CREATE INDEX fills the leaves of k (PageBulk::isSpaceAvailable reserves srv_page_size x (100 - fill_factor)/100 bytes; at 100 a secondary index keeps nothing free). sysbench 1.0.20's prepare inserts the rows, then runs CREATE INDEX k_N (oltp_common.lua create_table)"`
	MergeThreshold  int   `toml:"merge_threshold" unit:"%" doc:"MERGE_THRESHOLD of index k (DICT_INDEX_MERGE_THRESHOLD_DEFAULT 50): a delete that leaves a leaf's data below this share of the 16 KiB page tries to merge it into its left, else right sibling (btr_cur_can_delete_without_compress, btr_compress)"`
	RecordBytes     int   `toml:"record_bytes" unit:"bytes" doc:"a leaf record of k in ROW_FORMAT=DYNAMIC: 5-byte header, k INT 4 B, id INT 4 B (no NULLs, no variable-length fields): 13"`
	MovedRecordRedo int   `toml:"moved_record_redo" unit:"bytes/record" doc:"redo of one record a split or a merge copies to another page: a page_insert record (mtr_t::page_insert: 1-byte type and length on the same page, 1-byte subtype, 2-byte previous-record offset, 1-byte info, header and data prefix lengths) carrying the header and data bytes that differ from the previous record's: about 3 of the 5 header bytes (heap number, owned count) and 2 of the 8 data bytes (the 75 entries of a hot k value are ids about table_size/75 apart). Estimate from the layouts: 12"`
	SplitRedo       int   `toml:"split_redo" unit:"bytes" doc:"redo of a split besides the moved records: page allocation (fseg_alloc_free_page: inode and extent-descriptor writes), page_create, sibling links, the truncation of the old page (page_delete_rec_list_end), PAGE_MAX_TRX_ID and the node pointer inserted into the parent. Estimate from the layouts: 200"`
	MergeRedo       int   `toml:"merge_redo" unit:"bytes" doc:"redo of a merge besides the moved records: the node pointer deleted from the parent, btr_level_list_remove, btr_page_free (extent descriptor and inode) and PAGE_MAX_TRX_ID. Estimate from the layouts: 100"`
	Age             int64 `toml:"age" unit:"transactions" doc:"oltp_write_only transactions the data had served since sysbench prepare before the run starts (0: right after prepare, as the binlog study and the realdb runs start); the engine replays their index inserts and deletes before the run"`
}

// DefaultIndex returns MariaDB's defaults and the sysbench layout.
func DefaultIndex() IndexConfig {
	return IndexConfig{Splits: true, FillFactor: 100, MergeThreshold: 50, RecordBytes: 13,
		MovedRecordRedo: 12, SplitRedo: 200, MergeRedo: 100}
}

func (c IndexConfig) validate() error {
	var errs []error
	bad := func(format string, a ...any) { errs = append(errs, fmt.Errorf(format, a...)) }
	if c.FillFactor < 10 || c.FillFactor > 100 {
		bad("index.fill_factor: must be in [10, 100] (innodb_fill_factor's range), got %d", c.FillFactor)
	}
	if c.MergeThreshold < 1 || c.MergeThreshold > 50 {
		bad("index.merge_threshold: must be in [1, 50] (MERGE_THRESHOLD's range), got %d", c.MergeThreshold)
	}
	if c.RecordBytes < 6 || c.RecordBytes > 1024 {
		bad("index.record_bytes: must be in [6, 1024], got %d", c.RecordBytes)
	}
	for _, x := range []struct {
		k string
		v int
	}{{"moved_record_redo", c.MovedRecordRedo}, {"split_redo", c.SplitRedo}, {"merge_redo", c.MergeRedo}} {
		if x.v < 0 || x.v > 64*1024 {
			bad("index.%s: must be in [0, 65536] bytes, got %d", x.k, x.v)
		}
	}
	if c.Age < 0 || c.Age > 1e10 {
		bad("index.age: must be in [0, 1e10] transactions, got %d", c.Age)
	}
	return errors.Join(errs...)
}

// dirReserve is page_dir_calc_reserved_space: the directory bytes a page
// must keep for n records (one 2-byte slot per PAGE_DIR_SLOT_MIN_N_OWNED = 4).
func dirReserve(n int) int { return (2*n + 3) / 4 }

// leafShape is the geometry of one leaf of k in records, from the record
// size and the page (page0page.inl, btr0cur.cc, btr0bulk.cc):
//   - full: an insert fits while data + directory for n+1 records fit in the
//     free space of an empty page (page_get_max_insert_size_after_reorganize);
//     a merge fits under the same rule for the sum of both pages' records
//     (btr_can_merge_with_page), so full is also the largest merge;
//   - built: records a sorted build puts in a leaf, fill_factor reserving
//     srv_page_size x (100 - fill)/100 bytes (PageBulk::isSpaceAvailable);
//   - low: a delete from a leaf of at most low records leaves its data below
//     merge_threshold (btr_cur_can_delete_without_compress) and tries a merge.
type leafShape struct{ full, built, low, rec int }

func newLeafShape(c IndexConfig) leafShape {
	fits := func(n, room int) bool { return n*c.RecordBytes+dirReserve(n) <= room }
	s := leafShape{rec: c.RecordBytes}
	for s.full = 1; fits(s.full+1, PageUsable); s.full++ {
	}
	reserve := PageSize * (100 - c.FillFactor) / 100
	for s.built = 2; s.built < s.full && fits(s.built+1, PageUsable-reserve); s.built++ {
	}
	limit := PageSize * c.MergeThreshold / 100
	// (n-1) records' data below the limit
	s.low = (limit + c.RecordBytes - 1) / c.RecordBytes
	return s
}

// secIndex is the leaf level of one table's index k: a record count per
// page slot, the slots linked in key order, and the records of each block
// of 64 slots so that "the leaf holding a uniformly drawn entry" is found by
// scanning the block sums, then one block's counts: two short sequential
// scans (a few hundred bytes for a 1M-row table), where a tree descent is a
// chain of dependent loads that miss the caches on every draw. Slot i is
// page id base+i of the table's file; slots past the sorted build's leaves
// are the pages splits allocate (new extents at the end of the file),
// reused once merges free them (fseg_free_page).
//
// Keys are not kept: sysbench draws a new k from the same distribution as
// the entries already in the index (prepare and the run both use
// sb_rand(1, table_size) with --rand-type), so the leaf that receives an
// insert is the leaf holding a uniformly drawn entry, as is the leaf of a
// purged one: both pick a leaf with probability proportional to its
// records.
type secIndex struct {
	cnt        []int32 // records per slot; -1 = free
	heap       []int32 // records in the page's heap: cnt plus the deleted ones in PAGE_FREE (garbage)
	prev, next []int32 // key order; -1 = none
	blk        []int64 // sum of max(cnt, 0) over slots [b·blockSlots, (b+1)·blockSlots)
	sub        []int32 // the same over slots [u·subSlots, (u+1)·subSlots)
	free       []int32 // freed slots, reused last-freed first
	records    int64
	leaves     int
	shape      leafShape
	base       int32 // page id of slot 0

	Splits, Merges, MergeAttempts, Full int64
}

// newSecIndex returns the index as a sorted build of rows records leaves
// it: ceil(rows / built) leaves, the last holding the rest, and slots for
// up to slots leaves, slot i being page id base+i.
func newSecIndex(rows int64, sh leafShape, slots int, base int32) *secIndex {
	x := &secIndex{shape: sh, base: base}
	n := builtLeaves(rows, sh)
	slots = max(slots, n+1)
	x.cnt = make([]int32, slots)
	x.heap = make([]int32, slots)
	x.prev = make([]int32, slots)
	x.next = make([]int32, slots)
	x.blk = make([]int64, (slots+blockSlots-1)/blockSlots)
	x.sub = make([]int32, (slots+subSlots-1)/subSlots)
	left := rows
	for i := range x.cnt {
		if i >= n {
			x.cnt[i], x.prev[i], x.next[i] = -1, -1, -1
			continue
		}
		c := min(left, int64(sh.built))
		left -= c
		x.cnt[i], x.heap[i] = int32(c), int32(c)
		x.prev[i], x.next[i] = int32(i-1), int32(i+1)
		x.add(i, c)
	}
	x.next[n-1] = -1
	for i := slots - 1; i >= n; i-- {
		x.free = append(x.free, int32(i))
	}
	x.records, x.leaves = rows, n
	return x
}

// blockSlots and subSlots are the slots a block sum and a sub-block sum
// of secIndex cover: find scans the block sums, then at most four sub-block
// sums, then at most 16 counts.
const (
	blockSlots = 64
	subSlots   = 16
)

func (x *secIndex) add(i int, d int64) {
	x.blk[i/blockSlots] += d
	x.sub[i/subSlots] += int32(d)
}

// find returns the slot holding entry r (0 <= r < records) in slot order:
// the first slot s with max(cnt, 0) summed over [0, s] above r.
func (x *secIndex) find(r int64) int {
	b := 0
	for ; b < len(x.blk)-1 && r >= x.blk[b]; b++ {
		r -= x.blk[b]
	}
	u := b * (blockSlots / subSlots)
	for end := min(u+blockSlots/subSlots, len(x.sub)) - 1; u < end && r >= int64(x.sub[u]); u++ {
		r -= int64(x.sub[u])
	}
	s := u * subSlots
	for end := min(s+subSlots, len(x.cnt)) - 1; s < end; s++ {
		n := int64(max(x.cnt[s], 0))
		if r < n {
			break
		}
		r -= n
	}
	return s
}

// live reports whether slot s holds a leaf.
func (x *secIndex) live(s int) bool { return s >= 0 && s < len(x.cnt) && x.cnt[s] >= 0 }

// indexOp collects what index operations did, for the caller to turn into
// redo and dirty or freed pages at the mini-transaction's LSN.
type indexOp struct {
	redo  uint64
	pages []int32 // page ids modified, in order; | opFreed: freed
}

const opFreed int32 = 1 << 30

func (o *indexOp) reset() { o.redo, o.pages = 0, o.pages[:0] }

// fits reports whether btr_cur_optimistic_insert puts one more record into
// leaf s: the record must fit after a reorganisation
// (page_get_max_insert_size_after_reorganize), and a page with garbage whose
// free space is below BTR_CUR_PAGE_REORGANIZE_LIMIT (1/32 page) must have
// room at its heap top (page_get_max_insert_size): it splits rather than
// reorganise. Deleted records of k all have one size, so an insert reuses
// the head of PAGE_FREE and the heap top does not move.
func (x *secIndex) fits(s int, rec int) bool {
	n, h := int(x.cnt[s]), int(x.heap[s])
	after := PageUsable - rec*n - dirReserve(n+1)
	if after < rec {
		return false
	}
	if h > n && after < PageSize/32 && n > 1 && PageUsable-rec*h-dirReserve(h+1) < rec {
		return false
	}
	return true
}

// put adds a record to leaf s, in a freed slot of its heap if it has one.
func (x *secIndex) put(s, k int) {
	x.cnt[s] += int32(k)
	x.heap[s] = max(x.heap[s], x.cnt[s])
	x.add(s, int64(k))
}

// insert adds one record to leaf s, splitting it if it is full: the upper
// half moves to a new leaf after it (btr_page_split_and_insert, split point
// in the middle: page_get_middle_rec), its records left behind as garbage
// of the old page (page_delete_rec_list_end). upper says which half
// receives the new record (the insert point is uniform within the leaf).
// It returns the leaf that holds the new record.
func (x *secIndex) insert(s int, upper bool, c *IndexConfig, op *indexOp) int {
	x.records++
	op.pages = append(op.pages, x.base+int32(s))
	if x.fits(s, c.RecordBytes) {
		x.put(s, 1)
		return s
	}
	if len(x.free) == 0 {
		// No slot left for a new page (cannot happen while leaves stay
		// above a third full; counted so that a test can say so).
		x.Full++
		x.put(s, 1)
		return s
	}
	x.Splits++
	ns := int(x.free[len(x.free)-1])
	x.free = x.free[:len(x.free)-1]
	total := int(x.cnt[s]) + 1
	lower := total / 2
	// The records from the split point on move to the new page; then the
	// new record goes into its half.
	moved := total - lower
	if upper {
		moved--
	}
	x.set(s, lower)
	x.set(ns, total-lower)
	x.heap[ns] = int32(total - lower) // copied into an empty page: no garbage
	x.prev[ns], x.next[ns] = int32(s), x.next[s]
	if x.next[s] >= 0 {
		x.prev[x.next[s]] = int32(ns)
		op.pages = append(op.pages, x.base+x.next[s]) // its FIL_PAGE_PREV
	}
	x.next[s] = int32(ns)
	x.leaves++
	op.pages = append(op.pages, x.base+int32(ns))
	op.redo += uint64(moved*c.MovedRecordRedo + c.SplitRedo)
	if upper {
		return ns
	}
	return s
}

func (x *secIndex) set(s, n int) {
	old := max(int64(x.cnt[s]), 0)
	x.cnt[s] = int32(n)
	x.add(s, int64(n)-old)
}

// remove purges one record from leaf s. A leaf left at or below the merge
// threshold is merged into its left sibling if both fit in one page, else
// into its right one (btr_compress); the emptied page is freed.
func (x *secIndex) remove(s int, c *IndexConfig, op *indexOp) {
	if x.cnt[s] <= 0 {
		return
	}
	x.records--
	n := int(x.cnt[s])
	x.cnt[s]-- // its space goes to PAGE_FREE: the heap keeps it
	x.add(s, -1)
	op.pages = append(op.pages, x.base+int32(s))
	if n > x.shape.low || x.leaves == 1 {
		return
	}
	x.MergeAttempts++
	n--
	into := -1
	if l := x.prev[s]; l >= 0 && int(x.cnt[l])+n <= x.shape.full {
		into = int(l)
	} else if r := x.next[s]; r >= 0 && int(x.cnt[r])+n <= x.shape.full {
		into = int(r)
	}
	if into < 0 {
		return
	}
	x.Merges++
	// btr_can_merge_with_page reorganises the target when its heap top
	// lacks room for the records (page_get_max_insert_size).
	if m, h := int(x.cnt[into]), int(x.heap[into]); n*c.RecordBytes > PageUsable-c.RecordBytes*h-dirReserve(n+h) {
		x.heap[into] = int32(m)
	}
	x.heap[into] += int32(n)
	x.set(into, int(x.cnt[into])+n)
	x.set(s, 0)
	p, q := x.prev[s], x.next[s]
	if p >= 0 {
		x.next[p] = q
		if int(p) != into {
			op.pages = append(op.pages, x.base+p)
		}
	}
	if q >= 0 {
		x.prev[q] = p
		if int(q) != into {
			op.pages = append(op.pages, x.base+q)
		}
	}
	x.cnt[s], x.heap[s], x.prev[s], x.next[s] = -1, 0, -1, -1
	x.free = append(x.free, int32(s))
	x.leaves--
	op.pages = append(op.pages, x.base+int32(into), (x.base+int32(s))|opFreed)
	op.redo += uint64(n*c.MovedRecordRedo + c.MergeRedo)
}

// check verifies the index: counts within a page, the block sums and the
// key-order list agreeing with the counts, every slot either linked or free.
func (x *secIndex) check() error {
	var recs int64
	linked, head := 0, -1
	for i, n := range x.cnt {
		if n < 0 {
			continue
		}
		if int(n) > x.shape.full && x.Full == 0 {
			return fmt.Errorf("leaf %d holds %d records (a page holds %d)", i, n, x.shape.full)
		}
		if x.heap[i] < n || PageUsable < int(x.heap[i])*x.shape.rec+dirReserve(int(x.heap[i])) && x.Full == 0 {
			return fmt.Errorf("leaf %d: heap of %d records for %d", i, x.heap[i], n)
		}
		recs += int64(n)
		if x.prev[i] < 0 {
			if head >= 0 {
				return fmt.Errorf("leaves %d and %d both have no left sibling", head, i)
			}
			head = i
		}
	}
	for s := head; s >= 0; s = int(x.next[s]) {
		if linked++; linked > len(x.cnt) {
			return errors.New("the leaf list has a cycle")
		}
		if q := x.next[s]; q >= 0 && int(x.prev[q]) != s {
			return fmt.Errorf("leaf %d's right sibling %d points back to %d", s, q, x.prev[q])
		}
	}
	if linked != x.leaves || linked+len(x.free) != len(x.cnt) {
		return fmt.Errorf("%d leaves linked, %d counted, %d free of %d slots", linked, x.leaves, len(x.free), len(x.cnt))
	}
	for b, sum := range x.blk {
		if n := x.span(b*blockSlots, blockSlots); n != sum {
			return fmt.Errorf("block %d holds %d records, its sum says %d", b, n, sum)
		}
	}
	for u, sum := range x.sub {
		if n := x.span(u*subSlots, subSlots); n != int64(sum) {
			return fmt.Errorf("sub-block %d holds %d records, its sum says %d", u, n, sum)
		}
	}
	if recs != x.records {
		return fmt.Errorf("leaves hold %d records, the index counts %d", recs, x.records)
	}
	return nil
}

// span returns the records of the n slots from slot i.
func (x *secIndex) span(i, n int) int64 {
	var sum int64
	for _, c := range x.cnt[i:min(i+n, len(x.cnt))] {
		sum += int64(max(c, 0))
	}
	return sum
}

// indexSlots is the page slots a table's index k gets for built leaves:
// room for the pages splits add (a leaf cannot stay below half full while a
// sibling has room, so twice the built leaves bound them).
func indexSlots(built int) int { return 2*built + 8 }

// newIndexes returns every table's index k as the sorted build leaves it,
// with slots page slots each, table t's slot 0 at page id base(t).
func newIndexes(wl workload.Sysbench, sh leafShape, slots int, base func(t int) int32) []*secIndex {
	ix := make([]*secIndex, wl.Tables)
	for t := range ix {
		ix[t] = newSecIndex(wl.TableSize, sh, slots, base(t))
	}
	return ix
}

// builtLeaves returns the leaves a sorted build of rows records makes.
func builtLeaves(rows int64, sh leafShape) int {
	return max(1, int((rows+int64(sh.built)-1)/int64(sh.built)))
}

// pick returns the leaf holding an entry drawn uniformly (an insert's new
// key or a purged entry, see secIndex).
func (x *secIndex) pick(rng interface{ Uint64N(uint64) uint64 }) int {
	if x.records == 0 {
		return x.first()
	}
	return x.find(int64(rng.Uint64N(uint64(x.records))))
}

// first returns the leftmost leaf.
func (x *secIndex) first() int {
	for i := range x.cnt {
		if x.cnt[i] >= 0 && x.prev[i] < 0 {
			return i
		}
	}
	return 0
}

// IndexStats is what index k's leaves did in the measured window, summed
// over the tables (INNODB_METRICS index_page_splits, index_page_merge_*).
type IndexStats struct {
	Splits        int64 // index_page_splits
	Merges        int64 // index_page_merge_successful
	MergeAttempts int64 // index_page_merge_attempts
	Redo          int64 // bytes of redo the splits and merges wrote
	Leaves        int   // leaves now
	BuiltLeaves   int   // leaves after the sorted build
	Records       int64 // entries now
}

func (e *Engine) indexStats() IndexStats {
	var s IndexStats
	for _, x := range e.ix {
		s.Splits += x.Splits
		s.Merges += x.Merges
		s.MergeAttempts += x.MergeAttempts
		s.Leaves += x.leaves
		s.Records += x.records
		s.BuiltLeaves += e.secBuilt
	}
	s.Redo = e.IndexRedo
	return s
}

// CheckIndex verifies every table's index k (a test hook; nil when it is
// not modelled or consistent).
func (e *Engine) CheckIndex() error {
	for t, x := range e.ix {
		if err := x.check(); err != nil {
			return fmt.Errorf("table %d: %w", t, err)
		}
	}
	return nil
}

// pageExists reports whether page id p holds a page now: a slot of index k
// that no split has used yet, or that a merge freed, does not.
func (e *Engine) pageExists(p int32) bool {
	if e.ix == nil || p >= e.rsegBase {
		return true
	}
	t := int(p) / e.perTable
	s := int(p) - t*e.perTable - e.clustered
	return s < 0 || e.ix[t].live(s)
}

// ageIndex replays the index k inserts and deletes of tx oltp_write_only
// transactions (index.age) on the freshly built index, before the run and
// without I/O: each UPDATE k=k+1 inserts (k+1, id) beside the entry it
// delete-marks, which purge then removes; each DELETE + INSERT pair purges
// the row's entry and inserts one with a new k, in the same table; every
// statement picks its table uniformly (sysbench get_table_num).
// It returns the redo of the splits and merges it replayed.
func (e *Engine) ageIndex(rng *sim.Stream, wl workload.Sysbench, tx int64) uint64 {
	c := &e.cfg.Index
	op := &e.ixOp
	var redo uint64
	for i := int64(0); i < tx; i++ {
		for u := 0; u < wl.IndexUpdates; u++ {
			x := e.ix[rng.IntN(e.tables)]
			op.reset()
			s := x.insert(x.pick(rng), rng.Uint64()&1 == 1, c, op)
			x.remove(s, c, op)
			redo += op.redo
		}
		for d := 0; d < wl.DeleteInserts; d++ {
			x := e.ix[rng.IntN(e.tables)]
			op.reset()
			x.remove(x.pick(rng), c, op)
			x.insert(x.pick(rng), rng.Uint64()&1 == 1, c, op)
			redo += op.redo
		}
	}
	op.reset()
	return redo
}

// IndexRedoPerTx returns the redo of index k's splits and merges per
// oltp_write_only transaction over the n transactions that follow age
// others on wl's freshly prepared tables, as the engine's index.age replay
// charges them (0 when splits are off). simrun calibrate subtracts it from
// a measured redo per transaction to leave the statements' own bytes.
func IndexRedoPerTx(c IndexConfig, wl workload.Sysbench, age, n int64, seed uint64) float64 {
	if !c.Splits || n <= 0 || wl.Tables <= 0 {
		return 0
	}
	sh := newLeafShape(c)
	e := &Engine{cfg: Config{Index: c}, tables: wl.Tables}
	e.ix = newIndexes(wl, sh, indexSlots(builtLeaves(wl.TableSize, sh)), func(int) int32 { return 0 })
	rng := sim.NewStream(seed, "engine/index-age")
	e.ageIndex(rng, wl, age)
	return float64(e.ageIndex(rng, wl, n)) / float64(n)
}

// indexOps applies the statements' changes to index k: UPDATE k=k+1
// inserts (k+1, id) into the leaf planned for it and purge removes the old
// entry from the same leaf (75 entries a k value: the neighbour is almost
// always on the page); DELETE's entry is purged from its leaf; INSERT adds
// the new entry to its leaf. Purge runs seconds later on the real server;
// it is applied here, where its redo is charged (bytes_purge). It returns
// the redo of the splits and merges and leaves their pages in e.ixOp; a
// planned leaf that a merge freed since is replaced in pages by a fresh
// draw.
func (e *Engine) indexOps(stmts []workload.Stmt, pages []int32) uint64 {
	c := &e.cfg.Index
	op := &e.ixOp
	op.reset()
	j := 0
	for _, st := range stmts {
		j++ // its clustered leaf
		switch st.Kind {
		case workload.UpdateIndex, workload.Delete, workload.Insert:
		default:
			continue
		}
		x := e.ix[st.Table]
		s := int(pages[j] - x.base)
		if !x.live(s) || (st.Kind == workload.Delete && x.cnt[s] == 0) {
			s = x.pick(e.rng)
			pages[j] = x.base + int32(s)
		}
		j++
		switch st.Kind {
		case workload.UpdateIndex:
			x.remove(x.insert(s, e.rng.Uint64()&1 == 1, c, op), c, op)
		case workload.Delete:
			x.remove(s, c, op)
		case workload.Insert:
			x.insert(s, e.rng.Uint64()&1 == 1, c, op)
		}
	}
	e.IndexRedo += int64(op.redo)
	return op.redo
}

// indexPages dirties, at lsn, the pages the index operations modified and
// frees the pages merges emptied: a freed page is not written (MDEV-15528)
// and its frame returns to the free list unless a write of it is in flight.
// A page a split creates takes a frame without a read (buf_page_create).
func (e *Engine) indexPages(lsn uint64) {
	for _, p := range e.ixOp.pages {
		if p&opFreed == 0 {
			if !e.BP.IsResident(p) {
				// A new page takes a frame without a read (or a leaf
				// evicted since it was planned, re-read as dirty does).
				if !e.BP.HasFree() {
					if v, dirty, ok := e.BP.Victim(1 << 20); ok && !dirty {
						e.BP.Evict(v)
					}
				}
				if e.BP.HasFree() {
					e.BP.Load(p)
				}
			}
			e.dirty(p, lsn)
			continue
		}
		p &^= opFreed
		e.BP.Clean(p)
		if e.BP.IsResident(p) && !e.BP.IsIOFixed(p) {
			e.BP.Evict(p)
		}
	}
}
