package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"

	"simrun/internal/export"
	"simrun/internal/plot"
	"simrun/internal/result"
	"simrun/scenarios"
)

// loadResult reads a result document, or runs a scenario file (or built-in
// scenario name) and returns its result. For a scenario it also returns the
// file's text, which exports show.
func (e env) loadResult(input string, cases []string, seed, duration string) (*result.Document, []byte, string, error) {
	if strings.HasSuffix(input, ".json") {
		if seed != "" || duration != "" {
			return nil, nil, "", usagef("--seed and --duration apply to a scenario that is run; %s is a result, already run", input)
		}
		fh, err := os.Open(input)
		if err != nil {
			return nil, nil, "", usagef("%v", err)
		}
		defer fh.Close()
		d, err := result.Decode(fh)
		if err != nil {
			return nil, nil, "", usagef("%s: %v", input, err)
		}
		if err := keepCases(d, input, cases); err != nil {
			return nil, nil, "", err
		}
		return d, nil, "", nil
	}
	sc, err := openScenario([]string{input}, seed, duration)
	if err != nil {
		return nil, nil, "", err
	}
	if err := sc.Validate(); err != nil {
		return nil, nil, "", err
	}
	if err := checkCases(sc, cases); err != nil {
		return nil, nil, "", err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	bar := newProgress(e.stderr)
	opt := scenarios.Options{Cases: cases, Replications: 1}
	bar.options(&opt)
	doc, err := scenarios.Run(ctx, sc, opt)
	bar.finish()
	if err != nil {
		return nil, nil, "", err
	}
	stamp(doc)
	text, _ := scenarios.Text(input)
	return doc, text, filepath.Base(sc.File), nil
}

// keepCases keeps the rows of d whose case is named (all when none is),
// refusing a name d has no row of.
func keepCases(d *result.Document, input string, cases []string) error {
	rows, missing := d.Rows(cases)
	if missing != "" {
		names := d.CaseNames()
		msg := fmt.Sprintf("%s: no case %q", input, missing)
		if s := scenarios.Suggest(missing, names); s != "" {
			msg += fmt.Sprintf("; did you mean %s?", s)
		}
		return usagef("%s (allowed: %s)", msg, strings.Join(names, ", "))
	}
	d.Cases = rows
	return nil
}

func (e env) plotCmd(args []string) error {
	fs := e.newFlags("plot")
	kind := fs.String("kind", "bar", "chart: bar, sweep, latency, series or breakdown")
	out := fs.String("o", "", "output file, .png or .svg (required)")
	width := fs.Int("width", 0, "width in pixels (default 960)")
	height := fs.Int("height", 0, "height in pixels (default 540, or per panel)")
	metric := fs.String("metric", "", "metric path: bar and sweep a metric, latency and breakdown a block, series one or more series (comma-separated); default: what the result has")
	title := fs.String("title", "", "chart title (default from the scenario)")
	seed := fs.String("seed", "", "override the seed (scenario input)")
	duration := fs.String("duration", "", "override the duration (scenario input)")
	var cases listFlag
	fs.Var(&cases, "case", "only this case (repeatable)")
	pos, err := e.parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 || *out == "" {
		return usagef("plot takes one RESULT.json or FILE.toml and -o out.png|out.svg (see simrun help plot)")
	}
	k, err := plot.ParseKind(*kind)
	if err != nil {
		return usageError{err.Error()}
	}
	f, err := plot.FormatOf(*out)
	if err != nil {
		return usageError{err.Error()}
	}
	if err := checkOutput(*out); err != nil {
		return err
	}
	if k == plot.Sweep && !strings.HasSuffix(pos[0], ".json") {
		return usagef("plot --kind sweep draws a sweep's result: run simrun sweep ... -o sweep.json, then plot sweep.json (a scenario is run once, not swept)")
	}
	d, _, _, err := e.loadResult(pos[0], cases, *seed, *duration)
	if err != nil {
		return err
	}
	opt := plot.Options{Width: *width, Height: *height, Metric: *metric, Cases: cases, Title: *title}
	fig, err := plot.Draw(d, k, opt)
	if err != nil {
		if kinds := plot.Supported(d); len(kinds) > 0 {
			var names []string
			for _, k := range kinds {
				names = append(names, string(k))
			}
			return usagef("%v (kinds this result draws without --metric: %s)", err, strings.Join(names, ", "))
		}
		return usageError{err.Error()}
	}
	return writeAtomic(*out, func(w io.Writer) error { return fig.Write(w, f) })
}

func (e env) exportCmd(args []string) error {
	fs := e.newFlags("export")
	format := fs.String("format", "ipynb", "ipynb, md or csv")
	out := fs.String("o", "", "output file (required)")
	image := fs.String("image", "png", "chart format for md: png or svg")
	seed := fs.String("seed", "", "override the seed (scenario input)")
	duration := fs.String("duration", "", "override the duration (scenario input)")
	var cases listFlag
	fs.Var(&cases, "case", "only this case (repeatable, scenario input)")
	pos, err := e.parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 || *out == "" {
		return usagef("export takes one RESULT.json or FILE.toml and -o FILE (see simrun help export)")
	}
	f, err := export.ParseFormat(*format)
	if err != nil {
		return usageError{err.Error()}
	}
	if *out == "-" && *format != "csv" {
		return usagef("-o -: export --format %s writes several files (the page and its charts); give a file name", *format)
	}
	img, err := plot.FormatOf("x." + *image)
	if err != nil {
		return usagef("--image %q: want png or svg", *image)
	}
	if err := checkOutput(*out); err != nil {
		return err
	}
	d, text, file, err := e.loadResult(pos[0], cases, *seed, *duration)
	if err != nil {
		return err
	}
	files, err := export.Export(d, f, *out, export.Options{Scenario: text, ScenarioFile: file, Image: img})
	if err != nil {
		return err
	}
	if *out == "-" && len(files) == 1 { // csv: one file, to stdout
		_, err := e.stdout.Write(files[0].Data)
		return err
	}
	for _, fl := range files {
		name := filepath.Join(filepath.Dir(*out), fl.Name)
		if err := writeAtomic(name, func(w io.Writer) error { _, err := w.Write(fl.Data); return err }); err != nil {
			return err
		}
		fmt.Fprintf(e.stderr, "wrote %s\n", name)
	}
	return nil
}
