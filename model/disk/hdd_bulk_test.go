package disk

import (
	"math"
	"testing"
	"time"

	"simrun/sim"
)

func hddBulk() Config {
	c := DefaultConfig()
	c.Kind, c.Name = "hdd", "hdd-test"
	c.IOPSMax, c.BandwidthMax = 100000, 300*sim.Rate(sim.MB)
	c.MaxIOSize, c.QueueDepth = 512*sim.KiB, 31
	c.ReadLatency = sim.ConstantDist(sim.Duration(100 * time.Microsecond))
	c.WriteLatency = sim.ConstantDist(sim.Duration(100 * time.Microsecond))
	c.FlushLatency = sim.ConstantDist(sim.Duration(100 * time.Microsecond))
	c.TransferRate, c.TransferRateInner = 100*sim.Rate(sim.MB), 50*sim.Rate(sim.MB)
	c.RPM = 7200
	c.SeekMin, c.SeekAvg, c.SeekMax = sim.Duration(time.Millisecond), sim.Duration(8500*time.Microsecond), sim.Duration(17*time.Millisecond)
	c.Capacity = 500 * sim.GB
	return c
}

// Zoned recording: the media rate falls linearly from the outer edge to
// the inner one.
func TestZonedTransfer(t *testing.T) {
	env := sim.New(1)
	v, err := New(env, hddBulk())
	if err != nil {
		t.Fatal(err)
	}
	const mb = 1 << 20
	for _, tc := range []struct {
		x    float64
		rate float64 // MB/s
	}{{0, 100}, {0.5, 75}, {1 - 1e-9, 50}} {
		addr := int64(tc.x * float64(v.cfg.Capacity))
		got := float64(mb) / v.mediaXfer(addr, mb).Seconds() / 1e6
		if math.Abs(got-tc.rate) > 0.01*tc.rate {
			t.Errorf("at %.2f of the platter: %.1f MB/s, want %.1f", tc.x, got, tc.rate)
		}
	}
}

// randomReads returns the mean service of n random 16 KiB reads within
// span bytes, queued depth at a time.
func randomReads(t *testing.T, cfg Config, span int64, n, depth int) time.Duration {
	env := sim.New(3)
	v, err := New(env, cfg)
	if err != nil {
		t.Fatal(err)
	}
	f := v.OpenFile("data", true)
	rng := env.Stream("test")
	done, issued := 0, 0
	var issue func(any)
	issue = func(any) {
		if issued < n {
			issued++
			f.ReadAt(int64(rng.IntN(int(span/16384)))*16384, 16384, SourceOther, issue, nil)
		}
		done++
	}
	for i := 0; i < depth; i++ {
		issued++
		f.ReadAt(int64(rng.IntN(int(span/16384)))*16384, 16384, SourceOther, issue, nil)
	}
	env.Run()
	return time.Duration(env.Now()) / time.Duration(n)
}

// NCQ: with a deep queue the drive picks the request with the shortest
// seek + rotation, so random reads in a small region get much faster than
// one at a time; at depth 1 it changes nothing (the mean rotational wait
// stays half a revolution).
func TestNCQPositioning(t *testing.T) {
	cfg := hddBulk()
	cfg.NCQ = true
	span := int64(1 << 30)
	qd1 := randomReads(t, cfg, span, 4000, 1)
	qd31 := randomReads(t, cfg, span, 4000, 31)
	off := cfg
	off.NCQ = false
	fifo31 := randomReads(t, off, span, 4000, 31)
	// Depth 1: short seek (~1.3 ms) + half a revolution (4.17 ms) + transfer.
	if qd1 < 4*time.Millisecond || qd1 > 7*time.Millisecond {
		t.Errorf("NCQ, depth 1: %v per read, want about 5.5 ms", qd1)
	}
	if !(qd31 < qd1/2) {
		t.Errorf("NCQ, depth 31: %v per read, want under half of depth 1's %v", qd31, qd1)
	}
	if !(qd31 < fifo31/2) {
		t.Errorf("NCQ, depth 31: %v per read against %v without NCQ", qd31, fifo31)
	}
}

// Barriers off (ext3 of the era): a flush completes once the writes are in
// the drive cache, without waiting for them to reach the media.
func TestBarriersOff(t *testing.T) {
	for _, tc := range []struct {
		barriers string
		max      time.Duration
		min      time.Duration
	}{{"on", time.Hour, 5 * time.Millisecond}, {"off", time.Millisecond, 0}} {
		cfg := hddBulk()
		cfg.WriteCache, cfg.WriteCacheSize = true, 32*sim.MiB
		cfg.DestageRate = 0
		cfg.Barriers = tc.barriers
		env := sim.New(1)
		v, err := New(env, cfg)
		if err != nil {
			t.Fatal(err)
		}
		f := v.OpenFile("data", true)
		rng := env.Stream("test")
		for i := 0; i < 16; i++ {
			f.WriteAt(int64(rng.IntN(1<<16))*16384, 16384, SourceOther, nil, nil)
		}
		var at sim.Time
		f.Sync(func(any) { at = env.Now() }, nil)
		env.Run()
		if d := time.Duration(at); d > tc.max || d < tc.min {
			t.Errorf("barriers %s: fsync after 16 random writes took %v, want in [%v, %v]", tc.barriers, d, tc.min, tc.max)
		}
	}
}

// reads_first: a read queued behind writes is dispatched first.
func TestReadsFirst(t *testing.T) {
	for _, first := range []bool{false, true} {
		cfg := hddBulk()
		cfg.QueueDepth = 1
		cfg.ReadsFirst = first
		env := sim.New(1)
		v, err := New(env, cfg)
		if err != nil {
			t.Fatal(err)
		}
		f := v.OpenFile("data", true)
		for i := 0; i < 20; i++ {
			f.WriteAt(int64(i)*(1<<24), 16384, SourceOther, nil, nil)
		}
		var at sim.Time
		f.ReadAt(1<<30, 16384, SourceOther, func(any) { at = env.Now() }, nil)
		env.Run()
		d := time.Duration(at)
		if first && d > 40*time.Millisecond || !first && d < 60*time.Millisecond {
			t.Errorf("reads_first %v: the read completed after %v", first, d)
		}
	}
}
