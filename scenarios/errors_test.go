package scenarios

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"simrun/model/disk"
)

// head is a valid start that the bad inputs below add to; top puts keys at
// the top level of such a file (line 2 on).
const head = "name = \"t\"\n[workload]\nkind = \"demo\"\n"

func top(keys string) string { return "name = \"t\"\n" + keys + "[workload]\nkind = \"demo\"\n" }

// badInputs are scenario files with one kind of mistake each, and the exact
// error lines the loader must report. They also seed FuzzLoad.
var badInputs = []struct {
	kind string
	src  string
	want []string
}{
	{"syntax error",
		"name = \"t\"\n[workload\nkind = \"demo\"\n",
		[]string{`bad.toml:3: syntax error: expected '.' or ']' to end table name, but got '\n' instead`}},
	{"unknown top-level key",
		top("duraton = \"10s\"\n"),
		[]string{`bad.toml:2: duraton: unknown key; did you mean duration? (allowed: {top})`}},
	{"unknown nested key",
		head + "[workload.demo]\nservrs = 4\n",
		[]string{`bad.toml:5: workload.demo.servrs: unknown key; did you mean servers? (allowed: arrival_rate, service, servers)`}},
	{"unknown section",
		head + "[volumes]\niops_max = 6750\n",
		[]string{`bad.toml:4: volumes: unknown key; did you mean volume? (allowed: {top})`}},
	{"wrong type: string for integer",
		head + "[machine]\ncores = \"4\"\n",
		[]string{`bad.toml:5: machine.cores: want an integer, got string "4"`}},
	{"out of range: cache decay",
		head + "[machine]\ncache_refill = \"10us\"\ncache_decay = \"0s\"\n",
		[]string{`bad.toml:6: machine.cache_decay: must be in [1us, 1s] when cache_refill > 0, got 0s`}},
	{"out of range: irq cost",
		head + "[machine]\nirq_cost = \"2ms\"\n",
		[]string{`bad.toml:5: machine.irq_cost: must be in [0, 1ms], got 2ms`}},
	{"out of range: flush dispatch",
		head + "[machine]\nflush_dispatch = \"2ms\"\n",
		[]string{`bad.toml:5: machine.flush_dispatch: must be in [0, 1ms], got 2ms`}},
	{"irq cost needs eevdf",
		head + "[machine]\nscheduler = \"wake_first\"\nirq_cost = \"20us\"\n",
		[]string{`bad.toml:6: machine.irq_cost: needs scheduler = "eevdf", got 20us with "wake_first"`}},
	{"wrong type: value for a section",
		"name = \"t\"\nworkload = \"demo\"\n",
		[]string{`bad.toml:2: workload: want a table ([workload] or workload = { ... }), got string "demo" (allowed: {workload})`}},
	{"bad unit: count",
		head + "[workload.demo]\narrival_rate = \"3kb\"\n",
		[]string{`bad.toml:5: workload.demo.arrival_rate: bad number "3kb": want a number like 6750, 6.75k or 1.2M`}},
	{"bad unit: duration without unit",
		top("warmup = 5\n"),
		[]string{`bad.toml:2: warmup: bad duration 5: a duration needs a unit; want a duration like 1.5ms, 250us or 600s (a string)`}},
	{"bad unit: negative duration",
		top("duration = \"-10s\"\n"),
		[]string{`bad.toml:2: duration: bad duration "-10s": must not be negative`}},
	{"out of range: servers",
		head + "[workload.demo]\nservers = 0\n",
		[]string{`bad.toml:5: workload.demo.servers: must be between 1 and 100000, got 0`}},
	{"out of range: negative seed",
		top("seed = -1\n"),
		[]string{`bad.toml:2: seed: must not be negative, got -1`}},
	{"out of range: zero duration",
		top("duration = \"0s\"\n"),
		[]string{`bad.toml:2: duration: must be > 0, got 0s`}},
	{"unstable queue",
		head + "[workload.demo]\narrival_rate = 5000\n",
		[]string{`bad.toml:5: workload.demo.arrival_rate: offered load 5 erlangs (arrival_rate × mean service 1ms) must be below servers = 4, or the queue grows without bound`}},
	{"bad distribution kind",
		head + "[workload.demo]\nservice = { dist = \"gamma\", mean = \"1ms\" }\n",
		[]string{`bad.toml:5: workload.demo.service: dist: unknown distribution "gamma" (allowed: constant, exponential, lognormal, uniform, empirical)`}},
	{"distribution parameter missing",
		head + "[workload.demo]\nservice = { dist = \"lognormal\", median = \"1ms\" }\n",
		[]string{`bad.toml:5: workload.demo.service: a lognormal distribution needs p99 (it takes median, p99)`}},
	{"distribution out of range",
		head + "[workload.demo]\nservice = { dist = \"lognormal\", median = \"1ms\", p99 = \"0.5ms\" }\n",
		[]string{`bad.toml:5: workload.demo.service: p99: must be >= median (1ms), got 500us`}},
	{"unknown workload kind",
		"name = \"t\"\n[workload]\nkind = \"sysbnch\"\n",
		[]string{`bad.toml:3: workload.kind: unknown workload "sysbnch" (allowed: {kinds})`}},
	{"missing required section",
		"name = \"t\"\nseed = 1\n",
		[]string{`bad.toml: workload: missing required section [workload] (allowed: kind = {kinds|})`}},
	{"missing name",
		"[workload]\nkind = \"demo\"\n[machine]\ncores = 2\n",
		[]string{`bad.toml: name: missing required key (a short name for the scenario, used in reports)`}},
	{"duplicate case name",
		head + "[[case]]\nname = \"a\"\n[[case]]\nname = \"a\"\n",
		[]string{`bad.toml:7: case[1].name: duplicate case name "a" (first at line 5)`}},
	{"case without name",
		head + "[[case]]\nseed = 3\n",
		[]string{`bad.toml:4: case[0]: missing required key name (a unique name for the case)`}},
	{"unknown key in a case",
		head + "[[case]]\nname = \"a\"\nworkload.demo.server = 8\n",
		[]string{`bad.toml:6: case a: workload.demo.server: unknown key; did you mean servers? (allowed: arrival_rate, service, servers)`}},
	{"bad value in a case only",
		head + "[[case]]\nname = \"ok\"\n[[case]]\nname = \"zero\"\n[case.workload.demo]\nservers = 0\n",
		[]string{`bad.toml:9: case zero: workload.demo.servers: must be between 1 and 100000, got 0`}},
	{"case is not an array of tables",
		top("case = \"a\"\n"),
		[]string{`bad.toml:2: case: want [[case]] entries (an array of tables), got string "a"`}},
	{"unknown preset",
		head + "[machine]\npreset = \"cray\"\n",
		[]string{`bad.toml:5: machine.preset: no preset "cray" built into simrun for [machine]; name a preset file of your own by its path relative to this file, preset = "cray.toml" (allowed: cloud-4vcpu, old-pc, replica-32core)`}},
	{"preset outside a section",
		head + "[workload.demo]\npreset = \"x\"\n",
		[]string{`bad.toml:5: workload.demo.preset: unknown key (allowed: arrival_rate, service, servers)`}},
	{"extends a missing file",
		top("extends = \"nowhere.toml\"\n"),
		[]string{`bad.toml:2: extends: cannot read nowhere.toml: no such file or directory`}},
	{"extends itself",
		top("extends = \"bad.toml\"\n"),
		[]string{`bad.toml:2: extends: extends cycle: bad.toml -> bad.toml`}},
	{"several problems at once",
		top("seed = \"x\"\n[machine]\ncores = 0\n"),
		[]string{
			`bad.toml:2: seed: want a non-negative integer, got string "x"`,
			`bad.toml:4: machine.cores: must be between 1 and 4096, got 0`,
		}},
	// A file with one section table and no name is a preset, checked as
	// one: the same messages as when a scenario names it.
	{"preset file: unknown keys",
		"descripton = \"x\"\n[volume]\nbandwith_max = \"10MB/s\"\n",
		[]string{
			`bad.toml:1: descripton: unknown key in a [volume] preset (allowed: description, volume)`,
			`bad.toml:3: volume.bandwith_max: unknown key; did you mean bandwidth_max? (allowed: {volume}, preset)`,
		}},
	{"preset file: bad unit and range",
		"description = \"x\"\n[volume]\nread_latency = \"fast\"\nqueue_depth = 0\n",
		[]string{
			`bad.toml:3: volume.read_latency: bad duration "fast": want a duration like 1.5ms, 250us or 600s (units ns, us, ms, s, m, h)`,
			`bad.toml:4: volume.queue_depth: must be in [1, 65536], got 0`,
		}},
	{"preset file naming a preset",
		"[machine]\npreset = \"old-pc\"\ncores = 0\n",
		[]string{
			`bad.toml:2: machine.preset: a preset cannot name another preset`,
			`bad.toml:3: machine.cores: must be between 1 and 4096, got 0`,
		}},
	{"workload preset without a kind",
		"[workload.sysbench]\nthreads = 0\n",
		[]string{`bad.toml:2: workload.sysbench.threads: must be in [1, 100000], got 0`}},
	{"scenario without a name is not a preset",
		"duration = \"1s\"\n[workload]\nkind = \"demo\"\n",
		[]string{`bad.toml: name: missing required key (a short name for the scenario, used in reports)`}},
	{"date-time value",
		top("duration = 1979-05-27T07:32:00Z\n"),
		[]string{`bad.toml:2: duration: bad duration: got a datetime; want a duration like 1.5ms, 250us or 600s (a string)`}},
}

func TestLoadErrors(t *testing.T) {
	dir := t.TempDir()
	old, _ := os.Getwd()
	if err := os.Chdir(dir); err != nil {
		t.Fatal(err)
	}
	defer os.Chdir(old)
	if len(badInputs) < 15 {
		t.Fatalf("want at least 15 kinds of bad input, have %d", len(badInputs))
	}
	for _, tt := range badInputs {
		t.Run(tt.kind, func(t *testing.T) {
			os.WriteFile(filepath.Join(dir, "bad.toml"), []byte(tt.src), 0o644)
			_, err := LoadBytes("bad.toml", []byte(tt.src))
			var el ErrorList
			if !errors.As(err, &el) {
				t.Fatalf("got %v (%T), want an ErrorList", err, err)
			}
			got := strings.Split(el.Error(), "\n")
			// The lists of sections and workload kinds grow as models land.
			top := "name, description, extends, case, seed, duration, warmup"
			for _, f := range reflect.VisibleFields(reflect.TypeOf(Config{})) {
				top += ", " + strings.Split(f.Tag.Get("toml"), ",")[0]
			}
			workload := ""
			for _, f := range reflect.VisibleFields(reflect.TypeOf(Workload{})) {
				if workload != "" {
					workload += ", "
				}
				workload += strings.Split(f.Tag.Get("toml"), ",")[0]
			}
			volume := strings.Join(keysOf(reflect.TypeOf(disk.Config{})), ", ")
			expand := strings.NewReplacer("{top}", top, "{workload}", workload, "{volume}", volume,
				"{kinds}", strings.Join(Kinds(), ", "), "{kinds|}", strings.Join(Kinds(), " | "))
			for i := range tt.want {
				tt.want[i] = expand.Replace(tt.want[i])
			}
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("errors:\n  %s\nwant:\n  %s", strings.Join(got, "\n  "), strings.Join(tt.want, "\n  "))
			}
		})
	}
}
