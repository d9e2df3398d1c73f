package scenarios

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"simrun/internal/trace"
	"simrun/sim"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/BurntSushi/toml"

	"simrun/internal/result"
)

// Axis is one swept key and its values, from --set key=v1,v2,... or a
// range, --set key=LO..HI:N or LO..HI*F.
type Axis struct {
	Key    string
	Values []any  // TOML values: int64, float64, bool or string
	Range  *Range // instead of Values: expanded by Plan with the key's unit
}

// ParseSet parses "key=v1,v2,..." into an axis. Values are split at commas
// outside brackets, braces and quotes, and each is read as a TOML value if
// it is one (15000, 1.5, true, "x", [..], {..}), else taken as a string
// (1.5ms, 120MB/s, lognormal names).
func ParseSet(arg string) (Axis, error) {
	key, vals, ok := strings.Cut(arg, "=")
	key = strings.TrimSpace(key)
	if !ok || key == "" {
		return Axis{}, fmt.Errorf("--set %q: want key=value[,value...], e.g. workload.demo.servers=2,4,8", arg)
	}
	for _, seg := range strings.Split(key, ".") {
		if seg == "" {
			return Axis{}, fmt.Errorf("--set %q: bad key path %q", arg, key)
		}
	}
	if r, isRange, err := ParseRange(vals); isRange {
		if err != nil {
			return Axis{}, fmt.Errorf("--set %s: %v", key, err)
		}
		return Axis{Key: key, Range: &r}, nil
	}
	parts := splitValues(vals)
	if len(parts) == 0 {
		return Axis{}, fmt.Errorf("--set %q: no values", arg)
	}
	a := Axis{Key: key}
	for _, p := range parts {
		if strings.TrimSpace(p) == "" {
			return Axis{}, fmt.Errorf("--set %q: empty value", arg)
		}
		a.Values = append(a.Values, ParseValue(p))
	}
	return a, nil
}

func splitValues(s string) []string {
	var out []string
	depth, start := 0, 0
	var quote byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'':
			quote = c
		case c == '[' || c == '{':
			depth++
		case c == ']' || c == '}':
			depth--
		case c == ',' && depth == 0:
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	if s != "" {
		out = append(out, s[start:])
	}
	return out
}

// ParseValue reads command-line text as a TOML value (integer, float,
// boolean, quoted string, array or inline table); anything else is a
// string, so that 1.5ms and 120MB/s need no quotes.
func ParseValue(s string) any {
	s = strings.TrimSpace(s)
	var m map[string]any
	if _, err := toml.Decode("v = "+s, &m); err == nil {
		if v, ok := m["v"]; ok {
			return v
		}
	}
	return s
}

// Shard selects every Count-th row of a sweep starting at Index (0-based).
// The zero Shard selects everything.
type Shard struct{ Index, Count int }

// ParseShard parses "i/n" with 0 <= i < n.
func ParseShard(s string) (Shard, error) {
	a, b, ok := strings.Cut(s, "/")
	i, err1 := strconv.Atoi(strings.TrimSpace(a))
	n, err2 := strconv.Atoi(strings.TrimSpace(b))
	if !ok || err1 != nil || err2 != nil || n < 1 || i < 0 || i >= n {
		return Shard{}, fmt.Errorf("--shard %q: want i/n with 0 <= i < n, e.g. 0/4", s)
	}
	return Shard{Index: i, Count: n}, nil
}

// Options control Run.
type Options struct {
	Cases        []string // case names to run; empty runs all, in file order
	Replications int      // independent seeds per row; 0 means 1
	Sweep        []Axis   // grid of overrides; each point is a row per case
	Shard        Shard
	Workers      int                   // parallel runs; 0 means GOMAXPROCS
	Progress     func(done, total int) // called after each run completes
	// Finished, if set, is called after each run completes with its label
	// (case [point] #replication), under the same lock as Progress.
	Finished func(run string, done, total int)
	// Tick, if set, is called from the running workers, concurrently, with
	// a run's label, the virtual time it reached and where it ends.
	Tick func(run string, now, end time.Duration)
	// Analyse adds to each row its steady-state check, bottleneck and
	// analytical twin (result.Case's optional fields).
	Analyse bool
}

// ErrInterrupted is returned with a partial document when the context is
// cancelled (Ctrl-C) before every run completed.
var ErrInterrupted = errors.New("interrupted")

// Row is one result row to compute: a case at one sweep point.
type Row struct {
	Index int // in the whole grid
	Case  *Case
	Point []Set
	// Report holds the point's values as the result reports them (numbers
	// in the key's base unit for numeric keys), parallel to Point.
	Report []any
	// Units are the keys' units ("bytes/s", "s", ...; "" for a plain
	// number or a value reported as given), parallel to Point.
	Units []string
}

// Plan selects the cases, expands the sweep grid and validates every row.
// Rows are ordered case by case in file order, and within a case by sweep
// point with the last axis varying fastest.
func Plan(sc *Scenario, opt Options) ([]Row, error) {
	cases, err := selectCases(sc, opt.Cases)
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	for _, a := range opt.Sweep {
		if seen[a.Key] {
			return nil, ErrorList{{Msg: fmt.Sprintf("--set %s given twice", a.Key)}}
		}
		seen[a.Key] = true
	}
	axes, err := ResolveAxes(sc, opt.Sweep)
	if err != nil {
		return nil, err
	}
	points, reports := grid(axes)
	var units []string
	for _, a := range axes {
		units = append(units, a.Unit)
	}
	var rows []Row
	var e errs
	src := Source{Kind: "flag", Name: "--set"}
	for _, c := range cases {
		for pi, pt := range points {
			rc := c
			if len(pt) > 0 {
				d, err := c.With(pt, src)
				if err != nil {
					var el ErrorList
					if errors.As(err, &el) {
						e.addAll(el)
					} else {
						e.add(&Error{Msg: err.Error()})
					}
					continue
				}
				rc = d
			}
			rows = append(rows, Row{Index: len(rows), Case: rc, Point: pt, Report: reports[pi], Units: units})
		}
	}
	if err := e.err(); err != nil {
		return nil, err
	}
	return rows, nil
}

// CaseAt returns the named case as a sweep ran it at one row of its
// result: the row's point (point, as the result reports it: numbers in
// the key's base unit) applied to the case as --set overrides. It tells
// the values a row actually ran with, for what a report says about them.
func (sc *Scenario) CaseAt(name string, sweep []result.Axis, point map[string]any) (*Case, error) {
	c, err := sc.Case(name)
	if err != nil {
		return nil, err
	}
	if len(sweep) == 0 {
		return c, nil
	}
	sets := make([]Set, 0, len(sweep))
	for _, a := range sweep {
		v, ok := point[a.Key]
		if !ok {
			return nil, fmt.Errorf("case %s: the point has no value for %s", name, a.Key)
		}
		// A numeric key's reported number goes back in with its unit (a
		// bare number is not a rate or a size).
		if k, err := sc.Knob(a.Key); err == nil {
			if x, ok := result.Float(v); ok {
				v = k.Value(x)
			}
		}
		sets = append(sets, Set{Key: a.Key, Value: v})
	}
	return c.With(sets, Source{Kind: "flag", Name: "--set"})
}

func selectCases(sc *Scenario, names []string) ([]*Case, error) {
	if len(names) == 0 {
		return sc.Cases, nil
	}
	want := map[string]bool{}
	for _, n := range names {
		want[n] = true
	}
	var out []*Case
	var all []string
	for _, c := range sc.Cases {
		all = append(all, c.Name)
		if want[c.Name] {
			out = append(out, c)
			delete(want, c.Name)
		}
	}
	if len(want) > 0 {
		var unknown []string
		for _, n := range names {
			if want[n] {
				unknown = append(unknown, strconv.Quote(n))
				delete(want, n)
			}
		}
		return nil, ErrorList{{File: sc.File, Msg: "no case " + strings.Join(unknown, ", "), Allowed: strings.Join(all, ", ")}}
	}
	return out, nil
}

// grid returns the cartesian product of the axes, last axis fastest, with
// the values the result reports; one empty point when there are no axes.
func grid(axes []ResolvedAxis) ([][]Set, [][]any) {
	points, reports := [][]Set{nil}, [][]any{nil}
	for _, a := range axes {
		var next [][]Set
		var nextR [][]any
		for i, p := range points {
			for j, v := range a.Values {
				next = append(next, append(append([]Set(nil), p...), Set{Key: a.Key, Value: v}))
				nextR = append(nextR, append(append([]any(nil), reports[i]...), a.Report[j]))
			}
		}
		points, reports = next, nextR
	}
	return points, reports
}

// ReplicationSeed returns the seed of replication r of a run with the given
// seed: the seed itself for r = 0, so one replication is the plain run, and
// a SplitMix64 mix of seed and r otherwise.
func ReplicationSeed(seed uint64, r int) uint64 {
	if r == 0 {
		return seed
	}
	z := seed + uint64(r)*0x9E3779B97F4A7C15
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9
	z = (z ^ (z >> 27)) * 0x94D049BB133111EB
	return z ^ (z >> 31)
}

// Run plans and runs a scenario: every selected case at every sweep point,
// each Replications times, in parallel on separate kernels; results are
// collected in row order, so the document does not depend on scheduling.
// Input errors come back as ErrorList. When ctx is cancelled, Run returns
// the rows already complete in a document marked Partial, together with
// ErrInterrupted.
func Run(ctx context.Context, sc *Scenario, opt Options) (*result.Document, error) {
	rows, err := Plan(sc, opt)
	if err != nil {
		return nil, err
	}
	reps := max(opt.Replications, 1)
	total := len(rows)
	if opt.Shard.Count > 0 {
		var sel []Row
		for _, i := range result.ShardRows(opt.Shard.Index, opt.Shard.Count, total) {
			sel = append(sel, rows[i])
		}
		rows = sel
	}

	items := make([]item, 0, len(rows)*reps)
	for i := range rows {
		for r := 0; r < reps; r++ {
			items = append(items, item{i, r})
		}
	}
	metrics := make([][]result.Metrics, len(rows))
	for i := range metrics {
		metrics[i] = make([]result.Metrics, reps)
	}
	workers := opt.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	workers = max(min(workers, len(items)), 1)

	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		mu       sync.Mutex
		firstErr error
		done     int
	)
	if opt.Progress != nil {
		opt.Progress(0, len(items))
	}
	serve(runCtx, len(items), workers, func(i int) {
		it := items[i]
		label := rowLabel(rows[it.row])
		if reps > 1 {
			label += fmt.Sprintf(" #%d", it.rep+1)
		}
		var tick func(sim.Time)
		if opt.Tick != nil {
			c := rows[it.row].Case
			end := c.Settings.Warmup.D() + c.Settings.Duration.D()
			tick = func(now sim.Time) { opt.Tick(label, time.Duration(now), end) }
		}
		m, err := runTraced(runCtx, rows[it.row].Case, it.rep, nil, tick)
		mu.Lock()
		switch {
		case err == nil:
			metrics[it.row][it.rep] = m
			done++
			if opt.Progress != nil {
				opt.Progress(done, len(items))
			}
			if opt.Finished != nil {
				opt.Finished(label, done, len(items))
			}
		case runCtx.Err() != nil && errors.Is(err, runCtx.Err()):
			// interrupted: the row stays incomplete
		case firstErr == nil:
			firstErr = fmt.Errorf("case %s: %w", rowLabel(rows[it.row]), err)
			cancel()
		}
		mu.Unlock()
	})
	if firstErr != nil {
		return nil, firstErr
	}

	doc := result.New(sc.Name)
	doc.Description = sc.Description
	base := sc.Base.Settings
	doc.Seed = base.Seed
	doc.Duration = base.Duration.Seconds()
	doc.Warmup = base.Warmup.Seconds()
	doc.Replications = reps
	axes, _ := ResolveAxes(sc, opt.Sweep) // checked by Plan
	for _, a := range axes {
		doc.Sweep = append(doc.Sweep, result.Axis{Key: a.Key, Values: a.Report, Unit: a.Unit})
	}
	var completed []int
	for i, row := range rows {
		if !complete(metrics[i]) {
			doc.Partial = true
			continue
		}
		rc := rowCase(row, base, result.Aggregate(metrics[i]))
		if opt.Analyse {
			Analyse(row.Case, &rc)
		}
		doc.Cases = append(doc.Cases, rc)
		completed = append(completed, row.Index)
	}
	if opt.Shard.Count > 0 {
		doc.Shard = &result.Shard{Index: opt.Shard.Index, Count: opt.Shard.Count, Total: total, Rows: completed}
		if doc.Shard.Rows == nil {
			doc.Shard.Rows = []int{}
		}
	}
	if doc.Partial {
		return doc, ErrInterrupted
	}
	return doc, nil
}

// item is one run of Run's work list: replication rep of rows[row].
type item struct{ row, rep int }

// serve calls do(i) for every i in [0, n) from workers goroutines, each
// taking the next index, until all are done or ctx is cancelled.
func serve(ctx context.Context, n, workers int, do func(i int)) {
	var next atomic.Int64
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= n || ctx.Err() != nil {
					return
				}
				do(i)
			}
		}()
	}
	wg.Wait()
}

func complete(ms []result.Metrics) bool {
	for _, m := range ms {
		if m == nil {
			return false
		}
	}
	return true
}

// rowLabel names a row in progress lines and errors: its case and, in a
// sweep, its point as people read it, each value in its key's unit and an
// inline table as TOML text (Case2 [volume.bandwidth_max=40MB/s]), the way
// the warnings after the run name it.
func rowLabel(r Row) string {
	if len(r.Point) == 0 {
		return r.Case.Name
	}
	var parts []string
	for i, s := range r.Point {
		v, unit := s.Value, ""
		if i < len(r.Report) {
			v = r.Report[i]
		}
		if i < len(r.Units) {
			unit = r.Units[i]
		}
		parts = append(parts, s.Key+"="+result.FormatPoint(v, unit))
	}
	return r.Case.Name + " [" + strings.Join(parts, " ") + "]"
}

func rowCase(row Row, base Settings, m result.Metrics) result.Case {
	c := result.Case{Name: row.Case.Name, Metrics: m}
	if len(row.Point) > 0 {
		c.Point = map[string]any{}
		for i, s := range row.Point {
			c.Point[s.Key] = s.Value
			if i < len(row.Report) {
				c.Point[s.Key] = row.Report[i]
			}
		}
	}
	s := row.Case.Settings
	if s.Seed != base.Seed {
		seed := s.Seed
		c.Seed = &seed
	}
	if s.Duration != base.Duration {
		d := s.Duration.Seconds()
		c.Duration = &d
	}
	if s.Warmup != base.Warmup {
		w := s.Warmup.Seconds()
		c.Warmup = &w
	}
	return c
}

// runTraced runs one replication of one case, with a trace recorder and a
// progress tick handed to the runner (both may be nil), turning a panic in
// a model into an error so that it cannot take down the other runs.
func runTraced(ctx context.Context, c *Case, rep int, rec *trace.Recorder, tick func(sim.Time)) (m result.Metrics, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("internal error: %v", p)
		}
	}()
	run := runnerFor(c.Config.Workload.Kind)
	if run == nil {
		return nil, fmt.Errorf("no runner for workload kind %q", c.Config.Workload.Kind)
	}
	m, err = run(RunContext{
		Context:     ctx,
		Case:        c.Name,
		Config:      c.Config,
		Seed:        ReplicationSeed(c.Settings.Seed, rep),
		Replication: rep,
		Duration:    c.Settings.Duration.D(),
		Warmup:      c.Settings.Warmup.D(),
		Trace:       rec,
		Tick:        tick,
	})
	if err == nil && m == nil {
		m = result.Metrics{}
	}
	return m, err
}

// Trace runs one case of sc once (its first replication) with rec
// recording the models' activity inside rec's window, which must end within
// the run (warm-up + duration). The metrics are returned as well.
func Trace(ctx context.Context, sc *Scenario, caseName string, rec *trace.Recorder) (result.Metrics, error) {
	var c *Case
	var names []string
	for _, x := range sc.Cases {
		names = append(names, x.Name)
		if x.Name == caseName || (caseName == "" && len(sc.Cases) == 1) {
			c = x
		}
	}
	if c == nil {
		return nil, fmt.Errorf("trace: no case %q (allowed: %s)", caseName, strings.Join(names, ", "))
	}
	_, to := rec.Window()
	if end := sim.At(c.Settings.Warmup.D() + c.Settings.Duration.D()); to > end {
		return nil, fmt.Errorf("trace: window ends at %v, after the run ends (%v = warmup + duration)", to, end)
	}
	return runTraced(ctx, c, 0, rec, nil)
}
