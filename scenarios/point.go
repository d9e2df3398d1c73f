package scenarios

import (
	"context"
	"fmt"
	"runtime"
	"sync"

	"simrun/internal/result"
)

// RunReplications runs the given replications of one case in parallel on
// separate kernels (at most workers at once; 0 means GOMAXPROCS) and
// returns their metrics in the order asked. Replication r runs with
// ReplicationSeed(seed, r) whatever else differs, so two configurations run
// with the same r see the same random draws (common random numbers). It is
// the building block of a search (simrun plan) that adds replications to a
// point until its intervals decide.
func RunReplications(ctx context.Context, c *Case, reps []int, workers int) ([]result.Metrics, error) {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	out := make([]result.Metrics, len(reps))
	errs := make([]error, len(reps))
	sem := make(chan struct{}, workers)
	var wg sync.WaitGroup
	for i, r := range reps {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			out[i], errs[i] = runTraced(ctx, c, r, nil, nil)
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			return nil, fmt.Errorf("case %s replication %d: %w", c.Name, reps[i], err)
		}
	}
	return out, nil
}

// Case returns the case of sc named name, or the only case when name is
// empty and there is one.
func (sc *Scenario) Case(name string) (*Case, error) {
	var names []string
	for _, c := range sc.Cases {
		names = append(names, c.Name)
		if c.Name == name || (name == "" && len(sc.Cases) == 1) {
			return c, nil
		}
	}
	if name == "" {
		return nil, &Error{File: sc.File, Msg: "the scenario has several cases: name one with --case", Allowed: joinNames(names)}
	}
	return nil, &Error{File: sc.File, Msg: fmt.Sprintf("no case %q", name), Allowed: joinNames(names)}
}

func joinNames(ns []string) string {
	s := ""
	for i, n := range ns {
		if i > 0 {
			s += ", "
		}
		s += n
	}
	return s
}
