package applier

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"simrun/model/applier/stream"
	"simrun/model/disk"
	"simrun/sim"
)

// testVolume is one member of the replica's RAID 0 set as the scenario
// describes it (scenarios/replication/csa-vs-mta.toml).
func testVolume() disk.Config {
	c := disk.DefaultConfig()
	c.Name = "oci-balanced-1TB"
	c.IOPSMax = 25000
	c.ReadLatency = sim.LognormalDist(sim.Duration(600*time.Microsecond), sim.Duration(2*time.Millisecond))
	c.BandwidthMax = 480 * sim.Rate(sim.MB)
	c.WriteLatency = sim.LognormalDist(sim.Duration(500*time.Microsecond), sim.Duration(1500*time.Microsecond))
	c.FlushLatency = sim.LognormalDist(sim.Duration(300*time.Microsecond), sim.Duration(900*time.Microsecond))
	c.TransferRate = 500 * sim.Rate(sim.MB)
	return c
}

// checker verifies, from the outside, the invariants of issue 6 on a trace
// of a backlog run whose transactions are known.
type checker struct {
	t         *testing.T
	trx       []stream.Trx
	mta, rpco bool
	started   []bool
	applied   []bool
	committed []int // commit count per seq
	appPrefix int64 // every seq <= it applied
	comPrefix int64 // every seq <= it committed
	lastCom   int64
	errs      int
}

func newChecker(t *testing.T, trx []stream.Trx, mta, rpco bool) *checker {
	n := len(trx) + 1
	return &checker{t: t, trx: trx, mta: mta, rpco: rpco,
		started: make([]bool, n), applied: make([]bool, n), committed: make([]int, n)}
}

func (c *checker) fail(format string, a ...any) {
	c.errs++
	if c.errs <= 5 {
		c.t.Errorf(format, a...)
	}
}

func (c *checker) event(ev traceEvent, seq int64) {
	last := c.trx[seq-1].Last
	switch ev {
	case evStart:
		if c.started[seq] {
			c.fail("trx %d started twice", seq)
		}
		c.started[seq] = true
		// No transaction starts before all it depends on have applied
		// (MTA: committed, its stricter rule).
		if c.appPrefix < last {
			c.fail("trx %d started with last_committed %d but only %d applied", seq, last, c.appPrefix)
		}
		if c.mta && c.comPrefix < last {
			c.fail("mta: trx %d started with last_committed %d but only %d committed", seq, last, c.comPrefix)
		}
	case evApplied:
		if !c.started[seq] || c.applied[seq] {
			c.fail("trx %d applied without start or twice", seq)
		}
		c.applied[seq] = true
		for c.appPrefix+1 < int64(len(c.applied)) && c.applied[c.appPrefix+1] {
			c.appPrefix++
		}
	case evCommitted:
		if !c.applied[seq] {
			c.fail("trx %d committed before it applied", seq)
		}
		c.committed[seq]++
		if c.rpco && seq != c.lastCom+1 {
			c.fail("commit order: trx %d committed after %d", seq, c.lastCom)
		}
		c.lastCom = seq
		for c.comPrefix+1 < int64(len(c.committed)) && c.committed[c.comPrefix+1] > 0 {
			c.comPrefix++
		}
	}
}

func (c *checker) finish() {
	for s := 1; s < len(c.committed); s++ {
		if c.committed[s] != 1 {
			c.fail("trx %d committed %d times, want exactly once", s, c.committed[s])
		}
	}
}

func TestInvariants(t *testing.T) {
	type tweak func(*Config)
	hot := func(c *Config) { c.Source.KeyDist, c.Source.HotRows, c.Source.HotPct = "hot", 20, 60 }
	tiny := func(c *Config) { c.MTA.PendingJobsSizeMax, c.CSA.EventMemoryLimit = 8*sim.KiB, 6*sim.KiB }
	tests := []struct {
		name   string
		n      int
		tweaks []tweak
	}{
		{"plain", 1, nil},
		{"ten updates", 10, nil},
		{"hot rows", 10, []tweak{hot}},
		{"hot rows writeset", 10, []tweak{hot, func(c *Config) { c.Source.Dependency = "writeset" }}},
		{"tiny memory", 10, []tweak{tiny}},
		{"tiny memory hot", 10, []tweak{tiny, hot}},
		{"memory below one trx", 10, []tweak{func(c *Config) { c.MTA.PendingJobsSizeMax, c.CSA.EventMemoryLimit = 2*sim.KiB, 1*sim.KiB }}},
		{"one worker", 10, []tweak{func(c *Config) { c.Workers = 1 }}},
		{"window of one", 1, []tweak{func(c *Config) { c.CSA.Window = 1 }}},
		{"1024 workers", 1, []tweak{func(c *Config) { c.Workers = 1024 }}},
	}
	for _, tc := range tests {
		for _, version := range []string{"mta", "csa"} {
			for _, prof := range []string{"nologs", "nologs+redo", "nologs+rpco", "default"} {
				name := fmt.Sprintf("%s/%s/%s", tc.name, version, prof)
				t.Run(name, func(t *testing.T) {
					t.Parallel()
					cfg := DefaultConfig()
					cfg.Version, cfg.Profile, cfg.Mode = version, prof, "backlog"
					cfg.Source.UpdatesPerTrx = tc.n
					cfg.BacklogTrx = 3000
					for _, f := range tc.tweaks {
						f(&cfg)
					}
					trx, _, err := stream.Generate(cfg.Source, 7, int(cfg.BacklogTrx))
					if err != nil {
						t.Fatal(err)
					}
					ck := newChecker(t, trx, version == "mta", profiles[prof].rpco)
					env := sim.New(7)
					m, r, err := run(context.Background(), env, 32, testVolume(), cfg, 0, 0, ck.event)
					if err != nil {
						t.Fatal(err)
					}
					ck.finish()
					if m["drained"] != true {
						t.Fatalf("backlog not drained: %v of %v committed", m["trx_committed"], cfg.BacklogTrx)
					}
					if v := m["invariant_violations"].(int64); v != 0 {
						t.Errorf("model counted %d invariant violations: %+v", v, r.violations)
					}
					// Memory held by events never exceeds its limit, except
					// while a single transaction runs alone (the model counts
					// any other excess as a violation, checked above).
					limit := r.sch.memoryLimit()
					if r.maxMemory > limit+r.trxBytes {
						t.Errorf("memory peaked at %d bytes, limit %d (trx %d bytes)", r.maxMemory, limit, r.trxBytes)
					}
					if tc.name == "plain" && r.maxMemory > limit {
						t.Errorf("memory peaked at %d bytes over the limit %d", r.maxMemory, limit)
					}
				})
			}
		}
	}
}

// TestOnlineInvariants checks the online path (receiver, relay log, lag)
// with the model's own counters: exactly once, order, dependencies.
func TestOnlineInvariants(t *testing.T) {
	for _, version := range []string{"mta", "csa"} {
		for _, prof := range []string{"nologs+redo", "default"} {
			t.Run(version+"/"+prof, func(t *testing.T) {
				t.Parallel()
				cfg := DefaultConfig()
				cfg.Version, cfg.Profile, cfg.Mode = version, prof, "online"
				cfg.Source.UpdatesPerTrx = 10
				commits := map[int64]int{}
				var order []int64
				env := sim.New(3)
				m, r, err := run(context.Background(), env, 32, testVolume(), cfg, 500*time.Millisecond, time.Second, func(ev traceEvent, seq int64) {
					if ev == evCommitted {
						commits[seq]++
						order = append(order, seq)
					}
				})
				if err != nil {
					t.Fatal(err)
				}
				if v := m["invariant_violations"].(int64); v != 0 {
					t.Errorf("%d invariant violations: %+v", v, r.violations)
				}
				for s, n := range commits {
					if n != 1 {
						t.Errorf("trx %d committed %d times", s, n)
					}
				}
				if r.lwmCommitted < int64(len(order))-int64(cfg.Workers) {
					t.Errorf("committed watermark %d far below %d commits", r.lwmCommitted, len(order))
				}
				if profiles[prof].rpco {
					for i, s := range order {
						if s != int64(i+1) {
							t.Fatalf("commit %d was trx %d: not in source order", i, s)
						}
					}
				}
				lag := m["lag_s"].([]float64)
				if len(lag) == 0 {
					t.Error("no lag samples")
				}
			})
		}
	}
}

func TestDeterministic(t *testing.T) {
	for _, mode := range []string{"backlog", "online"} {
		cfg := DefaultConfig()
		cfg.Mode = mode
		cfg.Version = "csa"
		cfg.Source.UpdatesPerTrx = 10
		cfg.BacklogTrx = 5000
		var out [2]string
		for i := range out {
			m, err := Run(sim.New(11), 32, testVolume(), cfg, 200*time.Millisecond, 500*time.Millisecond)
			if err != nil {
				t.Fatal(err)
			}
			b, err := json.Marshal(m)
			if err != nil {
				t.Fatal(err)
			}
			out[i] = string(b)
		}
		if out[0] != out[1] {
			t.Errorf("%s: two runs with the same seed differ", mode)
		}
	}
}

func TestValidate(t *testing.T) {
	tests := []struct {
		key string
		set func(*Config)
	}{
		{"version", func(c *Config) { c.Version = "v3" }},
		{"workers", func(c *Config) { c.Workers = 0 }},
		{"workers", func(c *Config) { c.Workers = 1025 }},
		{"profile", func(c *Config) { c.Profile = "fast" }},
		{"mode", func(c *Config) { c.Mode = "later" }},
		{"backlog_trx", func(c *Config) { c.BacklogTrx = 0.5 }},
		{"lag_interval", func(c *Config) { c.LagInterval = 0 }},
		{"source.threads", func(c *Config) { c.Source.Threads = 0 }},
		{"source.key_dist", func(c *Config) { c.Source.KeyDist = "zipf" }},
		{"source.hot_rows", func(c *Config) { c.Source.KeyDist, c.Source.HotRows = "hot", 0 }},
		{"source.dependency", func(c *Config) { c.Source.Dependency = "writeset_session" }},
		{"events.update_rows", func(c *Config) { c.Events.UpdateRows = 3 }},
		{"mta.pending_jobs_size_max", func(c *Config) { c.MTA.PendingJobsSizeMax = 10 }},
		{"csa.window", func(c *Config) { c.CSA.Window = 0 }},
		{"cpu.apply_per_trx", func(c *Config) { c.CPU.ApplyPerTrx = -1 }},
		{"cpu.apply_per_update", func(c *Config) { c.CPU.ApplyPerUpdate = sim.DistSpec{Kind: "bogus"} }},
		{"cpu.parse_rate", func(c *Config) { c.CPU.ParseRate = 0 }},
		{"storage.members", func(c *Config) { c.Storage.Members = 0 }},
		{"storage.chunk_size", func(c *Config) { c.Storage.ChunkSize = 1000 }},
	}
	if err := DefaultConfig().Validate(); err != nil {
		t.Fatalf("default config invalid: %v", err)
	}
	for _, tc := range tests {
		c := DefaultConfig()
		tc.set(&c)
		err := c.Validate()
		if err == nil {
			t.Errorf("%s: bad value accepted", tc.key)
			continue
		}
		if !strings.HasPrefix(err.Error(), tc.key+":") {
			t.Errorf("%s: error %q does not start with the key", tc.key, err)
		}
	}
	if _, err := Run(sim.New(1), 0, testVolume(), DefaultConfig(), 0, time.Second); err == nil || !strings.HasPrefix(err.Error(), "cores:") {
		t.Errorf("cores 0: got %v", err)
	}
}

// TestRunContextCancelled: a cancelled context stops a replica run, online
// or catching up on a backlog, with the context's error (Ctrl-C).
func TestRunContextCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, mode := range []string{"online", "backlog"} {
		cfg := DefaultConfig()
		cfg.Mode = mode
		if _, err := RunContext(ctx, sim.New(1), 32, testVolume(), cfg, time.Second, 10*time.Second); !errors.Is(err, context.Canceled) {
			t.Errorf("%s: err %v, want context.Canceled", mode, err)
		}
	}
}
