package bulkload

import (
	"time"

	"simrun/model/disk"
)

// Result is the load's report. Its json tags are the public contract
// (docs/results.md, docs/model-bulkload.md).
type Result struct {
	ElapsedS     float64 `json:"elapsed_s"`    // the load's wall time: what the study reports
	CSVPhaseS    float64 `json:"csv_phase_s"`  // csv_alter: time of the CSV load (the rest is the ALTER)
	Rows         int64   `json:"rows"`         // rows inserted into InnoDB
	RowsPerS     float64 `json:"rows_per_s"`   // rows / elapsed
	Transactions int64   `json:"transactions"` // InnoDB commits
	Done         bool    `json:"done"`         // the load finished within the run's duration
	MissesPer1k  float64 `json:"misses_per_1000_rows"`

	Index  IndexStats    `json:"index"`
	Ibuf   IbufStats     `json:"ibuf"`
	Undo   UndoStats     `json:"undo"`
	Pool   PoolStats     `json:"buffer_pool"`
	Redo   RedoStats     `json:"redo"`
	IO     IOStats       `json:"io"`
	Zip    ZipStats      `json:"compression"`
	Cache  CacheStats    `json:"os_page_cache"`
	Time   TimeBreakdown `json:"time_s"`
	Series Series        `json:"series"`
}

// IndexStats are the B-trees at the end of the load.
type IndexStats struct {
	Partitions       int     `json:"partitions"`
	ClusteredLeaves  int64   `json:"clustered_leaves"`
	ClusteredFill    float64 `json:"clustered_fill"`
	SortkeyLeaves    int64   `json:"sortkey_leaves"`
	SortkeyFill      float64 `json:"sortkey_fill"`
	TimestampLeaves  int64   `json:"timestamp_leaves"`
	TimestampFill    float64 `json:"timestamp_fill"`
	NonLeafPages     int64   `json:"non_leaf_pages"`
	Splits           int64   `json:"secondary_splits"`
	TablespaceMB     float64 `json:"tablespace_mb"`
	Autoextends      int64   `json:"autoextends"`
	AutoextendMB     float64 `json:"autoextend_written_mb"`
	DirectInserts    int64   `json:"secondary_direct_inserts"`
	BufferedInserts  int64   `json:"secondary_buffered_inserts"`
	UnbufferedMisses int64   `json:"secondary_unbuffered_inserts"`
}

// IbufStats is the insert buffer.
type IbufStats struct {
	MaxPages      int   `json:"max_pages"`
	PeakPages     int   `json:"peak_pages"`
	PagesAtEnd    int   `json:"pages_at_end"`
	RecordsAtEnd  int64 `json:"records_at_end"`
	Merges        int64 `json:"merges"`
	MergedRecords int64 `json:"merged_records"`
	MergeReads    int64 `json:"merge_reads"`
	SyncContracts int64 `json:"sync_contractions"`
}

// CacheStats is the kernel page cache in front of ibdata1 (flush method
// fdatasync; zero with O_DIRECT).
type CacheStats struct {
	Hits        int64 `json:"read_hits"`     // page reads served from the page cache
	Misses      int64 `json:"read_misses"`   // page reads that went to the device
	PagesSynced int64 `json:"pages_written"` // dirty pages written by fsync or write-back
	Writebacks  int64 `json:"writebacks"`    // flusher runs that wrote dirty pages
}

// ZipStats are the compressed pages (row_format = compressed).
type ZipStats struct {
	Compressions   int64   `json:"compressions"`
	Failures       int64   `json:"failed_compressions"` // splits
	Decompressions int64   `json:"decompressions"`
	RedoMB         float64 `json:"page_image_redo_mb"` // MLOG_ZIP_PAGE_COMPRESS images
	PoolPages      int     `json:"pool_pages"`         // compressed pages the pool holds
}

// UndoStats is the insert undo log.
type UndoStats struct {
	PagesPeak int   `json:"pages_peak"` // most undo pages one transaction held
	PagesAll  int64 `json:"pages_added"`
}

// PoolStats is the buffer pool.
type PoolStats struct {
	Frames       int     `json:"frames"`
	ReadsLeaf    int64   `json:"reads_secondary_leaf"`
	ReadsIbuf    int64   `json:"reads_ibuf"`
	ReadsUndo    int64   `json:"reads_undo"`
	ReadsOther   int64   `json:"reads_other"`
	PagesFlushed int64   `json:"pages_flushed"` // by the flush list (checkpoints, dirty-page limit)
	LRUWrites    int64   `json:"lru_writes"`    // written to free a frame
	DirtyAvg     float64 `json:"dirty_pages_avg"`
	DirtyMax     int64   `json:"dirty_pages_max"`
}

// RedoStats is the redo log.
type RedoStats struct {
	GeneratedMB     float64 `json:"generated_mb"`
	CheckpointMaxMB float64 `json:"max_checkpoint_age_mb"` // log_calc_max_ages
	AsyncMB         float64 `json:"async_preflush_mb"`
	SyncMB          float64 `json:"sync_preflush_mb"`
	AgeAvgMB        float64 `json:"checkpoint_age_avg_mb"`
	Checkpoints     int64   `json:"checkpoints"`
	Stalls          int64   `json:"stalls"` // log_free_check waits
	Syncs           int64   `json:"fsyncs"`
}

// IOStats are the volume's figures over the load.
type IOStats struct {
	ReadsPerS       float64            `json:"reads_per_s"`
	WritesPerS      float64            `json:"writes_per_s"`
	UtilPct         float64            `json:"util_pct"`
	ReadMBBySource  map[string]float64 `json:"read_mb_by_source"`
	WriteMBBySource map[string]float64 `json:"write_mb_by_source"`
}

// TimeBreakdown is where the loading thread's time went, in seconds.
type TimeBreakdown struct {
	CPU             float64 `json:"cpu"`
	PageRead        float64 `json:"page_read"`
	CheckpointStall float64 `json:"checkpoint_stall"`
	Autoextend      float64 `json:"autoextend"`
	LRUFlush        float64 `json:"lru_flush"`
	IbufMerge       float64 `json:"ibuf_merge"`
	Commit          float64 `json:"commit"`
	CSVRead         float64 `json:"csv_read"`
}

// Series are per-interval figures over the load, for simrun plot --kind
// series.
type Series struct {
	IntervalS            float64   `json:"interval_s"`
	RowsPerS             []float64 `json:"rows_per_s"`
	MissesPer1000Rows    []float64 `json:"misses_per_1000_rows"`
	PageReadsPerS        []float64 `json:"page_reads_per_s"`
	PageWritesPerS       []float64 `json:"page_writes_per_s"`
	DoublewritePagesPerS []float64 `json:"doublewrite_pages_per_s"`
	RedoMBPerS           []float64 `json:"redo_mb_per_s"`
	BinlogMBPerS         []float64 `json:"binlog_mb_per_s"`
	DirtyPages           []float64 `json:"dirty_pages"`
	CheckpointAgeMB      []float64 `json:"checkpoint_age_MB"`
	IbufPages            []float64 `json:"ibuf_pages"`
	UndoPages            []float64 `json:"undo_pages"`
}

// Result returns the report of the load so far.
func (l *Loader) Result() Result {
	now := l.env.Now()
	end := l.endAt
	if !l.finished {
		end = now
	}
	el := time.Duration(end - l.startAt).Seconds()
	s := &l.st_
	r := Result{ElapsedS: el, Rows: s.rows, Transactions: s.commits, Done: l.finished && l.err == nil}
	if l.cfg.Method == MethodCSVAlter {
		r.Rows = max(0, s.rows-l.cfg.Rows)
		if l.csvEnd > 0 {
			r.CSVPhaseS = time.Duration(l.csvEnd - l.startAt).Seconds()
		}
	}
	if el > 0 {
		r.RowsPerS = float64(l.cfg.Rows) / el
		if !l.finished {
			r.RowsPerS = float64(r.Rows) / el
		}
	}
	if r.Rows > 0 {
		r.MissesPer1k = float64(l.misses()) / float64(r.Rows) * 1000
	}
	ix := &r.Index
	ix.Partitions = len(l.sets)
	var recC, capC int64
	var rec [2]int64
	var cap_ [2]int64
	for _, set := range l.sets {
		if set.clust == nil {
			continue
		}
		lv, nl := set.clust.Pages()
		ix.ClusteredLeaves += lv
		ix.NonLeafPages += nl
		recC += set.clust.Records
		capC += lv * int64(16252/l.cfg.clusteredBytes())
		for k, sx := range set.sec {
			lv, nl := sx.Pages()
			ix.NonLeafPages += nl
			ix.Splits += sx.Splits
			rec[k] += sx.Records
			cap_[k] += lv * int64(sx.PerLeaf())
			if k == 0 {
				ix.SortkeyLeaves += lv
			} else {
				ix.TimestampLeaves += lv
			}
		}
	}
	ratio := func(a, b int64) float64 {
		if b == 0 {
			return 0
		}
		return float64(a) / float64(b)
	}
	ix.ClusteredFill = ratio(recC, capC)
	ix.SortkeyFill = ratio(rec[0], cap_[0])
	ix.TimestampFill = ratio(rec[1], cap_[1])
	ix.TablespaceMB = float64(l.ts.Size()) * float64(l.e.PageIO()) / 1e6
	ix.Autoextends = l.ts.Extensions
	ix.AutoextendMB = float64(l.ts.ExtendBytes) / 1e6
	ix.DirectInserts, ix.BufferedInserts, ix.UnbufferedMisses = s.direct, s.buffered, s.refused
	r.Ibuf = IbufStats{MaxPages: l.ib.MaxSize(), PeakPages: l.ib.PeakPages, PagesAtEnd: l.ib.Size(), RecordsAtEnd: l.ib.Records(),
		Merges: s.merges, MergedRecords: l.ib.Merged, MergeReads: s.mergeReads, SyncContracts: s.syncContracts}
	if z := l.zip; z != nil {
		r.Zip = ZipStats{Compressions: z.Compressions, Failures: z.Failures, Decompressions: z.Decompressions,
			RedoMB: float64(z.RedoBytes) / 1e6, PoolPages: l.e.Frames()}
	}
	if c := l.srv.PageCache(); c != nil {
		r.Cache = CacheStats{Hits: c.Hits, Misses: c.Misses, PagesSynced: c.Synced, Writebacks: c.Writebacks}
	}
	r.Undo = UndoStats{PagesPeak: l.undo.PagesPeak, PagesAll: l.undo.PagesAll}
	es := l.e.Stats()
	r.Pool = PoolStats{Frames: l.e.Frames(), ReadsLeaf: s.readsLeaf + s.mergeReads, ReadsIbuf: s.readsIbuf, ReadsUndo: s.readsUndo, ReadsOther: s.readsOther,
		PagesFlushed: es.PagesFlushed, LRUWrites: es.LRUWrites, DirtyAvg: es.DirtyPages.Mean, DirtyMax: es.DirtyPages.Max}
	c, sy, a := l.e.Redo.Points()
	r.Redo = RedoStats{GeneratedMB: float64(es.LSNBytes) / 1e6, CheckpointMaxMB: float64(c) / 1e6, SyncMB: float64(sy) / 1e6, AsyncMB: float64(a) / 1e6,
		AgeAvgMB: es.CheckpointAge.Mean / 1e6, Checkpoints: es.Checkpoints, Stalls: s.stalls, Syncs: es.RedoSyncs}
	io := l.vol.Iostat()
	r.IO = IOStats{ReadsPerS: io.ReadsPerS, WritesPerS: io.WritesPerS, UtilPct: io.UtilPct, ReadMBBySource: map[string]float64{}, WriteMBBySource: map[string]float64{}}
	src := l.src
	for _, sr := range []disk.Source{disk.SourceJournal, src.Engine.Redo, src.Engine.PageFlush, src.Engine.Doublewrite,
		src.Engine.PageRead, src.Commit.BinlogFile, src.Commit.BinlogPages, src.Autoextend, src.CSV} {
		rd, wr := l.vol.SourceBytes(sr)
		name := l.vol.SourceName(sr)
		r.IO.ReadMBBySource[name] = float64(rd) / 1e6
		r.IO.WriteMBBySource[name] = float64(wr) / 1e6
	}
	sec := func(k int) float64 { return time.Duration(s.wait[k]).Seconds() }
	r.Time = TimeBreakdown{CPU: sec(waitCPU), PageRead: sec(waitRead), CheckpointStall: sec(waitStall), Autoextend: sec(waitExtend),
		LRUFlush: sec(waitLRU), IbufMerge: sec(waitMerge), Commit: sec(waitCommit), CSVRead: sec(waitCSV)}
	r.Series = s.series
	return r
}
