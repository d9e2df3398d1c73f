package plan

import (
	"context"
	"errors"
	"math"
	"strconv"
	"strings"
	"testing"
	"time"

	"simrun/sim"
	"simrun/sim/stats"
)

// erlangCWait is the mean wait in queue of M/M/c with arrival rate lambda
// and service rate mu (per second): C(c, a) / (c·mu - lambda).
func erlangCWait(c int, lambda, mu float64) float64 {
	a := lambda / mu
	rho := a / float64(c)
	if rho >= 1 {
		return math.Inf(1)
	}
	sum, term := 0.0, 1.0
	for k := 0; k < c; k++ {
		if k > 0 {
			term *= a / float64(k)
		}
		sum += term
	}
	last := term * a / float64(c) // a^c / c!
	pc := last / (1 - rho) / (sum + last/(1-rho))
	return pc / (float64(c)*mu - lambda)
}

// mmc simulates an M/M/c queue on a sim.Station for n customers and
// reports the mean wait in ms. Arrivals and service draw from their own
// streams, so replication r sees the same customers whatever c is.
func mmc(c int, lambda, mu float64, n int, seed uint64) float64 {
	env := sim.New(seed)
	arr, svc := env.Stream("arrivals"), env.Stream("service")
	st := sim.NewStation(env, c)
	left := n
	var arrive func(any)
	arrive = func(any) {
		st.Submit(time.Duration(math.Round(svc.Exp()/mu*1e9)), nil, nil)
		if left--; left > 0 {
			env.AfterArg(time.Duration(math.Round(arr.Exp()/lambda*1e9)), arrive, nil)
		}
	}
	env.AfterArg(0, arrive, nil)
	env.Run()
	return float64(st.Stats().MeanWait) / 1e6
}

func seedOf(r int) uint64 { return uint64(1000 + r) }

// evalOf is an Evaluator whose every metric is f(x, r) for replication r
// at point x.
func evalOf(f func(x []float64, r int) float64) Evaluator {
	return func(_ context.Context, x []float64, reps []int) ([]Sample, error) {
		out := make([]Sample, 0, len(reps))
		for _, r := range reps {
			v := f(x, r)
			out = append(out, func(string) (float64, bool) { return v, true })
		}
		return out, nil
	}
}

// TestSearchMMc: the smallest number of servers c for which an M/M/c
// queue at 3.5 erlangs keeps the mean wait under a target, found by
// simulation, is the one Erlang's C formula gives.
func TestSearchMMc(t *testing.T) {
	const lambda, mu = 3500.0, 1000.0
	for _, target := range []float64{0.5, 0.05, 0.005} { // ms
		want := 0
		for c := 4; c <= 16; c++ {
			if erlangCWait(c, lambda, mu)*1e3 <= target {
				want = c
				break
			}
		}
		eval := func(_ context.Context, x []float64, reps []int) ([]Sample, error) {
			var out []Sample
			for _, r := range reps {
				w := mmc(int(x[0]), lambda, mu, 40000, seedOf(r))
				out = append(out, func(m string) (float64, bool) { return w, m == "wait_ms" })
			}
			return out, nil
		}
		var axis []float64
		for c := 4; c <= 16; c++ {
			axis = append(axis, float64(c))
		}
		cons, _ := ParseConstraint("--limit", "wait_ms<="+ftoa(target))
		res, err := Search(context.Background(), Config{Constraints: []Constraint{cons}, Axes: [][]float64{axis}}, eval)
		if err != nil {
			t.Fatal(err)
		}
		if !res.Found || int(res.Answer.X[0]) != want {
			t.Fatalf("target %g ms: answer %+v, want c = %d (Erlang C: W(%d) = %.4g ms, W(%d) = %.4g ms)", target, res.Answer, want,
				want-1, erlangCWait(want-1, lambda, mu)*1e3, want, erlangCWait(want, lambda, mu)*1e3)
		}
		if res.Fallback != "" {
			t.Errorf("target %g: fell back to the grid: %s", target, res.Fallback)
		}
		if len(res.Evidence) >= len(axis) {
			t.Errorf("target %g: %d points evaluated for %d candidates: no better than the grid", target, len(res.Evidence), len(axis))
		}
		if res.NearestFail == nil || int(res.NearestFail.X[0]) != want-1 {
			t.Errorf("target %g: nearest failing point %+v, want c = %d", target, res.NearestFail, want-1)
		}
	}
}

// bucketThroughput offers Poisson requests of one token at lambda per
// second to a token bucket of the given rate (burst 10) for a second and
// returns the requests served per second.
func bucketThroughput(rate int64, lambda float64, seed uint64) float64 {
	env := sim.New(seed)
	arr := env.Stream("arrivals")
	tb := sim.NewTokenBucket(rate, 10)
	var queue int
	served := 0
	var serve func(any)
	busy := false
	serve = func(any) {
		now := env.Now()
		if queue == 0 {
			busy = false
			return
		}
		if at := tb.ReadyAt(now, 1); at > now {
			env.AtArg(at, serve, nil)
			return
		}
		tb.Take(now, 1)
		queue--
		if now <= sim.At(time.Second) {
			served++
		}
		env.AfterArg(0, serve, nil)
	}
	var arrive func(any)
	arrive = func(any) {
		queue++
		if !busy {
			busy = true
			env.AfterArg(0, serve, nil)
		}
		env.AfterArg(time.Duration(math.Round(arr.Exp()/lambda*1e9)), arrive, nil)
	}
	env.AfterArg(0, arrive, nil)
	env.RunUntil(sim.At(time.Second))
	return float64(served)
}

func bucketEval(calls *int) Evaluator {
	return func(_ context.Context, x []float64, reps []int) ([]Sample, error) {
		var out []Sample
		for _, r := range reps {
			*calls++
			v := bucketThroughput(int64(x[0]), 1000, seedOf(r))
			out = append(out, func(m string) (float64, bool) { return v, m == "throughput" })
		}
		return out, nil
	}
}

// TestSearchTokenBucket: the smallest rate of a token bucket that passes
// 92.5 % of a 1000/s Poisson stream is 950/s on a 50/s grid: the
// throughput of a saturated bucket is its rate.
func TestSearchTokenBucket(t *testing.T) {
	var axis []float64
	for r := 100; r <= 2000; r += 50 {
		axis = append(axis, float64(r))
	}
	cons, _ := ParseConstraint("--goal", "throughput>=925")
	var calls int
	res, err := Search(context.Background(), Config{Constraints: []Constraint{cons}, Axes: [][]float64{axis}}, bucketEval(&calls))
	if err != nil {
		t.Fatal(err)
	}
	if !res.Found || res.Answer.X[0] != 950 {
		t.Fatalf("answer %+v, want 950", res.Answer)
	}
	if res.Runs != calls || len(res.Evidence) > 12 {
		t.Errorf("%d runs (%d calls), %d points: want a bisection's handful of points", res.Runs, calls, len(res.Evidence))
	}
	// Maximise under the opposite constraint: the largest rate that keeps
	// the bucket saturated (throughput < 925) is 900.
	cons2, _ := ParseConstraint("--limit", "throughput<925")
	res, err = Search(context.Background(), Config{Constraints: []Constraint{cons2}, Axes: [][]float64{axis}, Maximize: true}, bucketEval(&calls))
	if err != nil || !res.Found || res.Answer.X[0] != 900 {
		t.Fatalf("maximise: %+v, %v; want 900", res.Answer, err)
	}
}

// TestSearchNonMonotone: a metric with a dip is caught on the way and the
// search falls back to the grid, which finds the feasible island that
// bisection would have missed.
func TestSearchNonMonotone(t *testing.T) {
	tps := []float64{0, 2.5, 4, 1, 1.5, 2, 2.5, 3.2, 3.5, 4, 5}
	axis := make([]float64, len(tps))
	for i := range axis {
		axis[i] = float64(i)
	}
	eval := evalOf(func(x []float64, _ int) float64 { return tps[int(x[0])] })
	cons, _ := ParseConstraint("--goal", "tps>=3")
	res, err := Search(context.Background(), Config{Constraints: []Constraint{cons}, Axes: [][]float64{axis}}, eval)
	if err != nil {
		t.Fatal(err)
	}
	if res.Fallback == "" || !strings.Contains(res.Fallback, "not monotone") {
		t.Errorf("no fallback: %q", res.Fallback)
	}
	if !res.Found || res.Answer.X[0] != 2 || res.Answer.Phase != "grid" {
		t.Errorf("answer %+v, want 2 from the grid", res.Answer)
	}
	if len(res.Evidence) != len(axis) {
		t.Errorf("%d points, want the whole grid of %d", len(res.Evidence), len(axis))
	}
}

// TestSearchQuantile: a quantile read from a histogram moves in buckets, so
// replications whose spread is smaller than a bucket agree exactly and a
// t-interval would be zero. With Resolution the interval is at least the
// bucket: a point whose threshold lies inside it stays undecided, and it
// stops at MinReps, since more replications cannot decide it.
func TestSearchQuantile(t *testing.T) {
	axis := make([]float64, 0, 20)
	for x := 1; x <= 20; x++ {
		axis = append(axis, float64(x))
	}
	// p99 = 100/x ms with a replication noise of 0.01 % (well inside the
	// 0.78 % bucket): x = 10 sits on the threshold.
	eval := evalOf(func(x []float64, r int) float64 {
		var h stats.Histogram
		for i := 1; i <= 1000; i++ { // rank 990 is 100/x
			h.Record(int64(100 / x[0] * 1e6 * float64(i) / 990 * (1 + 1e-4*float64(r%2))))
		}
		return float64(h.Quantile(0.99)) / 1e6
	})
	cons, _ := ParseConstraint("--limit", "latency_ms.p99<=10")
	at10 := func(res *Result) *Point {
		for _, p := range res.Evidence {
			if p.X[0] == 10 {
				return p
			}
		}
		t.Fatalf("x = 10 not evaluated: %+v", res.Evidence)
		return nil
	}
	cfg := Config{Constraints: []Constraint{cons}, Axes: [][]float64{axis}}
	res, err := Search(context.Background(), cfg, eval)
	if err != nil {
		t.Fatal(err)
	}
	if p := at10(res); p.Stats[0].CI95 != 0 || !p.Decided {
		t.Fatalf("without Resolution: %+v, want the zero interval this test is about", p)
	}
	cfg.Resolution = func(_ string, v float64) float64 { return stats.QuantileBound(v) }
	res, err = Search(context.Background(), cfg, eval)
	if err != nil {
		t.Fatal(err)
	}
	p := at10(res)
	if p.Decided || p.Reps != 2 || !(p.Stats[0].CI95 >= p.Stats[0].Resolution) || !(p.Stats[0].Resolution > 0.07) {
		t.Errorf("with Resolution: %+v, want undecided after 2 replications, interval >= the bucket", p)
	}
	if !res.Found || res.Answer.X[0] != 11 {
		t.Errorf("answer %+v, want 11: 10 is undecided and counts as failing", res.Answer)
	}
}

// TestSearchUnbounded: a sample of +Inf says the metric grows with the
// run (a replica that falls behind its source): a limit on it fails,
// decided after the first replications, whatever the finite points
// beside it measured, and the search still brackets and bisects.
func TestSearchUnbounded(t *testing.T) {
	axis := make([]float64, 0, 64)
	for x := 1; x <= 64; x++ {
		axis = append(axis, float64(x))
	}
	// Below 40 workers the lag grows without bound; from 40 on it is
	// 20/x s, 0.5 s at 40.
	eval := evalOf(func(x []float64, _ int) float64 {
		if x[0] >= 40 {
			return 20 / x[0]
		}
		return math.Inf(1)
	})
	cons, _ := ParseConstraint("--limit", "applier.max_lag_s<=1")
	res, err := Search(context.Background(), Config{Constraints: []Constraint{cons}, Axes: [][]float64{axis}}, eval)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Found || res.Answer.X[0] != 40 || res.Fallback != "" {
		t.Fatalf("answer %+v, fallback %q: want 40 by bisection", res.Answer, res.Fallback)
	}
	if f := res.NearestFail; f == nil || f.X[0] != 39 || !f.Stats[0].Unbounded || !f.Decided || f.Reps != 2 || f.Feasible {
		t.Errorf("nearest failing point %+v, want 39, unbounded, decided after 2 replications", f)
	}
	// A lower bound on a metric that grows without bound holds.
	ge, _ := ParseConstraint("--goal", "applier.max_lag_s>=1")
	res, err = Search(context.Background(), Config{Constraints: []Constraint{ge}, Axes: [][]float64{axis}, Maximize: true}, eval)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Found || res.Answer.X[0] != 39 {
		t.Errorf("maximize under >=: answer %+v, want 39", res.Answer)
	}
}

// TestSearchOneReplication: --min-reps 1 starts each point with one run,
// which has no interval, so no point is decided on it: every bounded point
// gets a second replication, and with --max-reps 1 none is decided.
func TestSearchOneReplication(t *testing.T) {
	axis := make([]float64, 0, 32)
	for x := 1; x <= 32; x++ {
		axis = append(axis, float64(x))
	}
	// Far from the threshold at every point: one run would look
	// certain, at +-0, anywhere.
	eval := evalOf(func(x []float64, r int) float64 { return 100*x[0] + float64(r%3) })
	cons, _ := ParseConstraint("--goal", "tps>=1550")
	for _, tc := range []struct {
		max         int
		wantDecided bool
	}{{5, true}, {1, false}} {
		res, err := Search(context.Background(), Config{Constraints: []Constraint{cons}, Axes: [][]float64{axis}, MinReps: 1, MaxReps: tc.max}, eval)
		if err != nil {
			t.Fatal(err)
		}
		if !res.Found || res.Answer.X[0] != 16 {
			t.Fatalf("max-reps %d: answer %+v, want 16", tc.max, res.Answer)
		}
		for _, p := range res.Evidence {
			if p.Decided != tc.wantDecided || (tc.wantDecided && p.Reps < 2) {
				t.Errorf("max-reps %d: point %v decided %v after %d replications", tc.max, p.X, p.Decided, p.Reps)
			}
		}
	}
}

// TestSearchBudget: a budget too small for the search stops it with
// ErrBudget, keeps the evidence and the bracket found so far.
func TestSearchBudget(t *testing.T) {
	var axis []float64
	for r := 100; r <= 2000; r += 50 {
		axis = append(axis, float64(r))
	}
	cons, _ := ParseConstraint("--goal", "throughput>=925")
	var calls int
	res, err := Search(context.Background(), Config{Constraints: []Constraint{cons}, Axes: [][]float64{axis}, Budget: 7}, bucketEval(&calls))
	if !errors.Is(err, ErrBudget) {
		t.Fatalf("err = %v, want ErrBudget", err)
	}
	if res == nil || len(res.Evidence) < 2 || res.Runs > 7 || calls != res.Runs {
		t.Fatalf("partial evidence lost: %+v", res)
	}
	if res.Found || len(res.Between) != 2 || !(res.Between[0] < 950 && res.Between[1] >= 950) {
		t.Errorf("found %v, between %v: want the bracket around 950 kept", res.Found, res.Between)
	}
	if !strings.Contains(err.Error(), "budget of 7") {
		t.Errorf("message %q does not say the budget", err)
	}
}

// TestSearchFrontier: two parameters give the frontier. With servers c
// and arrival rate as the second axis, the smallest c grows with the load.
func TestSearchFrontier(t *testing.T) {
	// Deterministic Erlang C: the frontier follows the formula.
	eval := evalOf(func(x []float64, _ int) float64 { return erlangCWait(int(x[0]), x[1], 1000) * 1e3 })
	var cs []float64
	for c := 1; c <= 20; c++ {
		cs = append(cs, float64(c))
	}
	cons, _ := ParseConstraint("--limit", "wait_ms<=0.05")
	res, err := Search(context.Background(), Config{Constraints: []Constraint{cons}, Axes: [][]float64{cs, {1000, 4000, 8000}}}, eval)
	if err != nil {
		t.Fatal(err)
	}
	var got []float64
	for _, f := range res.Frontier {
		got = append(got, f.X)
	}
	for i, lambda := range []float64{1000, 4000, 8000} {
		want := 0
		for c := 1; c <= 20; c++ {
			if erlangCWait(c, lambda, 1000)*1e3 <= 0.05 {
				want = c
				break
			}
		}
		if int(got[i]) != want {
			t.Errorf("lambda %g: frontier c = %v, want %d", lambda, got[i], want)
		}
	}
}

func TestParseConstraint(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Constraint
		err  string
	}{
		{"tps>=4000", Constraint{Flag: "--goal", Metric: "tps", Op: ">=", Value: 4000}, ""},
		{"latency_ms.p99 <= 10", Constraint{Flag: "--goal", Metric: "latency_ms.p99", Op: "<=", Value: 10}, ""},
		{"x<1e3", Constraint{Flag: "--goal", Metric: "x", Op: "<", Value: 1000}, ""},
		{"tps=>4000", Constraint{}, "want METRIC OP NUMBER"},
		{"tps>=fast", Constraint{}, "not a number"},
		{">=3", Constraint{}, "want METRIC OP NUMBER"},
	} {
		got, err := ParseConstraint("--goal", tc.in)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) || !strings.Contains(err.Error(), "--goal") {
				t.Errorf("%q: error %v, want %q naming the flag", tc.in, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("%q = %+v, %v; want %+v", tc.in, got, err, tc.want)
		}
	}
}

func ftoa(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }
