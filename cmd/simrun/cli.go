package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"runtime/debug"
	"slices"
	"strings"

	"simrun/internal/result"
	"simrun/scenarios"
)

// buildInfo is the version and commit this binary was built from, read
// once from the module's build information (go build stamps vcs.revision
// and vcs.modified). The same commit gives the same strings, so results
// stay byte-identical per commit.
var buildInfo = readBuildInfo()

type build struct{ version, commit string }

func readBuildInfo() build {
	b := build{version: "devel", commit: "unknown"}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return b
	}
	if v := bi.Main.Version; v != "" && v != "(devel)" {
		b.version = v
	}
	var rev string
	dirty := false
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if rev != "" {
		b.commit = rev
		if dirty {
			b.commit += "-dirty"
		}
	}
	return b
}

// stamp records which simrun made doc.
func stamp(doc *result.Document) {
	doc.SimrunVersion, doc.SimrunCommit = buildInfo.version, buildInfo.commit
}

// checkOutput fails before a run when -o FILE cannot be written: its folder
// must exist and take a new file, and FILE must not be a folder.
func checkOutput(out string) error {
	if out == "" || out == "-" {
		return nil
	}
	if fi, err := os.Stat(out); err == nil && fi.IsDir() {
		return usagef("-o %s: is a folder; give a file name", out)
	} else if err == nil && !fi.Mode().IsRegular() {
		return nil // a device or pipe is written in place (writeAtomic)
	}
	dir := filepath.Dir(out)
	fi, err := os.Stat(dir)
	switch {
	case err != nil:
		return usagef("-o %s: folder %s does not exist", out, dir)
	case !fi.IsDir():
		return usagef("-o %s: %s is not a folder", out, dir)
	}
	f, err := os.CreateTemp(dir, ".simrun-check-*")
	if err != nil {
		return usagef("-o %s: cannot write in folder %s", out, dir)
	}
	f.Close()
	os.Remove(f.Name())
	return nil
}

// formatFor returns the output format: --format when given, else the one
// -o's extension names (.json, .csv), else the table.
func formatFor(flagFormat, out string, shard bool) (string, error) {
	if flagFormat == "" {
		switch strings.ToLower(filepath.Ext(out)) {
		case ".json":
			flagFormat = "json"
		case ".csv":
			flagFormat = "csv"
		}
	}
	return pickFormat(flagFormat, shard)
}

// checkCases refuses case names the scenario lacks, with a did-you-mean.
func checkCases(sc *scenarios.Scenario, names []string) error {
	var all []string
	have := map[string]bool{}
	for _, c := range sc.Cases {
		all = append(all, c.Name)
		have[c.Name] = true
	}
	for _, n := range names {
		if have[n] {
			continue
		}
		msg := fmt.Sprintf("%s: no case %q", sc.File, n)
		if s := scenarios.Suggest(n, all); s != "" {
			msg += fmt.Sprintf("; did you mean %s?", s)
		}
		return usagef("%s (allowed: %s)", msg, strings.Join(all, ", "))
	}
	return nil
}

// loadScenario loads a file or built-in name; a name that is neither gets
// the nearest built-in one and a pointer to simrun list.
func loadScenario(name string) (*scenarios.Scenario, error) {
	sc, err := scenarios.Load(name)
	if err == nil {
		return sc, nil
	}
	// A file path (it exists, or names a .toml file) keeps the loader's
	// error, which says what is wrong with that file.
	if _, statErr := os.Stat(name); statErr == nil || strings.HasSuffix(name, ".toml") || strings.HasPrefix(name, scenarios.BuiltinPrefix) {
		return nil, err
	}
	var names []string
	for _, b := range scenarios.Builtins() {
		names = append(names, strings.TrimSuffix(b, ".toml"))
	}
	msg := fmt.Sprintf("no scenario file or built-in scenario %q", name)
	if s := scenarios.Suggest(strings.TrimSuffix(name, ".toml"), names); s != "" {
		msg += fmt.Sprintf("; did you mean %s?", s)
	}
	return nil, usagef("%s (simrun list shows the built-in ones)", msg)
}

// mergeMismatch names the first run-wide field in which part b differs from
// part a, or "" when they come from the same run.
func mergeMismatch(a, b *result.Document) string {
	fields := []struct {
		name string
		x, y any
	}{
		{"scenario", a.Scenario, b.Scenario},
		{"description", a.Description, b.Description},
		{"seed", a.Seed, b.Seed},
		{"duration_s", a.Duration, b.Duration},
		{"warmup_s", a.Warmup, b.Warmup},
		{"replications", a.Replications, b.Replications},
		{"simrun_version", a.SimrunVersion, b.SimrunVersion},
		{"simrun_commit", a.SimrunCommit, b.SimrunCommit},
	}
	for _, f := range fields {
		if !reflect.DeepEqual(f.x, f.y) {
			return fmt.Sprintf("%s (%v vs %v)", f.name, f.x, f.y)
		}
	}
	if len(a.Sweep) != len(b.Sweep) {
		return fmt.Sprintf("sweep (%d vs %d swept keys)", len(a.Sweep), len(b.Sweep))
	}
	for i := range a.Sweep {
		if a.Sweep[i].Key != b.Sweep[i].Key {
			return fmt.Sprintf("sweep[%d].key (%s vs %s)", i, a.Sweep[i].Key, b.Sweep[i].Key)
		}
		if fmt.Sprint(a.Sweep[i].Values) != fmt.Sprint(b.Sweep[i].Values) {
			return fmt.Sprintf("sweep[%d].values of %s (%v vs %v)", i, a.Sweep[i].Key,
				a.Sweep[i].Values, b.Sweep[i].Values)
		}
	}
	return ""
}

// pathError drops the temporary file's name from a write error: the user
// named the target, not our temp file.
func pathError(target string, err error) error {
	var pe *os.PathError
	var le *os.LinkError
	switch {
	case errors.As(err, &pe):
		return fmt.Errorf("write %s: %v", target, pe.Err)
	case errors.As(err, &le):
		return fmt.Errorf("write %s: %v", target, le.Err)
	}
	return err
}

// overrideSets applies --set KEY=VALUE flags of a command that takes one
// value per key (run, explain, plan); instead says where a list or a range
// goes.
func overrideSets(sc *scenarios.Scenario, sets []string, cmd, instead string) error {
	for _, s := range sets {
		a, err := scenarios.ParseSet(s)
		if err != nil {
			return usageError{err.Error()}
		}
		switch {
		case a.Range != nil:
			return usagef("--set %s=%s is a range; %s takes one value per --set (%s)", a.Key, a.Range, cmd, instead)
		case len(a.Values) > 1:
			return usagef("--set %s has %d values; %s takes one value per --set (%s)", a.Key, len(a.Values), cmd, instead)
		}
		if err := sc.Override(a.Key, a.Values[0], scenarios.Source{Kind: "flag", Name: "--set"}); err != nil {
			return err
		}
	}
	return nil
}

// probeMetrics runs c for a tenth of a simulated second and returns its
// metrics: which paths a case reports, to check a flag that names one
// before the real run spends any time.
func probeMetrics(ctx context.Context, c *scenarios.Case) (result.Metrics, error) {
	short, err := c.With([]scenarios.Set{{Key: "duration", Value: "100ms"}, {Key: "warmup", Value: "0s"}}, scenarios.Source{Kind: "flag", Name: "probe"})
	if err != nil {
		return nil, err
	}
	ms, err := scenarios.RunReplications(ctx, short, []int{0}, 1)
	if err != nil {
		return nil, err
	}
	return ms[0], nil
}

// plausible reports whether a run could report want, judged on a probe's
// paths: a path shares its first two segments. A short probe lacks the
// keys a block gains as the run goes (disk.write_bytes_by_source.fs_journal
// appears with the first journal commit), so only a block the probe does
// not have at all is refused before the run; the run's own check decides
// the rest.
func plausible(want string, paths []string) bool {
	segs := strings.SplitN(want, ".", 3)
	prefix := strings.Join(segs[:min(2, len(segs))], ".")
	for _, p := range paths {
		if p == want || p == prefix || strings.HasPrefix(p, prefix+".") {
			return true
		}
	}
	return false
}

// checkMetrics fails when a --metrics entry names no table column the
// cases to run could report, probed one case per workload kind.
func checkMetrics(ctx context.Context, sc *scenarios.Scenario, cases, metrics []string) error {
	if len(metrics) == 0 {
		return nil
	}
	doc := &result.Document{}
	kinds := map[string]bool{}
	for _, c := range sc.Cases {
		if (len(cases) > 0 && !slices.Contains(cases, c.Name)) || kinds[c.Config.Workload.Kind] {
			continue
		}
		kinds[c.Config.Workload.Kind] = true
		m, err := probeMetrics(ctx, c)
		if err != nil {
			return err
		}
		doc.Cases = append(doc.Cases, result.Case{Name: c.Name, Metrics: m})
	}
	paths := result.MetricPaths(doc)
	var doubtful []string
	for _, m := range metrics {
		if !plausible(m, paths) {
			doubtful = append(doubtful, m)
		}
	}
	if len(doubtful) == 0 {
		return nil
	}
	_, err := chooseColumns(doc, doubtful)
	return err
}
