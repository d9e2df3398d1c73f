package fio

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/BurntSushi/toml"

	"simrun/model/disk"
	"simrun/sim"
)

func preset(t *testing.T, name string) disk.Config {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "scenarios", "library", "volume", name+".toml"))
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		Description string      `toml:"description"`
		Volume      disk.Config `toml:"volume"`
	}
	md, err := toml.Decode(string(b), &f)
	if err != nil || len(md.Undecoded()) > 0 {
		t.Fatalf("%s: %v %v", name, err, md.Undecoded())
	}
	return f.Volume
}

func runJob(t *testing.T, vcfg disk.Config, job Config, d time.Duration, seed uint64) map[string]any {
	t.Helper()
	env := sim.New(seed)
	v, err := disk.New(env, vcfg)
	if err != nil {
		t.Fatal(err)
	}
	m, err := Run(env, v, job, d)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func get(m map[string]any, path string) float64 {
	var cur any = m
	for _, k := range strings.Split(path, ".") {
		cur = cur.(map[string]any)[k]
	}
	switch x := cur.(type) {
	case float64:
		return x
	case int64:
		return float64(x)
	}
	panic(path)
}

func near(got, want, rel float64) bool { return math.Abs(got-want) <= rel*math.Abs(want) }

// fio jobs on the presets reproduce the analytical figures.
func TestRunAnalytic(t *testing.T) {
	net := preset(t, "network-15k-120MBps")
	hdd := preset(t, "hdd-7200")
	job := func(mut func(*Config)) Config {
		c := DefaultConfig()
		c.Size = 100 * sim.GiB
		c.RampTime = sim.Duration(time.Second)
		mut(&c)
		return c
	}
	for _, tc := range []struct {
		name string
		vol  disk.Config
		job  Config
		path string
		want float64
		tol  float64
	}{
		{"net-16k-qd16", net, job(func(c *Config) { c.BS, c.IODepth = 16*sim.KiB, 16 }), "write.iops", 120e6 / 16384, 0.01},
		{"net-4k-qd4x4jobs", net, job(func(c *Config) { c.IODepth, c.NumJobs = 4, 4 }), "write.iops", 15000, 0.01},
		{"net-randrw-4k", net, job(func(c *Config) { c.RW, c.IODepth, c.RWMixRead = "randrw", 32, 70 }), "read.iops", 0.7 * 15000, 0.02},
		{"net-seqread-1m", net, job(func(c *Config) { c.RW, c.BS, c.IODepth = "read", sim.MiB, 8 }), "read.bw_kB_per_s", 120e6 / 1024, 0.01},
		{"hdd-randread-qd1", hdd, job(func(c *Config) { c.RW, c.Size = "randread", 900*sim.GB }), "read.iops", 78, 0.05},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := runJob(t, tc.vol, tc.job, 10*time.Second, 1)
			if got := get(m, tc.path); !near(got, tc.want, tc.tol) {
				t.Errorf("%s = %.1f, want %.1f ± %.0f%%", tc.path, got, tc.want, 100*tc.tol)
			}
		})
	}
}

// fsync=N syncs after every N writes; a size-limited job stops after size
// bytes; numjobs multiplies; direct=0 is flagged.
func TestRunSemantics(t *testing.T) {
	net := preset(t, "network-15k-120MBps")
	c := DefaultConfig()
	c.Fsync, c.IODepth, c.NumJobs = 4, 4, 2
	m := runJob(t, net, c, 5*time.Second, 1)
	w, s := get(m, "write.total_ios"), get(m, "sync.total_ios")
	if !near(s, w/4, 0.01) {
		t.Errorf("fsync=4: %v writes, %v syncs", w, s)
	}
	if get(m, "sync.lat_ms.p50") <= 0 {
		t.Error("no fsync latency")
	}
	if _, ok := m["note"]; ok {
		t.Error("direct=1 job carries the direct=0 note")
	}

	c = DefaultConfig()
	c.TimeBased, c.Size, c.IODepth, c.Direct = false, sim.MiB, 8, 0
	m = runJob(t, net, c, 10*time.Second, 1)
	if got := get(m, "write.total_ios"); got != 256 {
		t.Errorf("size 1MiB bs 4KiB: %v I/Os, want 256", got)
	}
	if rt := get(m, "runtime_s"); rt >= 1 {
		t.Errorf("size-limited job ran %v s", rt)
	}
	if _, ok := m["note"]; !ok {
		t.Error("direct=0 not flagged")
	}
}

func TestRunDeterministic(t *testing.T) {
	net := preset(t, "network-6750-54MBps")
	c := DefaultConfig()
	c.RW, c.IODepth, c.Fsync, c.NumJobs = "randrw", 8, 16, 3
	a, _ := json.Marshal(runJob(t, net, c, 3*time.Second, 9))
	b, _ := json.Marshal(runJob(t, net, c, 3*time.Second, 9))
	if string(a) != string(b) {
		t.Fatal("same seed, different output")
	}
}

func TestValidate(t *testing.T) {
	for _, tc := range []struct {
		mut  func(*Config)
		want string
	}{
		{func(c *Config) { c.RW = "random" }, `rw: must be one of read, write, randread, randwrite, randrw, readwrite, rw, got "random"`},
		{func(c *Config) { c.RWMixRead = 101 }, "rwmixread: must be in [0, 100], got 101"},
		{func(c *Config) { c.BS = 100 }, "bs: must be in [512B, 64MiB], got 100B"},
		{func(c *Config) { c.IODepth = 0 }, "iodepth: must be in [1, 65536], got 0"},
		{func(c *Config) { c.NumJobs = 0 }, "numjobs: must be in [1, 4096], got 0"},
		{func(c *Config) { c.Fsync = -1 }, "fsync: must be >= 0, got -1"},
		{func(c *Config) { c.Size = 1024 }, "size: must be >= bs (4KiB), got 1KiB"},
		{func(c *Config) { c.Direct = 2 }, "direct: must be 0 or 1, got 2"},
	} {
		c := DefaultConfig()
		tc.mut(&c)
		if err := c.Validate(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Validate() = %v, want %q", err, tc.want)
		}
	}
	env := sim.New(1)
	v, _ := disk.New(env, disk.DefaultConfig())
	if _, err := Run(env, v, Config{Name: "x", RW: "write", BS: 4096, IODepth: 1, NumJobs: 1, Size: sim.MiB}, 0); err == nil {
		t.Error("Run with no duration and no runtime accepted")
	}
}
