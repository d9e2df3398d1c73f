package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"

	"simrun/internal/plan"
	"simrun/internal/result"
	"simrun/scenarios"
)

func init() {
	commandHelp["plan"] = planHelp
}

const planHelp = `simrun plan FILE --goal 'METRIC>=N' [--limit 'METRIC<=N']... --vary KEY=LO..HI[:N|*F]
            [--vary KEY2=...] [--minimize | --maximize] [--case NAME] [--set KEY=VALUE]...
            [--min-reps N] [--max-reps N] [--budget RUNS] [--format table|json] [-o FILE]
            [--plot FILE.png|.svg] [--seed N] [--duration D] [--workers N]

Finds the smallest (--minimize, the default) or largest (--maximize) value of a
parameter for which every constraint holds. --goal and --limit are the same kind
of constraint (METRIC OP NUMBER, OP one of >= <= > <, any metric path of the
result: tps, latency_ms.p99, applier.max_lag_s); give as many as needed.
--vary takes a range of a numeric parameter (integer, size, rate or duration):
LO..HI:N is N evenly spaced points, LO..HI*F multiplies by F; a bare LO..HI
steps an integer parameter by 1 (any other needs :N or *F). A second --vary gives
the feasible frontier: the search runs along the first for each value of the
second.

The search brackets the boundary, then bisects, checking on the way that the
metrics are monotone in the parameter; if not, it evaluates the whole grid
and says so. Each point runs --min-reps replications (default 2) and adds more,
up to --max-reps (default 10), until every constraint's 95 % interval is clear
of its threshold (a quantile's interval is at least its histogram bucket).
Replication r uses the same seed at every point (common random numbers).
A metric that grows with the run's length, such as the lag of a replica that
falls behind its source, is unbounded: a limit on it fails. --budget bounds
the total runs: when it is spent the command prints the evidence so far and
exits 1 (the JSON then says "stopped": "budget"; after Ctrl-C, "interrupted").
--format is json when -o ends in .json, else table; -o and --plot are checked
before anything runs.

Output: the answer with its metrics and intervals, the nearest failing point
and which constraint it misses (and the resource that binds there), the
steady-state warnings of the answer's run, and the evidence table. Exit 0 when
an answer was found, 1 when none in the range works or the budget ran out,
2 on bad input. docs/capacity-planning.md has worked examples.
`

// planFlags are the flags of simrun plan.
type planFlags struct {
	goals, limits, varies, sets, cases listFlag
	minimize, maximize                 bool
	minReps, maxReps, budget, workers  int
	format, out, plotOut, seed, dur    string
}

// planAxis is one varied parameter.
type planAxis struct {
	knob   scenarios.Knob
	values []float64
}

func (e env) planCmd(args []string) error {
	fs := e.newFlags("plan")
	var f planFlags
	fs.Var(&f.goals, "goal", "constraint METRIC OP NUMBER, e.g. 'tps>=4000' (repeatable)")
	fs.Var(&f.limits, "limit", "constraint METRIC OP NUMBER, e.g. 'latency_ms.p99<=10' (repeatable)")
	fs.Var(&f.varies, "vary", "parameter range KEY=LO..HI[:N|*F] (once, or twice for a frontier)")
	fs.Var(&f.sets, "set", "fixed override KEY=VALUE (repeatable)")
	fs.Var(&f.cases, "case", "the case to plan for (needed when the scenario has several)")
	fs.BoolVar(&f.minimize, "minimize", false, "find the smallest value that meets the constraints (default)")
	fs.BoolVar(&f.maximize, "maximize", false, "find the largest value that meets the constraints")
	fs.IntVar(&f.minReps, "min-reps", 2, "replications per point to start with")
	fs.IntVar(&f.maxReps, "max-reps", 10, "replications per point at most")
	fs.IntVar(&f.budget, "budget", 0, "total runs allowed (0: no limit)")
	fs.IntVar(&f.workers, "workers", 0, "parallel runs (default: all cores); never changes the output")
	fs.StringVar(&f.format, "format", "", "output format: table or json (default: json when -o ends in .json, else table)")
	fs.StringVar(&f.out, "o", "", "write the result to FILE (atomically)")
	fs.StringVar(&f.plotOut, "plot", "", "draw the evidence to FILE.png or FILE.svg")
	fs.StringVar(&f.seed, "seed", "", "override the scenario's seed")
	fs.StringVar(&f.dur, "duration", "", "override the measured duration, e.g. 30s")
	pos, err := e.parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("plan takes one scenario file, got %d (see simrun help plan)", len(pos))
	}
	plotFormat, cons, err := f.check()
	if err != nil {
		return err
	}

	sc, err := openScenario(pos, f.seed, f.dur)
	if err != nil {
		return err
	}
	if err := overrideSets(sc, f.sets, "plan", "vary a parameter with --vary"); err != nil {
		return err
	}
	if err := sc.Validate(); err != nil {
		return err
	}
	if err := checkCases(sc, f.cases); err != nil {
		return err
	}
	name := ""
	if len(f.cases) == 1 {
		name = f.cases[0]
	}
	c, err := sc.Case(name)
	if err != nil {
		return usageError{err.Error()}
	}
	var axes []planAxis
	for _, v := range f.varies {
		ax, err := parseVary(sc, v)
		if err != nil {
			return err
		}
		axes = append(axes, ax)
	}
	if len(axes) == 2 && axes[0].knob.Key == axes[1].knob.Key {
		return usagef("--vary %s given twice", axes[0].knob.Key)
	}
	for _, s := range f.sets {
		key, _, _ := strings.Cut(s, "=")
		for _, a := range axes {
			if strings.TrimSpace(key) == a.knob.Key {
				return usagef("--set %s and --vary %s name the same parameter; drop the --set", a.knob.Key, a.knob.Key)
			}
		}
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	ev := &planEval{c: c, axes: axes, workers: f.workers, metrics: map[string]result.Metrics{}}
	// A short probe run checks, before the search spends any time, that
	// every point of the grid is valid at its ends and that each
	// constraint names a metric the case reports.
	if err := ev.probe(ctx, cons); err != nil {
		return err
	}
	cfg := plan.Config{Constraints: cons, Maximize: f.maximize, MinReps: f.minReps, MaxReps: f.maxReps, Budget: f.budget,
		Resolution: result.Resolution, Format: axes[0].knob.Format}
	for _, a := range axes {
		cfg.Axes = append(cfg.Axes, a.values)
	}
	res, searchErr := plan.Search(ctx, cfg, ev.eval)
	var me *plan.MetricError
	if errors.As(searchErr, &me) {
		return usageError{me.Error()}
	}
	if res == nil {
		return searchErr
	}
	rep := ev.report(sc, cfg, res)
	searchErr = rep.noteStop(searchErr, ctx.Err() != nil, axes)
	if err := e.output(f.out, func(w io.Writer, _ bool) error {
		if f.format == "json" {
			return writeJSON(w, rep)
		}
		return writePlanTable(w, rep)
	}); err != nil {
		return err
	}
	if f.plotOut != "" {
		if err := writeAtomic(f.plotOut, func(w io.Writer) error { return plan.Plot(w, plotFormat, planPlotInput(rep)) }); err != nil {
			return err
		}
	}
	where := "above"
	if f.out != "" && f.out != "-" {
		where = "in " + f.out
	}
	switch {
	case rep.Stopped != "":
		return fmt.Errorf("%v; the evidence so far is %s", searchErr, where)
	case searchErr != nil:
		return searchErr
	case len(axes) == 1 && !res.Found:
		return errors.New("plan: no value in the range meets every constraint")
	}
	return nil
}

// check validates the flags that need no scenario, outputs first, and
// returns the plot's format and the constraints.
func (f *planFlags) check() (plotFormat string, cons []plan.Constraint, err error) {
	if f.format == "" && strings.EqualFold(filepath.Ext(f.out), ".json") {
		f.format = "json"
	}
	switch f.format {
	case "":
		f.format = "table"
	case "table", "json":
	default:
		return "", nil, usagef("--format %q: want table or json", f.format)
	}
	if err := checkOutput(f.out); err != nil {
		return "", nil, err
	}
	if f.plotOut != "" {
		if plotFormat, err = planPlotFormat(f.plotOut); err != nil {
			return "", nil, err
		}
		if err := checkOutput(f.plotOut); err != nil {
			return "", nil, usagef("--plot%s", strings.TrimPrefix(err.Error(), "-o"))
		}
	}
	if f.minimize && f.maximize {
		return "", nil, usagef("--minimize and --maximize exclude each other")
	}
	if f.minReps < 1 || f.maxReps < f.minReps {
		return "", nil, usagef("--min-reps %d, --max-reps %d: want 1 <= min-reps <= max-reps", f.minReps, f.maxReps)
	}
	if f.budget < 0 {
		return "", nil, usagef("--budget %d: want a number of runs >= 0", f.budget)
	}
	for _, fl := range []struct {
		name string
		args listFlag
	}{{"--goal", f.goals}, {"--limit", f.limits}} {
		for _, a := range fl.args {
			c, err := plan.ParseConstraint(fl.name, a)
			if err != nil {
				return "", nil, usageError{err.Error()}
			}
			cons = append(cons, c)
		}
	}
	if len(cons) == 0 {
		return "", nil, usagef("plan needs at least one --goal or --limit, e.g. --goal 'tps>=4000'")
	}
	if len(f.varies) == 0 || len(f.varies) > 2 {
		return "", nil, usagef("plan needs one --vary KEY=LO..HI (or two for a frontier), got %d", len(f.varies))
	}
	if len(f.cases) > 1 {
		return "", nil, usagef("plan works on one case, got --case %s", strings.Join(f.cases, ", "))
	}
	return plotFormat, cons, nil
}

// parseVary reads --vary KEY=RANGE into the knob and its candidate values.
func parseVary(sc *scenarios.Scenario, arg string) (planAxis, error) {
	key, spec, ok := strings.Cut(arg, "=")
	key = strings.TrimSpace(key)
	if !ok || key == "" {
		return planAxis{}, usagef("--vary %q: want KEY=LO..HI[:N|*F], e.g. volume.bandwidth_max=20MB/s..400MB/s:39", arg)
	}
	k, err := sc.Knob(key)
	if err != nil {
		return planAxis{}, usagef("--vary %s: %v", key, err)
	}
	r, isRange, err := scenarios.ParseRange(spec)
	if err != nil {
		return planAxis{}, usagef("--vary %s: %v", key, err)
	}
	if !isRange {
		return planAxis{}, usagef("--vary %s=%s: want a range LO..HI[:N|*F] (allowed: %s values, e.g. %s..%s:10)", key, spec, kindOf(k), "LO", "HI")
	}
	xs, err := k.Expand(r, 100000)
	if err != nil {
		return planAxis{}, usagef("--vary %s: %v", key, err)
	}
	return planAxis{knob: k, values: xs}, nil
}

func kindOf(k scenarios.Knob) string {
	if k.Unit != "" {
		return k.Unit
	}
	if k.Integer {
		return "integer"
	}
	return "number"
}

// planEval runs the points of a plan.
type planEval struct {
	c       *scenarios.Case
	axes    []planAxis
	workers int
	mu      sync.Mutex
	metrics map[string]result.Metrics // first replication's metrics per point, for the report
}

func (ev *planEval) caseAt(x []float64) (*scenarios.Case, error) {
	var sets []scenarios.Set
	for i, a := range ev.axes {
		sets = append(sets, scenarios.Set{Key: a.knob.Key, Value: a.knob.Value(x[i])})
	}
	return ev.c.With(sets, scenarios.Source{Kind: "flag", Name: "--vary"})
}

func (ev *planEval) eval(ctx context.Context, x []float64, reps []int) ([]plan.Sample, error) {
	c, err := ev.caseAt(x)
	if err != nil {
		return nil, err
	}
	ms, err := scenarios.RunReplications(ctx, c, reps, ev.workers)
	if err != nil {
		return nil, err
	}
	ev.mu.Lock()
	key := fmt.Sprint(x)
	if _, ok := ev.metrics[key]; !ok && len(ms) > 0 {
		ev.metrics[key] = ms[0]
	}
	ev.mu.Unlock()
	out := make([]plan.Sample, len(ms))
	for i, m := range ms {
		// A queue that grows for as long as the load lasts makes its
		// metrics measure the run's length: a limit on them fails.
		var unbounded []string
		if st := scenarios.Steady(c, m); st != nil && st.Diverging {
			unbounded = st.Unbounded
		}
		out[i] = func(path string) (float64, bool) {
			v, ok := m.Lookup(path)
			if !ok {
				return 0, false
			}
			if slices.Contains(unbounded, path) {
				return math.Inf(1), true
			}
			return result.Float(v)
		}
	}
	return out, nil
}

// probe validates the corners of the grid and runs the first corner for a
// tenth of a second to check the constraint metrics exist.
func (ev *planEval) probe(ctx context.Context, cons []plan.Constraint) error {
	for _, a := range ev.axes {
		if err := ev.validRange(a); err != nil {
			return err
		}
	}
	corners := [][]float64{{}}
	for _, a := range ev.axes {
		var next [][]float64
		for _, p := range corners {
			next = append(next, append(append([]float64(nil), p...), a.values[0]), append(append([]float64(nil), p...), a.values[len(a.values)-1]))
		}
		corners = next
	}
	var first *scenarios.Case
	for _, x := range corners {
		c, err := ev.caseAt(x)
		if err != nil {
			return err
		}
		if first == nil {
			first = c
		}
	}
	m, err := probeMetrics(ctx, first)
	if err != nil {
		return err
	}
	var paths []string
	for _, l := range result.Flatten(m) {
		if _, ok := result.Float(l.Value); ok {
			paths = append(paths, l.Path)
		}
	}
	for _, c := range cons {
		v, ok := m.Lookup(c.Metric)
		if !ok && plausible(c.Metric, paths) {
			continue // a key its block gains later in the run; the search checks it
		}
		if _, num := result.Float(v); !ok || !num {
			return usagef("%s %s: case %s reports no numeric metric %q (allowed: %s)", c.Flag, c, ev.c.Name, c.Metric, suggestMetrics(c.Metric, paths))
		}
	}
	return nil
}

// validRange checks that both ends of a's range give a valid case. If one
// does not (an M/M/c queue with fewer servers than its load), it names the
// value, the reason and the part of the range that is valid.
func (ev *planEval) validRange(a planAxis) error {
	check := func(x float64) error {
		_, err := ev.c.With([]scenarios.Set{{Key: a.knob.Key, Value: a.knob.Value(x)}}, scenarios.Source{Kind: "flag", Name: "--vary"})
		return err
	}
	xs := a.values
	bad, err := xs[0], check(xs[0])
	if err == nil {
		if bad, err = xs[len(xs)-1], check(xs[len(xs)-1]); err == nil {
			return nil
		}
	}
	first, last := -1, -1
	for i, x := range xs {
		if check(x) == nil {
			if first < 0 {
				first = i
			}
			last = i
		}
	}
	msg := fmt.Sprintf("--vary %s: at %s the case is invalid: %v", a.knob.Key, a.knob.Format(bad), err)
	if first < 0 {
		return usagef("%s; no value of the range is valid", msg)
	}
	return usagef("%s; the valid values of the range run from %s to %s", msg, a.knob.Format(xs[first]), a.knob.Format(xs[last]))
}

// suggestMetrics lists the metric paths sharing the wanted one's first
// segment, or all top-level ones.
func suggestMetrics(want string, paths []string) string {
	head, _, _ := strings.Cut(want, ".")
	var near []string
	for _, p := range paths {
		if strings.HasPrefix(p, head) {
			near = append(near, p)
		}
	}
	if len(near) == 0 || len(near) > 30 {
		near = near[:0]
		seen := map[string]bool{}
		for _, p := range paths {
			if !strings.Contains(p, ".") && !seen[p] {
				seen[p] = true
				near = append(near, p)
			}
		}
	}
	sort.Strings(near)
	return strings.Join(near, ", ") + "; simrun run --format csv lists every metric"
}

// PlanReport is the JSON form of simrun plan (schema simrun.plan/v1).
type PlanReport struct {
	Schema      string             `json:"schema"`
	Scenario    string             `json:"scenario"`
	Case        string             `json:"case"`
	Objective   string             `json:"objective"` // minimize | maximize
	Vary        []PlanVary         `json:"vary"`
	Constraints []string           `json:"constraints"`
	Result      *plan.Result       `json:"result"`
	Answer      string             `json:"answer,omitempty"` // the value with its unit
	FailBound   *result.Bottleneck `json:"nearest_fail_bottleneck,omitempty"`
	Steady      *result.Steady     `json:"answer_steady_state,omitempty"`
	Frontier    []PlanFront        `json:"frontier,omitempty"`
	// Stopped says why the search ended before its answer: "budget" or
	// "interrupted"; then found false means "not known", not "none".
	Stopped string `json:"stopped,omitempty"`
	knobs   []scenarios.Knob
	cons    []plan.Constraint
}

// PlanVary is one varied parameter.
type PlanVary struct {
	Key    string  `json:"key"`
	Unit   string  `json:"unit,omitempty"`
	Lo     float64 `json:"lo"`
	Hi     float64 `json:"hi"`
	Points int     `json:"points"`
}

// PlanFront is a frontier point with its values formatted.
type PlanFront struct {
	Y string `json:"y"` // the second parameter's value
	X string `json:"x"` // the best value of the first there, or "none in range"
	// Warnings are the steady-state warnings of the run at X.
	Warnings []string `json:"warnings,omitempty"`
	// With none in range: At is the range's best end, Misses the
	// constraints it fails and Binds the resource that binds there.
	At     string             `json:"at,omitempty"`
	Misses []string           `json:"misses,omitempty"`
	Binds  *result.Bottleneck `json:"bottleneck,omitempty"`
}

func (ev *planEval) report(sc *scenarios.Scenario, cfg plan.Config, res *plan.Result) *PlanReport {
	rep := &PlanReport{Schema: "simrun.plan/v1", Scenario: sc.Name, Case: ev.c.Name, Objective: "minimize", Result: res, cons: cfg.Constraints}
	if cfg.Maximize {
		rep.Objective = "maximize"
	}
	for _, a := range ev.axes {
		rep.Vary = append(rep.Vary, PlanVary{Key: a.knob.Key, Unit: a.knob.Unit, Lo: a.values[0], Hi: a.values[len(a.values)-1], Points: len(a.values)})
		rep.knobs = append(rep.knobs, a.knob)
	}
	for _, c := range cfg.Constraints {
		rep.Constraints = append(rep.Constraints, c.String())
	}
	if res.Found && res.Answer != nil && len(ev.axes) == 1 {
		rep.Answer = ev.axes[0].knob.Format(res.Answer.X[0])
		rep.Steady = ev.steadyAt(res.Answer)
	}
	if res.NearestFail != nil {
		rep.FailBound = ev.boundAt(res.NearestFail)
	}
	for _, fr := range res.Frontier {
		p := PlanFront{Y: ev.axes[1].knob.Format(fr.Y), X: "none in range"}
		if fr.Found {
			p.X = ev.axes[0].knob.Format(fr.X)
			if st := ev.steadyAt(fr.Answer); st != nil {
				p.Warnings = st.Warnings
			}
		} else if f := fr.NearestFail; f != nil {
			p.At = ev.axes[0].knob.Format(f.X[0])
			p.Misses = f.Failed
			p.Binds = ev.boundAt(f)
		}
		rep.Frontier = append(rep.Frontier, p)
	}
	return rep
}

// runAt returns the case and the metrics of the first replication run at
// p, or false.
func (ev *planEval) runAt(p *plan.Point) (*scenarios.Case, result.Metrics, bool) {
	if p == nil {
		return nil, nil, false
	}
	m, ok := ev.metrics[fmt.Sprint(p.X)]
	if !ok {
		return nil, nil, false
	}
	c, err := ev.caseAt(p.X)
	return c, m, err == nil
}

// steadyAt is the steady-state verdict of the first replication run at p.
func (ev *planEval) steadyAt(p *plan.Point) *result.Steady {
	if c, m, ok := ev.runAt(p); ok {
		return scenarios.Steady(c, m)
	}
	return nil
}

// boundAt is the resource that binds in the first replication run at p.
func (ev *planEval) boundAt(p *plan.Point) *result.Bottleneck {
	if c, m, ok := ev.runAt(p); ok {
		return scenarios.Bottleneck(c, m)
	}
	return nil
}

// count returns "n noun", plural unless n is 1.
func count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// noteStop marks a search that stopped before its answer (the budget
// spent, or interrupted) and returns the error to report: Stopped is set,
// the frontier row it was on says its answer is not known, and the rows it
// never reached say so.
func (r *PlanReport) noteStop(searchErr error, interrupted bool, axes []planAxis) error {
	var be *plan.BudgetError
	switch {
	case errors.As(searchErr, &be):
		r.Stopped = "budget"
		var at []string
		for i, x := range be.Next {
			at = append(at, r.format(i, x))
		}
		searchErr = fmt.Errorf("plan: budget spent: %d runs done of a budget of %d; the next point (%s) needs %d more",
			be.Runs, be.Budget, strings.Join(at, ", "), be.Need)
	case searchErr != nil && interrupted:
		r.Stopped = "interrupted"
		searchErr = errors.New("plan: interrupted")
	default:
		return searchErr
	}
	if len(axes) < 2 {
		return searchErr
	}
	why := "the search stopped (" + r.stoppedWhy() + ")"
	if n := len(r.Frontier); n > 0 && !r.Result.Frontier[n-1].Found {
		r.Frontier[n-1] = PlanFront{Y: r.Frontier[n-1].Y, X: "not known: " + why}
	}
	for _, y := range axes[1].values[len(r.Frontier):] {
		r.Frontier = append(r.Frontier, PlanFront{Y: axes[1].knob.Format(y), X: "not run: " + why})
	}
	return searchErr
}

func (r *PlanReport) stoppedWhy() string {
	if r.Stopped == "budget" {
		return "budget spent"
	}
	return r.Stopped
}

func (r *PlanReport) format(i int, x float64) string { return r.knobs[i].Format(x) }

func (r *PlanReport) point(p *plan.Point) string {
	var xs []string
	for i, x := range p.X {
		xs = append(xs, r.knobs[i].Key+" = "+r.format(i, x))
	}
	return strings.Join(xs, ", ")
}

func (r *PlanReport) stats(p *plan.Point) string {
	var parts []string
	for k, c := range r.cons {
		s := p.Stats[k]
		mark := "ok"
		if !c.Holds(s.Value()) {
			mark = "MISSES " + c.String()
		}
		parts = append(parts, fmt.Sprintf("%s = %s (%s)", c.Metric, estimate(s, p.Reps), mark))
	}
	return strings.Join(parts, ", ")
}

// estimate prints a constraint's estimate: mean ± half-width, or that it
// grows with the run.
func estimate(s plan.Stat, reps int) string {
	switch {
	case s.Unbounded:
		return "unbounded (grows with the run)"
	case reps < 2:
		return num(s.Mean) + " (no interval from one replication)"
	}
	return num(s.Mean) + " ± " + num(s.CI95)
}

// num prints a figure with four significant digits (whole numbers from
// 1000 up), as the evidence table needs no more.
func num(x float64) string {
	if math.Abs(x) >= 1000 {
		return strconv.FormatFloat(x, 'f', 0, 64)
	}
	return strconv.FormatFloat(x, 'g', 4, 64)
}

func writePlanTable(w io.Writer, r *PlanReport) error {
	res := r.Result
	var keys []string
	for _, v := range r.Vary {
		keys = append(keys, v.Key)
	}
	fmt.Fprintf(w, "plan %s, case %s: %s %s subject to %s\n", r.Scenario, r.Case, r.Objective, strings.Join(keys, " along "), strings.Join(r.Constraints, ", "))
	if len(r.Frontier) > 0 {
		fmt.Fprintf(w, "\nfeasible frontier (%s %s for each %s):\n", r.Objective[:3]+"imal", r.Vary[0].Key, r.Vary[1].Key)
		for _, f := range r.Frontier {
			line := f.X
			if f.At != "" {
				line += fmt.Sprintf(" (%s fails even at %s = %s", strings.Join(f.Misses, ", "), r.Vary[0].Key, f.At)
				if b := f.Binds; b != nil {
					line += fmt.Sprintf("; there the %s binds: %s %%", b.Resource, num(b.UtilPct))
				}
				line += ")"
			}
			if len(f.Warnings) > 0 {
				line += " (not steady: see the warnings below)"
			}
			fmt.Fprintf(w, "  %s %s\n", padRight(r.Vary[1].Key+" = "+f.Y, 24), line)
		}
	} else if res.Found {
		fmt.Fprintf(w, "\nanswer: %s = %s\n  %s  [%d replications%s]\n", r.Vary[0].Key, r.Answer, r.stats(res.Answer), res.Answer.Reps, r.undecided(res.Answer))
	} else if len(res.Between) == 2 {
		fmt.Fprintf(w, "\nno answer yet: the boundary lies between %s and %s\n", r.format(0, res.Between[0]), r.format(0, res.Between[1]))
	} else if r.Stopped != "" {
		fmt.Fprintf(w, "\nno answer yet: the search stopped (%s) before it could tell\n", r.stoppedWhy())
	} else {
		fmt.Fprintf(w, "\nno value of %s in %s..%s meets every constraint\n", r.Vary[0].Key, r.format(0, r.Vary[0].Lo), r.format(0, r.Vary[0].Hi))
	}
	if p := res.NearestFail; p != nil && len(r.Frontier) == 0 {
		fmt.Fprintf(w, "nearest failing point: %s\n  %s\n", r.point(p), r.stats(p))
		if b := r.FailBound; b != nil {
			fmt.Fprintf(w, "  there the %s binds: %s %% (%s)\n", b.Resource, num(b.UtilPct), b.Evidence)
		}
	}
	how := "bracket, then bisection"
	if res.Fallback != "" {
		how = "the whole grid, because " + res.Fallback
	}
	fmt.Fprintf(w, "search: %s; %s, %s; replication r has the same seed at every point\n", how, count(len(res.Evidence), "point"), count(res.Runs, "run"))
	if s := r.Steady; s != nil {
		for _, warn := range s.Warnings {
			fmt.Fprintf(w, "warning: the answer's run is not steady: %s\n", warn)
		}
	}
	for _, f := range r.Frontier {
		for _, warn := range f.Warnings {
			fmt.Fprintf(w, "warning: at %s = %s the answer's run is not steady: %s\n", r.Vary[1].Key, f.Y, warn)
		}
	}
	fmt.Fprintf(w, "\nevidence (in the order run):\n")
	hdr := []string{"phase"}
	hdr = append(hdr, keys...)
	hdr = append(hdr, "reps")
	for _, c := range r.cons {
		hdr = append(hdr, c.Metric+" (95% CI)")
	}
	hdr = append(hdr, "meets")
	rows := [][]string{hdr}
	for _, p := range res.Evidence {
		row := []string{p.Phase}
		for i, x := range p.X {
			row = append(row, r.format(i, x))
		}
		row = append(row, fmt.Sprint(p.Reps))
		for k := range r.cons {
			row = append(row, estimate(p.Stats[k], p.Reps))
		}
		meets := "yes"
		if !p.Feasible {
			meets = "no: " + strings.Join(p.Failed, ", ")
		}
		if !p.Decided {
			meets += " (undecided)"
		}
		rows = append(rows, append(row, meets))
	}
	widths := make([]int, len(hdr))
	for _, row := range rows {
		for i, c := range row {
			widths[i] = max(widths[i], displayWidth(c))
		}
	}
	for _, row := range rows {
		var b strings.Builder
		for i, c := range row {
			if i > 0 {
				b.WriteString("  ")
			}
			if i == len(row)-1 {
				b.WriteString(c)
				continue
			}
			b.WriteString(padRight(c, widths[i]))
		}
		fmt.Fprintln(w, b.String())
	}
	return nil
}

// undecided says why a point's feasibility is not decided, or "".
func (r *PlanReport) undecided(p *plan.Point) string {
	if p.Decided {
		return ""
	}
	if p.Reps < 2 {
		return "; undecided: one replication gives no interval (raise --max-reps)"
	}
	for k, st := range p.Stats {
		if c := r.cons[k]; c.InResolution(st) {
			return fmt.Sprintf("; undecided: %s is within the histogram's resolution (±%s) of its threshold, which more replications cannot narrow", c.Metric, num(st.Resolution))
		}
	}
	return "; undecided: an interval still straddles its threshold"
}

func planPlotFormat(path string) (string, error) {
	switch {
	case strings.HasSuffix(path, ".png"):
		return "png", nil
	case strings.HasSuffix(path, ".svg"):
		return "svg", nil
	}
	return "", usagef("--plot %q: want a .png or .svg file", path)
}

func planPlotInput(r *PlanReport) plan.PlotInput {
	in := plan.PlotInput{Title: fmt.Sprintf("%s %s: %s %s", r.Scenario, r.Case, r.Objective, r.Vary[0].Key), Result: r.Result,
		Constraints: r.cons, Maximize: r.Objective == "maximize"}
	if len(r.Vary) == 2 {
		in.Title = fmt.Sprintf("%s %s: %s %s for each %s", r.Scenario, r.Case, r.Objective[:3]+"imal", r.Vary[0].Key, r.Vary[1].Key)
	}
	for i, v := range r.Vary {
		in.Axes = append(in.Axes, plan.PlotAxis{Key: v.Key, Unit: v.Unit, Integer: r.knobs[i].Integer, Format: r.knobs[i].Format})
	}
	return in
}

// writeNotes prints each row's steady-state warnings and, when the twin is
// far from the simulation, that too, on stderr; then, for up to a dozen
// rows, the resource that binds each.
func writeNotes(w io.Writer, doc *result.Document) {
	label := func(c *result.Case) string { return result.RowLabel(doc, *c) }
	var binds []string
	for i := range doc.Cases {
		if b := doc.Cases[i].Bottleneck; b != nil {
			binds = append(binds, fmt.Sprintf("%s %s %.0f %%", label(&doc.Cases[i]), b.Resource, b.UtilPct))
		}
	}
	defer func() {
		if len(binds) > 0 && len(binds) <= 12 {
			fmt.Fprintf(w, "bottleneck: %s\n", strings.Join(binds, " · "))
		}
	}()
	for i := range doc.Cases {
		c := &doc.Cases[i]
		label := label(c)
		if s := c.Steady; s != nil && (s.TooShort || s.Diverging) {
			head := fmt.Sprintf("too short for steady state, run at least %gs", s.NeededS)
			if s.Diverging {
				head = "never steady"
				if s.TooShort {
					head += fmt.Sprintf(" (and too short for the other checks: run at least %gs)", s.NeededS)
				}
			}
			if len(doc.Cases) > 3 {
				// Many rows: one line each, the checks named.
				var why []string
				for _, x := range s.Warnings {
					x, _, _ = strings.Cut(x, " (")
					x, _, _ = strings.Cut(x, ":")
					why = append(why, x)
				}
				fmt.Fprintf(w, "warning: %s: %s (%s; steady_state in the JSON says more)\n", label, head, strings.Join(why, "; "))
			} else {
				fmt.Fprintf(w, "warning: %s: %s:\n", label, head)
				for _, x := range s.Warnings {
					fmt.Fprintf(w, "  - %s\n", x)
				}
			}
		}
		if t := c.Twin; t != nil && t.Flagged {
			fmt.Fprintf(w, "note: %s: simulated %s TPS is %+.0f %% from the analytical twin's %s (%s, bound by %s)\n", label, num(t.SimTPS), t.GapPct, num(t.TPS), t.Model, t.Bound)
		}
	}
}
