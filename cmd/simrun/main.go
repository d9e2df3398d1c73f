// Command simrun runs scenario files of the simrun simulator.
//
//	simrun run [FILE] [--case NAME]... [--seed N] [--duration D] [--set KEY=VALUE]...
//	           [--replications N] [--format table|json|csv] [-o FILE]
//	simrun sweep FILE --set KEY=V1,V2,... [--set ...] [--shard I/N] [...run flags]
//	simrun merge PART.json... [--format json|table|csv] [-o FILE]
//	simrun explain FILE [--case NAME]... [--format table|json]
//	simrun validate FILE...
//	simrun list
//	simrun calibrate FIO.json [-o volume.toml] [--name NAME]
//	simrun plot RESULT.json|FILE.toml --kind KIND -o out.png|out.svg
//	simrun export RESULT.json|FILE.toml --format ipynb|md|csv -o FILE
//	simrun trace FILE.toml --case NAME --window 10s:10.2s -o trace.json
//
// The command is thin: it parses flags, calls package scenarios to load and
// run, and prints the result document of package result. Exit status: 0
// ok, 1 runtime failure (or interrupted), 2 bad input or usage.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/pprof"
	"strconv"
	"strings"
	"syscall"
	"time"

	"simrun/internal/result"
	"simrun/scenarios"
)

const (
	exitOK      = 0
	exitFailure = 1
	exitUsage   = 2
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// env is what a command writes to; tests substitute buffers.
type env struct {
	stdout, stderr io.Writer
	onFlags        func(*flag.FlagSet) // if set, sees each command's flags (tests)
}

// usageError is bad input from the command line: exit status 2.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

func usagef(format string, a ...any) error { return usageError{fmt.Sprintf(format, a...)} }

// run executes one command line and returns its exit status. No panic
// escapes it.
func run(args []string, stdout, stderr io.Writer) (code int) {
	defer func() {
		if p := recover(); p != nil {
			fmt.Fprintf(stderr, "simrun: internal error: %v (please report it with the command line)\n", firstLine(fmt.Sprint(p)))
			code = exitFailure
		}
	}()
	return env{stdout: stdout, stderr: stderr}.dispatch(args)
}

// dispatch runs the command args names.
func (e env) dispatch(args []string) int {
	stdout, stderr := e.stdout, e.stderr
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return exitUsage
	}
	var err error
	switch cmd, rest := args[0], args[1:]; cmd {
	case "run":
		err = e.runCmd(rest, false)
	case "sweep":
		err = e.runCmd(rest, true)
	case "plan":
		err = e.planCmd(rest)
	case "merge":
		err = e.mergeCmd(rest)
	case "explain":
		err = e.explainCmd(rest)
	case "validate":
		err = e.validateCmd(rest)
	case "list":
		err = e.listCmd(rest)
	case "calibrate":
		err = e.calibrateCmd(rest)
	case "plot":
		err = e.plotCmd(rest)
	case "export":
		err = e.exportCmd(rest)
	case "trace":
		err = e.traceCmd(rest)
	case "version", "-version", "--version":
		fmt.Fprintf(stdout, "simrun %s (commit %s)\n", buildInfo.version, buildInfo.commit)
		return exitOK
	case "help", "-h", "-help", "--help":
		if len(rest) > 0 {
			if h, ok := commandHelp[rest[0]]; ok {
				fmt.Fprint(stdout, h)
				return exitOK
			}
			fmt.Fprintf(stderr, "simrun: help: no command %q\n\n%s", rest[0], usage)
			return exitUsage
		}
		fmt.Fprint(stdout, usage)
		return exitOK
	default:
		fmt.Fprintf(stderr, "simrun: unknown command %q\n\n%s", cmd, usage)
		return exitUsage
	}
	return e.report(err)
}

// report prints err and maps it to an exit status.
func (e env) report(err error) int {
	var el scenarios.ErrorList
	var se *scenarios.Error
	var ue usageError
	switch {
	case err == nil:
		return exitOK
	case errors.Is(err, flag.ErrHelp):
		return exitOK
	case errors.As(err, &ue):
		fmt.Fprintf(e.stderr, "simrun: %s\n", ue.msg)
		return exitUsage
	case errors.As(err, &el):
		for _, x := range el {
			fmt.Fprintln(e.stderr, x.Error())
		}
		return exitUsage
	case errors.As(err, &se): // a problem in the scenario, as run asked for it
		fmt.Fprintln(e.stderr, se.Error())
		return exitUsage
	case errors.Is(err, scenarios.ErrInterrupted):
		fmt.Fprintf(e.stderr, "simrun: %v\n", err)
		return exitFailure
	}
	fmt.Fprintf(e.stderr, "simrun: %v\n", err)
	return exitFailure
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}

// listFlag collects a repeatable flag.
type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, ",") }
func (l *listFlag) Set(s string) error { *l = append(*l, s); return nil }

// newFlags returns a flag set that reports errors instead of exiting.
// --help prints the command's help on stdout (it was asked for); a bad flag
// prints it on stderr.
func (e env) newFlags(name string) *flag.FlagSet {
	fs := flag.NewFlagSet("simrun "+name, flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	fs.Usage = func() {}
	if e.onFlags != nil {
		e.onFlags(fs)
	}
	return fs
}

func (e env) commandUsage(fs *flag.FlagSet, w io.Writer) {
	if h, ok := commandHelp[strings.TrimPrefix(fs.Name(), "simrun ")]; ok {
		fmt.Fprint(w, h)
	}
}

// parse parses flags that may come before, between or after positional
// arguments ("run FILE --case x" and "run --case x FILE" both work).
func (e env) parse(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				e.commandUsage(fs, e.stdout)
				return nil, err
			}
			e.commandUsage(fs, e.stderr)
			return nil, usageError{err.Error()}
		}
		args = fs.Args()
		if len(args) == 0 {
			return pos, nil
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}

// runFlags are shared by run and sweep.
type runFlags struct {
	cases        listFlag
	sets         listFlag
	seed         string
	duration     string
	format       string
	out          string
	replications int
	shard        string
	workers      int
	metrics      string
	interval     string
	iostat       bool
	cpuprofile   string
}

func (f *runFlags) register(fs *flag.FlagSet, sweep bool) {
	fs.Var(&f.cases, "case", "run only this case (repeatable)")
	fs.Var(&f.sets, "set", "override KEY=VALUE (sweep: KEY=V1,V2,...; repeatable)")
	fs.StringVar(&f.seed, "seed", "", "override the scenario's seed")
	fs.StringVar(&f.duration, "duration", "", "override the measured duration, e.g. 30s")
	fs.StringVar(&f.format, "format", "", "output format: table, json or csv")
	fs.StringVar(&f.out, "o", "", "write the result to FILE (atomically) instead of stdout")
	fs.IntVar(&f.replications, "replications", 1, "independent seeds per case; metrics become mean and 95% CI")
	fs.IntVar(&f.workers, "workers", 0, "parallel runs (default: all cores)")
	fs.StringVar(&f.metrics, "metrics", "", "table columns: comma-separated metric paths or blocks, e.g. tps,latency_ms")
	fs.StringVar(&f.interval, "report-interval", "", "after the table, print each case's per-interval figures every D (e.g. 10s), like sysbench --report-interval")
	fs.BoolVar(&f.iostat, "iostat", false, "after the table, print each case's per-interval device rows, like iostat -x")
	fs.StringVar(&f.cpuprofile, "cpuprofile", "", "write a CPU profile of the run to FILE (go tool pprof); the output is unchanged")
	if sweep {
		fs.StringVar(&f.shard, "shard", "", "run shard I/N of the grid (0-based) and write a partial result")
	}
}

func (e env) runCmd(args []string, sweep bool) error {
	name := "run"
	if sweep {
		name = "sweep"
	}
	fs := e.newFlags(name)
	var f runFlags
	f.register(fs, sweep)
	pos, err := e.parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 1 {
		return usagef("%s takes one scenario file, got %d: %s", name, len(pos), strings.Join(pos, " "))
	}
	if sweep && len(pos) == 0 {
		return usagef("sweep needs a scenario file (see simrun help sweep)")
	}
	if f.replications < 1 {
		return usagef("--replications must be >= 1, got %d", f.replications)
	}
	if f.workers < 0 {
		return usagef("--workers must be >= 0 (0 uses all cores), got %d", f.workers)
	}
	opt := scenarios.Options{Cases: f.cases, Replications: f.replications, Workers: f.workers, Analyse: true}
	if f.shard != "" {
		if opt.Shard, err = scenarios.ParseShard(f.shard); err != nil {
			return usageError{err.Error()}
		}
	}
	format, err := formatFor(f.format, f.out, f.shard != "")
	if err != nil {
		return err
	}
	if err := checkOutput(f.out); err != nil {
		return err
	}
	var every time.Duration
	if f.interval != "" {
		d, err := time.ParseDuration(f.interval)
		if err != nil || d <= 0 {
			return usagef("--report-interval %q: want a duration such as 10s", f.interval)
		}
		// The series are recorded per second (coarser past 3,600 points),
		// so only whole seconds can regroup them; say so before the run.
		if d%time.Second != 0 {
			return usagef("--report-interval %s: want a whole number of seconds (the series are recorded per second)", f.interval)
		}
		every = d
	}
	if (every > 0 || f.iostat) && format != "table" {
		return usagef("--report-interval and --iostat print with the table; drop --format %s (the series are in the JSON)", format)
	}
	if f.shard != "" && format != "json" {
		return usagef("--shard writes a partial result for simrun merge; it must be --format json")
	}

	sc, err := openScenario(pos, f.seed, f.duration)
	if err != nil {
		return err
	}
	if sweep {
		for _, s := range f.sets {
			a, err := scenarios.ParseSet(s)
			if err != nil {
				return usageError{err.Error()}
			}
			opt.Sweep = append(opt.Sweep, a)
		}
	} else if err := overrideSets(sc, f.sets, "run", "use simrun sweep for a grid"); err != nil {
		return err
	}
	if sweep && len(opt.Sweep) == 0 {
		return usagef("sweep needs at least one --set KEY=V1,V2,...")
	}
	if err := sc.Validate(); err != nil {
		return err
	}
	if err := checkCases(sc, f.cases); err != nil {
		return err
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if f.metrics != "" {
		if format != "table" {
			return usagef("--metrics picks the table's columns; the %s holds every metric (drop --metrics or --format %s)", strings.ToUpper(format), format)
		}
		if err := checkMetrics(ctx, sc, f.cases, splitList(f.metrics)); err != nil {
			return err
		}
	}
	if f.cpuprofile != "" {
		pf, err := os.Create(f.cpuprofile)
		if err != nil {
			return usagef("--cpuprofile: %v", err)
		}
		defer pf.Close()
		if err := pprof.StartCPUProfile(pf); err != nil {
			return fmt.Errorf("--cpuprofile: %w", err)
		}
		defer pprof.StopCPUProfile()
	}
	bar := newProgress(e.stderr)
	bar.options(&opt)
	doc, runErr := scenarios.Run(ctx, sc, opt)
	bar.finish()
	if doc == nil {
		return runErr
	}
	stamp(doc)
	interrupted := errors.Is(runErr, scenarios.ErrInterrupted)
	if interrupted && len(doc.Cases) == 0 && f.out != "" && f.out != "-" {
		// Nothing to keep: an earlier result in the file is worth more.
		return fmt.Errorf("interrupted before any row finished; %s is left as it was", f.out)
	}
	topt := tableOptions{metrics: splitList(f.metrics), cases: caseSettings(sc, f.cases), every: every, iostat: f.iostat}
	var colErr error
	if len(topt.metrics) > 0 && format == "table" {
		// A column the probe let through but the run lacks: the table
		// shows the headline columns and the result is kept.
		if _, colErr = chooseColumns(doc, topt.metrics); colErr != nil {
			topt.metrics = nil
		}
	}
	if err := e.write(doc, format, f.out, topt); err != nil {
		return err
	}
	writeNotes(e.stderr, doc)
	if colErr != nil {
		return colErr
	}
	if interrupted {
		if format == "csv" { // a CSV has no place for the mark
			return fmt.Errorf("interrupted: wrote the %d completed rows only", len(doc.Cases))
		}
		return fmt.Errorf("interrupted: wrote %d completed rows, marked partial", len(doc.Cases))
	}
	return runErr
}

func pickFormat(f string, shard bool) (string, error) {
	switch f {
	case "":
		if shard {
			return "json", nil
		}
		return "table", nil
	case "table", "json", "csv":
		return f, nil
	}
	return "", usagef("--format %q: want table, json or csv", f)
}

// openScenario loads the scenario named by the first positional argument
// (the built-in default when there is none) and applies --seed and
// --duration. The caller validates it after any further overrides.
func openScenario(pos []string, seed, duration string) (*scenarios.Scenario, error) {
	var sc *scenarios.Scenario
	var err error
	if len(pos) == 0 {
		sc, err = scenarios.Default()
	} else {
		sc, err = loadScenario(pos[0])
	}
	if err != nil {
		return nil, err
	}
	if err := applyOverrides(sc, seed, duration); err != nil {
		return nil, err
	}
	return sc, nil
}

func applyOverrides(sc *scenarios.Scenario, seed, duration string) error {
	if seed != "" {
		n, err := strconv.ParseInt(seed, 10, 64)
		if err != nil || n < 0 {
			return usagef("--seed %q: want an integer between 0 and %d", seed, int64(1<<63-1))
		}
		if err := sc.Override("seed", n, scenarios.Source{Kind: "flag", Name: "--seed"}); err != nil {
			return err
		}
	}
	if duration != "" {
		if err := sc.Override("duration", duration, scenarios.Source{Kind: "flag", Name: "--duration"}); err != nil {
			return err
		}
	}
	return nil
}

// write renders doc in the format to -o FILE (atomically) or stdout. A
// table on stdout fits the terminal's width; in a file it is not cut.
func (e env) write(doc *result.Document, format, out string, topt tableOptions) error {
	return e.output(out, func(w io.Writer, colored bool) error {
		switch format {
		case "json":
			return result.Encode(w, doc)
		case "csv":
			return result.WriteCSV(w, doc)
		}
		if out == "" || out == "-" {
			topt.width = terminalWidth(e.stdout)
		}
		return writeTable(w, doc, topt, newStyle(colored))
	})
}

// splitList splits a comma-separated flag value, dropping empty items.
func splitList(s string) []string {
	var out []string
	for _, x := range strings.Split(s, ",") {
		if x = strings.TrimSpace(x); x != "" {
			out = append(out, x)
		}
	}
	return out
}

// output calls render on stdout, or on a temporary file renamed to out
// when render succeeds, so a reader never sees half a result.
func (e env) output(out string, render func(w io.Writer, colored bool) error) error {
	if out == "" || out == "-" {
		return render(e.stdout, e.stdout == io.Writer(os.Stdout))
	}
	return writeAtomic(out, func(w io.Writer) error { return render(w, false) })
}

func (e env) mergeCmd(args []string) error {
	fs := e.newFlags("merge")
	format := fs.String("format", "", "output format: table, json or csv (default: from -o's extension, else table)")
	out := fs.String("o", "", "write the merged result to FILE (atomically)")
	metrics := fs.String("metrics", "", "table columns: comma-separated metric paths or blocks")
	pos, err := e.parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) == 0 {
		return usagef("merge needs the partial results to join (see simrun help merge)")
	}
	fmtName, err := formatFor(*format, *out, false)
	if err != nil {
		return err
	}
	if *metrics != "" && fmtName != "table" {
		return usagef("--metrics picks the table's columns; the %s holds every metric (add --format table)", strings.ToUpper(fmtName))
	}
	if err := checkOutput(*out); err != nil {
		return err
	}
	var parts []*result.Document
	for _, p := range pos {
		fh, err := os.Open(p)
		if err != nil {
			return usagef("merge: %v", err)
		}
		d, err := result.Decode(fh)
		fh.Close()
		if err != nil {
			return usagef("merge: %s: %v", p, err)
		}
		if len(parts) > 0 {
			if f := mergeMismatch(parts[0], d); f != "" {
				return usagef("merge: %s comes from a different run than %s: %s differs", p, pos[0], f)
			}
		}
		parts = append(parts, d)
	}
	doc, err := result.Merge(parts)
	if err != nil {
		return usageError{err.Error()}
	}
	if err := e.write(doc, fmtName, *out, tableOptions{metrics: splitList(*metrics)}); err != nil {
		return err
	}
	if doc.Partial {
		fmt.Fprintln(e.stderr, "simrun: warning: some parts were interrupted; the merged result is partial")
	}
	return nil
}

func (e env) explainCmd(args []string) error {
	fs := e.newFlags("explain")
	var cases, sets listFlag
	fs.Var(&cases, "case", "explain only this case (repeatable)")
	fs.Var(&sets, "set", "override KEY=VALUE before explaining (repeatable)")
	seed := fs.String("seed", "", "override the seed")
	duration := fs.String("duration", "", "override the duration")
	format := fs.String("format", "", "output format: table or json (default: json when -o ends in .json, else table)")
	out := fs.String("o", "", "write to FILE (atomically)")
	pos, err := e.parse(fs, args)
	if err != nil {
		return err
	}
	if *format == "" {
		*format = "table"
		if strings.EqualFold(filepath.Ext(*out), ".json") {
			*format = "json"
		}
	}
	if *format != "table" && *format != "json" {
		return usagef("--format %q: want table or json", *format)
	}
	if len(pos) > 1 {
		return usagef("explain takes one scenario file, got %d", len(pos))
	}
	if err := checkOutput(*out); err != nil {
		return err
	}
	sc, err := openScenario(pos, *seed, *duration)
	if err != nil {
		return err
	}
	if err := overrideSets(sc, sets, "explain", "it explains one configuration"); err != nil {
		return err
	}
	if err := sc.Validate(); err != nil {
		return err
	}
	if err := checkCases(sc, cases); err != nil {
		return err
	}
	ex, err := scenarios.Explain(sc, cases)
	if err != nil {
		return err
	}
	return e.output(*out, func(w io.Writer, colored bool) error {
		if *format == "json" {
			return writeJSON(w, ex)
		}
		return writeExplain(w, ex, newStyle(colored))
	})
}

func (e env) validateCmd(args []string) error {
	fs := e.newFlags("validate")
	pos, err := e.parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) == 0 {
		return usagef("validate needs one or more scenario files")
	}
	var all scenarios.ErrorList
	for _, p := range pos {
		sc, err := loadScenario(p)
		var el scenarios.ErrorList
		var pf *scenarios.PresetFile
		switch {
		case errors.As(err, &pf):
			fmt.Fprintf(e.stdout, "ok %s (preset %s)\n", pf.File, pf.Section)
		case err == nil:
			plural := "s"
			if len(sc.Cases) == 1 {
				plural = ""
			}
			fmt.Fprintf(e.stdout, "ok %s (%d case%s)\n", sc.File, len(sc.Cases), plural)
		case errors.As(err, &el):
			all = append(all, el...)
		default:
			return err
		}
	}
	if len(all) > 0 {
		return all
	}
	return nil
}

func (e env) listCmd(args []string) error {
	fs := e.newFlags("list")
	if _, err := e.parse(fs, args); err != nil {
		return err
	}
	st := newStyle(e.stdout == io.Writer(os.Stdout))
	fmt.Fprintln(e.stdout, st.bold("Built-in scenarios")+" (run with: simrun run NAME)")
	for _, b := range scenarios.Builtins() {
		desc := ""
		if sc, err := scenarios.Load(scenarios.BuiltinPrefix + b); err == nil {
			desc = sc.Description
		}
		fmt.Fprintf(e.stdout, "  %-28s %s\n", strings.TrimSuffix(b, ".toml"), st.dim(desc))
	}
	fmt.Fprintln(e.stdout, st.bold("Presets")+" (use in a section: preset = \"NAME\")")
	for _, sec := range scenarios.PresetSections() {
		fmt.Fprintf(e.stdout, "  [%s] %s\n", sec, strings.Join(scenarios.PresetNames(sec), ", "))
	}
	return nil
}
