package realdb

import (
	"fmt"
	"strings"
)

// column is one figure of the tables.
type column struct {
	head string
	get  func(Figures) float64
	fmt  string
}

var columns = []column{
	{"TPS", func(f Figures) float64 { return f.TPS }, "%.0f"},
	{"flushes/tx", func(f Figures) float64 { return f.FlushesPerTx }, "%.3f"},
	{"writes/tx", func(f Figures) float64 { return f.WritesPerTx }, "%.2f"},
	{"write KiB/tx", func(f Figures) float64 { return f.WriteKBPerTx }, "%.1f"},
	{"tx/redo sync", func(f Figures) float64 { return f.TxPerRedoSync }, "%.2f"},
	{"tx/binlog group", func(f Figures) float64 { return f.TxPerGroup }, "%.2f"},
	{"CPU us/tx", func(f Figures) float64 { return f.ServerCPUUs + f.ClientCPUUs }, "%.0f"},
	{"redo B/tx", func(f Figures) float64 { return f.RedoBytesTx }, "%.0f"},
	{"binlog B/tx", func(f Figures) float64 { return f.BinlogBytesTx }, "%.0f"},
	{"pages written/tx", func(f Figures) float64 { return f.PagesFlushedTx }, "%.2f"},
}

// header writes a table's head: the setting, the columns, then extra.
func header(b *strings.Builder, extra ...string) {
	heads := []string{"binlog, setting", "threads"}
	for _, c := range columns {
		heads = append(heads, c.head)
	}
	heads = append(heads, extra...)
	b.WriteString("| " + strings.Join(heads, " | ") + " |\n|" + strings.Repeat("---|", len(heads)) + "\n")
}

func label(s Setting) string {
	if !s.Binlog {
		return fmt.Sprintf("off, flush=%d", s.Flush)
	}
	return fmt.Sprintf("on, sync_binlog=%d, flush=%d", s.sync(), s.Flush)
}

// capLabel is label with the blkio cap, when the point had one.
func capLabel(s Setting) string {
	if !s.capped() {
		return label(s)
	}
	return fmt.Sprintf("%s, %d MB/s %d IOPS", label(s), s.CapBPS/1000000, s.CapIOPS)
}

func rng(p Point, c column) string {
	r := p.Range(c.get)
	if len(p.Runs) == 1 || fmt.Sprintf(c.fmt, r.Min) == fmt.Sprintf(c.fmt, r.Max) {
		return fmt.Sprintf(c.fmt, r.Mean)
	}
	return fmt.Sprintf(c.fmt+"–"+c.fmt, r.Min, r.Max)
}

// MeasuredMarkdown is the measured points as a markdown table: each cell
// the range over the repeats. CPU is mariadbd's plus sysbench's; the
// server's alone and its system share are in the last columns.
func MeasuredMarkdown(pts []Point) string {
	var b strings.Builder
	header(&b, "server CPU us/tx (sys)", "others' CPU %", "of it kernel threads %", "load")
	for _, p := range pts {
		fmt.Fprintf(&b, "| %s | %d |", capLabel(p.Setting), p.Setting.Threads)
		for _, c := range columns {
			b.WriteString(" " + rng(p, c) + " |")
		}
		srv := p.Range(func(f Figures) float64 { return f.ServerCPUUs }).Mean
		sys := p.Range(func(f Figures) float64 { return f.ServerSysUs }).Mean
		fmt.Fprintf(&b, " %.0f (%.0f) |", srv, sys)
		b.WriteString(" " + rng(p, column{get: func(f Figures) float64 { return f.OtherCPUPct }, fmt: "%.0f"}) + " |")
		b.WriteString(" " + rng(p, column{get: func(f Figures) float64 { return f.KernelThreadsPct }, fmt: "%.1f"}) + " |")
		b.WriteString(" " + loadRange(p) + " |\n")
	}
	return b.String()
}

func loadRange(p Point) string {
	lo, hi := 1e9, -1.0
	for _, f := range p.Runs {
		lo, hi = min(lo, f.Load), max(hi, f.Load)
	}
	return fmt.Sprintf("%.1f–%.1f", lo, hi)
}

// Markdown is measured ranges beside simrun's predictions, one row per
// point: "measured / predicted" in each cell.
func Markdown(ps []Prediction) string {
	var b strings.Builder
	header(&b)
	for _, p := range ps {
		fmt.Fprintf(&b, "| %s | %d |", capLabel(p.Point.Setting), p.Point.Setting.Threads)
		for _, c := range columns {
			fmt.Fprintf(&b, " %s / "+c.fmt+" |", rng(p.Point, c), c.get(p.Predicted))
		}
		b.WriteString("\n")
	}
	return b.String()
}

// CapsMarkdown is the capped points (blkio throttle) as a markdown table:
// throughput, device bytes and page flushing per transaction by source,
// free-page waits and checkpoint age. Pages flushed counts every page
// write (Innodb_buffer_pool_pages_flushed); the LRU column is the share
// written from the LRU tail.
func CapsMarkdown(pts []Point) string {
	var b strings.Builder
	b.WriteString("| binlog, setting | threads | cap | TPS | write KiB/tx | pages flushed/tx | sync / adaptive / background / LRU batch | of them neighbours | LRU_flushed | free-page waits/tx | checkpoint age MB mean (max) | flushes/tx | reads/tx |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|\n")
	for _, p := range pts {
		s := p.Setting
		if !s.capped() {
			continue
		}
		r := func(get func(Figures) float64, f string) string { return rng(p, column{get: get, fmt: f}) }
		mean := func(get func(Figures) float64) float64 { return p.Range(get).Mean }
		fmt.Fprintf(&b, "| %s | %d | %d MB/s, %d IOPS | %s | %s | %s | %.2f / %.2f / %.2f / %.2f | %s | %s | %s | %s (%s) | %s | %s |\n", label(s), s.Threads, s.CapBPS/1000000, s.CapIOPS,
			r(func(f Figures) float64 { return f.TPS }, "%.0f"),
			r(func(f Figures) float64 { return f.WriteKBPerTx }, "%.1f"),
			r(func(f Figures) float64 { return f.PagesFlushedTx }, "%.2f"),
			mean(func(f Figures) float64 { return f.SyncFlushTx }), mean(func(f Figures) float64 { return f.AdaptiveFlushTx }),
			mean(func(f Figures) float64 { return f.BackgroundTx }), mean(func(f Figures) float64 { return f.LRUBatchTx }),
			r(func(f Figures) float64 { return f.NeighborTx }, "%.2f"),
			r(func(f Figures) float64 { return f.LRUFlushedTx }, "%.2f"),
			r(func(f Figures) float64 { return f.WaitFreeTx }, "%.3f"),
			r(func(f Figures) float64 { return f.CkptAgeMeanMB }, "%.0f"),
			r(func(f Figures) float64 { return f.CkptAgeMaxMB }, "%.0f"),
			r(func(f Figures) float64 { return f.FlushesPerTx }, "%.3f"),
			r(func(f Figures) float64 { return f.ReadsPerTx }, "%.2f"))
	}
	return b.String()
}
