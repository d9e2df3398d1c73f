package disk

import (
	"strings"
	"testing"
	"time"

	"simrun/sim"
)

// Bad configurations name the key and the allowed range.
func TestValidateErrors(t *testing.T) {
	hdd := func(c *Config) {
		c.Kind, c.RPM, c.Capacity = "hdd", 7200, sim.TB
		c.SeekMin, c.SeekAvg, c.SeekMax = sim.Duration(time.Millisecond), sim.Duration(8500*time.Microsecond), sim.Duration(17*time.Millisecond)
	}
	for _, tc := range []struct {
		name   string
		mutate func(*Config)
		want   string
	}{
		{"iops zero", func(c *Config) { c.IOPSMax = 0 }, "iops_max: must be >= 1, got 0"},
		{"bandwidth zero", func(c *Config) { c.BandwidthMax = 0 }, "bandwidth_max: must be > 0, got 0B/s"},
		{"kind", func(c *Config) { c.Kind = "tape" }, `kind: must be one of network, nvme, hdd, ram, got "tape"`},
		{"burst window", func(c *Config) { c.BurstWindow = 0 }, "burst_window: must be in (0, 1m], got 0s"},
		{"burst too big", func(c *Config) { c.BandwidthMax = 100 * sim.Rate(sim.GB); c.BurstWindow = sim.Duration(time.Minute) }, "burst_window: bandwidth_max x burst_window must be <="},
		{"io unit", func(c *Config) { c.IOUnit = 0 }, "io_unit: must be > 0"},
		{"max io", func(c *Config) { c.MaxIOSize = 100 }, "max_io_size: must be in [512B, 1GiB], got 100B"},
		{"queue depth", func(c *Config) { c.QueueDepth = 0 }, "queue_depth: must be in [1, 65536], got 0"},
		{"latency", func(c *Config) { c.WriteLatency = sim.DistSpec{} }, "write_latency: no distribution given"},
		{"lognormal", func(c *Config) { c.FlushLatency = sim.LognormalDist(2e6, 1e6) }, "flush_latency: p99: must be >= median"},
		{"transfer", func(c *Config) { c.TransferRate = -1 }, "transfer_rate: must be >= 0"},
		{"cache size", func(c *Config) { c.WriteCache = true; c.DestageRate = 1e9 }, "write_cache_size: must be >= max_io_size"},
		{"destage", func(c *Config) { c.WriteCache = true; c.WriteCacheSize = sim.GiB }, "destage_rate: must be > 0 when write_cache is on"},
		{"journal", func(c *Config) { c.JournalWriteSize = 0 }, "journal_write_size: must be in (0, max_io_size]"},
		{"journal mode", func(c *Config) { c.Journal = "writeback" }, `journal: must be ordered or none, got "writeback"`},
		{"rpm", func(c *Config) { hdd(c); c.RPM = 0 }, "rpm: must be in [3600, 20000] for kind hdd, got 0"},
		{"capacity", func(c *Config) { hdd(c); c.Capacity = 0 }, "capacity: must be >= 1GB for kind hdd"},
		{"seek avg", func(c *Config) { hdd(c); c.SeekAvg = sim.Duration(16 * time.Millisecond) }, "seek_avg: must be in [6.333333ms, 9.533333ms]"},
		{"seek max", func(c *Config) { hdd(c); c.SeekMax = 0 }, "seek_max: must be >= seek_min"},
		{"credits", func(c *Config) { c.Credits = Credits{BaselineIOPS: 20000, Balance: 1} }, "credits.baseline_iops: must be in [1, iops_max=15000], got 20000"},
		{"credits balance", func(c *Config) { c.Credits = Credits{BaselineIOPS: 100} }, "credits.balance: must be in [1,"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := DefaultConfig()
			tc.mutate(&c)
			err := c.Validate()
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Validate() = %v\nwant it to contain %q", err, tc.want)
			}
			if _, nerr := New(sim.New(1), c); nerr == nil {
				t.Error("New accepted an invalid config")
			}
		})
	}
	if err := DefaultConfig().Validate(); err != nil {
		t.Errorf("default: %v", err)
	}
}

// The seek curve meets its three data-sheet points.
func TestSeekCurve(t *testing.T) {
	minS, avg, maxS := sim.Duration(time.Millisecond), sim.Duration(8500*time.Microsecond), sim.Duration(17*time.Millisecond)
	a, b := seekCurve(minS, avg, maxS)
	if got := float64(minS) + a + b; !within(got, float64(maxS), 1e-9) {
		t.Errorf("t(1) = %v, want %v", got, maxS)
	}
	if got := float64(minS) + a*8/15 + b/3; !within(got, float64(avg), 1e-9) {
		t.Errorf("E[t] = %v, want %v", got, avg)
	}
}
