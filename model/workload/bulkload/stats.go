package bulkload

import (
	"time"

	"simrun/model/disk"
	"simrun/sim"
)

// stats are the loader's counters and its time series.
type stats struct {
	rows, commits                     int64
	direct, buffered, refused, merges int64
	readsLeaf, readsIbuf, readsUndo   int64
	readsOther, mergeReads            int64
	stalls, syncContracts, lruBatches int64
	wait                              [numWaits]sim.Time

	width  time.Duration
	last   sample
	series Series
}

// sample is the cumulative state at an instant, for the series' rates.
type sample struct {
	at     sim.Time
	rows   int64
	misses int64
	read   [disk.MaxSources]int64
	write  [disk.MaxSources]int64
}

func (s *stats) init(width time.Duration) { s.width = width }

func (s *stats) start(l *Loader, now sim.Time) { s.last = l.snapshot(now) }

func (l *Loader) misses() int64 {
	s := &l.st_
	return s.readsLeaf + s.readsIbuf + s.readsUndo + s.readsOther + s.mergeReads
}

func (l *Loader) snapshot(now sim.Time) sample {
	sm := sample{at: now, rows: l.st_.rows, misses: l.misses()}
	for i := 0; i < disk.MaxSources; i++ {
		sm.read[i], sm.write[i] = l.vol.SourceBytes(disk.Source(i))
	}
	return sm
}

// onSample closes one interval of the series.
func (l *Loader) onSample(any) {
	now := l.env.Now()
	cur := l.snapshot(now)
	s := &l.st_
	secs := time.Duration(now - s.last.at).Seconds()
	ser := &s.series
	ser.IntervalS = s.width.Seconds()
	rows := float64(cur.rows - s.last.rows)
	ser.RowsPerS = append(ser.RowsPerS, rows/secs)
	mpk := 0.0
	if rows > 0 {
		mpk = float64(cur.misses-s.last.misses) / rows * 1000
	}
	ser.MissesPer1000Rows = append(ser.MissesPer1000Rows, mpk)
	page := float64(l.e.PageIO())
	rate := func(a, b int64) float64 { return float64(a-b) / page / secs }
	dwPage := float64(16384) // doublewrite slots stay 16 KiB (UNIV_PAGE_SIZE)
	dwRate := func(a, b int64) float64 { return float64(a-b) / dwPage / secs }
	src := l.src
	ser.PageReadsPerS = append(ser.PageReadsPerS, rate(cur.read[src.Engine.PageRead], s.last.read[src.Engine.PageRead]))
	ser.PageWritesPerS = append(ser.PageWritesPerS, rate(cur.write[src.Engine.PageFlush], s.last.write[src.Engine.PageFlush]))
	ser.DoublewritePagesPerS = append(ser.DoublewritePagesPerS, dwRate(cur.write[src.Engine.Doublewrite], s.last.write[src.Engine.Doublewrite]))
	mb := func(a, b int64) float64 { return float64(a-b) / 1e6 / secs }
	ser.RedoMBPerS = append(ser.RedoMBPerS, mb(cur.write[src.Engine.Redo], s.last.write[src.Engine.Redo]))
	ser.BinlogMBPerS = append(ser.BinlogMBPerS, mb(cur.write[src.Commit.BinlogFile], s.last.write[src.Commit.BinlogFile]))
	ser.DirtyPages = append(ser.DirtyPages, float64(l.e.BP.Dirty()))
	ser.CheckpointAgeMB = append(ser.CheckpointAgeMB, float64(l.e.Redo.Age())/1e6)
	ser.IbufPages = append(ser.IbufPages, float64(l.ib.Size()))
	ser.UndoPages = append(ser.UndoPages, float64(l.undo.Pages()))
	s.last = cur
	if !l.finished {
		l.env.AfterArg(l.cfg.Sample.D(), l.sampleCB, nil)
	}
}
