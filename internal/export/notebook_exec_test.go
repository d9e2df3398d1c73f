package export

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

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
		if exec.Command(c, "-c", "import nbformat").Run() == nil {
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

// TestNotebooksExecute is the real-client test: every exported notebook
// (the fixtures' and the tutorials') passes nbformat's validator and runs
// end to end under jupyter nbconvert --execute. It runs when
// SIMRUN_NOTEBOOKS=1 (scripts/check-notebooks.sh sets it) and Jupyter is
// installed; otherwise it skips, saying what to install.
func TestNotebooksExecute(t *testing.T) {
	if os.Getenv("SIMRUN_NOTEBOOKS") == "" {
		t.Skip("set SIMRUN_NOTEBOOKS=1 to validate and execute the notebooks with Jupyter (scripts/check-notebooks.sh does)")
	}
	jupyter, err := exec.LookPath("jupyter")
	if err != nil {
		t.Skip("jupyter not found on PATH; install it with: " + installHint)
	}
	py := python()
	if py == "" {
		t.Skip("no python3 with nbformat; install it with: " + installHint)
	}
	dir := t.TempDir()
	var paths []string
	// The tutorials cover every chart kind; the sweep fixture adds a scenario
	// file and replications (error bars). Few notebooks keep this quick:
	// each costs a kernel start, about 5 s.
	for name, d := range map[string]*result.Document{"sweep": plottest.Sweep()} {
		files, err := Export(d, Notebook, name+".ipynb", Options{Scenario: []byte(scenarioTOML), ScenarioFile: name + ".toml", Width: 640, Height: 360})
		if err != nil {
			t.Fatal(err)
		}
		if err := WriteFiles(dir, files); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, filepath.Join(dir, files[0].Name))
	}
	tut, err := filepath.Glob(filepath.Join(repoRoot, TutorialDir, "*.ipynb"))
	if err != nil || len(tut) == 0 {
		t.Fatalf("no tutorial notebooks in %s (%v)", TutorialDir, err)
	}
	for _, p := range tut {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		dst := filepath.Join(dir, "tutorial-"+filepath.Base(p))
		if err := os.WriteFile(dst, b, 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, dst)
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
	var executed []string
	for _, p := range paths {
		executed = append(executed, filepath.Join(outDir, filepath.Base(p)))
	}
	t.Log(strings.TrimSpace(run(py, append([]string{"-c", validateScript}, executed...)...)))
	// Each chart cell must have drawn a new figure when run.
	for _, p := range executed {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		var n nb
		if err := json.Unmarshal(b, &n); err != nil {
			t.Fatal(err)
		}
		for _, c := range n.Cells {
			if !strings.HasPrefix(c.ID, "chart-") || strings.HasSuffix(c.ID, "-text") {
				continue
			}
			found := false
			for _, o := range c.Outputs {
				if _, ok := o.Data["image/png"]; ok {
					found = true
				}
			}
			if !found {
				t.Errorf("%s: cell %s drew no figure when executed", filepath.Base(p), c.ID)
			}
		}
	}
}
