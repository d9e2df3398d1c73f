package scenarios

import (
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
)

// The built-in library: one folder per topic of scenarios, and
// library/<section>/<name>.toml for named presets. To add a topic, add its
// folder to this line.
//
//go:embed binlog bulkload demo disk replication tutorials library
var library embed.FS

// BuiltinPrefix marks a path inside the built-in library.
const BuiltinPrefix = "builtin:"

// presetDir holds the presets, one folder per section.
const presetDir = "library"

// DefaultScenario is the built-in scenario `simrun run` runs without a file.
const DefaultScenario = "binlog/quick.toml"

// Library returns the built-in scenario library.
func Library() fs.FS { return library }

// Builtins lists the built-in scenario files (not presets), sorted.
func Builtins() []string {
	var out []string
	fs.WalkDir(library, ".", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".toml") && !strings.HasPrefix(p, presetDir+"/") {
			out = append(out, p)
		}
		return nil
	})
	sort.Strings(out)
	return out
}

// PresetSections lists the sections that have built-in presets, sorted.
func PresetSections() []string {
	entries, _ := fs.ReadDir(library, presetDir)
	var out []string
	for _, e := range entries {
		if e.IsDir() {
			out = append(out, e.Name())
		}
	}
	return out
}

// PresetNames lists the presets of a section, sorted.
func PresetNames(section string) []string {
	entries, err := fs.ReadDir(library, presetDir+"/"+section)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range entries {
		if n, ok := strings.CutSuffix(e.Name(), ".toml"); ok && !e.IsDir() {
			out = append(out, n)
		}
	}
	return out
}

// fileRef names a scenario file on disk or in the library.
type fileRef struct {
	builtin bool
	path    string // OS path, or slash path inside the library
}

func (r fileRef) String() string {
	if r.builtin {
		return BuiltinPrefix + r.path
	}
	return r.path
}

func (r fileRef) read() ([]byte, error) {
	if r.builtin {
		b, err := fs.ReadFile(library, r.path)
		if err != nil {
			return nil, fmt.Errorf("no built-in file %s (see simrun list)", r.path)
		}
		return b, nil
	}
	b, err := os.ReadFile(r.path)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			return nil, pe.Err
		}
		return nil, err
	}
	return b, nil
}

// rel resolves p relative to the directory of r, in r's file system, unless
// p says builtin: itself.
func (r fileRef) rel(p string) (fileRef, error) {
	if s, ok := strings.CutPrefix(p, BuiltinPrefix); ok {
		return builtinRef(s)
	}
	if r.builtin {
		return builtinRef(path.Join(path.Dir(r.path), p))
	}
	if filepath.IsAbs(p) {
		return fileRef{path: filepath.Clean(p)}, nil
	}
	return fileRef{path: filepath.Join(filepath.Dir(r.path), p)}, nil
}

func builtinRef(p string) (fileRef, error) {
	c := path.Clean(strings.TrimPrefix(p, "/"))
	if c == ".." || strings.HasPrefix(c, "../") || !fs.ValidPath(c) {
		return fileRef{}, fmt.Errorf("%s%s is outside the built-in library", BuiltinPrefix, p)
	}
	return fileRef{builtin: true, path: c}, nil
}

// resolveName finds a scenario named on the command line: a file on disk if
// one exists there, else a built-in scenario, with or without "builtin:"
// and ".toml" ("demo/mmc").
func resolveName(name string) (fileRef, error) {
	if s, ok := strings.CutPrefix(name, BuiltinPrefix); ok {
		return lookupBuiltin(s)
	}
	if _, err := os.Stat(name); err == nil {
		return fileRef{path: name}, nil
	}
	if r, err := lookupBuiltin(name); err == nil {
		return r, nil
	}
	return fileRef{path: name}, nil // reading it reports the error
}

func lookupBuiltin(name string) (fileRef, error) {
	for _, cand := range []string{name, name + ".toml"} {
		r, err := builtinRef(cand)
		if err != nil {
			return fileRef{}, err
		}
		if st, err := fs.Stat(library, r.path); err == nil && !st.IsDir() {
			return r, nil
		}
	}
	return fileRef{}, fmt.Errorf("no built-in scenario %q (built-in: %s)", name, strings.Join(Builtins(), ", "))
}

// Text returns the source text of a scenario file on disk or in the
// built-in library, as Load would read it: exports show it.
func Text(name string) ([]byte, error) {
	ref, err := resolveName(name)
	if err != nil {
		return nil, err
	}
	return ref.read()
}
