package fio

import (
	"math"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/BurntSushi/toml"
	"github.com/google/go-cmp/cmp"

	"simrun/model/disk"
	"simrun/sim"
)

// The fixture is real fio 3.33 output from this project's CI machine
// class: job 1 is a 4 KiB random write at iodepth 1 with fsync=1 (psync),
// job 2 a 16 KiB 50/50 random read/write at iodepth 8 (libaio), both on a
// 64 MiB file for 2 s, direct=0. See testdata/README.
func fixture(t *testing.T) []byte {
	b, err := os.ReadFile("testdata/fio-2jobs.json")
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestCalibrateFixture(t *testing.T) {
	cal, err := CalibrateDetail(fixture(t))
	if err != nil {
		t.Fatal(err)
	}
	c := cal.Config
	for _, n := range cal.Notes {
		t.Log(n)
	}
	if c.IOPSMax != sim.Count(math.Ceil(7603.198401+7711.644178)) {
		t.Errorf("iops_max = %v, want the qd8 job's read+write IOPS", c.IOPSMax)
	}
	if c.BandwidthMax != sim.Rate((121651+123386)*1024) {
		t.Errorf("bandwidth_max = %v", c.BandwidthMax)
	}
	if c.WriteLatency.Kind != "empirical" || c.ReadLatency.Kind != "empirical" || c.FlushLatency.Kind != "empirical" {
		t.Fatalf("latency kinds %s %s %s", c.ReadLatency.Kind, c.WriteLatency.Kind, c.FlushLatency.Kind)
	}
	// Write latency comes from the iodepth-1 job: its p50 is 11,328 ns.
	d, _ := c.WriteLatency.Dist()
	if got := d.Quantile(0.5); got != 11328 {
		t.Errorf("write p50 = %v ns, want 11328 (job qd1)", got)
	}
	// fio's p99.99 (166,912) lies past its max (165,942): clamped.
	if pts := c.WriteLatency.Points; pts[len(pts)-1].Value != 165942 || pts[len(pts)-2].Value > 165942 {
		t.Errorf("tail points %v", pts[len(pts)-3:])
	}
	f, _ := c.FlushLatency.Dist()
	if got := f.Quantile(0.5); got != 280576 {
		t.Errorf("flush p50 = %v, want the fsync p50 280576", got)
	}
	if !strings.Contains(strings.Join(cal.Notes, "\n"), "read_latency: WARNING: measured at iodepth 8") {
		t.Error("no warning that read latency came from an iodepth-8 job")
	}
	if err := c.Validate(); err != nil {
		t.Error(err)
	}
}

// The preset written from a calibration decodes back to the same config.
func TestCalibratePresetRoundTrip(t *testing.T) {
	out, err := CalibratePreset(fixture(t), "local-fio")
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		Description string      `toml:"description"`
		Volume      disk.Config `toml:"volume"`
	}
	md, err := toml.Decode(string(out), &f)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if und := md.Undecoded(); len(und) > 0 {
		t.Fatalf("undecoded %v", und)
	}
	want, _ := Calibrate(fixture(t))
	want.Name = "local-fio"
	if diff := cmp.Diff(want, f.Volume); diff != "" {
		t.Errorf("round trip (-want +got):\n%s", diff)
	}
	// Every preset in the library round-trips too, and one with a
	// server's blkio throttle (its [volume.throttle] sub-table).
	for _, name := range []string{"gp2-100GiB", "hdd-7200", "network-15k-120MBps", "throttled"} {
		var p disk.Config
		if name == "throttled" {
			p = preset(t, "network-15k-120MBps")
			p.Throttle = disk.Throttle{WriteBPS: 54 * sim.Rate(sim.MB), WriteIOPS: 6750, ReadBPS: 54 * sim.Rate(sim.MB)}
		} else {
			p = preset(t, name)
		}
		var b strings.Builder
		if err := disk.WritePreset(&b, p, "x"); err != nil {
			t.Fatal(err)
		}
		var g struct {
			Description string      `toml:"description"`
			Volume      disk.Config `toml:"volume"`
		}
		if _, err := toml.Decode(b.String(), &g); err != nil {
			t.Fatalf("%s: %v\n%s", name, err, b.String())
		}
		if diff := cmp.Diff(p, g.Volume); diff != "" {
			t.Errorf("%s round trip (-want +got):\n%s", name, diff)
		}
	}
}

// Calibrate, then run the measured job on the calibrated volume: the
// simulated latencies reproduce the measured ones.
func TestCalibratedVolumeReproducesFio(t *testing.T) {
	cfg, err := Calibrate(fixture(t))
	if err != nil {
		t.Fatal(err)
	}
	job := DefaultConfig()
	job.Name, job.BS, job.IODepth, job.Fsync, job.Size = "qd1-randwrite-fsync", 4*sim.KiB, 1, 1, 64*sim.MiB
	m := runJob(t, cfg, job, 10*time.Second, 1)
	// Measured: write clat p50 11.328 us, fsync p50 280.576 us, 3,113 write IOPS.
	for _, c := range []struct {
		path string
		want float64
		tol  float64
	}{
		{"write.clat_ms.p50", 0.011328, 0.03},
		{"sync.lat_ms.p50", 0.280576, 0.03},
		{"write.iops", 3113.4, 0.05},
	} {
		if got := get(m, c.path); !near(got, c.want, c.tol) {
			t.Errorf("%s = %.6g, measured %.6g", c.path, got, c.want)
		}
	}
}

func TestCalibrateErrors(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"not json", `fio: no JSON object in the file: want fio's --output-format=json output, which starts with '{'; it starts with "not json"`},
		{"", "no JSON object in the file"},
		{"note: fio said something\n{\"jobs\": [", "not fio JSON output (--output-format=json)"},
		{"fio: some warning\n  {\"jobs\": []}\nfio: trailing line\n", "no jobs"},
		{`{"jobs": []}`, "no jobs"},
		{`{"jobs": [{"jobname": "a", "read": {}, "write": {}}]}`, "no job did any I/O"},
		{`{"jobs": [{"jobname": "a", "error": 5}]}`, `job "a" reported error 5`},
		{`{"jobs": [{"jobname": "a", "write": {"iops": 10, "bw": 40, "total_ios": 10, "clat_ns": {"min": 5, "max": 9, "percentile": {"abc": 7}}}}]}`, `bad percentile key "abc"`},
	} {
		if _, err := Calibrate([]byte(tc.in)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Calibrate(%s) = %v, want %q", tc.in, err, tc.want)
		}
	}
}

// TestCalibrateFromEnv calibrates from the fio JSON named by
// SIMRUN_FIO_JSON (CI runs fio on its own machine and points here), and
// checks the preset it writes decodes and validates. Skipped when unset.
func TestCalibrateFromEnv(t *testing.T) {
	path := os.Getenv("SIMRUN_FIO_JSON")
	if path == "" {
		t.Skip("SIMRUN_FIO_JSON not set")
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	out, err := CalibratePreset(b, "ci-local")
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		Description string      `toml:"description"`
		Volume      disk.Config `toml:"volume"`
	}
	md, err := toml.Decode(string(out), &f)
	if err != nil || len(md.Undecoded()) > 0 {
		t.Fatalf("%v %v\n%s", err, md.Undecoded(), out)
	}
	if err := f.Volume.Validate(); err != nil {
		t.Fatal(err)
	}
	t.Logf("calibrated: %v IOPS, %v, write mean %v", f.Volume.IOPSMax, f.Volume.BandwidthMax, sim.Duration(f.Volume.WriteLatency.MeanDuration()))
}

// fio 3.33 leaves sync.total_ios at 0 for an fdatasync=N job and counts the
// calls only in sync.lat_ns.N: the flush latency must still come from it
// (testdata/README). The fixture's first job ran fdatasync=1, the second
// fsync=1.
func TestCalibrateFdatasync(t *testing.T) {
	b, err := os.ReadFile("testdata/fio-fdatasync.json")
	if err != nil {
		t.Fatal(err)
	}
	cal, err := CalibrateDetail(b)
	if err != nil {
		t.Fatal(err)
	}
	f, _ := cal.Config.FlushLatency.Dist()
	if got := f.Quantile(0.5); got != 148480 {
		t.Errorf("flush p50 = %v ns, want the fdatasync job's p50 148480 (the fsync job's is 75264)", got)
	}
	notes := strings.Join(cal.Notes, "\n")
	if !strings.Contains(notes, `flush_latency: fdatasync latency of job "fds" (fdatasync=1, 11460 syncs`) {
		t.Errorf("notes do not name the fdatasync job:\n%s", notes)
	}
	// Without the lat_ns fallback the job has no syncs: the fsync job's
	// total_ios is the count fio reports for fsync=N.
	var j fioJob
	j.Sync.TotalIOs, j.Sync.Lat.N = 6297, 6297
	if j.syncs() != 6297 {
		t.Errorf("fsync job syncs = %d", j.syncs())
	}
	j.Sync.TotalIOs, j.Sync.Lat.N = 0, 11460
	if j.syncs() != 11460 {
		t.Errorf("fdatasync job syncs = %d, want lat_ns.N", j.syncs())
	}
}

// With two iodepth-1 direct write jobs of different block sizes (the
// realdb host's scripts/realdb/fio.sh run: 16 KiB random writes, 4 KiB
// writes in its fdatasync job) the volume's write latency grows with the
// size: transfer_rate is the size difference over the mean difference, and
// the calibrated volume gives each block size the mean fio measured.
func TestCalibrateTransferRateFromTwoSizes(t *testing.T) {
	b, err := os.ReadFile("../../docs/data/realdb/fio-2vcpu-idle.json")
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := Calibrate(b)
	if err != nil {
		t.Fatal(err)
	}
	const mean4, mean16 = 34.8e-3, 58.8e-3 // ms: the jobs' write clat means (fdatasync, wr-qd1)
	if want := 12 * 1024 / (mean16 - mean4) * 1e3; !near(float64(cfg.TransferRate), want, 0.01) {
		t.Errorf("transfer_rate %v, want about %.0f B/s", cfg.TransferRate, want)
	}
	for _, c := range []struct {
		bs   sim.Bytes
		want float64
	}{{4 * sim.KiB, mean4}, {16 * sim.KiB, mean16}} {
		job := DefaultConfig()
		job.Name, job.BS, job.IODepth, job.Size = "qd1-randwrite", c.bs, 1, 64*sim.MiB
		m := runJob(t, cfg, job, 5*time.Second, 1)
		if got := get(m, "write.clat_ms.mean"); !near(got, c.want, 0.05) {
			t.Errorf("bs %v: simulated write mean %.4f ms, fio measured %.4f ms", c.bs, got, c.want)
		}
	}
}

// fio 3.33 writes a note ahead of its JSON when a synchronous engine is
// given iodepth > 1, and `fio ... > fio.json` keeps it: calibrate skips it
// (and keeps it as a note). The job ran psync at iodepth=4, so one I/O was
// in flight: no queueing warning. It ran buffered (direct=0, no fsync): the
// values it gave are flagged as the page cache's (testdata/README).
func TestCalibrateBufferedSyncEngine(t *testing.T) {
	b, err := os.ReadFile("testdata/fio-psync-qd4-buffered.json")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(b), "note: ") {
		t.Fatal("the fixture no longer starts with fio's note line")
	}
	cal, err := CalibrateDetail(b)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"fio said: note: both iodepth >= 1 and synchronous I/O engine are selected, queue depth will be capped at 1",
		`iops_max = 158301: highest read+write IOPS, job "n" (a lower bound of the cap)`,
		`bandwidth_max = 633201KiB/s: highest read+write bandwidth, job "n" (a lower bound of the cap)`,
		"read_latency: no job did reads; kept the default " + disk.DefaultConfig().ReadLatency.String(),
		`write_latency: clat_ns percentiles of job "n" (iodepth 1, bs 4k, mean 3.3us)`,
		`write_latency: job "n" set iodepth=4, but psync is a synchronous engine: one I/O in flight, so no queueing`,
		`iops_max, bandwidth_max and write_latency: WARNING: job "n" ran buffered (direct=0 and no fsync, fdatasync or sync), so it measured the page cache, not the device; run it with --direct=1`,
		"flush_latency: no job ran with fsync=N or fdatasync=N; kept the default " + disk.DefaultConfig().FlushLatency.String(),
	}
	if d := cmp.Diff(want, cal.Notes); d != "" {
		t.Errorf("notes (-want +got):\n%s", d)
	}
	if cal.Config.QueueDepth != disk.DefaultConfig().QueueDepth {
		t.Errorf("queue_depth %d: a psync job keeps one I/O in flight", cal.Config.QueueDepth)
	}
}

// Which jobs count as buffered, and how many I/Os a job thread keeps in
// flight for each engine.
func TestJobBufferedAndDepth(t *testing.T) {
	for _, tc := range []struct {
		reason   string
		opts     map[string]string
		buffered bool
		depth    int
	}{
		{"fio's defaults: psync, direct=0", map[string]string{}, true, 1},
		{"psync ignores iodepth", map[string]string{"ioengine": "psync", "iodepth": "8"}, true, 1},
		{"pvsync2 is synchronous", map[string]string{"ioengine": "pvsync2", "iodepth": "8", "direct": "1"}, false, 1},
		{"libaio queues", map[string]string{"ioengine": "libaio", "iodepth": "8", "direct": "1"}, false, 8},
		{"io_uring queues", map[string]string{"ioengine": "io_uring", "iodepth": "16"}, true, 16},
		{"fsync=1 forces the data out", map[string]string{"fsync": "1"}, false, 1},
		{"fdatasync=4 too", map[string]string{"fdatasync": "4"}, false, 1},
		{"sync=1 is O_SYNC", map[string]string{"sync": "1"}, false, 1},
		{"sync=dsync is O_DSYNC", map[string]string{"sync": "dsync"}, false, 1},
		{"sync=none is buffered", map[string]string{"sync": "none"}, true, 1},
	} {
		j := fioJob{Options: tc.opts}
		if got := j.buffered(nil); got != tc.buffered {
			t.Errorf("%s: buffered = %v", tc.reason, got)
		}
		if got := j.depth(nil); got != tc.depth {
			t.Errorf("%s: depth = %d, want %d", tc.reason, got, tc.depth)
		}
	}
	// A global option counts as the job's.
	j := fioJob{Options: map[string]string{"iodepth": "4"}}
	if !j.buffered(map[string]string{"direct": "0"}) || j.buffered(map[string]string{"direct": "1"}) || j.depth(map[string]string{"ioengine": "libaio"}) != 4 {
		t.Error("global options ignored")
	}
}
