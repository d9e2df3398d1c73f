package plan

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"

	"simrun/internal/result"
)

// Sample is the metrics of one replication at one point: the value at a
// metric path, and whether the run reported it. +Inf says the metric grows
// without bound with the run's length (a queue that never drains), so that
// a limit on it fails whatever a finite run measured.
type Sample func(metric string) (float64, bool)

// Evaluator runs the given replications (0-based; the same index gets the
// same seed at every point) at point x, one value per varied parameter in
// its base unit, and returns their samples in the order asked.
type Evaluator func(ctx context.Context, x []float64, reps []int) ([]Sample, error)

// Config is a search.
type Config struct {
	Constraints []Constraint
	// Axes are the candidate values of each varied parameter, ascending:
	// one axis for a search, two for a frontier (the search runs along the
	// first for each value of the second).
	Axes [][]float64
	// Maximize searches for the largest feasible value of the first axis
	// instead of the smallest.
	Maximize bool
	// MinReps and MaxReps bound the replications per point (defaults 2
	// and 10); Budget bounds the runs of the whole search (0: no bound).
	MinReps, MaxReps, Budget int
	// Format, if set, prints a value of the first axis in its unit for the
	// search's messages (40MB/s, not 4e+07).
	Format func(x float64) string
	// Resolution, if set, returns how far a metric's value v can be from
	// what it estimates however many replications run (a quantile read
	// from a histogram bucket); it widens that metric's intervals.
	Resolution func(metric string, v float64) float64
}

// Stat is one constraint's estimate at a point.
type Stat struct {
	Mean       float64 `json:"mean"`
	CI95       float64 `json:"ci95"`                 // half-width: Student's t over the replications plus Resolution
	Resolution float64 `json:"resolution,omitempty"` // the part of CI95 no replication removes (Config.Resolution)
	// Unbounded is set when a replication's sample was +Inf: the metric
	// grows with the run's length; Mean and CI95 are then 0.
	Unbounded bool `json:"unbounded,omitempty"`
}

// MarshalJSON writes Mean, CI95 and Resolution to 9 significant digits, as
// simrun's results print their numbers (result.FormatNumber).
func (s Stat) MarshalJSON() ([]byte, error) {
	type stat struct {
		Mean       any  `json:"mean"`
		CI95       any  `json:"ci95"`
		Resolution any  `json:"resolution,omitempty"`
		Unbounded  bool `json:"unbounded,omitempty"`
	}
	out := stat{Mean: result.FormatNumber(s.Mean), CI95: result.FormatNumber(s.CI95), Unbounded: s.Unbounded}
	if s.Resolution != 0 {
		out.Resolution = result.FormatNumber(s.Resolution)
	}
	return json.Marshal(out)
}

// Value is the estimate a constraint is judged on: Mean, or +Inf when
// the metric is unbounded.
func (s Stat) Value() float64 {
	if s.Unbounded {
		return math.Inf(1)
	}
	return s.Mean
}

// Point is one evaluated point: the evidence.
type Point struct {
	X        []float64 `json:"x"`
	Phase    string    `json:"phase"` // ends, bracket, bisect, grid
	Reps     int       `json:"replications"`
	Stats    []Stat    `json:"stats"` // one per constraint
	Feasible bool      `json:"feasible"`
	Decided  bool      `json:"decided"`          // every interval clear of its threshold
	Failed   []string  `json:"failed,omitempty"` // the constraints it misses, by mean
}

// Result is the outcome of a search.
type Result struct {
	Found       bool     `json:"found"`
	Answer      *Point   `json:"answer,omitempty"`
	NearestFail *Point   `json:"nearest_fail,omitempty"`
	Fallback    string   `json:"fallback,omitempty"` // why the grid was searched instead
	Evidence    []*Point `json:"evidence"`           // in evaluation order
	Frontier    []Front  `json:"frontier,omitempty"` // two axes
	Runs        int      `json:"runs"`
	// Between is set when the budget ran out with the boundary bracketed:
	// the answer lies in (Between[0], Between[1]] of the first axis.
	Between []float64 `json:"between,omitempty"`
}

// Front is one point of a two-parameter frontier: at this value of the
// second parameter, the best feasible value of the first.
type Front struct {
	Y     float64 `json:"y"`
	Found bool    `json:"found"`
	X     float64 `json:"x,omitempty"`
	// Answer is the point at X, NearestFail the failing point next to it
	// (or, with nothing found, the best end of the range): both are in
	// Evidence.
	Answer      *Point `json:"-"`
	NearestFail *Point `json:"-"`
}

// ErrBudget is returned, with the evidence so far, when the budget of runs
// is spent before the answer is known; the error is a *BudgetError.
var ErrBudget = errors.New("plan: budget spent")

// BudgetError says how the budget ran out: Runs done of Budget, and the
// point Next that needed Need more.
type BudgetError struct {
	Runs, Budget, Need int
	Next               []float64
}

func (e *BudgetError) Error() string {
	return fmt.Sprintf("%v: %d runs done of a budget of %d, the next point (%g) needs %d", ErrBudget, e.Runs, e.Budget, e.Next, e.Need)
}

// Is makes errors.Is(err, ErrBudget) hold.
func (e *BudgetError) Is(target error) bool { return target == ErrBudget }

// MetricError is returned when a constraint names a metric the runs do not
// report.
type MetricError struct{ Constraint Constraint }

func (e *MetricError) Error() string {
	return fmt.Sprintf("%s %s: the runs report no metric %q", e.Constraint.Flag, e.Constraint, e.Constraint.Metric)
}

// Search runs the search described by cfg with eval.
func Search(ctx context.Context, cfg Config, eval Evaluator) (*Result, error) {
	if len(cfg.Constraints) == 0 {
		return nil, errors.New("plan: no constraint")
	}
	if len(cfg.Axes) < 1 || len(cfg.Axes) > 2 {
		return nil, fmt.Errorf("plan: %d varied parameters, want 1 or 2", len(cfg.Axes))
	}
	for i, a := range cfg.Axes {
		if len(a) == 0 {
			return nil, fmt.Errorf("plan: axis %d has no values", i+1)
		}
		if !sort.Float64sAreSorted(a) {
			return nil, fmt.Errorf("plan: axis %d is not ascending", i+1)
		}
	}
	if cfg.MinReps < 1 {
		cfg.MinReps = 2
	}
	if cfg.MaxReps < cfg.MinReps {
		cfg.MaxReps = max(10, cfg.MinReps)
	}
	s := &searcher{cfg: cfg, eval: eval, ctx: ctx, res: &Result{}, seen: map[string]*Point{}}
	if len(cfg.Axes) == 1 {
		err := s.line(nil)
		return s.res, err
	}
	for _, y := range cfg.Axes[1] {
		s.fixed = []float64{y}
		sub := &Result{}
		s.line(sub)
		f := Front{Y: y, Found: sub.Found, Answer: sub.Answer, NearestFail: sub.NearestFail}
		if sub.Found {
			f.X = sub.Answer.X[0]
		}
		s.res.Frontier = append(s.res.Frontier, f)
		if s.err != nil {
			return s.res, s.err
		}
	}
	return s.res, nil
}

type searcher struct {
	cfg   Config
	eval  Evaluator
	ctx   context.Context
	res   *Result
	seen  map[string]*Point
	fixed []float64 // values of the other axes
	err   error
}

// order returns the first axis in search order: ascending to minimise,
// descending to maximise, so that "feasible" lies towards the end.
func (s *searcher) order() []float64 {
	a := append([]float64(nil), s.cfg.Axes[0]...)
	if s.cfg.Maximize {
		for i, j := 0, len(a)-1; i < j; i, j = i+1, j-1 {
			a[i], a[j] = a[j], a[i]
		}
	}
	return a
}

// line searches the first axis with the others fixed. The sub-result, when
// given, receives the answer instead of the main result (a frontier).
func (s *searcher) line(sub *Result) error {
	out := s.res
	if sub != nil {
		out = sub
	}
	xs := s.order()
	n := len(xs)
	at := map[int]*Point{}
	get := func(i int, phase string) (*Point, bool) {
		if p, ok := at[i]; ok {
			return p, true
		}
		p, err := s.point(xs[i], phase)
		if err != nil {
			s.err = err
			return nil, false
		}
		at[i] = p
		return p, true
	}
	finish := func(ans, fail *Point) error {
		out.Found, out.Answer, out.NearestFail = ans != nil, ans, fail
		return s.err
	}
	monotone := func() string { return s.monotone(xs, at) }

	hi, ok := get(n-1, "ends")
	if !ok {
		return s.stop(out, xs, at)
	}
	if !hi.Feasible {
		return finish(nil, hi)
	}
	lo, ok := get(0, "ends")
	if !ok {
		return s.stop(out, xs, at)
	}
	if lo.Feasible {
		return finish(lo, nil)
	}
	// Bracket from the infeasible end by doubling steps, then bisect.
	bad, good := 0, n-1
	for step := 1; bad+step < good; step *= 2 {
		p, ok := get(bad+step, "bracket")
		if !ok {
			return s.stop(out, xs, at)
		}
		if why := monotone(); why != "" {
			return s.grid(out, xs, at, why, finish)
		}
		if p.Feasible {
			good = bad + step
			break
		}
		bad += step
	}
	for good-bad > 1 {
		mid := (bad + good) / 2
		p, ok := get(mid, "bisect")
		if !ok {
			return s.stop(out, xs, at)
		}
		if why := monotone(); why != "" {
			return s.grid(out, xs, at, why, finish)
		}
		if p.Feasible {
			good = mid
		} else {
			bad = mid
		}
	}
	return finish(at[good], at[bad])
}

// stop ends a line whose evaluation failed (budget, error), keeping the
// bracket known so far.
func (s *searcher) stop(out *Result, xs []float64, at map[int]*Point) error {
	bad, good := -1, -1
	for i := range xs {
		p, ok := at[i]
		if !ok {
			continue
		}
		if p.Feasible && good < 0 {
			good = i
		}
		if !p.Feasible && (good < 0) {
			bad = i
		}
	}
	if bad >= 0 && good >= 0 {
		out.Between = []float64{xs[bad], xs[good]}
		if s.res != out {
			s.res.Between = out.Between
		}
	}
	return s.err
}

// grid evaluates every candidate and answers with the first feasible one
// in search order: a non-monotone metric can be feasible in islands, and
// the question is the best value that works.
func (s *searcher) grid(out *Result, xs []float64, at map[int]*Point, why string, finish func(a, f *Point) error) error {
	out.Fallback = why
	if s.res != out {
		s.res.Fallback = why
	}
	for i := range xs {
		if _, ok := at[i]; ok {
			continue
		}
		p, err := s.point(xs[i], "grid")
		if err != nil {
			s.err = err
			return s.stop(out, xs, at)
		}
		at[i] = p
	}
	var ans, fail *Point
	for i := range xs {
		if at[i].Feasible {
			ans = at[i]
			if i > 0 {
				fail = at[i-1]
			}
			break
		}
	}
	if ans == nil {
		fail = at[len(xs)-1]
	}
	return finish(ans, fail)
}

// monotone checks the evidence along the line: in search order the points
// must be infeasible, then feasible (decided points only), and no
// constraint's mean may rise then fall (or fall then rise) by more than the
// intervals of the points involved. It returns why not, or "".
func (s *searcher) monotone(xs []float64, at map[int]*Point) string {
	var idx []int
	for i := range xs {
		if _, ok := at[i]; ok {
			idx = append(idx, i)
		}
	}
	seenFeasible := -1
	for _, i := range idx {
		p := at[i]
		if !p.Decided {
			continue
		}
		if p.Feasible && seenFeasible < 0 {
			seenFeasible = i
		}
		if !p.Feasible && seenFeasible >= 0 {
			return fmt.Sprintf("feasibility is not monotone: %s works but %s, further on, does not", s.format(xs[seenFeasible]), s.format(xs[i]))
		}
	}
	for k, c := range s.cfg.Constraints {
		dir := 0
		for j := 1; j < len(idx); j++ {
			a, b := at[idx[j-1]].Stats[k], at[idx[j]].Stats[k]
			d := b.Value() - a.Value()
			// Differences within the intervals, or under 1 % (a flat
			// stretch past saturation), are no direction; nor is one
			// unbounded point beside another (NaN).
			if math.IsNaN(d) || math.Abs(d) <= a.CI95+b.CI95+0.01*math.Max(math.Abs(a.Mean), math.Abs(b.Mean)) {
				continue
			}
			sd := 1
			if d < 0 {
				sd = -1
			}
			if dir != 0 && sd != dir {
				return fmt.Sprintf("%s is not monotone in the parameter: it %s then %s between %s and %s", c.Metric,
					word(dir), word(sd), s.format(xs[idx[0]]), s.format(xs[idx[j]]))
			}
			dir = sd
		}
	}
	return ""
}

// format prints a value of the first axis with Config.Format, or as %g.
func (s *searcher) format(x float64) string {
	if s.cfg.Format != nil {
		return s.cfg.Format(x)
	}
	return strconv.FormatFloat(x, 'g', -1, 64)
}

func word(d int) string {
	if d > 0 {
		return "rises"
	}
	return "falls"
}

// point evaluates one value of the first axis (with the fixed others),
// adding replications until every constraint is decided or MaxReps.
func (s *searcher) point(x float64, phase string) (*Point, error) {
	pt := append([]float64{x}, s.fixed...)
	key := fmt.Sprint(pt)
	if p, ok := s.seen[key]; ok {
		return p, nil
	}
	var samples [][]float64 // per constraint, per replication
	samples = make([][]float64, len(s.cfg.Constraints))
	p := &Point{X: pt, Phase: phase}
	for reps := 0; ; {
		want := s.cfg.MinReps
		if reps > 0 {
			want = min(reps*2, s.cfg.MaxReps) // double: intervals shrink as 1/sqrt(n)
		}
		if s.cfg.Budget > 0 && s.res.Runs+want-reps > s.cfg.Budget {
			if reps == 0 {
				return nil, &BudgetError{Runs: s.res.Runs, Budget: s.cfg.Budget, Need: want, Next: pt}
			}
			break // judge the point by what it has
		}
		idx := make([]int, 0, want-reps)
		for r := reps; r < want; r++ {
			idx = append(idx, r)
		}
		got, err := s.eval(s.ctx, pt, idx)
		if err != nil {
			return nil, err
		}
		s.res.Runs += len(idx)
		for _, smp := range got {
			for k, c := range s.cfg.Constraints {
				v, ok := smp(c.Metric)
				if !ok {
					return nil, &MetricError{Constraint: c}
				}
				samples[k] = append(samples[k], v)
			}
		}
		reps = want
		p.Reps = reps
		var stuck bool
		p.Stats, p.Decided, stuck = s.judge(samples)
		if p.Decided || stuck || reps >= s.cfg.MaxReps {
			break
		}
	}
	p.Feasible, p.Failed = true, nil
	for k, c := range s.cfg.Constraints {
		if !c.Holds(p.Stats[k].Value()) {
			p.Feasible = false
			p.Failed = append(p.Failed, c.String())
		}
	}
	s.seen[key] = p
	s.res.Evidence = append(s.res.Evidence, p)
	return p, nil
}

// judge returns each constraint's mean and 95 % interval, and whether the
// point's feasibility is decided: every interval is clear of its
// threshold, or one constraint fails clearly (the others then cannot
// rescue the point). stuck reports an undecided point that more
// replications cannot decide: each undecided threshold is within the
// Resolution of its mean, and the replications already agree to within
// that Resolution.
func (s *searcher) judge(samples [][]float64) (stats []Stat, decided, stuck bool) {
	stats = make([]Stat, len(samples))
	all, failed := true, false
	stuck = true
	for k, xs := range samples {
		c := s.cfg.Constraints[k]
		if slices.Contains(xs, math.Inf(1)) {
			// Unbounded in one replication is unbounded: decided.
			stats[k] = Stat{Unbounded: true}
			failed = failed || !c.Holds(math.Inf(1))
			continue
		}
		m, h := result.MeanCI95(xs)
		st := Stat{Mean: m, CI95: h}
		if s.cfg.Resolution != nil {
			st.Resolution = s.cfg.Resolution(c.Metric, m)
			st.CI95 += st.Resolution
		}
		stats[k] = st
		// One replication has no interval: its spread is unknown, so
		// nothing is decided or stuck until a second one runs.
		d := len(xs) > 1 && c.decided(m, st.CI95)
		all = all && d
		failed = failed || (d && !c.Holds(m))
		if !d {
			stuck = stuck && len(xs) > 1 && c.InResolution(st) && h <= st.Resolution
		}
	}
	decided = all || failed
	return stats, decided, stuck && !decided
}
