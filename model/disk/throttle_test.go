package disk

import (
	"math"
	"strings"
	"testing"
	"time"

	"simrun/sim"
)

// The server's blkio throttle in front of an uncapped volume: the rate
// its threads get is the throttle's, the wait is before the volume's queue
// (iostat's await does not see it), kernel I/O passes, and reads and writes
// have separate allowances.
func TestThrottleAnalytic(t *testing.T) {
	net := loadPreset(t, "network-15k-120MBps")
	fast := net
	fast.IOPSMax, fast.BandwidthMax = 1e6, sim.Rate(4*sim.GB) // the volume never binds
	measure := 5 * time.Second
	for _, tc := range []struct {
		name    string
		thr     Throttle
		depth   int
		size    int64
		readPct float64
		kernel  bool
		// want: writes/s and reads/s the driver gets (0: not checked)
		wantW, wantR float64
		reason       string
	}{
		{"write-bps", Throttle{WriteBPS: 54 * sim.Rate(sim.MB)}, 16, 16 << 10, 0, false, 54e6 / 16384, 0,
			"54 MB/s of 16 KiB writes: 3,296 w/s"},
		{"write-iops", Throttle{WriteIOPS: 6750}, 16, 4 << 10, 0, false, 6750, 0,
			"4 KiB writes: the 6,750 IOPS knob binds (27.6 MB/s)"},
		{"bios-per-request", Throttle{WriteIOPS: 1000}, 8, 1 << 20, 0, false, 1000, 0,
			"1 MiB requests are 4 bios of 256 KiB each: 250 requests/s, 1,000 device writes/s"},
		{"kernel-passes", Throttle{WriteBPS: 54 * sim.Rate(sim.MB)}, 16, 16 << 10, 0, true, 0, 0,
			"write-back and journal commits are not the server's: the volume's own speed"},
		{"separate-directions", Throttle{WriteBPS: 54 * sim.Rate(sim.MB), ReadBPS: 54 * sim.Rate(sim.MB)}, 32, 16 << 10, 50, false, 54e6 / 16384, 54e6 / 16384,
			"reads and writes each get 54 MB/s, 108 MB/s together"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := fast
			cfg.Throttle = tc.thr // slice 0: the rotational default, 100 ms
			env := sim.New(7)
			v, err := New(env, cfg)
			if err != nil {
				t.Fatal(err)
			}
			d := newDriver(env, v, tc.depth, tc.size, 100<<30)
			d.readPct, d.kernel = tc.readPct, tc.kernel
			d.start()
			env.RunUntil(sim.At(time.Second))
			v.ResetStats()
			d.done, d.latSum = 0, 0
			env.RunUntil(sim.At(time.Second + measure))
			io := v.Iostat()
			r := v.Report().Throttle
			if tc.kernel {
				if r.Charged != 0 || r.Delayed != 0 {
					t.Errorf("kernel I/O was charged %d, delayed %d; want 0", r.Charged, r.Delayed)
				}
				if io.WriteKBPerS*1e3 < 2*54e6 {
					t.Errorf("write %.0f kB/s: the throttle held kernel write-back (%s)", io.WriteKBPerS, tc.reason)
				}
				return
			}
			if !within(io.WritesPerS, tc.wantW, 0.02) {
				t.Errorf("w/s = %.1f, want %.1f (%s)", io.WritesPerS, tc.wantW, tc.reason)
			}
			if tc.wantR > 0 && !within(io.ReadsPerS, tc.wantR, 0.02) {
				t.Errorf("r/s = %.1f, want %.1f (%s)", io.ReadsPerS, tc.wantR, tc.reason)
			}
			// The wait is the throttle's: the volume's queue stays short and
			// its await near the device latency, while the driver's latency
			// is the closed loop's depth over the throttled rate.
			lat := float64(d.latSum) / float64(d.done) / 1e6
			little := float64(tc.depth) / (float64(d.done) / measure.Seconds()) * 1e3
			if !within(lat, little, 0.05) {
				t.Errorf("driver latency %.3f ms, want depth/rate = %.3f ms (Little's law)", lat, little)
			}
			if io.AwaitMs > lat/4 {
				t.Errorf("iostat await %.3f ms against %.3f ms at the driver: the throttle's wait leaked into the volume", io.AwaitMs, lat)
			}
			// Its counters start with the measured window (ResetStats), as
			// the volume's do: every request charged there was completed
			// there, give or take the ones in flight at either end.
			if d.done < r.Charged-int64(tc.depth) || d.done > r.Charged+int64(tc.depth) {
				t.Errorf("charged %d requests in the window, the driver completed %d", r.Charged, d.done)
			}
			if r.Delayed == 0 || r.WaitMsAvg <= 0 {
				t.Errorf("throttle block %+v: nothing waited", *r)
			}
			t.Logf("w/s %.1f r/s %.1f driver %.3f ms await %.3f ms util %.1f%% throttle %+v", io.WritesPerS, io.ReadsPerS, lat, io.AwaitMs, io.UtilPct, *r)
		})
	}
}

// In any window the throttle passes at most one slice's allowance plus
// rate x window (blk-throttle's slice accounting), and never reorders a
// direction's requests.
func TestThrottleCapsNeverExceeded(t *testing.T) {
	cfg := loadPreset(t, "network-15k-120MBps")
	cfg.IOPSMax, cfg.BandwidthMax = 1e6, sim.Rate(4*sim.GB)
	cfg.Throttle = Throttle{WriteBPS: 20 * sim.Rate(sim.MB), Slice: DefaultThrottleSlice}
	env := sim.New(3)
	v, err := New(env, cfg)
	if err != nil {
		t.Fatal(err)
	}
	var times []sim.Time
	var sizes []int64
	var order []int64
	seq := 0
	rng := env.Stream("test/sizes")
	var issue func(any)
	issue = func(any) {
		if env.Now() > sim.At(3*time.Second) {
			return
		}
		size := int64(4096 * (1 + rng.Uint64N(64)))
		seq++
		v.Submit(Request{Op: Write, File: 1 << 20, Offset: int64(seq) << 20, Size: size, Done: issue, Arg: seq})
	}
	v.trace = func(ev traceEvent, n *ioNode) {
		if ev == evDispatch {
			times = append(times, env.Now())
			sizes = append(sizes, n.size)
			order = append(order, n.off>>20)
		}
	}
	for range 8 {
		issue(nil)
	}
	env.RunUntil(sim.At(4 * time.Second))
	burst := 20e6 * DefaultThrottleSlice.D().Seconds()
	for i := range times {
		var sum float64
		for j := i; j < len(times); j++ {
			sum += float64(sizes[j])
			w := float64(times[j]-times[i]) / 1e9
			if sum > burst+20e6*w+float64(sizes[j]) {
				t.Fatalf("%.0f B passed in %.3f s from dispatch %d: more than a slice (%.0f B) + rate x window", sum, w, i, burst)
			}
		}
	}
	for i := 1; i < len(order); i++ {
		if order[i] < order[i-1] {
			t.Fatalf("write %d entered the volume after %d: the throttle reordered writes", order[i], order[i-1])
		}
	}
	if len(times) < 100 {
		t.Fatalf("only %d writes dispatched", len(times))
	}
}

// Bad throttle knobs are rejected with the key and the range.
func TestThrottleValidate(t *testing.T) {
	for _, tc := range []struct {
		thr  Throttle
		want string
	}{
		{Throttle{WriteBPS: -1, Slice: DefaultThrottleSlice}, "throttle.write_bps: must be in [0, 1e12]"},
		{Throttle{ReadIOPS: sim.Count(math.NaN()), Slice: DefaultThrottleSlice}, "throttle.read_iops"},
		{Throttle{WriteIOPS: 100, Slice: -1}, "throttle.slice: must be in [0, 1s]"},
		{Throttle{WriteIOPS: 100, Slice: sim.Duration(2 * time.Second)}, "throttle.slice: must be in [0, 1s]"},
	} {
		cfg := DefaultConfig()
		cfg.Throttle = tc.thr
		err := cfg.Validate()
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: got %v, want %q", tc.thr, err, tc.want)
		}
	}
	if err := DefaultConfig().Validate(); err != nil {
		t.Errorf("default (no throttle): %v", err)
	}
}

// The throttle's queues and timer allocate nothing per I/O once warm.
func TestThrottleSteadyStateAllocs(t *testing.T) {
	cfg := loadPreset(t, "nvme-consumer")
	cfg.Throttle = Throttle{WriteBPS: 20 * sim.Rate(sim.MB), WriteIOPS: 3000, ReadIOPS: 2000}
	env := sim.New(1)
	v, err := New(env, cfg)
	if err != nil {
		t.Fatal(err)
	}
	d := newDriver(env, v, 16, 16<<10, 1<<30)
	d.readPct, d.flushPct = 30, 2
	d.start()
	noSteadyAllocs(t, env)
	if r := v.Report().Throttle; r.Delayed == 0 {
		t.Fatalf("the throttle never held a request (%+v): the test does not exercise it", *r)
	}
}
