package realdb

import (
	"encoding/json"
	"math"
	"os"
	"simrun/model/engine"
	"simrun/model/fio"
	"simrun/sim"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// run builds a synthetic run with round numbers.
func run(binlog bool, sb, flush, threads int, tps float64) Run {
	var r Run
	r.Setting = Setting{Binlog: binlog, Flush: flush, Threads: threads}
	if binlog {
		r.Setting.SyncBinlog = &sb
	}
	r.Sysbench.Transactions = int64(tps * 10)
	r.Sysbench.Queries = 6 * r.Sysbench.Transactions
	r.Sysbench.TPS = tps
	r.Sysbench.Seconds = 10
	if tps > 0 {
		r.Sysbench.Latency = map[string]float64{"avg": 1000 / tps, "p95_sysbench": 2000 / tps}
	}
	return r
}

func TestDerive(t *testing.T) {
	r := run(true, 1, 1, 16, 1000)
	r.Status = map[string]float64{
		"Innodb_data_fsyncs": 2500, "Innodb_lsn_current": 20e6, "Innodb_os_log_written": 25e6,
		"Binlog_commits": 10000, "Binlog_group_commits": 2000, "Binlog_bytes_written": 21.5e6,
		"Innodb_buffer_pool_pages_flushed": 500, "Innodb_buffer_pool_pages_LRU_flushed": 100, "Innodb_buffer_pool_wait_free": 20,
	}
	r.Samples = []map[string]float64{{"innodb_checkpoint_age": 30e6}, {"innodb_checkpoint_age": 50e6}}
	r.Disk = map[string]int64{"flushes": 4500, "writes": 9000, "sectors_written": 200000} // device writes: 9000 less the 4500 flushes
	r.CPU.ServerUser, r.CPU.ServerSys, r.CPU.ClientUser, r.CPU.ClientSys = 3, 1, 0.5, 0.5
	// 10 s of 1 CPU-second ticks at 100 Hz: 8 s busy, of which the
	// processes' 5 s are their own, 3 s the others' (30 %).
	r.CPU.MachineTicks = map[string]int64{"user": 500, "system": 300, "idle": 100, "steal": 100}
	r.CPU.ClkTck = 100
	// Of the others' 3 s, kernel threads took 0.5 s: 5 % of the 10 s.
	r.KernelThreads = map[string]float64{"kdamond": 0.4, "kworker": 0.1}
	r.Load = []float64{7.5, 3, 1}
	want := Figures{
		TPS: 1000, LatencyAvgMs: 1, LatencyP95Ms: 2,
		FlushesPerTx: 0.45, WritesPerTx: 0.45, WriteKBPerTx: 10, RedoSyncsPerTx: 0.25, TxPerRedoSync: 4,
		BinlogGroupsTx: 0.2, TxPerGroup: 5, RedoBytesTx: 2000, RedoWrittenTx: 2500, BinlogBytesTx: 2150,
		PagesFlushedTx: 0.05, ServerCPUUs: 400, ServerSysUs: 100, ClientCPUUs: 100, QueriesPerTx: 6,
		StealPct: 10, BusyPct: 80, OtherCPUPct: 30, KernelThreadsPct: 5, BackgroundPct: 4, Load: 7.5, LRUFlushedTx: 0.01, WaitFreeTx: 0.002, CkptAgeMeanMB: 40, CkptAgeMaxMB: 50,
	}
	if diff := cmp.Diff(want, r.Derive(), cmpopts.EquateApprox(1e-12, 0)); diff != "" {
		t.Errorf("Derive (-want +got):\n%s", diff)
	}
}

func TestLoadErrors(t *testing.T) {
	ok := Doc{Schema: Schema, Runs: []Run{run(false, 0, 0, 1, 100)}}
	good, _ := json.Marshal(ok)
	if _, err := Load(good); err != nil {
		t.Fatalf("good document: %v", err)
	}
	empty := ok
	empty.Runs = []Run{run(false, 0, 1, 1, 0)}
	noTx, _ := json.Marshal(empty)
	for _, tc := range []struct {
		in   string
		want string
	}{
		{"{", "not a harness JSON document"},
		{`{"schema": "other"}`, `schema "other"`},
		{`{"schema": "simrun-realdb/1"}`, "no runs"},
		{string(noTx), "run 0 (off/flush=1, 1 threads) has no transactions"},
	} {
		if _, err := Load([]byte(tc.in)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Load(%.40s) = %v, want %q", tc.in, err, tc.want)
		}
	}
}

func TestSummariseOrderAndRanges(t *testing.T) {
	d := Doc{Schema: Schema, Runs: []Run{
		run(true, 1, 1, 1, 300), run(false, 0, 1, 16, 900), run(false, 0, 0, 1, 1000),
		run(false, 0, 0, 1, 1200), run(true, 0, 1, 1, 500),
	}}
	var got []string
	pts := d.Summarise()
	for _, p := range pts {
		got = append(got, CaseName(p.Setting))
	}
	if diff := cmp.Diff([]string{"off-f0-t1", "off-f1-t16", "sb0-f1-t1", "sb1-f1-t1"}, got); diff != "" {
		t.Errorf("order (-want +got):\n%s", diff)
	}
	r := pts[0].Range(func(f Figures) float64 { return f.TPS })
	if r != (Range{Min: 1000, Mean: 1100, Max: 1200}) {
		t.Errorf("range %+v", r)
	}
	if _, ok := Find(pts, true, 1, 1, 1); !ok {
		t.Error("Find sb1-f1-t1")
	}
	if _, ok := Find(pts, true, 1, 0, 1); ok {
		t.Error("Find found a point that is not there")
	}
}

// Each rule passes inside its threshold and fails just outside.
func TestCompareRules(t *testing.T) {
	mk := func(binlog bool, sb, fl, th int, meas, pred Figures) Prediction {
		s := Setting{Binlog: binlog, Flush: fl, Threads: th}
		if binlog {
			s.SyncBinlog = &sb
		}
		return Prediction{Point: Point{Setting: s, Runs: []Figures{meas}}, Predicted: pred}
	}
	base := Figures{TPS: 2000, FlushesPerTx: 0.01, ServerCPUUs: 300, ClientCPUUs: 100}
	// 1 thread, flush=1: measured 1000 TPS = 500 us more per tx than the base.
	m1 := Figures{TPS: 1000, FlushesPerTx: 1.0, ServerCPUUs: 350, ClientCPUUs: 100}
	for _, tc := range []struct {
		name string
		pred Figures
		pass map[string]bool
	}{
		{"all within", Figures{TPS: 1 / (1/2000.0 + 600e-6), FlushesPerTx: 1.04, ServerCPUUs: 530},
			map[string]bool{"device flushes/tx": true, "CPU us/tx": true, "sync cost us/tx": true}},
		{"all outside", Figures{TPS: 1 / (1/2000.0 + 700e-6), FlushesPerTx: 1.06, ServerCPUUs: 545},
			map[string]bool{"device flushes/tx": false, "CPU us/tx": false, "sync cost us/tx": false}},
	} {
		cs := Compare([]Prediction{mk(false, 0, 0, 1, base, base), mk(false, 0, 1, 1, m1, tc.pred)})
		got := map[string]bool{}
		for _, c := range cs {
			if c.Setting == "off/flush=1" {
				got[c.Name] = c.Pass
			}
		}
		if diff := cmp.Diff(tc.pass, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s\n%s", tc.name, diff, Report(cs))
		}
	}
	// 16 threads: groups within 35 %, TPS cost within a factor 1.5.
	n0 := Figures{TPS: 3000}
	n1 := Figures{TPS: 1500, RedoSyncsPerTx: 0.1, TxPerRedoSync: 10}
	for _, tc := range []struct {
		pred      Figures
		group, tp bool
	}{
		{Figures{TPS: 1990, TxPerRedoSync: 13.4}, true, true},   // cost 0.337 vs 0.5: within x1.5
		{Figures{TPS: 2100, TxPerRedoSync: 13.6}, false, false}, // cost 0.3: below 1/1.5 of 0.5
		{Figures{TPS: 1000, TxPerRedoSync: 6.6}, true, true},    // cost 2/3 vs 1/2: within x1.5
		{Figures{TPS: 700, TxPerRedoSync: 6.4}, false, false},   // cost 0.77 > 0.75
	} {
		cs := Compare([]Prediction{mk(false, 0, 0, 16, n0, n0), mk(false, 0, 1, 16, n1, tc.pred)})
		got := map[string]bool{}
		for _, c := range cs {
			got[c.Name] = c.Pass
		}
		want := map[string]bool{"tx per redo sync": tc.group, "TPS cost of flush=1": tc.tp}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("pred %+v (-want +got):\n%s\n%s", tc.pred, diff, Report(cs))
		}
	}
}

func TestPredictReadsMetrics(t *testing.T) {
	m := map[string]any{
		"tps": 500.0, "transactions": int64(5000),
		"latency_ms":   map[string]any{"avg": 2.0, "p95": 4.0},
		"disk":         map[string]any{"flushes_per_s": 1000.0, "writes_per_s": 1500.0, "write_kB_per_s": 5000.0},
		"tx_per_group": map[string]any{"redo_syncs": int64(2400), "binlog_grps": int64(1000), "binlog": 5.0},
		"fsyncs":       int64(3500), "commit_fsyncs": map[string]any{"redo": int64(2400), "binlog": int64(1000)},
		"redo_lsn_bytes": int64(10e6), "redo_bytes": int64(12e6), "binlog_bytes": int64(10.75e6),
		"pages_flushed_per_tx": 0.5, "cpu_util_pct": 50.0,
		"threads": map[string]any{"flush_dispatch_us_per_tx": 40.0},
	}
	got := Predict(m, 2)
	want := Figures{TPS: 500, LatencyAvgMs: 2, LatencyP95Ms: 4, FlushesPerTx: 2, WritesPerTx: 3, WriteKBPerTx: 10,
		RedoSyncsPerTx: 0.5, TxPerRedoSync: 2, BinlogGroupsTx: 0.2, TxPerGroup: 5, RedoBytesTx: 2000, RedoWrittenTx: 2400,
		BinlogBytesTx: 2150, PagesFlushedTx: 0.5, ServerCPUUs: 2000 - 40, BusyPct: 50} // the kernel worker's CPU is no process's
	if diff := cmp.Diff(want, got, cmpopts.EquateApprox(1e-12, 0)); diff != "" {
		t.Errorf("Predict (-want +got):\n%s", diff)
	}
	if g := Predict(map[string]any{}, 2); g.TPS != 0 || math.IsNaN(g.FlushesPerTx) {
		t.Errorf("empty metrics: %+v", g)
	}
}

func FuzzLoad(f *testing.F) {
	f.Add([]byte(`{"schema":"simrun-realdb/1","runs":[{"setting":{"threads":1},"sysbench":{"transactions":5,"total_time_s":1}}]}`))
	f.Add([]byte(`{"schema":"simrun-realdb/1","runs":[]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		d, err := Load(b)
		if err != nil {
			return
		}
		for _, p := range d.Summarise() {
			_ = p.Range(func(f Figures) float64 { return f.FlushesPerTx })
		}
		_, _ = Calibrate(d, nil)
	})
}

// The caps table lists capped points only, one row each, cap in MB/s.
func TestCapsMarkdown(t *testing.T) {
	capped := run(true, 1, 1, 16, 500)
	capped.Cap = &struct {
		BPS  int64 `json:"bps"`
		IOPS int64 `json:"iops"`
	}{54000000, 6750}
	d := Doc{Schema: Schema, Runs: []Run{run(true, 1, 1, 16, 900), capped}}
	md := CapsMarkdown(d.Summarise())
	if n := strings.Count(md, "\n"); n != 3 {
		t.Errorf("%d lines, want header, rule and one row:\n%s", n, md)
	}
	if !strings.Contains(md, "| 54 MB/s, 6750 IOPS | 500 |") {
		t.Errorf("row:\n%s", md)
	}
}

// TestKernelScheduler: the host kernel's release picks the scheduler.
func TestKernelScheduler(t *testing.T) {
	tests := []struct {
		release string
		sched   string
		delay   bool
		err     bool
	}{
		{"6.18.44-fc-v669", "eevdf", true, false},
		{"6.12.0", "eevdf", true, false},
		{"6.8.0-45-generic", "eevdf", false, false},
		{"6.6.1", "eevdf", false, false},
		{"6.1.0-28-amd64", "wake_first", false, false}, // Debian 12's kernel: CFS
		{"5.15.0-200.el8uek", "wake_first", false, false},
		{"7.0", "eevdf", true, false},
		{"", "", false, true},
		{"linux", "", false, true},
	}
	for _, tc := range tests {
		s, d, err := KernelScheduler(tc.release)
		if (err != nil) != tc.err || s != tc.sched || d != tc.delay {
			t.Errorf("KernelScheduler(%q) = %q, %v, %v; want %q, %v, error %v", tc.release, s, d, err, tc.sched, tc.delay, tc.err)
		}
	}
}

// TestTimestampTick: one jiffy of the recorded CONFIG_HZ, else Debian's.
func TestTimestampTick(t *testing.T) {
	for _, tc := range []struct {
		hz   int
		want time.Duration
	}{{250, 4 * time.Millisecond}, {1000, time.Millisecond}, {100, 10 * time.Millisecond}, {300, 3333333}, {0, 4 * time.Millisecond}, {50, 4 * time.Millisecond}} {
		if got, _ := TimestampTick(tc.hz); got.D() != tc.want {
			t.Errorf("TimestampTick(%d) = %v, want %v", tc.hz, got, tc.want)
		}
	}
}

// TestBinlogSyncCPU: sync_binlog=1, flush=1 against 0/0 adds one redo sync
// and the binlog syncs; the binlog's CPU is what the redo's leaves.
func TestBinlogSyncCPU(t *testing.T) {
	pt := func(cpu, flushes float64) Point {
		return Point{Runs: []Figures{{ServerCPUUs: cpu - 10, FlushesPerTx: flushes}, {ServerCPUUs: cpu + 10, FlushesPerTx: flushes}}}
	}
	for _, tc := range []struct {
		name string
		with Point
		want time.Duration
	}{
		{"one binlog sync", pt(250+150+200, 2.01), 200 * time.Microsecond},
		{"two binlog syncs", pt(250+150+400, 3.01), 200 * time.Microsecond},
		{"no binlog sync", pt(250+150, 1.01), 0},
	} {
		if got := binlogSyncCPU(pt(250, 0.01), tc.with, 150*time.Microsecond); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}

// Calibration warns when the base runs shared their vCPUs, and only then:
// the committed quiet matrix's second base run had nice-19 builds on the
// machine (others 68 %); with the others' ticks taken out of both runs
// the warning goes.
func TestCalibrateWarnsSharedCPU(t *testing.T) {
	raw, fioJSON := quietData(t)
	warned := func(d *Doc) bool {
		c, err := Calibrate(d, fioJSON)
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range c.Notes {
			if strings.HasPrefix(n, "warning: the base runs shared the vCPUs") {
				return true
			}
		}
		return false
	}
	d, err := Load(raw)
	if err != nil {
		t.Fatal(err)
	}
	if !warned(d) {
		t.Error("no warning for base runs with others' CPU at 4 and 68 %")
	}
	for i := range d.Runs {
		r := &d.Runs[i]
		if s := r.Setting; s.Binlog || s.Flush != 0 || s.Threads != 1 {
			continue
		}
		// The machine's busy ticks become exactly the two processes' CPU.
		tk := r.CPU.MachineTicks
		own := int64((r.CPU.ServerUser + r.CPU.ServerSys + r.CPU.ClientUser + r.CPU.ClientSys) * float64(r.CPU.ClkTck))
		busy := tk["user"] + tk["nice"] + tk["system"] + tk["irq"] + tk["softirq"]
		tk["idle"] += busy - own
		tk["user"], tk["nice"], tk["system"], tk["irq"], tk["softirq"] = own, 0, 0, 0, 0
		if f := r.Derive(); f.OtherCPUPct > 0.1 {
			t.Fatalf("test set-up: others' CPU %.2f %%, want 0", f.OtherCPUPct)
		}
	}
	if warned(d) {
		t.Error("warning for base runs that had the vCPUs to themselves")
	}
}

// A run's age counts the --age slices, the earlier runs, each run's own
// warm-up at its TPS and each server start's warm-up at the TPS of that
// server's runs at its most threads; a new pass or binlog mode is a new
// server.
func TestRunAges(t *testing.T) {
	var d Doc
	d.Args.Warmup, d.Args.ServerWarmup = 2, 10
	d.Age.Slices = append(d.Age.Slices, struct {
		Transactions float64 `json:"transactions"`
	}{1000})
	run := func(rep int, binlog bool, threads int, tps float64, tx int64) Run {
		var r Run
		r.Repeat, r.Setting.Binlog, r.Setting.Threads = rep, binlog, threads
		r.Sysbench.TPS, r.Sysbench.Transactions = tps, tx
		return r
	}
	d.Runs = []Run{
		run(0, false, 1, 100, 500),   // server start: 10 s x 300 (the 16-thread run's TPS)
		run(0, false, 16, 300, 3000), // same server
		run(0, true, 16, 200, 2000),  // new server: 10 s x 200
		run(1, true, 16, 250, 2500),  // new pass, new server: 10 s x 250
	}
	got := d.RunAges()
	want := []float64{
		1000 + 3000 + 2*100,
		1000 + 3000 + 200 + 500 + 2*300,
		1000 + 3000 + 200 + 500 + 600 + 3000 + 2000 + 2*200,
		1000 + 3000 + 200 + 500 + 600 + 3000 + 2000 + 400 + 2000 + 2500 + 2*250,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("RunAges (-want +got):\n%s", diff)
	}
}

// The wake-up probe, when the harness ran it, sets engine.cpu.wakeup to
// the median same-vCPU figure and machine.idle_wake to what the
// cross-vCPU median costs beyond it; the per-I/O CPUs measured at 1 thread
// lose the wake-ups the model charges apart there (on the idle vCPU: both
// parts): one for a write, syncWakes for a sync; without the probe they
// lose the model's assumed wake-ups. The statements and the client lose
// one idle wake-up a query each (the request wakes the server, the reply
// the client). A probe with no same-vCPU runs keeps the cross-vCPU figure
// whole as engine.cpu.wakeup, with no idle_wake.
func TestCalibrateWakeProbe(t *testing.T) {
	w := &WakeProbe{
		Before: []WakeRun{{Pin: "0/1", CPUUs: 13}, {Pin: "0/1", CPUUs: 15}, {Pin: "0/0", CPUUs: 8}},
		After:  []WakeRun{{Pin: "0/1", CPUUs: 14}, {Pin: "0/1", CPUUs: 30}},
	}
	if got, n := w.CrossCPU(); got != 14.5 || n != 4 {
		t.Errorf("CrossCPU = %v over %d runs, want 14.5 over 4 (the 0/0 run left out)", got, n)
	}
	if _, n := (*WakeProbe)(nil).CrossCPU(); n != 0 {
		t.Errorf("a document without a probe has %d runs", n)
	}
	raw, fioJSON := quietData(t)
	d, err := Load(raw)
	if err != nil {
		t.Fatal(err)
	}
	plain := mustCalibrate(t, d, fioJSON)
	d.WakeProbe = &WakeProbe{Before: w.Before[:2], After: w.After}
	crossOnly := mustCalibrate(t, d, fioJSON)
	if got := crossOnly.Engine.CPU.Wakeup.D(); got != 14500*time.Nanosecond || crossOnly.IdleWake != 0 {
		t.Errorf("cross-vCPU runs only: wakeup %v, idle_wake %v; want 14.5us and 0", got, crossOnly.IdleWake)
	}
	d.WakeProbe = w
	probed := mustCalibrate(t, d, fioJSON)
	wake := 14500 * time.Nanosecond // what a wake-up costs at 1 thread: switch + IPI
	if got := probed.Engine.CPU.Wakeup.D(); got != 8*time.Microsecond || probed.IdleWake != 6500*time.Nanosecond {
		t.Errorf("wakeup %v, idle_wake %v; want 8us and 6.5us", got, probed.IdleWake)
	}
	q := plain.Base.QueriesPerTx
	stmts := func(c Calibration) float64 {
		e, wl := c.Engine.CPU, c.Client
		return float64(e.Begin + e.Commit + sim.Duration(wl.IndexUpdates)*e.UpdateIndex + sim.Duration(wl.NonIndexUpdates)*e.UpdateNonIndex +
			sim.Duration(wl.DeleteInserts)*(e.Delete+e.Insert))
	}
	// Server and client together lose two idle wake-ups a query.
	got := stmts(probed) + q*float64(probed.Client.ClientCPU)
	want := stmts(plain) + q*float64(plain.Client.ClientCPU) - 2*q*6500
	if math.Abs(got-want) > 50 {
		t.Errorf("server + client %.0f ns a transaction with the probe, want %.0f (%.0f idle wake-ups less)", got, want, 2*q)
	}
	if r := stmts(probed) / stmts(plain); math.Abs(r-float64(probed.Client.ClientCPU)/float64(plain.Client.ClientCPU)) > 0.01 {
		t.Errorf("the server keeps %.3f of its CPU and the client %.3f: want the same share", r, float64(probed.Client.ClientCPU)/float64(plain.Client.ClientCPU))
	}
	if plain.Commit.CPU.Write == 0 || plain.Commit.CPU.BinlogSync == 0 {
		t.Fatalf("test set-up: the quiet matrix gives write %v, binlog_sync %v", plain.Commit.CPU.Write, plain.Commit.CPU.BinlogSync)
	}
	b0, ok0 := Find(d.Summarise(), true, 0, 0, 1)
	b1, ok1 := Find(d.Summarise(), true, 1, 0, 1)
	if !ok0 || !ok1 {
		t.Fatal("test set-up: the quiet matrix has no binlog 0/0 and 1/0 runs at 1 thread")
	}
	syncs := syncWakes(b0, b1)
	for _, x := range []struct {
		key          string
		plain, probe time.Duration
		wakes        float64
	}{
		{"write", plain.Commit.CPU.Write.D(), probed.Commit.CPU.Write.D(), 1},
		{"binlog_sync", plain.Commit.CPU.BinlogSync.D(), probed.Commit.CPU.BinlogSync.D(), syncs},
	} {
		assumed := plain.Engine.CPU.Wakeup.D()
		if assumed != engine.DefaultConfig().CPU.Wakeup.D() {
			t.Errorf("wakeup without the probe %v, want the engine's default", assumed)
		}
		want := time.Duration(math.Round(x.wakes*float64(wake))) - time.Duration(math.Round(x.wakes*float64(assumed)))
		if x.plain-x.probe != want {
			t.Errorf("commit.cpu.%s: %v without the probe, %v with it; want %.2f wake-ups of %v rather than of %v (%v) less", x.key, x.plain, x.probe, x.wakes, wake, assumed, want)
		}
	}
	// fio's iodepth-1 latencies end with its thread's wake-up, which the
	// model charges apart after the commit path's writes and flushes: each
	// of their quantiles loses the wake-up, the probe's (14.5 us) with it
	// and the assumed one (10 us) without, at least 0; the read latency,
	// whose wait the model charges no wake-up for, keeps fio's.
	fc, err := fio.CalibrateDetail(fioJSON)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range []struct {
		key                string
		fio, plain, probed sim.DistSpec
	}{
		{"write", fc.Config.WriteLatency, plain.Volume.WriteLatency, probed.Volume.WriteLatency},
		{"flush", fc.Config.FlushLatency, plain.Volume.FlushLatency, probed.Volume.FlushLatency},
	} {
		for i, p := range v.fio.Points {
			for _, c := range []struct {
				got  float64
				wake time.Duration
			}{{v.plain.Points[i].Value, plain.Engine.CPU.Wakeup.D() + plain.IdleWake}, {v.probed.Points[i].Value, wake}} {
				if want := math.Max(0, p.Value-float64(c.wake)); c.got != want {
					t.Errorf("%s_latency quantile %v: %v ns, want fio's %v less a wake-up of %v", v.key, p.P, c.got, p.Value, c.wake)
				}
			}
		}
	}
	if diff := cmp.Diff(fc.Config.ReadLatency, probed.Volume.ReadLatency); diff != "" {
		t.Errorf("read_latency moved (-fio +calibrated):\n%s", diff)
	}
	// A binlog sync on an appending file waits for its write and for the
	// jbd2 commit's writes: two device writes per flush, the model's cap.
	if syncs != 3 {
		t.Errorf("syncWakes(binlog 0/0, 1/0) = %.2f, want 3 (one after the call, two sleeps before its flush)", syncs)
	}
}

// quietData is the committed "quiet" matrix and its fio run.
// mustCalibrate is Calibrate for a document a test knows to be good.
func mustCalibrate(t *testing.T, d *Doc, fio []byte) Calibration {
	t.Helper()
	c, err := Calibrate(d, fio)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func quietData(t *testing.T) (harness, fio []byte) {
	t.Helper()
	var err error
	if harness, err = os.ReadFile("../../docs/data/realdb/matrix-2vcpu-10x100k-quiet.json"); err != nil {
		t.Fatal(err)
	}
	if fio, err = os.ReadFile("../../docs/data/realdb/fio-2vcpu-quiet.json"); err != nil {
		t.Fatal(err)
	}
	return harness, fio
}

// A document that carries its fio run (harness --fio) calibrates as if the
// same fio JSON were given beside it; one with neither is refused, naming
// the way out.
func TestCalibrateEmbeddedFio(t *testing.T) {
	raw, fioJSON := quietData(t)
	d, err := Load(raw)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Calibrate(d, nil); err == nil || !strings.Contains(err.Error(), "--fio") {
		t.Errorf("no fio at all: err %v, want one naming harness --fio", err)
	}
	given := mustCalibrate(t, d, fioJSON)
	d.Fio = fioJSON
	kept := mustCalibrate(t, d, nil)
	if diff := cmp.Diff(given, kept, cmpopts.IgnoreFields(Calibration{}, "Notes")); diff != "" {
		t.Errorf("the kept fio run calibrates differently (-given +kept):\n%s", diff)
	}
	if len(kept.Notes) != len(given.Notes)+1 || !strings.Contains(strings.Join(kept.Notes, "\n"), "harness --fio") {
		t.Errorf("the kept fio run is not noted: %q", kept.Notes)
	}
}

// TestCacheRefillCalibration: the refill comes from the 16-thread runs with
// no sync (the aged matrix: 293.8 -> 373.3 us over 6 queries); a capped
// document, whose base runs are at 1 thread, gets 0 and can take it from a
// document of the same hour, whose note then replaces its own.
func TestCacheRefillCalibration(t *testing.T) {
	load := func(p string) *Doc {
		t.Helper()
		b, err := os.ReadFile("../../docs/data/realdb/" + p)
		if err != nil {
			t.Fatal(err)
		}
		d, err := Load(b)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	fio := func(p string) []byte {
		t.Helper()
		b, err := os.ReadFile("../../docs/data/realdb/" + p)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	refillNotes := func(c Calibration) int {
		n := 0
		for _, s := range c.Notes {
			if strings.HasPrefix(s, "machine.cache_refill ") {
				n++
			}
		}
		return n
	}
	ref := mustCalibrate(t, load("matrix-2vcpu-10x100k-aged-idle.json"), fio("fio-2vcpu-idle.json"))
	if ref.CacheRefill != 13251*time.Nanosecond {
		t.Errorf("aged matrix: refill %v, want 13.251us", ref.CacheRefill)
	}
	c := mustCalibrate(t, load("caps-2vcpu-10x1M-bp4G-redo2G-base2.json"), fio("fio-2vcpu-caps-bp4G-redo2G-2.json"))
	if c.CacheRefill != 0 || refillNotes(c) != 1 {
		t.Fatalf("capped document: refill %v with %d notes, want 0 and a note that says why", c.CacheRefill, refillNotes(c))
	}
	if !c.CrowdFrom(load("threads-2vcpu-10x1M-bp4G-redo2G.json"), "threads") || c.CacheRefill <= 0 || refillNotes(c) != 1 {
		t.Errorf("from the same hour's threads document: refill %v with %d notes, want > 0 and one note", c.CacheRefill, refillNotes(c))
	}
	if c.CrowdFrom(load("threads-2vcpu-10x1M-bp4G-redo2G.json"), "threads") {
		t.Error("a calibration that has a refill took another")
	}
}

// syncWakes: one wake-up after the call, plus one per device write the
// sync waits for before its flush, at most two; no extra flush, no sleeps.
func TestSyncWakes(t *testing.T) {
	pt := func(flushes []float64, writes ...float64) Point {
		var p Point
		for i := range flushes {
			p.Runs = append(p.Runs, Figures{FlushesPerTx: flushes[i], WritesPerTx: writes[i]})
		}
		return p
	}
	for _, tc := range []struct {
		name          string
		without, with Point
		want          float64
	}{
		{"no extra flush", pt([]float64{0}, 1), pt([]float64{0.05}, 3), 1},
		{"flush alone", pt([]float64{0}, 1), pt([]float64{1}, 1), 1},
		{"write and flush", pt([]float64{0}, 0), pt([]float64{1}, 1), 2},
		{"journal commit: capped at two", pt([]float64{0}, 1), pt([]float64{1}, 5), 3},
		{"fewer writes", pt([]float64{0}, 2), pt([]float64{1}, 1), 1},
		{"repeats averaged", pt([]float64{0, 0}, 1, 1), pt([]float64{0.9, 1.1}, 2, 2.5), 2.25},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := syncWakes(tc.without, tc.with); math.Abs(got-tc.want) > 1e-9 {
				t.Errorf("syncWakes = %v, want %v", got, tc.want)
			}
		})
	}
}

// binlogSyncWakes counts the binlog sync's own writes: those of the redo
// sync that sync_binlog=1, flush=1 also adds (measured on binlog off,
// flush=1 against 0) come off first.
func TestBinlogSyncWakes(t *testing.T) {
	pt := func(flushes, writes float64) Point {
		return Point{Runs: []Figures{{FlushesPerTx: flushes, WritesPerTx: writes}}}
	}
	base, p1 := pt(0, 0), pt(1, 1.2) // a redo sync: its write and 0.2 inode blocks
	for _, tc := range []struct {
		name          string
		without, with Point
		want          float64
	}{
		{"write-back and inode block", pt(0, 0.1), pt(2, 3.3), 3},
		{"inode block only", pt(0, 0.1), pt(2, 2.3), 2},
		{"no binlog flush", pt(0, 0.1), pt(1, 1.3), 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := binlogSyncWakes(tc.without, tc.with, base, p1); math.Abs(got-tc.want) > 1e-9 {
				t.Errorf("binlogSyncWakes = %v, want %v", got, tc.want)
			}
		})
	}
}

// TestCalibrateIRQProbe: machine.irq_cost is the median of the interrupt
// probe's rounds, written into the machine preset; nothing else moves, and
// a malformed probe is an error naming its line.
func TestCalibrateIRQProbe(t *testing.T) {
	probe := []byte(`{"device": "vda", "irq_cpu": 1, "interrupts": 60642, "cpu_us_per_interrupt": 21.43}

{"device": "vda", "irq_cpu": 1, "interrupts": 61590, "cpu_us_per_interrupt": 24.18}
{"device": "vda", "irq_cpu": 1, "interrupts": 66541, "cpu_us_per_interrupt": 21.87}
`)
	runs, err := ParseIRQProbe(probe)
	if err != nil {
		t.Fatal(err)
	}
	if got, n := IRQCost(runs); got != 21.87 || n != 3 {
		t.Errorf("IRQCost = %v over %d rounds, want 21.87 over 3", got, n)
	}
	for _, bad := range []struct{ in, want string }{
		{"", "no probe rounds"},
		{"{\"interrupts\": 10, \"cpu_us_per_interrupt\": 20}\nnot json\n", "line 2"},
		{"{\"interrupts\": 0, \"cpu_us_per_interrupt\": 20}\n", "over at least one"},
		{"{\"interrupts\": 10, \"cpu_us_per_interrupt\": -3}\n", "want (0, 1000) us"},
	} {
		if _, err := ParseIRQProbe([]byte(bad.in)); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("ParseIRQProbe(%q): error %v, want %q", bad.in, err, bad.want)
		}
	}
	raw, fioJSON := quietData(t)
	d, err := Load(raw)
	if err != nil {
		t.Fatal(err)
	}
	plain := mustCalibrate(t, d, fioJSON)
	d.IRQProbe = runs
	probed := mustCalibrate(t, d, fioJSON)
	if plain.IRQCost != 0 || probed.IRQCost != 21870*time.Nanosecond {
		t.Errorf("irq_cost %v without the probe and %v with it, want 0 and 21.87us", plain.IRQCost, probed.IRQCost)
	}
	probed.IRQCost, probed.Notes = 0, plain.Notes
	if diff := cmp.Diff(plain, probed, cmpopts.EquateApprox(0, 1e-12)); diff != "" {
		t.Errorf("the probe moved more than machine.irq_cost (-without +with):\n%s", diff)
	}
	probed.IRQCost = 21870 * time.Nanosecond
	files, err := probed.Presets("h")
	if err != nil {
		t.Fatal(err)
	}
	if m := string(files["machine.toml"]); !strings.Contains(m, "irq_cost = \"21.87us\"") {
		t.Errorf("machine.toml has no irq_cost:\n%s", m)
	}
}

// TestCalibrateKblockdProbe: machine.flush_dispatch is the median of the
// kblockd probe's rounds, and the probe moves nothing else.
func TestCalibrateKblockdProbe(t *testing.T) {
	probe := []byte(`{"device": "vda", "flushes": 25271, "kworker_cpu_us_per_flush": 20.18}
{"device": "vda", "flushes": 43230, "kworker_cpu_us_per_flush": 19.61}

{"device": "vda", "flushes": 39599, "kworker_cpu_us_per_flush": 21.52}
`)
	runs, err := ParseKblockdProbe(probe)
	if err != nil {
		t.Fatal(err)
	}
	if got, n := FlushDispatchCost(runs); got != 20.18 || n != 3 {
		t.Errorf("FlushDispatchCost = %v over %d rounds, want 20.18 over 3", got, n)
	}
	for _, bad := range []struct{ in, want string }{
		{"", "no probe rounds"},
		{"{\"flushes\": 10, \"kworker_cpu_us_per_flush\": 20}\n[1]\n", "line 2"},
		{"{\"flushes\": 0, \"kworker_cpu_us_per_flush\": 20}\n", "over at least one"},
		{"{\"flushes\": 10, \"kworker_cpu_us_per_flush\": 0}\n", "want (0, 1000) us"},
	} {
		if _, err := ParseKblockdProbe([]byte(bad.in)); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("ParseKblockdProbe(%q): error %v, want %q", bad.in, err, bad.want)
		}
	}
	raw, fioJSON := quietData(t)
	d, err := Load(raw)
	if err != nil {
		t.Fatal(err)
	}
	plain := mustCalibrate(t, d, fioJSON)
	d.KblockdProbe = runs
	probed := mustCalibrate(t, d, fioJSON)
	if plain.FlushDispatch != 0 || probed.FlushDispatch != 20180*time.Nanosecond {
		t.Errorf("flush_dispatch %v without the probe and %v with it, want 0 and 20.18us", plain.FlushDispatch, probed.FlushDispatch)
	}
	files, err := probed.Presets("h")
	if err != nil {
		t.Fatal(err)
	}
	if m := string(files["machine.toml"]); !strings.Contains(m, "flush_dispatch = \"20.18us\"") {
		t.Errorf("machine.toml has no flush_dispatch:\n%s", m)
	}
	probed.FlushDispatch, probed.Notes = 0, plain.Notes
	if diff := cmp.Diff(plain, probed, cmpopts.EquateApprox(0, 1e-12)); diff != "" {
		t.Errorf("the probe moved more than machine.flush_dispatch (-without +with):\n%s", diff)
	}
	// Given beside the document, as simrun calibrate --kblockd-probe does.
	files, err = PresetFiles(raw, fioJSON, Probes{Kblockd: probe}, "h")
	if err != nil {
		t.Fatal(err)
	}
	if m := string(files["machine.toml"]); !strings.Contains(m, "flush_dispatch = \"20.18us\"") {
		t.Errorf("PresetFiles with the probe: machine.toml has no flush_dispatch:\n%s", m)
	}
	if _, err := PresetFiles(raw, fioJSON, Probes{Kblockd: []byte("x")}, "h"); err == nil || !strings.Contains(err.Error(), "kblockd probe") {
		t.Errorf("a bad probe: %v, want an error naming the kblockd probe", err)
	}
}
