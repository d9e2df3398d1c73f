package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"testing"

	"simrun/internal/result"
	"simrun/scenarios"
)

// documented parses docs/results.md: the names in the first cell of each
// table row, by section ("doc" for the top level, "row" for cases[i],
// "metric" for metrics). A cell may hold several `code` names, and a name
// may list children in braces: `tx_per_group {redo_sync, binlog}` documents
// tx_per_group.redo_sync and tx_per_group.binlog.
func documented(t *testing.T) map[string][]string {
	t.Helper()
	b, err := os.ReadFile("../../docs/results.md")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]string{}
	section := ""
	code := regexp.MustCompile("`([^`]+)`")
	for _, line := range strings.Split(string(b), "\n") {
		switch {
		case strings.HasPrefix(line, "## Top level"):
			section = "doc"
		case strings.HasPrefix(line, "## Rows"):
			section = "row"
		case strings.HasPrefix(line, "## Metrics"):
			section = "metric"
		case strings.HasPrefix(line, "## "):
			section = ""
		}
		if section == "" || !strings.HasPrefix(line, "| `") {
			continue
		}
		cell := strings.Split(line, "|")[1]
		for _, m := range code.FindAllStringSubmatch(cell, -1) {
			out[section] = append(out[section], expand(m[1])...)
		}
	}
	return out
}

// expand turns "a.b {x, y}" into a.b.x and a.b.y, and "a" into a.
func expand(s string) []string {
	name, kids, ok := strings.Cut(s, "{")
	name = strings.TrimSpace(name)
	if !ok {
		return []string{name}
	}
	var out []string
	for _, k := range strings.Split(strings.TrimSuffix(strings.TrimSpace(kids), "}"), ",") {
		if k = strings.TrimSpace(k); k != "" {
			out = append(out, name+"."+k)
		}
	}
	return out
}

var memberIndex = regexp.MustCompile(`\.[0-9]+(\.|$)`)

// emitted runs every built-in scenario briefly and returns the field paths
// its result holds: top-level document fields, row fields and metric
// paths (a numbered member such as storage.member.3 becomes member.N).
func emitted(t *testing.T) map[string]map[string]bool {
	t.Helper()
	out := map[string]map[string]bool{"doc": {}, "row": {}, "metric": {}}
	for _, b := range scenarios.Builtins() {
		sc, err := scenarios.Load(scenarios.BuiltinPrefix + b)
		if err != nil {
			t.Fatal(err)
		}
		for _, kv := range [][2]string{{"duration", "500ms"}, {"warmup", "0s"}} {
			if err := sc.Override(kv[0], kv[1], scenarios.Source{Kind: "flag", Name: "--set"}); err != nil {
				t.Fatal(err)
			}
		}
		// A replication backlog runs until it is applied: keep it small
		// (ignored if the applier has no such key).
		sc.Override("applier.backlog_trx", int64(20000), scenarios.Source{Kind: "flag", Name: "--set"})
		if err := sc.Validate(); err != nil {
			t.Fatal(err)
		}
		doc, err := scenarios.Run(context.Background(), sc, scenarios.Options{Replications: 1})
		if err != nil {
			t.Fatalf("%s: %v", b, err)
		}
		stamp(doc)
		js, err := result.Marshal(doc)
		if err != nil {
			t.Fatal(err)
		}
		var top map[string]json.RawMessage
		json.Unmarshal(js, &top)
		for k := range top {
			out["doc"][k] = true
		}
		var rows struct {
			Cases []map[string]json.RawMessage `json:"cases"`
		}
		json.Unmarshal(js, &rows)
		for _, r := range rows.Cases {
			for k := range r {
				out["row"][k] = true
			}
		}
		for _, c := range doc.Cases {
			for _, l := range result.Flatten(c.Metrics) {
				out["metric"][memberIndex.ReplaceAllString(l.Path, ".N$1")] = true
			}
		}
	}
	return out
}

// TestResultsDocMatchesEmitted: every field a built-in scenario emits has a
// row in docs/results.md (itself or the block holding it), and every metric
// the document names is emitted by some built-in scenario.
func TestResultsDocMatchesEmitted(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: runs every built-in scenario")
	}
	docs, got := documented(t), emitted(t)
	for _, section := range []string{"doc", "row", "metric"} {
		var missing []string
		for p := range got[section] {
			if !coveredBy(p, docs[section]) {
				missing = append(missing, p)
			}
		}
		sort.Strings(missing)
		if len(missing) > 0 {
			t.Errorf("docs/results.md (%s table) lacks a row for %d emitted fields:\n  %s", section, len(missing), strings.Join(missing, "\n  "))
		}
	}
	var never []string
	for _, d := range docs["metric"] {
		found := false
		for p := range got["metric"] {
			if p == d || strings.HasPrefix(p, d+".") {
				found = true
				break
			}
		}
		if !found {
			never = append(never, d)
		}
	}
	if len(never) > 0 {
		t.Errorf("docs/results.md documents %d metrics no built-in scenario emits:\n  %s", len(never), strings.Join(never, "\n  "))
	}
	// The series the plot docs promise must be emitted, unless the line
	// says they are not.
	b, err := os.ReadFile("../../docs/export.md")
	if err != nil {
		t.Fatal(err)
	}
	seriesName := regexp.MustCompile("`((?:[a-z_]+\\.)*series\\.[A-Za-z_]+)`")
	for _, line := range strings.Split(string(b), "\n") {
		for _, m := range seriesName.FindAllStringSubmatch(line, -1) {
			if m[1] == "disk.series.interval_s" || coveredBy(m[1], nil) {
				continue
			}
			if !got["metric"][m[1]] && !strings.Contains(line[strings.Index(line, m[0]):], "not emitted") {
				t.Errorf("docs/export.md promises series %s, which no built-in scenario emits (or say \"not emitted\" after it)", m[1])
			}
		}
	}
}

// coveredBy reports whether p or a block holding it is documented.
func coveredBy(p string, names []string) bool {
	for _, n := range names {
		if p == n || strings.HasPrefix(p, n+".") {
			return true
		}
	}
	return false
}

// commands are the commands run dispatches, besides help and --version.
var commands = []string{"run", "sweep", "plan", "merge", "explain", "validate", "list", "calibrate", "plot", "export", "trace"}

// TestCLIDocCoversCommands: docs/cli.md has a section for every command,
// every command has help, and every flag of run is documented.
func TestCLIDocCoversCommands(t *testing.T) {
	b, err := os.ReadFile("../../docs/cli.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	for _, c := range commands {
		if !strings.Contains(doc, "## `simrun "+c+"`") {
			t.Errorf("docs/cli.md has no section for simrun %s", c)
		}
		if _, ok := commandHelp[c]; !ok {
			t.Errorf("no help for simrun %s", c)
		}
		if _, errOut, code := simrun(t, c, "--bogus-flag"); code != 2 || strings.Contains(errOut, "unknown command") {
			t.Errorf("simrun %s is not a command (exit %d: %s)", c, code, errOut)
		}
	}
	// Every flag of every command is in its help (sweep's help points to
	// run's flags) and in its section of docs/cli.md.
	for _, c := range commands {
		var sets []*flag.FlagSet
		var o, e bytes.Buffer
		env{stdout: &o, stderr: &e, onFlags: func(fs *flag.FlagSet) { sets = append(sets, fs) }}.dispatch([]string{c, "--help"})
		if len(sets) != 1 {
			t.Errorf("simrun %s --help made %d flag sets", c, len(sets))
			continue
		}
		help := commandHelp[c]
		if c == "sweep" {
			help += commandHelp["run"]
		}
		section := cliSection(doc, c)
		sets[0].VisitAll(func(fl *flag.Flag) {
			name := "--" + fl.Name
			if fl.Name == "o" {
				name = "-o"
			}
			if !strings.Contains(help, name) {
				t.Errorf("simrun help %s does not document %s", c, name)
			}
			if !strings.Contains(section, name) {
				t.Errorf("docs/cli.md's section on simrun %s does not document %s", c, name)
			}
		})
	}
}

// cliSection returns docs/cli.md's section on simrun c, up to the next
// command's section (sweep's includes run's, whose flags it shares).
func cliSection(doc, c string) string {
	if c == "sweep" {
		return section(doc, "run") + section(doc, "sweep")
	}
	return section(doc, c)
}

func section(doc, c string) string {
	_, s, _ := strings.Cut(doc, "## `simrun "+c+"`")
	if i := strings.Index(s, "\n## `simrun "); i >= 0 {
		s = s[:i]
	}
	return s
}

// TestPlanDocCoversFields: every JSON field simrun plan writes is named in
// docs/results.md's section on simrun.plan/v1.
func TestPlanDocCoversFields(t *testing.T) {
	b, err := os.ReadFile("../../docs/results.md")
	if err != nil {
		t.Fatal(err)
	}
	_, doc, _ := strings.Cut(string(b), "`simrun.plan/v1`")
	seen := map[reflect.Type]bool{}
	var walk func(reflect.Type)
	walk = func(t0 reflect.Type) {
		for t0.Kind() == reflect.Pointer || t0.Kind() == reflect.Slice {
			t0 = t0.Elem()
		}
		if t0.Kind() != reflect.Struct || seen[t0] || t0.PkgPath() == "simrun/internal/result" {
			return // result's types are documented with the rows
		}
		seen[t0] = true
		for i := range t0.NumField() {
			f := t0.Field(i)
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if !f.IsExported() || name == "-" || name == "" {
				continue
			}
			if !strings.Contains(doc, "`"+name+"`") {
				t.Errorf("docs/results.md does not document simrun.plan/v1's %s.%s (json %q)", t0.Name(), f.Name, name)
			}
			walk(f.Type)
		}
	}
	walk(reflect.TypeOf(PlanReport{}))
	for _, name := range []string{"mean", "ci95", "resolution", "unbounded"} { // plan.Stat's MarshalJSON
		if !strings.Contains(doc, "`"+name+"`") {
			t.Errorf("docs/results.md does not document a stat's %q", name)
		}
	}
}
