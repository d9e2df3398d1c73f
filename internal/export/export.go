package export

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"simrun/internal/plot"
	"simrun/internal/result"
)

// Format is an export format.
type Format string

// Export formats.
const (
	Notebook Format = "ipynb"
	Markdown Format = "md"
	CSV      Format = "csv"
)

// Formats lists the export formats.
func Formats() []Format { return []Format{Notebook, Markdown, CSV} }

// ParseFormat checks a --format value.
func ParseFormat(s string) (Format, error) {
	for _, f := range Formats() {
		if string(f) == s {
			return f, nil
		}
	}
	return "", fmt.Errorf("export: --format: unknown format %q (allowed: ipynb, md, csv)", s)
}

// Options shape an export. The zero value exports everything the document
// supports, without the scenario file.
type Options struct {
	// Scenario is the text of the scenario file (TOML), shown verbatim. A
	// result file alone does not carry it; the caller passes it when the
	// export was asked for a scenario file.
	Scenario []byte
	// ScenarioFile names the scenario file in headings; only its base name
	// is used.
	ScenarioFile string
	// Title replaces the default title (the scenario's name).
	Title string
	// Intro is markdown placed after the description: a tutorial's text.
	Intro string
	// Kinds are the charts drawn; nil means every kind the document has
	// the metrics for (plot.Supported).
	Kinds []plot.Kind
	// Width and Height are the charts' size in pixels (0: 960×540).
	Width, Height int
	// Image is the format of the md export's chart files: png (default) or
	// svg.
	Image plot.Format
	// DataFile is the result file a notebook reads, relative to it; the
	// notebook export writes it beside the notebook (NAME.result.json).
	DataFile string
}

// File is one output file: a name relative to the output's directory, and
// its bytes.
type File struct {
	Name string
	Data []byte
}

// Export renders d in the given format. out is the output file's name
// (only its base name is used): the first File is that file; a md export
// also returns its charts, named after it ("page.md" → "page-bar.png").
func Export(d *result.Document, f Format, out string, opt Options) ([]File, error) {
	name := filepath.Base(out)
	switch f {
	case CSV:
		var buf bytes.Buffer
		if err := WriteCSV(&buf, d); err != nil {
			return nil, err
		}
		return []File{{name, buf.Bytes()}}, nil
	case Notebook:
		if opt.DataFile == "" {
			opt.DataFile = strings.TrimSuffix(name, filepath.Ext(name)) + ".result.json"
		}
		b, err := NotebookBytes(d, opt)
		if err != nil {
			return nil, err
		}
		data, err := result.Marshal(clean(d))
		if err != nil {
			return nil, err
		}
		return []File{{name, b}, {opt.DataFile, data}}, nil
	case Markdown:
		return MarkdownFiles(d, strings.TrimSuffix(name, filepath.Ext(name)), opt)
	}
	_, err := ParseFormat(string(f))
	return nil, err
}

// WriteFiles writes files into dir (the directory of the -o path).
func WriteFiles(dir string, files []File) error {
	for _, f := range files {
		if err := os.WriteFile(filepath.Join(dir, f.Name), f.Data, 0o644); err != nil {
			return fmt.Errorf("export: %w", err)
		}
	}
	return nil
}

// clean returns a copy of d fit to publish: a scenario name that looks
// like a path becomes its base name without extension.
func clean(d *result.Document) *result.Document {
	c := *d
	c.Scenario = baseName(d.Scenario)
	return &c
}

// baseName strips directories (either separator) and a .toml or .json
// extension.
func baseName(s string) string {
	if i := strings.LastIndexAny(s, `/\`); i >= 0 {
		s = s[i+1:]
	}
	for _, ext := range []string{".toml", ".json"} {
		s = strings.TrimSuffix(s, ext)
	}
	return s
}

func fileBase(s string) string {
	if i := strings.LastIndexAny(s, `/\`); i >= 0 {
		s = s[i+1:]
	}
	return s
}

// charts returns the kinds to draw.
func charts(d *result.Document, opt Options) []plot.Kind {
	if opt.Kinds != nil {
		return opt.Kinds
	}
	return plot.Supported(d)
}

// chart draws one chart in a format.
func chart(d *result.Document, k plot.Kind, f plot.Format, opt Options) ([]byte, error) {
	var buf bytes.Buffer
	if err := plot.Render(&buf, d, k, f, plot.Options{Width: opt.Width, Height: opt.Height}); err != nil {
		return nil, fmt.Errorf("export: chart %s: %w", k, err)
	}
	return buf.Bytes(), nil
}

// captions say what each chart shows, for headings and alt text.
var captions = map[plot.Kind]string{
	plot.Bar:       "Throughput per case",
	plot.Sweep:     "Throughput and p99 latency along the sweep",
	plot.Latency:   "Latency percentiles",
	plot.Series:    "Over time",
	plot.Breakdown: "Where commit time goes",
}

// explanations are one line under each chart.
var explanations = map[plot.Kind]string{
	plot.Bar:       "Transactions per second of each case. Cases named `group/label` are clustered by group; in a sweep each case's bars are its sweep points.",
	plot.Sweep:     "The throughput (top) and p99 latency (bottom) against the swept parameter. Along an offered load the ring marks the knee, the point of highest throughput / p99, past which more load buys latency rather than throughput; along a capacity (latency falls as it grows) it marks the least value within 1 % of the best. A parameter of named values (innodb, file) gets each value's points side by side, unjoined and unmarked.",
	plot.Latency:   "Transaction latency percentiles (`latency_ms`); the x axis counts nines (p90, p99, p99.9) so the tail gets room.",
	plot.Series:    "Per-interval figures after warm-up: TPS, device write MB/s and %util, checkpoint age and device queue depth, whichever the run recorded.",
	plot.Breakdown: "Mean commit latency split into the stages a commit waits in.",
}

// intro is the markdown that opens every export.
func intro(d *result.Document, opt Options) string {
	var b strings.Builder
	t := opt.Title
	if t == "" {
		t = d.Scenario
	}
	fmt.Fprintf(&b, "# %s\n\n", t)
	if d.Description != "" {
		b.WriteString(strings.TrimSpace(d.Description) + "\n\n")
	}
	if opt.Intro != "" {
		b.WriteString(strings.TrimSpace(opt.Intro) + "\n\n")
	}
	fmt.Fprintf(&b, "Scenario `%s`, seed %d: %s s measured after %s s of warm-up", d.Scenario, d.Seed,
		result.FormatValue(d.Duration), result.FormatValue(d.Warmup))
	if d.Replications > 1 {
		fmt.Fprintf(&b, ", %d replications (cells read mean ± 95 %% interval)", d.Replications)
	}
	b.WriteString(".")
	if len(d.Sweep) > 0 {
		var keys []string
		for _, a := range d.Sweep {
			keys = append(keys, "`"+a.Key+"`")
		}
		fmt.Fprintf(&b, " Swept: %s.", strings.Join(keys, ", "))
	}
	if d.Partial {
		b.WriteString(" **The run was interrupted: only the cases that completed are shown.**")
	}
	b.WriteString("\n")
	return b.String()
}

// scenarioSection shows the scenario file, or says why it is absent.
func scenarioSection(opt Options) string {
	if len(opt.Scenario) == 0 {
		return "## The scenario\n\nThis export was made from a result file alone, which does not carry the scenario file; export from the scenario file (`simrun export FILE.toml ...`) to show it here.\n"
	}
	name := fileBase(opt.ScenarioFile)
	head := "## The scenario\n\n"
	if name != "" {
		head = fmt.Sprintf("## The scenario: `%s`\n\n", name)
	}
	src := strings.TrimRight(string(opt.Scenario), "\n")
	fence := "```"
	for strings.Contains(src, fence) {
		fence += "`"
	}
	return head + fence + "toml\n" + src + "\n" + fence + "\n"
}
