package disk

import (
	"fmt"
	"math"
	"testing"
	"time"

	"simrun/sim"
)

// randomCase draws a volume and a load from a stream.
func randomCase(r *sim.Stream) (Config, int, int64, float64, float64, bool) {
	pick := func(xs ...int64) int64 { return xs[r.IntN(len(xs))] }
	cfg := DefaultConfig()
	cfg.IOPSMax = sim.Count(pick(100, 700, 3000, 15000, 40000))
	cfg.BandwidthMax = sim.Rate(pick(1e6, 24e6, 54e6, 120e6, 500e6))
	cfg.BurstWindow = sim.Duration(pick(int64(time.Millisecond), int64(10*time.Millisecond), int64(250*time.Millisecond), int64(time.Second)))
	cfg.IOUnit = sim.Bytes(pick(16<<10, 256<<10))
	cfg.MaxIOSize = sim.Bytes(pick(64<<10, 256<<10, 1<<20))
	cfg.QueueDepth = int(pick(1, 4, 32, 64))
	cfg.Merge = r.IntN(2) == 0
	if r.IntN(3) == 0 {
		cfg.WriteCache = true
		cfg.WriteCacheSize = sim.Bytes(pick(1<<20, 64<<20))
		cfg.DestageRate = sim.Rate(pick(50e6, 1e9))
	}
	if r.IntN(4) == 0 {
		cfg.Kind = "hdd"
		cfg.RPM, cfg.Capacity = 7200, sim.TB
		cfg.SeekMin, cfg.SeekAvg, cfg.SeekMax = sim.Duration(time.Millisecond), sim.Duration(8500*time.Microsecond), sim.Duration(17*time.Millisecond)
		cfg.TransferRate = 125e6
	}
	depth := int(pick(1, 3, 16, 64))
	size := pick(512, 4<<10, 16<<10, 64<<10, 1<<20)
	readPct := float64(pick(0, 30, 100))
	flushPct := float64(pick(0, 0, 5))
	seq := r.IntN(3) == 0
	return cfg, depth, size, readPct, flushPct, seq
}

type dispatchRec struct {
	at    sim.Time
	ops   int64
	bytes int64
}

// Properties over random volumes and loads:
//   - in no window of one second do the dispatched I/Os take more than
//     rate x 1 s + burst IOPS tokens or bytes (the bucket may go into debt
//     by one I/O larger than its burst);
//   - every byte submitted completes;
//   - Little's law at the device: mean I/Os queued or in flight x elapsed
//     = the sum of every I/O's await, when the run starts and ends empty.
func TestProperties(t *testing.T) {
	n := 40
	if testing.Short() {
		n = 10
	}
	r := sim.NewStream(1, "test/properties")
	for i := 0; i < n; i++ {
		cfg, depth, size, readPct, flushPct, seq := randomCase(r)
		name := fmt.Sprintf("%d/%s-iops%v-bw%v-win%v-qd%d-d%d-%dB-r%v-f%v-seq%v-merge%v-wc%v",
			i, cfg.Kind, cfg.IOPSMax, cfg.BandwidthMax, cfg.BurstWindow, cfg.QueueDepth, depth, size, readPct, flushPct, seq, cfg.Merge, cfg.WriteCache)
		t.Run(name, func(t *testing.T) {
			if err := cfg.Validate(); err != nil {
				t.Fatal(err)
			}
			env := sim.New(uint64(i) + 1)
			v, err := New(env, cfg)
			if err != nil {
				t.Fatal(err)
			}
			var recs []dispatchRec
			v.trace = func(ev traceEvent, n *ioNode) {
				if ev == evDispatch {
					recs = append(recs, dispatchRec{env.Now(), v.opsOf(n.size), n.size})
				}
			}
			d := newDriver(env, v, depth, size, 8<<30)
			d.readPct, d.flushPct, d.seq = readPct, flushPct, seq
			d.stopAt = sim.At(3 * time.Second)
			d.start()
			env.Run() // the load stops at 3 s; run until every I/O and destage is done
			if !v.Idle() || v.Dirty() != 0 {
				t.Fatalf("not drained: idle %v dirty %d", v.Idle(), v.Dirty())
			}
			io := v.Iostat()
			if io.SubmittedBytes != io.CompletedBytes || io.SubmittedBytes == 0 {
				t.Errorf("bytes submitted %d, completed %d", io.SubmittedBytes, io.CompletedBytes)
			}
			if io.ReadBytes+io.WriteBytes != io.CompletedBytes {
				t.Errorf("device bytes %d != request bytes %d", io.ReadBytes+io.WriteBytes, io.CompletedBytes)
			}
			checkWindows(t, recs, cfg, v)
			// Little's law, exactly (up to float rounding).
			area := io.AquSz * float64(io.Elapsed)
			var awaitSum float64
			awaitSum = (io.RAwaitMs*float64(io.Reads) + io.WAwaitMs*float64(io.Writes) + io.FAwaitMs*float64(io.Flushes)) * 1e6
			if math.Abs(area-awaitSum) > 1e-6*awaitSum {
				t.Errorf("Little: integral of depth %.6g ns != sum of awaits %.6g ns", area, awaitSum)
			}
			lambda := float64(io.Reads+io.Writes+io.Flushes) / io.Elapsed.Seconds()
			if w := io.AwaitMs / 1e3; math.Abs(io.AquSz-lambda*w) > 1e-6*io.AquSz {
				t.Errorf("Little: aqu-sz %.6f != throughput %.3f/s x await %.6f s", io.AquSz, lambda, w)
			}
		})
	}
}

// checkWindows slides a one-second window over the dispatches.
func checkWindows(t *testing.T, recs []dispatchRec, cfg Config, v *Volume) {
	t.Helper()
	iopsRate := int64(math.Round(float64(cfg.IOPSMax)))
	maxOps := v.opsOf(int64(cfg.MaxIOSize))
	opsLimit := iopsRate + max(burstTokens(iopsRate, cfg.BurstWindow), maxOps)
	bytesLimit := int64(cfg.BandwidthMax) + max(burstTokens(int64(cfg.BandwidthMax), cfg.BurstWindow), int64(cfg.MaxIOSize))
	var ops, bytes int64
	j := 0
	for i := range recs {
		ops += recs[i].ops
		bytes += recs[i].bytes
		for recs[i].at-recs[j].at > sim.Time(time.Second) {
			ops -= recs[j].ops
			bytes -= recs[j].bytes
			j++
		}
		if ops > opsLimit {
			t.Fatalf("window ending %v: %d IOPS tokens > %d", recs[i].at, ops, opsLimit)
		}
		if bytes > bytesLimit {
			t.Fatalf("window ending %v: %d bytes > %d", recs[i].at, bytes, bytesLimit)
		}
	}
}

// The per-second series never shows more than the caps plus the burst.
func TestSeriesRespectCaps(t *testing.T) {
	cfg := loadPreset(t, "network-6750-54MBps")
	io, _ := runClosed(t, cfg, 32, 16<<10, 10<<30, 0, time.Second, 5*time.Second)
	if !within(io.WriteKBPerS*1024, 54e6, 0.01) {
		t.Errorf("wkB/s = %.0f, want 54 MB/s", io.WriteKBPerS)
	}
}
