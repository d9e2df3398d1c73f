package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"simrun/internal/trace"
	"simrun/scenarios"
)

// traced lists the workload kinds whose models record a trace. The
// replication applier is being rewritten; until it records its
// coordinator, workers and commit-order waits, tracing it is refused
// rather than answered with an empty file.
var traced = map[string]bool{"sysbench": true, "fio": true, "demo": true}

// traceCmd runs one case and writes a Chrome Trace Event / Perfetto JSON of
// a window of it: where each transaction and each I/O spent its time.
func (e env) traceCmd(args []string) error {
	fs := e.newFlags("trace")
	var cases listFlag
	fs.Var(&cases, "case", "the case to trace (required when the file has several)")
	window := fs.String("window", "", "FROM:TO in virtual time, e.g. 10s:10.2s (required)")
	out := fs.String("o", "", "write the trace to FILE (atomically); default stdout")
	seed := fs.String("seed", "", "override the seed")
	duration := fs.String("duration", "", "override the duration")
	pos, err := e.parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 || *window == "" {
		return usagef("trace takes one scenario file, --case NAME and --window FROM:TO (see simrun help trace)")
	}
	if len(cases) > 1 {
		return usagef("trace records one case, got --case %s", strings.Join(cases, ", "))
	}
	caseName := new(string)
	if len(cases) == 1 {
		*caseName = cases[0]
	}
	from, to, err := trace.ParseWindow(*window)
	if err != nil {
		return usageError{err.Error()}
	}
	if err := checkOutput(*out); err != nil {
		return err
	}
	sc, err := openScenario(pos, *seed, *duration)
	if err != nil {
		return err
	}
	if err := sc.Validate(); err != nil {
		return err
	}
	if *caseName != "" {
		if err := checkCases(sc, []string{*caseName}); err != nil {
			return err
		}
	}
	c, err := sc.Case(*caseName)
	if err != nil {
		return usageError{err.Error()}
	}
	if !traced[c.Config.Workload.Kind] {
		return usagef("trace: case %s is a %s workload, which records no trace yet; trace a sysbench, fio or demo case",
			c.Name, c.Config.Workload.Kind)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	rec := trace.NewRecorder(from, to)
	if _, err := scenarios.Trace(ctx, sc, *caseName, rec); err != nil {
		return usagef("%v", err)
	}
	if rec.Len() == 0 {
		return usagef("trace: nothing happened in the window %s; pick one inside the run's activity", *window)
	}
	if n := rec.Dropped(); n > 0 {
		fmt.Fprintf(e.stderr, "simrun: trace: %d events past the limit were dropped; use a shorter window\n", n)
	}
	return e.output(*out, func(w io.Writer, _ bool) error { return rec.WriteJSON(w) })
}
