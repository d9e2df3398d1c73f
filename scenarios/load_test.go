package scenarios

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"simrun/sim"
)

func writeFiles(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, src := range files {
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func mustLoad(t *testing.T, name string) *Scenario {
	t.Helper()
	sc, err := Load(name)
	if err != nil {
		t.Fatalf("Load(%s): %v", name, err)
	}
	return sc
}

func TestLibraryLoads(t *testing.T) {
	names := Builtins()
	if len(names) == 0 {
		t.Fatal("no built-in scenarios")
	}
	for _, n := range names {
		sc := mustLoad(t, BuiltinPrefix+n)
		if sc.Name == "" || sc.Description == "" || len(sc.Cases) == 0 {
			t.Errorf("%s: name %q, description %q, %d cases", n, sc.Name, sc.Description, len(sc.Cases))
		}
	}
	// The same file from disk and from the library resolves alike.
	disk := mustLoad(t, filepath.Join("demo", "mmc.toml"))
	lib := mustLoad(t, "demo/mmc")
	if d := cmp.Diff(disk.Cases[2].Config, lib.Cases[2].Config); d != "" {
		t.Errorf("disk and library differ:\n%s", d)
	}
	for _, sec := range PresetSections() {
		if !isSection(sec) {
			continue // presets of a section that is not wired in yet
		}
		for _, p := range PresetNames(sec) {
			src := "name = \"p\"\n[workload]\nkind = \"demo\"\n[" + sec + "]\npreset = \"" + p + "\"\n"
			if _, err := LoadBytes("p.toml", []byte(src)); err != nil {
				t.Errorf("preset %s/%s: %v", sec, p, err)
			}
		}
	}
}

// TestResolutionOrder checks defaults < extends chain < preset < file keys
// < case, and the source recorded for each.
func TestResolutionOrder(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"base.toml": `name = "base"
description = "the base"
seed = 7
[machine]
cores = 16
[workload]
kind = "demo"
[workload.demo]
servers = 6
arrival_rate = 1000
`,
		"child.toml": `name = "child"
extends = "base.toml"
duration = "5s"

[machine]
preset = "old-pc"   # cores = 2, applied before this section's keys
name = "mine"

[[case]]
name = "dotted"
workload.demo.servers = 3
machine.cores = 8

[[case]]
name = "nested"
[case.workload.demo]
servers = 3
[case.machine]
cores = 8
`,
	})
	sc := mustLoad(t, filepath.Join(dir, "child.toml"))
	if sc.Name != "child" || sc.Description != "the base" {
		t.Errorf("name %q description %q: want child, inherited description", sc.Name, sc.Description)
	}
	base := sc.Base
	if base.Settings.Seed != 7 || base.Settings.Duration != sim.Duration(5*time.Second) || base.Settings.Warmup != DefaultSettings().Warmup {
		t.Errorf("base settings %+v", base.Settings)
	}
	// The child's preset overrides the base file's cores.
	if base.Config.Machine.Cores != 2 || base.Config.Machine.Name != "mine" {
		t.Errorf("base machine %+v, want cores 2 from the preset, name mine", base.Config.Machine)
	}
	if len(sc.Cases) != 2 {
		t.Fatalf("%d cases", len(sc.Cases))
	}
	dotted, nested := sc.Cases[0], sc.Cases[1]
	if d := cmp.Diff(dotted.Config, nested.Config); d != "" {
		t.Errorf("dotted keys and nested tables differ:\n%s", d)
	}
	if dotted.Config.Workload.Demo.Servers != 3 || dotted.Config.Machine.Cores != 8 {
		t.Errorf("case overrides not applied: %+v", dotted.Config)
	}
	base2 := filepath.Join(dir, "base.toml")
	child := filepath.Join(dir, "child.toml")
	wantSources := map[string]string{
		"seed":                       "file " + base2 + ":3",
		"duration":                   "file " + child + ":3",
		"warmup":                     "default",
		"machine.preset":             "file " + child + ":6",
		"machine.name":               "file " + child + ":7",
		"machine.cores":              "case dotted",
		"machine.scheduler":          "default",
		"machine.base_slice":         "default",
		"machine.slice_scaling":      "default",
		"machine.tick":               "default",
		"machine.delay_dequeue":      "default",
		"machine.cache_refill":       "default",
		"machine.cache_decay":        "default",
		"machine.idle_wake":          "default",
		"machine.irq_cost":           "default",
		"machine.flush_dispatch":     "default",
		"machine.background_burst":   "default",
		"machine.background_period":  "default",
		"workload.kind":              "file " + base2 + ":7",
		"workload.demo.servers":      "case dotted",
		"workload.demo.arrival_rate": "file " + base2 + ":10",
		"workload.demo.service":      "default",
	}
	got := map[string]string{}
	for _, p := range dotted.Params() {
		if !demoKey(p.Key) {
			continue // sections this test does not write stay at their defaults
		}
		got[p.Key] = p.Source
	}
	if d := cmp.Diff(wantSources, got); d != "" {
		t.Errorf("sources (-want +got):\n%s", d)
	}
	if s := dotted.Source("machine.cores"); s.Line != 12 || s.File != child {
		t.Errorf("case key location %+v, want %s:12", s, child)
	}
	if s := base.Source("machine.cores"); s.String() != "preset old-pc" {
		t.Errorf("base machine.cores source %v, want preset old-pc", s)
	}
}

func TestCasesInheritedAndReplaced(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"a.toml": "name = \"a\"\n[workload]\nkind = \"demo\"\n[[case]]\nname = \"x\"\n[[case]]\nname = \"y\"\n",
		"b.toml": "extends = \"a.toml\"\nseed = 3\n",
		"c.toml": "extends = \"b.toml\"\n[[case]]\nname = \"z\"\n",
		"d.toml": "name = \"d\"\n[workload]\nkind = \"demo\"\n",
	})
	names := func(sc *Scenario) string {
		var n []string
		for _, c := range sc.Cases {
			n = append(n, c.Name)
		}
		return strings.Join(n, ",")
	}
	if got := names(mustLoad(t, filepath.Join(dir, "b.toml"))); got != "x,y" {
		t.Errorf("b cases %s, want inherited x,y", got)
	}
	if got := names(mustLoad(t, filepath.Join(dir, "c.toml"))); got != "z" {
		t.Errorf("c cases %s, want z", got)
	}
	if got := names(mustLoad(t, filepath.Join(dir, "d.toml"))); got != "base" {
		t.Errorf("d cases %s, want the implicit base", got)
	}
	// Extending a built-in file from disk.
	dir2 := writeFiles(t, map[string]string{"e.toml": "name = \"e\"\nextends = \"builtin:demo/mmc.toml\"\nseed = 5\n"})
	e := mustLoad(t, filepath.Join(dir2, "e.toml"))
	if e.Base.Settings.Seed != 5 || len(e.Cases) != 4 {
		t.Errorf("extending a built-in: seed %d, %d cases", e.Base.Settings.Seed, len(e.Cases))
	}
}

func TestScanLines(t *testing.T) {
	src := `name = "x"   # comment with key = 1
description = """
not.a.key = 1
[not_a_table]
"""
list = [
  [0.5, "1ms"],   # not a table header
  { a = 1 },
]
"quoted.key" = 1
a.b.c = 2

[t]
k = 'lit[eral'
[t.sub]
v = 1

[[case]]
name = "one"
x.y = 1
[case.sub]
z = 1

[[case]]
name = "two"
`
	ix := scanLines(src)
	want := map[string]int{
		"name": 1, "description": 2, "list": 6, "quoted.key": 10, "a.b.c": 11,
		"t": 13, "t.k": 14, "t.sub": 15, "t.sub.v": 16,
		"case[0]": 18, "case[0].name": 19, "case[0].x.y": 20, "case[0].sub": 21, "case[0].sub.z": 22,
		"case[1]": 24, "case[1].name": 25,
	}
	for k, l := range want {
		if ix[k] != l {
			t.Errorf("line of %s = %d, want %d", k, ix[k], l)
		}
	}
	for _, k := range []string{"not.a.key", "not_a_table"} {
		if _, ok := ix[k]; ok {
			t.Errorf("%s found inside a string", k)
		}
	}
	if l := ix.line("case[0].sub.z.deeper"); l != 22 {
		t.Errorf("nearest ancestor line %d, want 22", l)
	}
}

func TestOverrideAndWith(t *testing.T) {
	sc := mustLoad(t, "demo/mmc")
	src := Source{Kind: "flag", Name: "--set"}
	if err := sc.Override("workload.demo.servers", int64(6), src); err != nil {
		t.Fatal(err)
	}
	if err := sc.Validate(); err != nil {
		t.Fatal(err)
	}
	for _, c := range sc.Cases {
		if c.Config.Workload.Demo.Servers != 6 || c.Source("workload.demo.servers").String() != "flag --set" {
			t.Errorf("case %s: servers %d from %v", c.Name, c.Config.Workload.Demo.Servers, c.Source("workload.demo.servers"))
		}
	}
	err := sc.Override("workload.demo.srvers", int64(6), src)
	if err == nil || !strings.Contains(err.Error(), "workload.demo.srvers: unknown key; did you mean servers?") {
		t.Errorf("bad override path: %v", err)
	}
	if err := sc.Override("machine.preset", "replica-32core", src); err != nil || sc.Cases[0].Config.Machine.Cores != 32 {
		t.Errorf("preset override: %v, cores %d", err, sc.Cases[0].Config.Machine.Cores)
	}
	c := sc.Cases[0]
	if _, err := c.With([]Set{{"workload.demo.servers", int64(0)}}, src); err == nil ||
		!strings.Contains(err.Error(), "case mm4: workload.demo.servers: must be between 1 and 100000, got 0 (set by --set)") {
		t.Errorf("With invalid: %v", err)
	}
	d, err := c.With([]Set{{"workload.demo.service", "2ms"}, {"workload.demo.servers", int64(8)}}, src)
	if err != nil {
		t.Fatal(err)
	}
	if d.Config.Workload.Demo.Service.Kind != "constant" || c.Config.Workload.Demo.Service.Kind != "exponential" {
		t.Errorf("With must copy: got %v, original %v", d.Config.Workload.Demo.Service, c.Config.Workload.Demo.Service)
	}
}

func TestParseSet(t *testing.T) {
	tests := []struct {
		in   string
		want Axis
		err  string
	}{
		{"workload.demo.servers=2,4,8", Axis{Key: "workload.demo.servers", Values: []any{int64(2), int64(4), int64(8)}}, ""},
		{"workload.demo.service=1ms,{ dist = \"exponential\", mean = \"1ms\" }",
			Axis{Key: "workload.demo.service", Values: []any{"1ms", map[string]any{"dist": "exponential", "mean": "1ms"}}}, ""},
		{"x=1.5,true,\"a,b\",120MB/s", Axis{Key: "x", Values: []any{1.5, true, "a,b", "120MB/s"}}, ""},
		{"x=[1,2],3", Axis{Key: "x", Values: []any{[]any{int64(1), int64(2)}, int64(3)}}, ""},
		{"volume.bandwidth_max=40MB/s..400MB/s:10", Axis{Key: "volume.bandwidth_max", Range: &Range{Lo: "40MB/s", Hi: "400MB/s", Points: 10}}, ""},
		{"applier.workers=1..64*2", Axis{Key: "applier.workers", Range: &Range{Lo: "1", Hi: "64", Factor: 2}}, ""},
		{"a=1..", Axis{}, "want LO..HI"},
		{"machine.name=my..box", Axis{Key: "machine.name", Values: []any{"my..box"}}, ""},
		{"x=\"1..2\"", Axis{Key: "x", Values: []any{"1..2"}}, ""},
		{"x=../data", Axis{Key: "x", Values: []any{"../data"}}, ""},
		{"a=1..5:1", Axis{}, "integer >= 2"},
		{"a=1..5*1", Axis{}, "factor, a number > 1"},
		{"novalue", Axis{}, "want key=value"},
		{"a..b=1", Axis{}, "bad key path"},
		{"a=1,,2", Axis{}, "empty value"},
		{"a=", Axis{}, "no values"},
	}
	for _, tt := range tests {
		got, err := ParseSet(tt.in)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("ParseSet(%q) error %v, want %q", tt.in, err, tt.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("ParseSet(%q): %v", tt.in, err)
			continue
		}
		if d := cmp.Diff(tt.want, got); d != "" {
			t.Errorf("ParseSet(%q) (-want +got):\n%s", tt.in, d)
		}
	}
	if s, err := ParseShard("2/5"); err != nil || s != (Shard{2, 5}) {
		t.Errorf("ParseShard: %v %v", s, err)
	}
	for _, bad := range []string{"5/5", "-1/2", "1", "a/b", "0/0"} {
		if _, err := ParseShard(bad); err == nil {
			t.Errorf("ParseShard(%q): want error", bad)
		}
	}
}

func TestExplain(t *testing.T) {
	sc := mustLoad(t, "demo/mmc")
	ex, err := Explain(sc, []string{"md4"})
	if err != nil {
		t.Fatal(err)
	}
	if len(ex.Cases) != 1 || ex.Cases[0].Location != "builtin:demo/mmc.toml:29" {
		t.Fatalf("explain cases %+v", ex.Cases)
	}
	var keys []string
	for _, p := range ex.Cases[0].Params {
		if !demoKey(p.Key) {
			continue // every section is explained; this test looks at the demo's
		}
		keys = append(keys, p.Key)
		if p.Key == "workload.demo.service" {
			if p.Value != `{ dist = "constant", value = "1ms" }` || p.Source != "case md4" || p.Unit != "duration" || p.Doc == "" {
				t.Errorf("service param %+v", p)
			}
		}
	}
	want := "seed duration warmup machine.preset machine.name machine.cores machine.scheduler machine.base_slice machine.slice_scaling machine.tick machine.delay_dequeue machine.cache_refill machine.cache_decay machine.idle_wake machine.irq_cost machine.flush_dispatch machine.background_burst machine.background_period workload.kind workload.demo.arrival_rate workload.demo.service workload.demo.servers"
	if got := strings.Join(keys, " "); got != want {
		t.Errorf("params\n got %s\nwant %s", got, want)
	}
	if _, err := Explain(sc, []string{"nope"}); err == nil || !strings.Contains(err.Error(), `no case "nope" (allowed: mm4, md4, mg4-lognormal, mm4-busy)`) {
		t.Errorf("unknown case: %v", err)
	}
}

// TestConfigFieldsSupported walks every configurable field so that a model
// Config with a field type the loader cannot decode fails here, not in a
// user's hands.
func TestConfigFieldsSupported(t *testing.T) {
	c := &Case{resolved: resolved{Settings: DefaultSettings(), Config: DefaultConfig()}}
	for _, p := range c.Params() {
		if p.Key == "" || p.Value == "" {
			t.Errorf("param %+v", p)
		}
	}
	var walk func(tp string, fs []field)
	walk = func(tp string, fs []field) {
		for _, f := range fs {
			if f.doc == "" {
				t.Errorf("%s.%s: no doc tag", tp, f.key)
			}
			if !f.leaf {
				walk(tp+"."+f.key, fieldsOf(f.typ))
			}
		}
	}
	walk("", fieldsOf(c.root().Type()))
}

// demoKey reports whether a key belongs to the sections a demo scenario
// uses; explain lists every section, and model sections grow.
func demoKey(k string) bool {
	for _, p := range []string{"seed", "duration", "warmup", "machine.", "workload.kind", "workload.demo."} {
		if strings.HasPrefix(k, p) {
			return true
		}
	}
	return false
}
