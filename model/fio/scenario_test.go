package fio

import (
	"bytes"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/BurntSushi/toml"

	"simrun/model/disk"
	"simrun/sim"
)

// decodeLayer decodes a TOML table onto v strictly: keys already set in v
// and absent from m are kept, the way a scenario layer overrides defaults.
func decodeLayer(t *testing.T, where string, m map[string]any, v any) {
	t.Helper()
	if m == nil {
		return
	}
	var buf bytes.Buffer
	if err := toml.NewEncoder(&buf).Encode(m); err != nil {
		t.Fatalf("%s: %v", where, err)
	}
	md, err := toml.Decode(buf.String(), v)
	if err != nil {
		t.Fatalf("%s: %v", where, err)
	}
	if und := md.Undecoded(); len(und) > 0 {
		t.Fatalf("%s: unknown keys %v", where, und)
	}
}

func sub(m map[string]any, keys ...string) map[string]any {
	for _, k := range keys {
		next, _ := m[k].(map[string]any)
		if next == nil {
			return nil
		}
		m = next
	}
	return m
}

func without(m map[string]any, key string) map[string]any {
	out := map[string]any{}
	for k, v := range m {
		if k != key {
			out[k] = v
		}
	}
	return out
}

// expected figures, from the comments of the scenario files.
var scenarioExpect = map[string][]struct {
	path string
	want float64
	tol  float64
}{
	"fio-network-caps/4k-qd16":      {{"write.iops", 15000, 0.02}},
	"fio-network-caps/16k-qd16":     {{"write.iops", 7324, 0.02}},
	"fio-network-caps/4k-qd1":       {{"write.iops", 2717, 0.03}},
	"fio-network-caps/1m-seqwrite":  {{"disk.writes_per_s", 458, 0.02}},
	"fio-thin-volume/120MBps":       {{"write.iops", 7324, 0.02}},
	"fio-thin-volume/54MBps":        {{"write.iops", 3296, 0.02}, {"disk.util_pct", 100, 0.001}, {"disk.w_await_ms", 9.7, 0.03}},
	"fio-hdd/randread-qd1":          {{"read.iops", 78, 0.05}},
	"fio-hdd/seqread-1m":            {{"read.bw_kB_per_s", 125e6 / 1024, 0.05}},
	"fio-hdd/randwrite-qd4":         {{"write.iops", 150, 0.15}},
	"fio-hdd/randread-10g":          {{"read.iops", 160, 0.15}},
	"fio-network-caps/4k-qd1-fsync": {{"sync.lat_ms.mean", 0.221, 0.05}},
}

// The fio scenarios of scenarios/disk resolve (preset, file, case) to valid
// configurations and produce the figures their comments promise.
func TestScenarioFiles(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("..", "..", "scenarios", "disk", "fio-*.toml"))
	if len(files) == 0 {
		t.Fatal("no scenarios")
	}
	checked := 0
	for _, path := range files {
		var doc map[string]any
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := toml.Decode(string(b), &doc); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		base := strings.TrimSuffix(filepath.Base(path), ".toml")
		vol := sub(doc, "volume")
		var pre map[string]any
		pb, err := os.ReadFile(filepath.Join("..", "..", "scenarios", "library", "volume", vol["preset"].(string)+".toml"))
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		toml.Decode(string(pb), &pre)
		cases, _ := doc["case"].([]map[string]any)
		for _, c := range cases {
			name := base + "/" + c["name"].(string)
			t.Run(name, func(t *testing.T) {
				vc := disk.DefaultConfig()
				decodeLayer(t, "preset", sub(pre, "volume"), &vc)
				decodeLayer(t, "file volume", without(vol, "preset"), &vc)
				decodeLayer(t, "case volume", sub(c, "volume"), &vc)
				fc := DefaultConfig()
				decodeLayer(t, "file fio", sub(doc, "workload", "fio"), &fc)
				decodeLayer(t, "case fio", sub(c, "workload", "fio"), &fc)
				if err := vc.Validate(); err != nil {
					t.Fatal(err)
				}
				if err := fc.Validate(); err != nil {
					t.Fatal(err)
				}
				var warm sim.Duration
				decodeLayer(t, "warmup", map[string]any{"w": doc["warmup"]}, &struct {
					W *sim.Duration `toml:"w"`
				}{&warm})
				fc.RampTime = warm
				exp := scenarioExpect[name]
				if len(exp) == 0 {
					return
				}
				checked++
				m := runJob(t, vc, fc, 5*time.Second, 1)
				for _, e := range exp {
					if got := get(m, e.path); !near(got, e.want, e.tol) {
						t.Errorf("%s = %.4g, the scenario says %.4g ± %.0f%%", e.path, got, e.want, 100*e.tol)
					}
				}
			})
		}
	}
	var missing []string
	for k := range scenarioExpect {
		missing = append(missing, k)
	}
	sort.Strings(missing)
	if checked != len(scenarioExpect) {
		t.Errorf("checked %d cases of %d expected: %v", checked, len(scenarioExpect), missing)
	}
}
