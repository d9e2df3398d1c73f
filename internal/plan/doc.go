// Package plan answers capacity questions: the smallest (or largest) value
// of a parameter for which every constraint on a run's metrics holds, e.g.
// the smallest volume bandwidth that keeps TPS >= 4000 with p99 <= 10 ms.
//
// The search works over a sorted list of candidate values (a range's
// points). Where feasibility is monotone in the parameter — more bandwidth
// never hurts — it brackets the boundary from the cheap end by doubling
// steps, then bisects: a few points instead of a grid. Monotonicity is not
// assumed blindly: after every point, the evidence so far is checked (no
// feasible point on the wrong side of an infeasible one, no constraint
// metric that goes up then down beyond its confidence intervals), and on a
// violation the search falls back to evaluating the whole grid, and says so.
//
// Each point runs replications until every constraint is decided — its 95 %
// confidence interval lies on one side of the threshold — or a per-point
// maximum is reached (the point is then judged by its mean and marked
// undecided). Replication r runs with the same seed at every point (common
// random numbers): compared configurations see the same workload draws, so
// differences between points are the parameter's, not the noise's. A total
// budget of runs bounds the search; when it runs out the search stops with
// ErrBudget and keeps its evidence.
//
// With two parameters the search runs along the first for each value of the
// second: the feasible frontier.
package plan
