package bulkload

import (
	"os"
	"strconv"
	"testing"
	"time"

	"simrun/model/commit"
	"simrun/sim"
)

func ladder() []step {
	s2 := func(e *Server) {}
	s3 := func(e *Server) {
		e.Commit.BinlogStorageEngine = commit.BinlogOff
		e.Engine.Flushing.Doublewrite = false
		e.Commit.FlushLogAtTrxCommit = 2
	}
	big := func(w *Config) { w.LogFileSize, w.LogBufferSize = 512*sim.MiB, 32*sim.MiB }
	part := func(w *Config) { big(w); w.Partitioning = "month" }
	return []step{
		{"step1", func(*Server) {}, func(*Config) {}},
		{"step2", s2, big},
		{"step3", s3, big},
		{"step4", s3, part},
		{"step5", s3, func(w *Config) { part(w); w.Method = MethodLoadData }},
		{"step6", s3, func(w *Config) { part(w); w.Method = MethodCSVAlter }},
		{"step7", s3, func(w *Config) { part(w); w.Method = MethodCSVAlter; w.RowFormat = "compressed" }},
	}
}

func TestLadderDebug(t *testing.T) {
	if os.Getenv("BULK_DEBUG") == "" {
		t.Skip("BULK_DEBUG not set")
	}
	rows, _ := strconv.ParseInt(os.Getenv("BULK_ROWS"), 10, 64)
	for _, s := range ladder() {
		if f := os.Getenv("BULK_STEP"); f != "" && f != s.name {
			continue
		}
		ec := mysql51()
		s.eng(&ec)
		wc := DefaultConfig()
		if rows > 0 {
			wc.Rows = rows
		}
		s.wl(&wc)
		if v, err := strconv.ParseFloat(os.Getenv("BULK_SPREAD"), 64); err == nil {
			wc.TimestampSpread = v
		}
		if v, err := strconv.ParseFloat(os.Getenv("BULK_ZIPF"), 64); err == nil {
			wc.Popularity = v
		}
		if v, err := strconv.ParseFloat(os.Getenv("BULK_CPU"), 64); err == nil {
			f := v / 40
			c := &wc.CPU
			c.RowInsert, c.RowLoadData = sim.Duration(float64(c.RowInsert)*f), sim.Duration(float64(c.RowLoadData)*f)
			c.RowCSV, c.RowCopy = sim.Duration(float64(c.RowCSV)*f), sim.Duration(float64(c.RowCopy)*f)
		}
		t0 := time.Now()
		r, _ := run(t, ec, wc, 100*time.Hour)
		t.Logf("%s: elapsed %.0f s (wall %v) rows/s %.0f misses/1k %.1f time %+v", s.name, r.ElapsedS, time.Since(t0).Round(time.Millisecond), r.RowsPerS, r.MissesPer1k, r.Time)
		t.Logf("  index %+v", r.Index)
		t.Logf("  ibuf %+v undo %+v zip %+v", r.Ibuf, r.Undo, r.Zip)
		t.Logf("  pool %+v", r.Pool)
		t.Logf("  redo %+v", r.Redo)
		t.Logf("  io %+v", r.IO)
	}
}
