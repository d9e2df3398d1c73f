package engine

// undoPageHeader is the room an undo log page loses to its headers: the
// undo page header (TRX_UNDO_PAGE_HDR, 18 B), the segment and log headers
// on the first page (about 200 B) and the file header and trailer.
const undoPageHeader = 250

// UndoLog is the insert undo log of one transaction at a time: each row
// writes a record (trx_undo_page_report_insert) to the log's last page; a
// full page is followed by a new one of the tablespace (trx_undo_add_page).
// Undo pages are ordinary dirty pages: a transaction whose undo outgrows
// the buffer pool has them flushed and evicted like any other, and at
// commit the insert undo log is freed (trx_undo_insert_cleanup) and its
// pages go back to the tablespace's free list; MySQL 5.1 still writes
// freed dirty pages when it flushes them. A single-page log whose page is
// less than 3/4 used is kept for reuse instead (TRX_UNDO_CACHED).
type UndoLog struct {
	ts    *Tablespace
	pages []int32 // the current transaction's pages
	used  int     // bytes used on the last page
	cache int32   // cached single-page log, -1 if none

	Records   int64
	PagesPeak int   // most pages one transaction held
	PagesAll  int64 // pages ever added
}

// NewUndoLog returns an empty insert undo log over ts.
func NewUndoLog(ts *Tablespace) *UndoLog { return &UndoLog{ts: ts, cache: -1} }

// Pages returns the current transaction's undo pages.
func (u *UndoLog) Pages() int { return len(u.pages) }

// Last returns the page the next record goes to, or -1 if the transaction
// has none yet.
func (u *UndoLog) Last() int32 {
	if len(u.pages) == 0 {
		return -1
	}
	return u.pages[len(u.pages)-1]
}

// Append writes one undo record of n bytes, recording the page it
// modified and its redo (the record plus a 2-byte page-free update,
// MLOG_UNDO_INSERT) in t.
func (u *UndoLog) Append(n int, a PageAllocator, t *Touched) {
	u.Records++
	if len(u.pages) == 0 || u.used+n > PageUsable-undoPageHeader {
		var p int32
		if len(u.pages) == 0 && u.cache >= 0 {
			p, u.cache = u.cache, -1
		} else {
			p = a.NewPage()
			t.New++
			u.PagesAll++
		}
		u.pages = append(u.pages, p)
		u.used = 0
		u.PagesPeak = max(u.PagesPeak, len(u.pages))
		t.Redo += redoPageCreate
	}
	u.used += n
	t.add(u.pages[len(u.pages)-1])
	t.Redo += uint64(n) + redoRecHeader
}

// Commit ends the transaction's undo log: cached for reuse if it is one
// page less than 3/4 used, otherwise freed to the tablespace.
func (u *UndoLog) Commit() {
	if len(u.pages) == 1 && u.used < (PageUsable-undoPageHeader)*3/4 && u.cache < 0 {
		u.cache = u.pages[0]
	} else {
		for i := len(u.pages) - 1; i >= 0; i-- {
			u.ts.Free(u.pages[i])
		}
	}
	u.pages = u.pages[:0]
	u.used = 0
}
