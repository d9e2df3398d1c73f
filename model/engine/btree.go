package engine

import (
	"fmt"
	"sort"
)

// PageUsable is the room for records in a 16 KiB index page: 16,384 bytes
// less the file header and trailer (38 + 8), the page header (56) and the
// infimum and supremum records (26), with the page directory's 2-byte slots
// (one per 4 to 8 records) left to the record sizes.
const PageUsable = 16252

// seqReserve is the free space a sequentially filled clustered leaf keeps:
// btr_cur_optimistic_insert splits once less than UNIV_PAGE_SIZE/16 would
// remain (dict_index_get_space_reserve), so such leaves end 15/16 full.
const seqReserve = PageSize / 16

// PageAllocator gives an index new pages: a page of the tablespace, made
// resident without a read. It must not fail (the caller reserved room).
type PageAllocator interface {
	NewPage() int32
}

// Touched collects the pages an index operation modified and the redo it
// wrote, for the caller to dirty at the mini-transaction's LSN.
type Touched struct {
	Pages []int32
	Redo  uint64
	New   int // pages allocated
}

func (t *Touched) add(p int32) { t.Pages = append(t.Pages, p) }

// Reset empties t, keeping its capacity.
func (t *Touched) Reset() { t.Pages, t.Redo, t.New = t.Pages[:0], 0, 0 }

// SeqIndex is a B-tree filled in key order, as a clustered index is when
// rows arrive sorted by its key: every insert goes to the rightmost leaf;
// a full leaf (15/16, seqReserve) gets a new right sibling holding just the
// new record (btr_page_get_split_rec_to_right splits at the insert point),
// and each new leaf adds a node pointer to the rightmost page of the level
// above, which grows the same way.
type SeqIndex struct {
	rec, ptr        int // record and node-pointer bytes
	perLeaf, perPtr int // records per leaf, pointers per non-leaf page
	leaf            int32
	n               int // records in the rightmost leaf
	levels          []seqLevel

	Records int64
	Leaves  int64
	NonLeaf int64
}

type seqLevel struct {
	page int32
	n    int
}

// NewSeqIndex returns an empty index of rec-byte records and ptr-byte node
// pointers; its root leaf is allocated at once.
func NewSeqIndex(rec, ptr int, a PageAllocator) *SeqIndex {
	if rec < 8 || rec > PageUsable/2 || ptr < 8 || ptr > PageUsable/2 {
		panic(fmt.Sprintf("engine: index records of %d B and pointers of %d B", rec, ptr))
	}
	s := &SeqIndex{rec: rec, ptr: ptr}
	s.perLeaf = (PageUsable - seqReserve) / rec
	s.perPtr = (PageUsable - seqReserve) / ptr
	s.leaf = a.NewPage()
	s.Leaves = 1
	return s
}

// PerLeaf returns the records a full leaf holds.
func (s *SeqIndex) PerLeaf() int { return s.perLeaf }

// Tail returns the rightmost leaf and the pages of the levels above it
// (the path of the next insert), appended to dst.
func (s *SeqIndex) Tail(dst []int32) []int32 {
	for i := len(s.levels) - 1; i >= 0; i-- {
		dst = append(dst, s.levels[i].page)
	}
	return append(dst, s.leaf)
}

// Insert appends one record, recording what it modified in t.
func (s *SeqIndex) Insert(a PageAllocator, t *Touched) {
	s.Records++
	if old, grew := appendRec(&s.leaf, &s.n, s.perLeaf, s.rec, a, t); grew {
		// A new right leaf; the old one keeps its records.
		s.Leaves++
		t.add(old)
		s.pushUp(0, a, t)
	}
}

// appendRec adds a rec-byte record to the rightmost page of a level, which
// holds n of per; a full page gets a new right sibling that takes the
// record alone. It returns the old page and true if it did.
func appendRec(page *int32, n *int, per, rec int, a PageAllocator, t *Touched) (int32, bool) {
	if *n < per {
		*n++
		t.add(*page)
		t.Redo += uint64(rec) + redoRecHeader
		return 0, false
	}
	old := *page
	*page = a.NewPage()
	t.New++
	*n = 1
	t.add(*page)
	t.Redo += uint64(rec) + redoRecHeader + redoPageCreate
	return old, true
}

// pushUp adds a node pointer for a new page at level lvl (0 = the level
// above the leaves), growing the tree by a root when needed.
func (s *SeqIndex) pushUp(lvl int, a PageAllocator, t *Touched) {
	if lvl == len(s.levels) {
		// The root splits: a new root above holds both pointers.
		root := a.NewPage()
		s.NonLeaf++
		t.New++
		s.levels = append(s.levels, seqLevel{page: root, n: 2})
		t.add(root)
		t.Redo += 2*uint64(s.ptr) + redoPageCreate
		return
	}
	l := &s.levels[lvl]
	if _, grew := appendRec(&l.page, &l.n, s.perPtr, s.ptr, a, t); grew {
		s.NonLeaf++
		s.pushUp(lvl+1, a, t)
	}
}

// Redo sizes of index operations (MySQL 5.1 mtr log records, [derived]):
// a record insert logs the record with about 20 bytes of type, space,
// page, offset and length fields (MLOG_COMP_REC_INSERT); a page create
// about 20 bytes; a split also logs every record moved to the new page
// (MLOG_COMP_LIST_END_COPY_CREATED), and a delete 12 bytes.
const (
	redoRecHeader  = 20
	redoPageCreate = 20
	redoRecDelete  = 12
)

// RandIndex is a B-tree whose records arrive in random key order (a
// secondary index loaded in clustered-key order). Keys are 64-bit positions
// in the index's key order; a leaf holds a key range and a record count,
// not the keys, so memory grows with pages, not rows. A full leaf splits:
// at the insert point if the insert lands after every key of the leaf and
// the previous insert into it did too (btr_page_get_split_rec_to_right, a
// sequential pattern), else in the middle, its key range cut at the midpoint
// of the keys it holds. Random inserts into middle-split leaves leave them
// about ln 2 = 69 % full on average (Yao 1978); that figure is not set
// anywhere, it is what the splits produce (TestRandIndexFill).
//
// Leaves are grouped under non-leaf pages of up to perPtr pointers, which
// split in the middle when full; one root sits above them (a third level
// of root pages is counted when the non-leaf pages exceed a root's worth).
type RandIndex struct {
	rec, ptr, perLeaf, perPtr int
	nodes                     []rnode
	root                      []int32 // root-level pages

	Records int64
	Leaves  int64
	NonLeaf int64
	Splits  int64

	id  uint16
	own *PageOwners
}

// PageOwners maps a leaf page of any RandIndex to its index and the first
// key of its range, so that an insert-buffer merge finds the leaf of a page
// it read. It has one entry per page of the tablespace.
type PageOwners struct {
	idx []uint16 // index id + 1; 0 = not a secondary leaf
	lo  []uint64
}

// NewPageOwners returns an empty map over pages page ids.
func NewPageOwners(pages int) *PageOwners {
	return &PageOwners{idx: make([]uint16, pages), lo: make([]uint64, pages)}
}

// Owner returns the index id and range start of leaf page p; ok is false
// for a page that is not a secondary leaf.
func (o *PageOwners) Owner(p int32) (id int, lo uint64, ok bool) {
	if o.idx[p] == 0 {
		return 0, 0, false
	}
	return int(o.idx[p] - 1), o.lo[p], true
}

func (o *PageOwners) set(p int32, id uint16, lo uint64) {
	if o != nil {
		o.idx[p], o.lo[p] = id+1, lo
	}
}

type rnode struct {
	lo     uint64
	page   int32
	leaves []rleaf
}

type rleaf struct {
	lo, max uint64 // first key of its range, largest key inserted
	page    int32
	n       int32
	atEnd   bool // the last insert was after every key
	empty   bool
}

// LeafRef names a leaf for a later insert: its page and where it sits.
type LeafRef struct {
	Node, Leaf int
	Page       int32
	NodePage   int32
	RootPage   int32
}

// NewRandIndex returns an empty index (one root leaf under one non-leaf
// page) of rec-byte records and ptr-byte node pointers.
func NewRandIndex(rec, ptr int, a PageAllocator, id uint16, own *PageOwners) *RandIndex {
	if rec < 8 || rec > PageUsable/2 || ptr < 8 || ptr > PageUsable/2 {
		panic(fmt.Sprintf("engine: index records of %d B and pointers of %d B", rec, ptr))
	}
	r := &RandIndex{rec: rec, ptr: ptr, perLeaf: PageUsable / rec, perPtr: PageUsable / ptr, id: id, own: own}
	leaf := a.NewPage()
	own.set(leaf, id, 0)
	node := a.NewPage()
	r.nodes = []rnode{{lo: 0, page: node, leaves: []rleaf{{page: leaf, empty: true}}}}
	r.root = []int32{node}
	r.Leaves, r.NonLeaf = 1, 1
	return r
}

// PerLeaf returns the records a full leaf holds.
func (r *RandIndex) PerLeaf() int { return r.perLeaf }

// RecordBytes returns the size of a record.
func (r *RandIndex) RecordBytes() int { return r.rec }

// Find returns the leaf whose range holds key.
func (r *RandIndex) Find(key uint64) LeafRef {
	ni := sort.Search(len(r.nodes), func(i int) bool { return r.nodes[i].lo > key }) - 1
	nd := &r.nodes[ni]
	li := sort.Search(len(nd.leaves), func(i int) bool { return nd.leaves[i].lo > key }) - 1
	if li < 0 {
		li = 0
	}
	return LeafRef{Node: ni, Leaf: li, Page: nd.leaves[li].page, NodePage: nd.page, RootPage: r.root[ni*len(r.root)/len(r.nodes)]}
}

// Count returns the records in the leaf ref names.
func (r *RandIndex) Count(ref LeafRef) int { return int(r.nodes[ref.Node].leaves[ref.Leaf].n) }

// Insert adds count records with key into the leaf ref names (found by
// Find just before, its page resident), splitting as often as needed.
// count > 1 is an insert-buffer merge: its records spread over the leaf's
// range, so they never count as a sequential pattern.
func (r *RandIndex) Insert(ref LeafRef, key uint64, count int, a PageAllocator, t *Touched) {
	r.Records += int64(count)
	nd := &r.nodes[ref.Node]
	lf := &nd.leaves[ref.Leaf]
	end := count == 1 && (lf.empty || key >= lf.max)
	seq := end && lf.atEnd
	lf.atEnd = end
	if lf.empty || key > lf.max {
		lf.max = key
	}
	lf.empty = false
	t.add(lf.page)
	t.Redo += uint64(count) * (uint64(r.rec) + redoRecHeader)
	lf.n += int32(count)
	ni, li := ref.Node, ref.Leaf
	if lf.n <= int32(r.perLeaf) {
		return
	}
	r.split(ni, li, key, seq, a, t)
	// A large merge may leave either half over-full: split until none is.
	// Splits only move leaves into the next non-leaf pages.
	for count > 1 {
		ni2, li2, ok := r.overfull(ni)
		if !ok {
			break
		}
		r.split(ni2, li2, key, false, a, t)
	}
}

// overfull finds an over-full leaf in non-leaf page ni or the two after it.
func (r *RandIndex) overfull(ni int) (int, int, bool) {
	for n := ni; n < len(r.nodes) && n <= ni+2; n++ {
		for l := range r.nodes[n].leaves {
			if r.nodes[n].leaves[l].n > int32(r.perLeaf) {
				return n, l, true
			}
		}
	}
	return 0, 0, false
}

// split splits leaf li of node ni.
func (r *RandIndex) split(ni, li int, key uint64, seq bool, a PageAllocator, t *Touched) {
	r.Splits++
	nd := &r.nodes[ni]
	lf := nd.leaves[li]
	var right rleaf
	right.page = a.NewPage()
	r.Leaves++
	t.New++
	if seq {
		// Split at the insert point: the new record alone moves right.
		right.lo, right.max, right.n, right.atEnd = key, key, 1, true
		lf.n--
		lf.atEnd = false
		t.Redo += uint64(r.rec) + redoPageCreate
	} else {
		mid := lf.lo + (lf.max-lf.lo)/2
		if mid <= lf.lo {
			mid = lf.lo + 1
		}
		right.lo, right.max = mid, max(lf.max, mid)
		right.n = lf.n - lf.n/2
		lf.n /= 2
		lf.max = mid - 1
		lf.atEnd = false
		t.Redo += uint64(right.n)*uint64(r.rec) + redoPageCreate + uint64(right.n)*redoRecDelete/4
	}
	r.own.set(right.page, r.id, right.lo)
	nd.leaves[li] = lf
	nd.leaves = append(nd.leaves, rleaf{})
	copy(nd.leaves[li+2:], nd.leaves[li+1:])
	nd.leaves[li+1] = right
	t.add(lf.page)
	t.add(right.page)
	// The node pointer to the new leaf.
	t.add(nd.page)
	t.Redo += uint64(r.ptr) + redoRecHeader
	if len(nd.leaves) > r.perPtr {
		r.splitNode(ni, a, t)
	}
}

func (r *RandIndex) splitNode(ni int, a PageAllocator, t *Touched) {
	nd := &r.nodes[ni]
	h := len(nd.leaves) / 2
	upper := make([]rleaf, len(nd.leaves)-h, r.perPtr+1)
	copy(upper, nd.leaves[h:])
	nd.leaves = nd.leaves[:h]
	nn := rnode{lo: upper[0].lo, page: a.NewPage(), leaves: upper}
	r.NonLeaf++
	t.New++
	t.add(nd.page)
	t.add(nn.page)
	t.Redo += uint64(len(upper))*uint64(r.ptr) + redoPageCreate
	r.nodes = append(r.nodes, rnode{})
	copy(r.nodes[ni+2:], r.nodes[ni+1:])
	r.nodes[ni+1] = nn
	if len(r.nodes) == 2 && len(r.root) == 1 && r.root[0] == nd.page {
		// The first non-leaf page was the root: a new root above.
		r.root[0] = a.NewPage()
		r.NonLeaf++
		t.New++
	}
	if want := (len(r.nodes) + r.perPtr - 1) / r.perPtr; want > len(r.root) {
		r.root = append(r.root, a.NewPage())
		r.NonLeaf++
		t.New++
	}
	t.add(r.root[ni*len(r.root)/len(r.nodes)])
}

// Pages returns the index's leaf and non-leaf page counts.
func (r *RandIndex) Pages() (leaves, nonLeaf int64) { return r.Leaves, r.NonLeaf }

// Pages returns the index's leaf and non-leaf page counts.
func (s *SeqIndex) Pages() (leaves, nonLeaf int64) { return s.Leaves, s.NonLeaf }

// FillFactor returns records / (leaves x records per full leaf).
func (r *RandIndex) FillFactor() float64 {
	return float64(r.Records) / float64(r.Leaves*int64(r.perLeaf))
}

// FillFactor returns records / (leaves x records a page could hold).
func (s *SeqIndex) FillFactor() float64 {
	return float64(s.Records) / float64(s.Leaves*int64(PageUsable/s.rec))
}

// Check verifies the index's invariants: ranges in key order, no leaf
// over its capacity, non-leaf pages within their fan-out, and the leaf
// counts adding up to Records and Leaves. It returns the first violation.
func (r *RandIndex) Check() error {
	var recs, leaves int64
	var prev uint64
	for ni, nd := range r.nodes {
		if len(nd.leaves) == 0 || len(nd.leaves) > r.perPtr {
			return fmt.Errorf("node %d holds %d leaves (fan-out %d)", ni, len(nd.leaves), r.perPtr)
		}
		if nd.lo != nd.leaves[0].lo {
			return fmt.Errorf("node %d starts at %d, its first leaf at %d", ni, nd.lo, nd.leaves[0].lo)
		}
		for li, lf := range nd.leaves {
			if (ni > 0 || li > 0) && lf.lo <= prev {
				return fmt.Errorf("leaf %d/%d starts at %d, not after %d", ni, li, lf.lo, prev)
			}
			prev = lf.lo
			if lf.n < 0 || int(lf.n) > r.perLeaf {
				return fmt.Errorf("leaf %d/%d holds %d records (capacity %d)", ni, li, lf.n, r.perLeaf)
			}
			recs += int64(lf.n)
			leaves++
		}
	}
	if recs != r.Records || leaves != r.Leaves {
		return fmt.Errorf("leaves hold %d records in %d pages, the index counts %d in %d", recs, leaves, r.Records, r.Leaves)
	}
	return nil
}

// LimitLeaf caps the records a leaf holds at n (a compressed page holds
// what compresses into its key block). It must be called before the
// first insert.
func (s *SeqIndex) LimitLeaf(n int) { s.perLeaf = max(2, min(s.perLeaf, n)) }

// LimitLeaf caps the records a leaf holds at n, as SeqIndex.LimitLeaf.
func (r *RandIndex) LimitLeaf(n int) { r.perLeaf = max(4, min(r.perLeaf, n)) }
