package export

import (
	"bytes"
	"errors"
	"flag"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"simrun/internal/plot/plottest"
	"simrun/internal/result"
)

var placeholders = flag.Bool("placeholders", false, "write synthetic docs/tutorials/data/*.json for tutorials that have no result yet")

// repoRoot is the repository root as seen from this package's directory.
const repoRoot = "../.."

// TestTutorialsCurrent regenerates every tutorial notebook from its text,
// result and scenario and compares it with the one in docs/tutorials.
// go test ./internal/export -run TestTutorials -update rewrites them.
func TestTutorialsCurrent(t *testing.T) {
	if *placeholders {
		for _, tu := range Tutorials() {
			p := filepath.Join(repoRoot, TutorialDir, "data", tu.Slug+".json")
			if _, err := os.Stat(p); !errors.Is(err, fs.ErrNotExist) {
				continue
			}
			d := plottest.Placeholder(tu.Slug)
			if d == nil {
				t.Fatalf("no placeholder for %s", tu.Slug)
			}
			var buf bytes.Buffer
			if err := result.Encode(&buf, d); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, buf.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	files, err := TutorialFiles(os.DirFS(repoRoot))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != len(Tutorials()) {
		t.Fatalf("%d notebooks for %d tutorials", len(files), len(Tutorials()))
	}
	for _, f := range files {
		p := filepath.Join(repoRoot, filepath.FromSlash(f.Name))
		if *update {
			if err := os.WriteFile(p, f.Data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		have, err := os.ReadFile(p)
		if err != nil {
			t.Errorf("%v (go test ./internal/export -run TestTutorials -update writes it)", err)
			continue
		}
		if !bytes.Equal(have, f.Data) {
			t.Errorf("%s is stale: its text, result or scenario changed, or the exporter did; regenerate with go test ./internal/export -run TestTutorials -update", f.Name)
		}
	}
}
