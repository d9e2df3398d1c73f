package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/fatih/color"
	"golang.org/x/term"

	"simrun/internal/result"
	"simrun/scenarios"
)

// style colours text when output goes to a terminal that wants colour
// (fatih/color honours NO_COLOR, TERM=dumb and non-TTY stdout).
type style struct{ on bool }

func newStyle(toStdout bool) style { return style{on: toStdout && !color.NoColor} }

func (s style) paint(str string, attrs ...color.Attribute) string {
	if !s.on || str == "" {
		return str
	}
	c := color.New(attrs...)
	c.EnableColor()
	return c.Sprint(str)
}

func (s style) bold(str string) string   { return s.paint(str, color.Bold) }
func (s style) dim(str string) string    { return s.paint(str, color.Faint) }
func (s style) key(str string) string    { return s.paint(str, color.FgCyan) }
func (s style) warn(str string) string   { return s.paint(str, color.FgYellow, color.Bold) }
func (s style) source(str string) string { return s.paint(str, color.FgGreen) }

func writeTable(w io.Writer, doc *result.Document, opt tableOptions, st style) error {
	header, rows, hidden, colErr := runTable(doc, opt)
	bw := bufio.NewWriter(w)
	title := doc.Scenario
	if doc.Description != "" {
		title += " — " + doc.Description
	}
	fmt.Fprintln(bw, st.bold(fit(title, opt.width)))
	reps := "1 replication"
	if doc.Replications > 1 {
		reps = fmt.Sprintf("%d replications (mean ± 95%% CI)", doc.Replications)
	}
	fmt.Fprintln(bw, st.dim(fmt.Sprintf("seed %d · %s measured after %s warm-up · %s",
		doc.Seed, seconds(doc.Duration), seconds(doc.Warmup), reps)))
	if doc.Partial {
		fmt.Fprintln(bw, st.warn(fmt.Sprintf("PARTIAL: interrupted; %d rows completed", len(doc.Cases))))
	}
	fmt.Fprintln(bw)
	printGrid(bw, result.Table{Header: header, Rows: rows}, st, true)
	note := func(text string, indent int) {
		for _, l := range wrap(text, opt.width, indent) {
			fmt.Fprintln(bw, st.dim(l))
		}
	}
	// The settings as the rows ran them: a sweep's overrides applied.
	cases := opt.cases.inRun(doc)
	if cases != nil {
		fmt.Fprintln(bw)
		width := 0
		for _, c := range doc.Cases {
			width = max(width, displayWidth(c.Name))
		}
		shown := map[string]bool{}
		for _, c := range doc.Cases {
			if l := cases.label(c.Name); l != "" && !shown[c.Name] {
				shown[c.Name] = true
				note(padRight(c.Name, width)+" = "+l, width+3)
			}
		}
	}
	for _, n := range identicalNotes(doc, cases) {
		note(n, 2)
	}
	if len(hidden) > 0 {
		note(fmt.Sprintf("(%d more columns do not fit in %d columns: %s; choose with --metrics, or use --format csv)",
			len(hidden), opt.width, strings.Join(hidden, ", ")), 1)
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	if opt.every > 0 || opt.iostat {
		if err := writeIntervals(w, doc, opt.every, opt.iostat); err != nil {
			return err
		}
	}
	return colErr
}

// fit cuts s to width columns (0: no limit; see displayWidth), marking
// the cut with "…".
func fit(s string, width int) string {
	if width <= 0 || displayWidth(s) <= width {
		return s
	}
	var b strings.Builder
	used := 0
	for _, r := range s {
		if used+runeWidth(r) > width-1 {
			break
		}
		b.WriteRune(r)
		used += runeWidth(r)
	}
	return b.String() + "…"
}

// joinAnd joins names as "a, b and c".
func joinAnd(names []string) string {
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}

func seconds(s float64) string {
	if s == float64(int64(s)) {
		return fmt.Sprintf("%ds", int64(s))
	}
	return strings.Replace(time.Duration(s*1e9).Round(time.Microsecond).String(), "µs", "us", 1)
}

// printGrid aligns a table: the first column left, the others right.
// Widths are counted in terminal columns (displayWidth), before colouring.
func printGrid(w io.Writer, t result.Table, st style, keyColumn bool) {
	widths := make([]int, len(t.Header))
	for i, h := range t.Header {
		widths[i] = displayWidth(h)
	}
	for _, r := range t.Rows {
		for i, c := range r {
			widths[i] = max(widths[i], displayWidth(c))
		}
	}
	pad := func(s string, i int) string {
		gap := strings.Repeat(" ", widths[i]-displayWidth(s))
		if i == 0 {
			return s + gap
		}
		return gap + s
	}
	var hdr []string
	for i, h := range t.Header {
		hdr = append(hdr, st.bold(pad(h, i)))
	}
	fmt.Fprintln(w, strings.TrimRight(strings.Join(hdr, "  "), " "))
	for _, r := range t.Rows {
		var cells []string
		for i, c := range r {
			p := pad(c, i)
			if i == 0 && keyColumn {
				p = st.key(p)
			}
			cells = append(cells, p)
		}
		fmt.Fprintln(w, strings.TrimRight(strings.Join(cells, "  "), " "))
	}
}

func writeExplain(w io.Writer, ex *scenarios.Explanation, st style) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "%s — %s (%s)\n", st.bold(ex.Scenario), ex.Description, ex.File)
	for _, c := range ex.Cases {
		fmt.Fprintln(bw)
		head := "case " + st.bold(c.Name)
		if c.Location != "" {
			head += " " + st.dim("("+c.Location+")")
		}
		if c.Description != "" {
			head += ": " + c.Description
		}
		fmt.Fprintln(bw, head)
		t := result.Table{Header: []string{"key", "value", "unit", "source", "meaning"}}
		for _, p := range c.Params {
			t.Rows = append(t.Rows, []string{p.Key, p.Value, p.Unit, p.Source, p.Doc})
		}
		printExplainGrid(bw, t, st)
	}
	return bw.Flush()
}

// printExplainGrid aligns every column left and colours sources by kind.
func printExplainGrid(w io.Writer, t result.Table, st style) {
	widths := make([]int, len(t.Header))
	for i, h := range t.Header {
		widths[i] = displayWidth(h)
	}
	for _, r := range t.Rows {
		for i, c := range r[:len(r)-1] {
			widths[i] = max(widths[i], displayWidth(c))
		}
	}
	line := func(cells []string, paint func(i int, s string) string) {
		var out []string
		for i, c := range cells {
			s := c
			if i < len(cells)-1 {
				s += strings.Repeat(" ", widths[i]-displayWidth(c))
			}
			out = append(out, paint(i, s))
		}
		fmt.Fprintln(w, "  "+strings.TrimRight(strings.Join(out, "  "), " "))
	}
	line(t.Header, func(_ int, s string) string { return st.bold(s) })
	for _, r := range t.Rows {
		line(r, func(i int, s string) string {
			switch i {
			case 0:
				return st.key(s)
			case 3:
				if !strings.HasPrefix(s, "default") {
					return st.source(s)
				}
			case 4:
				return st.dim(s)
			}
			return s
		})
	}
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// writeAtomic writes a file through a temporary file in the same
// directory, synced and renamed into place: readers see the old file or
// the complete new one, never a torn write.
//
// A target that exists and is not a regular file (-o /dev/null, a named
// pipe, /dev/stdout) is written in place: renaming over it would replace
// the device with a file.
func writeAtomic(path string, fill func(io.Writer) error) error {
	if fi, err := os.Stat(path); err == nil && !fi.Mode().IsRegular() && !fi.IsDir() {
		return pathError(path, writeInPlace(path, fill))
	}
	return pathError(path, writeThroughTemp(path, fill))
}

func writeInPlace(path string, fill func(io.Writer) error) error {
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	bw := bufio.NewWriter(f)
	if err := fill(bw); err != nil {
		f.Close()
		return err
	}
	if err := bw.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func writeThroughTemp(path string, fill func(io.Writer) error) (err error) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	f, err := os.CreateTemp(dir, "."+base+".tmp-*")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	bw := bufio.NewWriter(f)
	if err = fill(bw); err != nil {
		return err
	}
	if err = bw.Flush(); err != nil {
		return err
	}
	if err = f.Sync(); err != nil {
		return err
	}
	if err = f.Chmod(0o644); err != nil {
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}

// progress reports a run's progress on stderr. On a terminal it draws one
// line that ticks by simulated time inside each run, not only when a run
// ends; in a log (not a terminal) it writes a plain line per finished run.
type progress struct {
	w     io.Writer
	on    bool // a terminal
	mu    sync.Mutex
	drawn bool
	start time.Time
	last  time.Time
	done  int
	total int
	live  map[string]float64 // running run -> fraction of its virtual time done
}

func newProgress(w io.Writer) *progress {
	p := &progress{w: w, start: time.Now(), live: map[string]float64{}}
	if f, ok := w.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		p.on = true
	}
	return p
}

// options hooks the progress into a run.
func (p *progress) options(opt *scenarios.Options) {
	opt.Progress = p.update
	opt.Finished = p.finished
	opt.Tick = p.tick
}

func (p *progress) update(done, total int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done, p.total = done, total
	p.draw(done == total)
}

func (p *progress) finished(run string, done, total int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.live, run)
	if !p.on {
		fmt.Fprintf(p.w, "simrun: done %s (%d/%d, %s)\n", run, done, total, time.Since(p.start).Round(100*time.Millisecond))
	}
}

func (p *progress) tick(run string, now, end time.Duration) {
	if !p.on || end <= 0 {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.live[run] = min(1, float64(now)/float64(end))
	p.draw(false)
}

// draw repaints the line, at most ten times a second.
func (p *progress) draw(force bool) {
	if !p.on || p.total == 0 {
		return
	}
	now := time.Now()
	if !force && now.Sub(p.last) < 100*time.Millisecond {
		return
	}
	p.last = now
	frac := float64(p.done)
	var running []string
	for r, f := range p.live {
		frac += f
		running = append(running, r)
	}
	frac /= float64(p.total)
	sort.Strings(running)
	const width = 30
	fill := min(width, int(width*frac))
	eta := ""
	if frac > 0 && frac < 1 {
		left := time.Duration(float64(now.Sub(p.start)) * (1 - frac) / frac)
		eta = fmt.Sprintf(" ~%s left", left.Round(time.Second))
	}
	at := ""
	if len(running) > 0 {
		at = fmt.Sprintf(" · %s %d%%", running[0], int(100*p.live[running[0]]))
		if len(running) > 1 {
			at += fmt.Sprintf(" +%d running", len(running)-1)
		}
	}
	fmt.Fprintf(p.w, "\r[%s%s] %d/%d runs%s%s\033[K", strings.Repeat("=", fill), strings.Repeat(" ", width-fill), p.done, p.total, at, eta)
	p.drawn = true
}

func (p *progress) finish() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.drawn {
		fmt.Fprint(p.w, "\r\033[K")
	}
}
