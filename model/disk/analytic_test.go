package disk

import (
	"math"
	"testing"
	"time"

	"simrun/sim"
)

func within(got, want, rel float64) bool { return math.Abs(got-want) <= rel*math.Abs(want) }

// Saturating closed-loop loads on the network volume reach the binding cap;
// queue depth 1 reaches 1/(mean base latency + transfer time).
func TestCapsAnalytic(t *testing.T) {
	net := loadPreset(t, "network-15k-120MBps")
	meanWrite := float64(net.WriteLatency.MeanDuration())
	xfer := func(size int64) float64 { return float64(size) * 1e9 / float64(net.TransferRate) }
	measure := 10 * time.Second
	if testing.Short() {
		measure = 3 * time.Second
	}
	for _, tc := range []struct {
		name       string
		depth      int
		size       int64
		want       float64
		tol        float64
		iopsB, bwB bool // which cap should show as binding
		reason     string
	}{
		{"16KiB-qd16", 16, 16 << 10, math.Min(15000, 120e6/16384), 0.01, false, true,
			"16 KiB x 15,000 = 246 MB/s > 120 MB/s: the byte cap binds at 7,324 IOPS"},
		{"4KiB-qd16", 16, 4 << 10, 15000, 0.01, true, false,
			"4 KiB x 15,000 = 61 MB/s < 120 MB/s: the IOPS cap binds"},
		{"4KiB-qd1", 1, 4 << 10, 1e9 / (meanWrite + xfer(4<<10)), 0.02, false, false,
			"one I/O at a time: 1/(E[base latency] + size/transfer_rate)"},
		{"1MiB-qd4", 4, 1 << 20, 120e6 / (1 << 20) * 4, 0.01, false, true,
			"1 MiB is split into 4 x 256 KiB device I/Os: 120 MB/s / 256 KiB = 458 w/s"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			io, _ := runClosed(t, net, tc.depth, tc.size, 100<<30, 0, time.Second, measure)
			if !within(io.WritesPerS, tc.want, tc.tol) {
				t.Errorf("w/s = %.1f, want %.1f ± %.0f%% (%s)", io.WritesPerS, tc.want, 100*tc.tol, tc.reason)
			}
			if tc.iopsB && io.IOPSCapBoundPct < 50 || tc.bwB && io.BWCapBoundPct < 50 {
				t.Errorf("cap-bound: iops %.1f%% bw %.1f%%; want the %s", io.IOPSCapBoundPct, io.BWCapBoundPct, tc.reason)
			}
			if !tc.iopsB && !tc.bwB && (io.IOPSCapBoundPct > 1 || io.BWCapBoundPct > 1) {
				t.Errorf("caps should not bind, got iops %.1f%% bw %.1f%%", io.IOPSCapBoundPct, io.BWCapBoundPct)
			}
			if tc.depth >= 4 && io.UtilPct < 99.9 {
				t.Errorf("%%util = %.2f, want 100 at saturation", io.UtilPct)
			}
			t.Logf("w/s %.1f wkB/s %.0f wareq-sz %.1f w_await %.3fms aqu-sz %.2f util %.1f%% iops-bound %.1f%% bw-bound %.1f%%",
				io.WritesPerS, io.WriteKBPerS, io.AvgWriteKB, io.WAwaitMs, io.AquSz, io.UtilPct, io.IOPSCapBoundPct, io.BWCapBoundPct)
		})
	}
}

// A random 4 KiB read at queue depth 1 on the 7,200 rpm disk costs a seek
// (8.5 ms average) plus half a revolution (4.17 ms) plus overhead: about
// 12.8 ms, 78 IOPS. A disk of this class measures 75-150 IOPS.
func TestHDDRandomRead(t *testing.T) {
	hdd := loadPreset(t, "hdd-7200")
	io, d := runClosed(t, hdd, 1, 4<<10, int64(hdd.Capacity), 100, time.Second, 20*time.Second)
	lat := d.latSum.Seconds() * 1e3 / float64(d.done)
	if io.ReadsPerS < 75 || io.ReadsPerS > 150 {
		t.Errorf("r/s = %.1f, want 75-150", io.ReadsPerS)
	}
	if lat < 8 || lat > 14 {
		t.Errorf("mean latency %.2f ms, want 8-14 ms", lat)
	}
	want := 0.1 + 8.5 + 60e3/7200/2 + 4096/125e6*1e3
	if !within(lat, want, 0.05) {
		t.Errorf("mean latency %.2f ms, want %.2f (overhead + seek_avg + half revolution + transfer)", lat, want)
	}
	t.Logf("hdd random 4KiB read QD1: %.1f IOPS, %.2f ms", io.ReadsPerS, lat)
}

// Sequential reads on the disk need no seek and no rotation while the
// actuator stays busy: they run at the media rate.
func TestHDDSequential(t *testing.T) {
	hdd := loadPreset(t, "hdd-7200")
	env := sim.New(1)
	v, err := New(env, hdd)
	if err != nil {
		t.Fatal(err)
	}
	d := newDriver(env, v, 4, 512<<10, 0)
	d.seq, d.readPct = true, 100
	d.start()
	env.RunUntil(sim.At(5 * time.Second))
	io := v.Iostat()
	mbps := float64(io.ReadBytes) / io.Elapsed.Seconds() / 1e6
	if mbps < 110 || mbps > 125 {
		t.Errorf("sequential read %.1f MB/s, want near the 125 MB/s media rate", mbps)
	}
}

// The gp2 volume runs at 3,000 IOPS while it has credits and at its
// 300 IOPS baseline after.
func TestGP2Credits(t *testing.T) {
	gp2 := loadPreset(t, "gp2-100GiB")
	gp2.Credits.Balance = 27000 // 10 s of burst at 3,000 - 300 net drain
	env := sim.New(1)
	v, err := New(env, gp2)
	if err != nil {
		t.Fatal(err)
	}
	d := newDriver(env, v, 32, 4<<10, 10<<30)
	d.start()
	env.RunUntil(sim.At(30 * time.Second))
	ivs := v.Intervals()
	if got := ivs[4].WritesPerS; !within(got, 3000, 0.02) {
		t.Errorf("second 5: %.0f w/s, want 3000 (bursting)", got)
	}
	if got := ivs[20].WritesPerS; !within(got, 300, 0.02) {
		t.Errorf("second 21: %.0f w/s, want 300 (credits spent)", got)
	}
	// The queue head waits for iops_max while the bucket lasts (10 of 30
	// s), then for credits; the account balances: 27,000 credits at the
	// start plus 300 a second, all taken.
	io := v.Iostat()
	if !within(io.IOPSCapBoundPct, 100.0/3, 0.02) {
		t.Errorf("iops-bound %.1f%%, want ~33 (the burst's 10 s of 30)", io.IOPSCapBoundPct)
	}
	c := io.Credits
	if c == nil {
		t.Fatal("no credit account")
	}
	if !within(c.BoundPct, 200.0/3, 0.02) {
		t.Errorf("credit-bound %.1f%%, want ~67 (the 20 s at the baseline)", c.BoundPct)
	}
	if c.BalanceStart != 27000 || c.Refill != 9000 || c.BalanceEnd != 0 || !within(float64(c.Taken), 36000, 0.001) {
		t.Errorf("credit account %+v, want 27000 + 9000 refill, about 36000 taken, none left", *c)
	}
	// After a warm-up the window starts from the bucket as it was.
	v.ResetStats()
	env.RunUntil(sim.At(32 * time.Second))
	if c := v.Iostat().Credits; c.BalanceStart != 0 || c.Refill != 600 || !within(float64(c.Taken), 600, 0.01) || !within(c.BoundPct, 100, 0.01) {
		t.Errorf("after ResetStats: %+v", *c)
	}
}

// With its write cache the disk acknowledges writes at once and destages
// them nearest-first, so sustained random writes outrun random reads
// (which must each wait for their own seek and rotation); writes are held
// back only when the cache is full.
func TestHDDWriteCacheReorders(t *testing.T) {
	hdd := loadPreset(t, "hdd-7200")
	r, _ := runClosed(t, hdd, 4, 16<<10, int64(hdd.Capacity), 100, 10*time.Second, 10*time.Second)
	w, _ := runClosed(t, hdd, 4, 16<<10, int64(hdd.Capacity), 0, 30*time.Second, 10*time.Second)
	t.Logf("full-disk 16KiB QD4: random read %.0f/s, random write (cached) %.0f/s", r.ReadsPerS, w.WritesPerS)
	if r.ReadsPerS < 70 || r.ReadsPerS > 90 {
		t.Errorf("random read %.0f/s, want ~78", r.ReadsPerS)
	}
	if w.WritesPerS < 1.5*r.ReadsPerS {
		t.Errorf("cached random write %.0f/s, want well above random read %.0f/s", w.WritesPerS, r.ReadsPerS)
	}
}
