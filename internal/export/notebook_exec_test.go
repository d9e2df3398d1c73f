package export

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"simrun/internal/plot"
	"simrun/internal/plot/plottest"
	"simrun/internal/result"
)

// installHint is what to install for the real-client test (Debian names).
const installHint = "apt-get install -y --no-install-recommends python3-nbformat jupyter-nbconvert python3-pandas python3-matplotlib python3-ipykernel"

// python returns a Python interpreter that has nbformat: $SIMRUN_PYTHON,
// else Debian's /usr/bin/python3 (the one Jupyter's kernel runs), else
// python3 on PATH.
func python() string {
	cands := []string{os.Getenv("SIMRUN_PYTHON"), "/usr/bin/python3", "python3"}
	for _, c := range cands {
		if c == "" {
			continue
		}
		if exec.Command(c, "-c", "import nbformat, pandas, matplotlib").Run() == nil {
			return c
		}
	}
	return ""
}

// validateScript checks every notebook named on the command line against
// the nbformat schema, as stored (no conversion).
const validateScript = `
import sys
import nbformat
for path in sys.argv[1:]:
    nb = nbformat.read(path, as_version=nbformat.NO_CONVERT)
    nbformat.validate(nb)
    errors = [o for c in nb.cells for o in c.get("outputs", []) if o.get("output_type") == "error"]
    if errors:
        sys.exit(f"{path}: {len(errors)} error output(s)")
print(f"{len(sys.argv) - 1} notebooks valid")
`

// drawnMarker starts the line the appended cell prints: what each chart
// cell drew, as JSON.
const drawnMarker = "SIMRUN-DRAWN "

// roundTrip is one notebook of the test: the document its charts come
// from and the kinds it draws.
type roundTrip struct {
	name  string
	doc   *result.Document
	kinds []plot.Kind
}

// TestNotebooksExecute is the real-client test: every exported notebook
// (a fixture's and the tutorials') passes nbformat's validator, runs end
// to end under jupyter nbconvert --execute reading its data from the file
// beside it, and each chart it redraws shows what the pre-rendered chart
// shows: the same panels, titles, axis labels and scales, bars and lines
// with the same labels and values (plot.Figure.Data). It skips, saying
// what to install, when Jupyter is missing, and under -short.
func TestNotebooksExecute(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: executing notebooks starts a Jupyter kernel per notebook")
	}
	jupyter, err := exec.LookPath("jupyter")
	if err != nil {
		t.Skip("jupyter not found on PATH; install it with: " + installHint)
	}
	py := python()
	if py == "" {
		t.Skip("no python3 with nbformat, pandas and matplotlib; install them with: " + installHint)
	}
	dir := t.TempDir()
	var trips []roundTrip
	// The tutorials cover bar, breakdown, latency and series; the sweep
	// fixture adds a sweep, a scenario file and replications (error bars).
	sweep := plottest.Sweep()
	files, err := Export(sweep, Notebook, "sweep.ipynb", Options{Scenario: []byte(scenarioTOML), ScenarioFile: "sweep.toml"})
	if err != nil {
		t.Fatal(err)
	}
	if err := WriteFiles(dir, files); err != nil {
		t.Fatal(err)
	}
	trips = append(trips, roundTrip{"sweep.ipynb", clean(sweep), plot.Supported(sweep)})
	// A fio-like result: no tps, percentiles under write.clat_ms (p99_9),
	// device series only.
	fio := fioLike()
	if files, err = Export(fio, Notebook, "fio.ipynb", Options{}); err != nil {
		t.Fatal(err)
	}
	if err := WriteFiles(dir, files); err != nil {
		t.Fatal(err)
	}
	trips = append(trips, roundTrip{"fio.ipynb", clean(fio), plot.Supported(fio)})
	// A replication-like result, interrupted: no series of the default
	// panels, so the series chart draws the applier's own (lag, TPS), and
	// every title says the result is partial.
	repl := replicationLike()
	if files, err = Export(repl, Notebook, "repl.ipynb", Options{}); err != nil {
		t.Fatal(err)
	}
	if err := WriteFiles(dir, files); err != nil {
		t.Fatal(err)
	}
	trips = append(trips, roundTrip{"repl.ipynb", clean(repl), plot.Supported(repl)})
	// The same notebook asked for a series it does not have: the series
	// cell prints a note instead of failing, and the notebook runs on.
	setParameter(t, filepath.Join(dir, "repl.ipynb"), filepath.Join(dir, "repl-noseries.ipynb"), "SERIES", `["series.nope"]`)
	trips = append(trips, roundTrip{"repl-noseries.ipynb", clean(repl), nil})
	// The sweep's cell with a latency metric (lower is better), and a
	// sweep of named values (no line, no knee): they have to run.
	setParameter(t, filepath.Join(dir, "sweep.ipynb"), filepath.Join(dir, "sweep-latency.ipynb"), "BAR_METRIC", `"latency_ms.avg"`)
	trips = append(trips, roundTrip{"sweep-latency.ipynb", clean(sweep), nil})
	cat := plottest.CategorySweep()
	cat.Scenario = "engines"
	if files, err = Export(cat, Notebook, "category.ipynb", Options{}); err != nil {
		t.Fatal(err)
	}
	if err := WriteFiles(dir, files); err != nil {
		t.Fatal(err)
	}
	trips = append(trips, roundTrip{"category.ipynb", clean(cat), plot.Supported(cat)})
	os.MkdirAll(filepath.Join(dir, "data"), 0o755)
	for _, tu := range Tutorials() {
		nbPath := filepath.Join(repoRoot, TutorialDir, tu.Slug+".ipynb")
		dataPath := filepath.Join(repoRoot, TutorialDir, "data", tu.Slug+".json")
		raw, err := os.ReadFile(dataPath)
		if err != nil {
			t.Fatal(err)
		}
		d, err := result.Decode(bytes.NewReader(raw))
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(dir, "data", tu.Slug+".json"), raw, 0o644)
		b, err := os.ReadFile(nbPath)
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(dir, tu.Slug+".ipynb"), b, 0o644)
		trips = append(trips, roundTrip{tu.Slug + ".ipynb", clean(d), tu.Kinds})
	}
	var paths []string
	for _, tr := range trips {
		p := filepath.Join(dir, tr.name)
		appendPrintCell(t, p)
		paths = append(paths, p)
	}
	// Keep Jupyter, IPython and matplotlib state inside the test's dir.
	env := append(os.Environ(),
		"JUPYTER_RUNTIME_DIR="+filepath.Join(dir, "runtime"),
		"IPYTHONDIR="+filepath.Join(dir, "ipython"),
		"MPLCONFIGDIR="+filepath.Join(dir, "mpl"),
		"MPLBACKEND=module://matplotlib_inline.backend_inline",
		"PYDEVD_DISABLE_FILE_VALIDATION=1",
	)
	run := func(name string, args ...string) string {
		t.Helper()
		cmd := exec.Command(name, args...)
		cmd.Env = env
		cmd.Dir = dir
		start := time.Now()
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s %s: %v\n%s", filepath.Base(name), strings.Join(args[:min(len(args), 3)], " "), err, out)
		}
		t.Logf("%s %s: %.1fs", filepath.Base(name), args[0], time.Since(start).Seconds())
		return string(out)
	}
	t.Log(strings.TrimSpace(run(py, append([]string{"-c", validateScript}, paths...)...)))
	outDir := filepath.Join(dir, "executed")
	args := []string{"nbconvert", "--to", "notebook", "--execute", "--ExecutePreprocessor.timeout=120", "--output-dir", outDir}
	run(jupyter, append(args, paths...)...)
	for _, tr := range trips {
		drawn := executedDrawn(t, filepath.Join(outDir, tr.name))
		if tr.name == "sweep-latency.ipynb" || tr.name == "category.ipynb" {
			if _, ok := drawn[string(plot.Sweep)]; !ok {
				t.Errorf("%s: the sweep cell recorded nothing", tr.name)
			}
		}
		if tr.name == "repl-noseries.ipynb" {
			if _, ok := drawn[string(plot.Series)]; ok {
				t.Errorf("%s: the series cell drew a chart of a series the result lacks", tr.name)
			}
			if out := cellText(t, filepath.Join(outDir, tr.name), "chart-series"); !strings.Contains(out, "No series to draw") {
				t.Errorf("%s: the series cell printed %q, want a note that there is nothing to draw", tr.name, out)
			}
		}
		for _, k := range tr.kinds {
			if k == plot.Sweep {
				continue // the sweep chart's x axis is being reworked; its cell still has to run
			}
			f, err := plot.Draw(tr.doc, k, plot.Options{})
			if err != nil {
				t.Fatal(err)
			}
			want := f.Data()
			got, ok := drawn[string(k)]
			if !ok {
				t.Errorf("%s: the %s cell recorded nothing", tr.name, k)
				continue
			}
			for _, d := range comparePanels(want, got) {
				t.Errorf("%s %s: %s", tr.name, k, d)
			}
		}
	}
}

// appendPrintCell adds a last cell that prints DRAWN, for the test only.
func appendPrintCell(t *testing.T, path string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var n map[string]any
	if err := json.Unmarshal(b, &n); err != nil {
		t.Fatal(err)
	}
	cells := n["cells"].([]any)
	n["cells"] = append(cells, map[string]any{
		"cell_type": "code", "execution_count": nil, "id": "test-drawn", "metadata": map[string]any{}, "outputs": []any{},
		"source": []string{"print(" + py(drawnMarker) + " + json.dumps(DRAWN))"},
	})
	out, _ := json.Marshal(n)
	if err := os.WriteFile(path, out, 0o644); err != nil {
		t.Fatal(err)
	}
}

// setParameter copies the notebook at from to to, with one assignment of
// its parameter cell replaced: NAME = value.
func setParameter(t *testing.T, from, to, name, value string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	var n map[string]any
	if err := json.Unmarshal(b, &n); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, c := range n["cells"].([]any) {
		cell := c.(map[string]any)
		if cell["id"] != "parameters" {
			continue
		}
		src := cell["source"].([]any)
		for i, l := range src {
			if line := l.(string); strings.HasPrefix(line, name+" = ") {
				src[i] = name + " = " + value + "\n"
				found = true
			}
		}
	}
	if !found {
		t.Fatalf("%s: no parameter %s", filepath.Base(from), name)
	}
	out, _ := json.Marshal(n)
	if err := os.WriteFile(to, out, 0o644); err != nil {
		t.Fatal(err)
	}
}

// cellText returns what the executed cell with this id printed.
func cellText(t *testing.T, path, id string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var n struct {
		Cells []struct {
			ID      string `json:"id"`
			Outputs []struct {
				Text any `json:"text"`
			} `json:"outputs"`
		} `json:"cells"`
	}
	if err := json.Unmarshal(b, &n); err != nil {
		t.Fatal(err)
	}
	var text string
	for _, c := range n.Cells {
		if c.ID != id {
			continue
		}
		for _, o := range c.Outputs {
			switch x := o.Text.(type) {
			case string:
				text += x
			case []any:
				for _, s := range x {
					text += fmt.Sprint(s)
				}
			}
		}
	}
	return text
}

// executedDrawn reads the DRAWN line an executed notebook printed.
func executedDrawn(t *testing.T, path string) map[string][]plot.PanelData {
	t.Helper()
	text := cellText(t, path, "test-drawn")
	i := strings.Index(text, drawnMarker)
	if i < 0 {
		t.Fatalf("%s: no DRAWN output", filepath.Base(path))
	}
	var out map[string][]plot.PanelData
	if err := json.Unmarshal([]byte(strings.TrimSpace(text[i+len(drawnMarker):])), &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// comparePanels lists the differences between what the Go chart shows and
// what the notebook redrew.
func comparePanels(want, got []plot.PanelData) []string {
	var diffs []string
	if len(want) != len(got) {
		return []string{fmt.Sprintf("%d panels, the pre-rendered chart has %d", len(got), len(want))}
	}
	for i := range want {
		w, g := want[i], got[i]
		at := fmt.Sprintf("panel %d", i+1)
		for _, f := range [][3]string{{"title", w.Title, g.Title}, {"x label", w.XLabel, g.XLabel}, {"y label", w.YLabel, g.YLabel}, {"y scale", w.YScale, g.YScale}} {
			if f[1] != f[2] {
				diffs = append(diffs, fmt.Sprintf("%s: %s %q, pre-rendered %q", at, f[0], f[2], f[1]))
			}
		}
		if len(w.XTicks) > 0 && strings.Join(w.XTicks, "|") != strings.Join(g.XTicks, "|") {
			diffs = append(diffs, fmt.Sprintf("%s: x labels %q, pre-rendered %q", at, g.XTicks, w.XTicks))
		}
		if len(w.Texts) > 0 && strings.Join(w.Texts, "|") != strings.Join(g.Texts, "|") {
			diffs = append(diffs, fmt.Sprintf("%s: numbers on the bars %q, pre-rendered %q", at, g.Texts, w.Texts))
		}
		diffs = append(diffs, compareSeries(at+" bars", w.Bars, g.Bars)...)
		diffs = append(diffs, compareSeries(at+" lines", w.Lines, g.Lines)...)
	}
	return diffs
}

func compareSeries(at string, want, got []plot.SeriesData) []string {
	if len(want) != len(got) {
		var wl, gl []string
		for _, s := range want {
			wl = append(wl, s.Label)
		}
		for _, s := range got {
			gl = append(gl, s.Label)
		}
		return []string{fmt.Sprintf("%s: %d series %q, pre-rendered %d %q", at, len(got), gl, len(want), wl)}
	}
	var diffs []string
	for j := range want {
		w, g := want[j], got[j]
		if w.Label != g.Label {
			diffs = append(diffs, fmt.Sprintf("%s %d: label %q, pre-rendered %q", at, j, g.Label, w.Label))
		}
		if !close(w.Y, g.Y) || (len(w.X) > 0 && !close(w.X, g.X)) {
			diffs = append(diffs, fmt.Sprintf("%s %q: x %v y %v, pre-rendered x %v y %v", at, w.Label, g.X, g.Y, w.X, w.Y))
		}
	}
	return diffs
}

func close(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if d := math.Abs(a[i] - b[i]); d > 1e-9*math.Max(1, math.Abs(a[i])) {
			return false
		}
	}
	return true
}

// replicationLike is a result shaped like replication/csa-vs-mta's (the
// applier's lag and TPS as series beside its scalars), interrupted.
func replicationLike() *result.Document {
	d := result.New("csa-vs-mta")
	d.Duration = 3
	d.Partial = true
	for i, name := range []string{"default-10u-online-mta", "default-10u-backlog-mta"} {
		f := float64(i + 1)
		d.Cases = append(d.Cases, result.Case{Name: name, Metrics: result.Metrics{
			"tps":        8500 * f,
			"latency_ms": result.Metrics{"avg": 6.8 * f, "p50": 6.7 * f, "p95": 8.9 * f, "p99": 10.1 * f, "max": 12.5 * f},
			"applier": result.Metrics{"tps": 8500 * f, "lag_interval_s": int64(1),
				"lag_s":      []float64{1.1 * f, 2.2 * f, 3.1 * f},
				"tps_series": []float64{8400 * f, 8550 * f, 8560 * f}},
		}})
	}
	return d
}

// fioLike is a result shaped like the fio workload's.
func fioLike() *result.Document {
	d := result.New("fio-like")
	d.Duration = 4
	for i, name := range []string{"4k-qd1", "16k-qd16", "1m-seq"} {
		f := float64(i + 1)
		d.Cases = append(d.Cases, result.Case{Name: name, Metrics: result.Metrics{
			"jobname": name, "rw": "randwrite",
			"write": result.Metrics{"iops": 1500 * f, "bw_kB_per_s": 6000 * f,
				"clat_ms": result.Metrics{"mean": 0.5 * f, "p50": 0.4 * f, "p95": 0.9 * f, "p99": 1.2 * f, "p99_9": 2.5 * f, "max": 4 * f}},
			"disk": result.Metrics{"writes_per_s": 1510 * f, "series": result.Metrics{"interval_s": int64(1),
				"write_kB_per_s": []float64{5900 * f, 6000 * f, 6100 * f, 6000 * f}, "util_pct": []float64{90, 95, 99, 100}}},
		}})
	}
	return d
}
