package main

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"sort"
	"strings"
	"time"

	"simrun/internal/result"
)

// Interval reports: the per-interval series a run records, printed as
// sysbench --report-interval prints its lines and as iostat -x prints
// device rows. They are read from the result after the run (the series
// are in it), so they are the same for a live run and a saved result.

// seriesBlock is one block of per-interval series: its interval and its
// series by name.
type seriesBlock struct {
	interval float64
	names    []string
	values   map[string][]float64
}

// blockAt reads the series under path (e.g. "series", "disk.series"):
// every list beside an interval_s.
func blockAt(m result.Metrics, path string) (seriesBlock, bool) {
	v, ok := m.Lookup(path)
	if !ok {
		return seriesBlock{}, false
	}
	mm, ok := v.(result.Metrics)
	if !ok {
		if x, ok2 := v.(map[string]any); ok2 {
			mm = x
		} else {
			return seriesBlock{}, false
		}
	}
	b := seriesBlock{values: map[string][]float64{}}
	if iv, ok := result.Float(mm["interval_s"]); ok && iv > 0 {
		b.interval = iv
	}
	for k, x := range mm {
		ys, ok := result.Floats(x)
		if !ok {
			continue
		}
		b.names = append(b.names, k)
		b.values[k] = ys
	}
	sort.Strings(b.names)
	return b, b.interval > 0 && len(b.names) > 0
}

// regroup averages consecutive points into intervals of every seconds (a
// multiple of the recorded interval); 0 keeps the recorded interval.
func (b seriesBlock) regroup(every float64) (seriesBlock, error) {
	if every == 0 || every == b.interval {
		return b, nil
	}
	k := every / b.interval
	if k < 1 || math.Abs(k-math.Round(k)) > 1e-9 {
		return b, usagef("--report-interval %gs: must be a multiple of the recorded interval, %gs", every, b.interval)
	}
	n := int(math.Round(k))
	out := seriesBlock{interval: every, names: b.names, values: map[string][]float64{}}
	for _, name := range b.names {
		ys := b.values[name]
		for i := 0; i+n <= len(ys); i += n {
			sum, c := 0.0, 0
			for _, y := range ys[i : i+n] {
				if !math.IsNaN(y) {
					sum, c = sum+y, c+1
				}
			}
			avg := math.NaN()
			if c > 0 {
				avg = sum / float64(c)
			}
			out.values[name] = append(out.values[name], avg)
		}
	}
	return out, nil
}

func (b seriesBlock) len() int {
	n := 0
	for _, ys := range b.values {
		n = max(n, len(ys))
	}
	return n
}

func at(ys []float64, i int) float64 {
	if i < len(ys) {
		return ys[i]
	}
	return math.NaN()
}

func fnum(f float64, dec int) string {
	if math.IsNaN(f) {
		return "-"
	}
	return fmt.Sprintf("%.*f", dec, f)
}

// writeIntervals prints, for each case, sysbench-style lines from its
// `series` block and, with iostat, iostat -x-style rows from its
// `disk.series` block, every `every` (0: as recorded).
func writeIntervals(w io.Writer, doc *result.Document, every time.Duration, iostat bool) error {
	bw := bufio.NewWriter(w)
	secs := every.Seconds()
	for _, c := range doc.Cases {
		if every > 0 {
			b, ok := blockAt(c.Metrics, "series")
			if !ok {
				fmt.Fprintf(bw, "\n%s: no per-interval series in this result (--report-interval needs a workload that records series.tps)\n", result.RowLabel(doc, c))
			} else {
				b, err := b.regroup(secs)
				if err != nil {
					return err
				}
				fmt.Fprintf(bw, "\n%s, every %s (sysbench --report-interval style):\n", result.RowLabel(doc, c), seconds(b.interval))
				for i := 0; i < b.len(); i++ {
					var parts []string
					for _, name := range b.names {
						parts = append(parts, fmt.Sprintf("%s: %s", strings.ReplaceAll(name, "_", " "), fnum(at(b.values[name], i), 2)))
					}
					fmt.Fprintf(bw, "[ %ss ] %s\n", trimFloat(b.end(i, runEnd(doc, c))), strings.Join(parts, " "))
				}
				if !contains(b.names, "qps") || !hasLatency(b.names) {
					fmt.Fprintln(bw, "(qps and latency per interval are not recorded as series by this model; the table has their means over the run)")
				}
			}
		}
		if iostat {
			if err := writeIostat(bw, result.RowLabel(doc, c), c, secs, runEnd(doc, c)); err != nil {
				return err
			}
		}
	}
	return bw.Flush()
}

// end is when interval i ends: a whole interval on, but no later than the
// run's end, where the last one may stop short.
func (b seriesBlock) end(i int, runEnd float64) float64 {
	t := float64(i+1) * b.interval
	if runEnd > 0 && t > runEnd {
		return runEnd
	}
	return t
}

// runEnd is the measured duration of c's run, s.
func runEnd(doc *result.Document, c result.Case) float64 {
	if c.Duration != nil {
		return *c.Duration
	}
	return doc.Duration
}

func hasLatency(names []string) bool {
	for _, n := range names {
		if strings.Contains(n, "latency") || strings.Contains(n, "_ms") {
			return true
		}
	}
	return false
}

func trimFloat(f float64) string {
	return strings.TrimSuffix(strings.TrimRight(fmt.Sprintf("%.3f", f), "0"), ".")
}

// iostatColumns are iostat -x's columns in its order, with the series
// that feeds each and its decimals.
var iostatColumns = []struct{ head, series string }{
	{"r/s", "reads_per_s"}, {"rkB/s", "read_kB_per_s"}, {"r_await", "r_await_ms"},
	{"w/s", "writes_per_s"}, {"wkB/s", "write_kB_per_s"}, {"w_await", "w_await_ms"},
	{"aqu-sz", "aqu_sz"}, {"%util", "util_pct"},
}

func writeIostat(bw *bufio.Writer, label string, c result.Case, every, runEnd float64) error {
	b, ok := blockAt(c.Metrics, "disk.series")
	if !ok {
		fmt.Fprintf(bw, "\n%s: no per-interval device series in this result (disk.series)\n", label)
		return nil
	}
	b, err := b.regroup(every)
	if err != nil {
		return err
	}
	var heads []string
	var cols []string
	var missing []string
	for _, col := range iostatColumns {
		if _, ok := b.values[col.series]; ok {
			heads, cols = append(heads, col.head), append(cols, col.series)
		} else {
			missing = append(missing, col.head)
		}
	}
	fmt.Fprintf(bw, "\n%s, every %s (iostat -x style):\n", label, seconds(b.interval))
	fmt.Fprintf(bw, "%-8s %-8s", "time", "Device")
	for _, h := range heads {
		fmt.Fprintf(bw, " %9s", h)
	}
	fmt.Fprintln(bw)
	for i := 0; i < b.len(); i++ {
		fmt.Fprintf(bw, "%-8s %-8s", trimFloat(b.end(i, runEnd))+"s", "vol")
		for _, s := range cols {
			fmt.Fprintf(bw, " %9s", fnum(at(b.values[s], i), 2))
		}
		fmt.Fprintln(bw)
	}
	if len(missing) > 0 {
		fmt.Fprintf(bw, "(not recorded per interval: %s; the table's disk columns have their means)\n", strings.Join(missing, ", "))
	}
	return nil
}
