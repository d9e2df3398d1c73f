package export

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strings"

	"simrun/internal/plot"
	"simrun/internal/result"
)

// Tutorial is one generated notebook in docs/tutorials: a mechanism, the
// scenario that shows it, and the charts that make it visible.
//
// Its inputs live beside it: TutorialDir/SLUG.md is the hand-written text
// (its first "# " line is the title and is dropped from the notebook,
// which has its own), TutorialDir/data/SLUG.json the result of running the
// scenario, and Scenario the scenario file, shown when it exists.
type Tutorial struct {
	Slug     string
	Title    string
	Scenario string // repository-relative scenario file
	Kinds    []plot.Kind
}

// TutorialDir is where tutorials live, relative to the repository root.
const TutorialDir = "docs/tutorials"

// Tutorials lists the tutorials, in reading order.
func Tutorials() []Tutorial {
	return []Tutorial{
		{
			Slug:     "two-fsyncs",
			Title:    "Two fsyncs or one: the classic binlog against the binlog stored in InnoDB",
			Scenario: "scenarios/tutorials/two-fsyncs.toml",
			Kinds:    []plot.Kind{plot.Bar, plot.Breakdown, plot.Latency},
		},
		{
			Slug:     "thin-volume",
			Title:    "Why the InnoDB-stored binlog saturates a thin volume",
			Scenario: "scenarios/tutorials/thin-volume.toml",
			Kinds:    []plot.Kind{plot.Bar, plot.Series},
		},
		{
			Slug:     "applier-hol",
			Title:    "Head-of-line blocking in parallel replication appliers",
			Scenario: "scenarios/tutorials/applier-hol.toml",
			Kinds:    []plot.Kind{plot.Bar},
		},
		{
			Slug:     "small-redo-log",
			Title:    "Why a small redo log makes a load 4x slower",
			Scenario: "scenarios/bulkload/redo-size.toml",
			Kinds:    []plot.Kind{plot.Series},
		},
	}
}

// TutorialNotebook renders a tutorial's notebook from its result, text and
// scenario file (nil when the scenario does not exist yet).
func TutorialNotebook(t Tutorial, d *result.Document, text string, scenario []byte) ([]byte, error) {
	return NotebookBytes(d, Options{
		Title:        t.Title,
		Intro:        dropTitle(text),
		Scenario:     scenario,
		ScenarioFile: path.Base(t.Scenario),
		Kinds:        t.Kinds,
		DataFile:     "data/" + t.Slug + ".json",
	})
}

// dropTitle removes a leading "# " heading line.
func dropTitle(text string) string {
	text = strings.TrimLeft(text, "\n")
	if strings.HasPrefix(text, "# ") {
		if i := strings.IndexByte(text, '\n'); i >= 0 {
			return strings.TrimLeft(text[i+1:], "\n")
		}
		return ""
	}
	return text
}

// TutorialFiles regenerates every tutorial notebook from the inputs in the
// repository root (an fs.FS such as os.DirFS of the root). File names are
// repository-relative ("docs/tutorials/two-fsyncs.ipynb").
func TutorialFiles(root fs.FS) ([]File, error) {
	var out []File
	for _, t := range Tutorials() {
		dataPath := path.Join(TutorialDir, "data", t.Slug+".json")
		raw, err := fs.ReadFile(root, dataPath)
		if err != nil {
			return nil, fmt.Errorf("export: tutorial %s: %w", t.Slug, err)
		}
		d, err := result.Decode(bytes.NewReader(raw))
		if err != nil {
			return nil, fmt.Errorf("export: tutorial %s: %s: %w", t.Slug, dataPath, err)
		}
		text, err := fs.ReadFile(root, path.Join(TutorialDir, t.Slug+".md"))
		if err != nil {
			return nil, fmt.Errorf("export: tutorial %s: %w", t.Slug, err)
		}
		scenario, err := fs.ReadFile(root, t.Scenario)
		if errors.Is(err, fs.ErrNotExist) {
			scenario, err = nil, nil
		}
		if err != nil {
			return nil, fmt.Errorf("export: tutorial %s: %w", t.Slug, err)
		}
		nb, err := TutorialNotebook(t, d, string(text), scenario)
		if err != nil {
			return nil, fmt.Errorf("export: tutorial %s: %w", t.Slug, err)
		}
		out = append(out, File{Name: path.Join(TutorialDir, t.Slug+".ipynb"), Data: nb})
	}
	return out, nil
}
