package realdb

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sort"
	"strings"
)

// Schema is the harness document's schema tag.
const Schema = "simrun-realdb/1"

// Doc is the part of a harness document that calibration and comparison
// read; the JSON holds more (histograms, samples, my.cnf).
type Doc struct {
	Schema   string                       `json:"schema"`
	Machine  Machine                      `json:"machine"`
	Versions map[string]string            `json:"versions"`
	Device   Device                       `json:"device"`
	Throttle Throttle                     `json:"throttle"`
	Vars     map[string]map[string]string `json:"server_variables"` // binlog_off / binlog_on -> SHOW VARIABLES
	Prepare  struct {
		Tables    int   `json:"tables"`
		TableSize int64 `json:"table_size"`
	} `json:"prepare"`
	Runs []Run `json:"runs"`
	// Args are the harness's options; the warm-ups count in a run's age.
	Args struct {
		Duration     float64 `json:"duration"`      // measured s of each run
		Warmup       float64 `json:"warmup"`        // s of load before each run
		ServerWarmup float64 `json:"server_warmup"` // s of load after each server start
	} `json:"args"`
	// Age is the unmeasured load right after prepare (harness --age).
	Age struct {
		Slices []struct {
			Transactions float64 `json:"transactions"`
		} `json:"slices"`
	} `json:"age"`
	// Fio is scripts/realdb/fio.sh's JSON, run right after the matrix on
	// the same filesystem (harness --fio); empty in documents without it.
	Fio json.RawMessage `json:"fio"`
	// WakeProbe is scripts/realdb/wake.c run before and after the matrix
	// (harness --wake-probe); nil in documents recorded before it.
	WakeProbe *WakeProbe `json:"wake_probe"`
	// IRQProbe is scripts/realdb/irq-cost.sh run after the matrix (harness
	// --irq-probe), or given to simrun calibrate --irq-probe; none in
	// documents recorded before it.
	IRQProbe []IRQRun `json:"irq_probe,omitempty"`
	// KblockdProbe is scripts/realdb/kblockd.sh run after the matrix
	// (harness --kblockd-probe), or given to simrun calibrate
	// --kblockd-probe; none in documents recorded before it.
	KblockdProbe []KblockdRun `json:"kblockd_probe,omitempty"`
	// Alternations are the paired measurements after the matrix (harness
	// --alternate); none in documents recorded before them.
	Alternations []Alternation `json:"alternations"`
}

// WakeProbe is the CPU of a thread's wake-up on the harness host: two
// threads handing a futex turn back and forth.
type WakeProbe struct {
	Before []WakeRun `json:"before"`
	After  []WakeRun `json:"after"`
}

// WakeRun is one run of the probe; Pin "0/1" puts the threads on two
// vCPUs (each wake-up an IPI), "0/0" on one.
type WakeRun struct {
	Pin        string  `json:"pin"`
	RoundTrips int     `json:"round_trips"`
	WallUs     float64 `json:"wall_us_per_wake"`
	CPUUs      float64 `json:"cpu_us_per_wake"`
}

// CrossCPU is the median CPU of a cross-vCPU wake-up over the runs before
// and after the matrix, in µs, and how many runs it is of (0: none).
func (w *WakeProbe) CrossCPU() (float64, int) { return w.median("0/1") }

// SameCPU is CrossCPU for the wake-ups of two threads on one vCPU (a
// context switch, no IPI).
func (w *WakeProbe) SameCPU() (float64, int) { return w.median("0/0") }

func (w *WakeProbe) median(pin string) (float64, int) {
	if w == nil {
		return 0, 0
	}
	var xs []float64
	for _, r := range append(append([]WakeRun(nil), w.Before...), w.After...) {
		if r.Pin == pin && r.CPUUs > 0 {
			xs = append(xs, r.CPUUs)
		}
	}
	return median(xs), len(xs)
}

// median is the middle of xs (the mean of the two middle ones for an even
// count), 0 for none; xs is sorted in place.
func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	sort.Float64s(xs)
	m := xs[len(xs)/2]
	if len(xs)%2 == 0 {
		m = (xs[len(xs)/2-1] + m) / 2
	}
	return m
}

// IRQRun is one round of scripts/realdb/irq-cost.sh: a loop pinned to the
// vCPU that takes the disk's completion interrupts, alone and while fio
// writes at QD1 from the other vCPU; CPUUs is the loop's loss an
// interrupt.
type IRQRun struct {
	Device     string  `json:"device"`
	IRQCPU     int     `json:"irq_cpu"`
	Interrupts int64   `json:"interrupts"`
	CPUUs      float64 `json:"cpu_us_per_interrupt"`
}

// ParseIRQProbe reads irq-cost.sh's output, one JSON object a line.
func ParseIRQProbe(data []byte) ([]IRQRun, error) {
	return parseProbe(data, func(r IRQRun) error {
		if r.Interrupts <= 0 || !(r.CPUUs > 0 && r.CPUUs < 1000) {
			return fmt.Errorf("cpu_us_per_interrupt %v over %d interrupts: want (0, 1000) us over at least one", r.CPUUs, r.Interrupts)
		}
		return nil
	})
}

// KblockdRun is one round of scripts/realdb/kblockd.sh: fio syncing
// after every write, and the CPU the high-priority kernel workers (the
// pool kblockd runs on) spent a device flush meanwhile.
type KblockdRun struct {
	Device  string  `json:"device"`
	Flushes int64   `json:"flushes"`
	CPUUs   float64 `json:"kworker_cpu_us_per_flush"`
}

// ParseKblockdProbe reads kblockd.sh's output, one JSON object a line.
func ParseKblockdProbe(data []byte) ([]KblockdRun, error) {
	return parseProbe(data, func(r KblockdRun) error {
		if r.Flushes <= 0 || !(r.CPUUs > 0 && r.CPUUs < 1000) {
			return fmt.Errorf("kworker_cpu_us_per_flush %v over %d flushes: want (0, 1000) us over at least one", r.CPUUs, r.Flushes)
		}
		return nil
	})
}

// FlushDispatchCost is the median CPU the kernel workers took a flush
// over the probe's rounds, in µs, and how many rounds it is of (0: none).
func FlushDispatchCost(runs []KblockdRun) (float64, int) {
	return probeMedian(runs, func(r KblockdRun) float64 { return r.CPUUs })
}

// parseProbe reads a probe's output, one JSON object a line, each checked
// by check; at least one line.
func parseProbe[T any](data []byte, check func(T) error) ([]T, error) {
	var runs []T
	for i, line := range strings.Split(string(data), "\n") {
		if strings.TrimSpace(line) == "" {
			continue
		}
		var r T
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			return nil, fmt.Errorf("line %d: %v", i+1, err)
		}
		if err := check(r); err != nil {
			return nil, fmt.Errorf("line %d: %v", i+1, err)
		}
		runs = append(runs, r)
	}
	if len(runs) == 0 {
		return nil, fmt.Errorf("no probe rounds")
	}
	return runs, nil
}

// IRQCost is the median CPU an interrupt took over the probe's rounds, in
// µs, and how many rounds it is of (0: none).
func IRQCost(runs []IRQRun) (float64, int) {
	return probeMedian(runs, func(r IRQRun) float64 { return r.CPUUs })
}

// probeMedian is the median of f over a probe's rounds, and how many
// rounds it is of.
func probeMedian[T any](runs []T, f func(T) float64) (float64, int) {
	xs := make([]float64, 0, len(runs))
	for _, r := range runs {
		xs = append(xs, f(r))
	}
	return median(xs), len(xs)
}

// Machine is the host the harness ran on.
type Machine struct {
	NProc  int    `json:"nproc"`
	CPU    string `json:"cpu_model"`
	Kernel string `json:"kernel"`
	// HZ is the kernel's CONFIG_HZ (0: not recorded, as in documents
	// before issue 12's second round).
	HZ int `json:"config_hz"`
	// DamonSampleUs are the sample intervals of the host's running DAMON
	// monitors, us (none: not running, or not recorded before stop 31).
	DamonSampleUs []int64 `json:"damon_sample_us"`
}

// Device is the block device behind the data directory.
type Device struct {
	Name       string `json:"name"`
	Rotational string `json:"rotational"`
	FS         struct {
		Type    string `json:"fstype"`
		Journal bool   `json:"ext4_journal"`
	} `json:"filesystem"`
}

// Throttle is the cgroup-v1 blkio cap mariadbd ran under (0 = none).
type Throttle struct {
	WriteBPS  int64 `json:"write_bps"`
	WriteIOPS int64 `json:"write_iops"`
}

// Setting is one point of the matrix.
type Setting struct {
	Binlog     bool `json:"binlog"`
	SyncBinlog *int `json:"sync_binlog"` // nil with the binlog off
	Flush      int  `json:"innodb_flush_log_at_trx_commit"`
	Threads    int  `json:"threads"`
	// The blkio cap of the run (0 = none), from Run.Cap.
	CapBPS  int64 `json:"-"`
	CapIOPS int64 `json:"-"`
}

// Key names the setting without the thread count, e.g. "off/flush=1" or
// "on/sync_binlog=1/flush=1".
func (s Setting) Key() string {
	k := fmt.Sprintf("off/flush=%d", s.Flush)
	if s.Binlog {
		k = fmt.Sprintf("on/sync_binlog=%d/flush=%d", s.sync(), s.Flush)
	}
	if s.capped() {
		k += fmt.Sprintf("/cap=%dB/s,%dIOPS", s.CapBPS, s.CapIOPS)
	}
	return k
}

// capped reports whether the point ran under a blkio cap.
func (s Setting) capped() bool { return s.CapBPS > 0 || s.CapIOPS > 0 }

// is reports whether s is the point (binlog, sync_binlog, flush, threads),
// its cap aside; sync_binlog counts only with the binlog on.
func (s Setting) is(binlog bool, syncBinlog, flush, threads int) bool {
	return s.Binlog == binlog && (!binlog || s.sync() == syncBinlog) && s.Flush == flush && s.Threads == threads
}

func (s Setting) sync() int {
	if s.SyncBinlog == nil {
		return 0
	}
	return *s.SyncBinlog
}

// Run is one measured run.
type Run struct {
	Setting Setting `json:"setting"`
	Cap     *struct {
		BPS  int64 `json:"bps"`
		IOPS int64 `json:"iops"`
	} `json:"cap"` // the run's blkio cap, nil without one
	Repeat   int     `json:"repeat"`
	Order    int     `json:"order"`
	Elapsed  float64 `json:"elapsed_s"`
	Sysbench struct {
		Transactions int64              `json:"transactions"`
		Queries      int64              `json:"queries"`
		TPS          float64            `json:"tps"`
		Seconds      float64            `json:"total_time_s"`
		Latency      map[string]float64 `json:"latency_ms"`
	} `json:"sysbench"`
	Status  map[string]float64 `json:"status_delta"`
	Metrics map[string]float64 `json:"innodb_metrics_delta"` // enabled INNODB_METRICS counters that moved
	Disk    map[string]int64   `json:"disk_delta"`
	CPU     struct {
		ServerUser   float64          `json:"mariadbd_utime_s"`
		ServerSys    float64          `json:"mariadbd_stime_s"`
		ClientUser   float64          `json:"children_utime_s"`
		ClientSys    float64          `json:"children_stime_s"`
		MachineTicks map[string]int64 `json:"machine_ticks_delta"`
		ClkTck       int64            `json:"clk_tck"`
	} `json:"cpu"`
	Load    []float64            `json:"loadavg_before"`
	Samples []map[string]float64 `json:"samples"` // gauges every --sample-interval
	// KernelThreads is the CPU seconds each group of kernel threads took
	// during the run (kdamond, kworker, ksoftirqd, jbd2...; harness
	// documents since stop 31, none before).
	KernelThreads map[string]float64 `json:"kthreads_cpu_s"`
}

// ioWorkers are the kernel-thread groups on the I/O path, whose CPU the
// model charges per I/O (machine.flush_dispatch, the volume's journal):
// not background work.
var ioWorkers = map[string]bool{"kworker": true, "jbd2": true}

// Load decodes and checks a harness document.
func Load(b []byte) (*Doc, error) {
	var d Doc
	if err := json.Unmarshal(b, &d); err != nil {
		return nil, fmt.Errorf("realdb: not a harness JSON document: %v", err)
	}
	if d.Schema != Schema {
		return nil, fmt.Errorf("realdb: schema %q, want %q (scripts/realdb/harness.py output)", d.Schema, Schema)
	}
	if len(d.Runs) == 0 && len(d.Alternations) == 0 {
		return nil, errors.New("realdb: the document has no runs")
	}
	for i, r := range d.Runs {
		if r.Sysbench.Transactions <= 0 || r.Sysbench.Seconds <= 0 {
			return nil, fmt.Errorf("realdb: run %d (%s, %d threads) has no transactions", i, r.Setting.Key(), r.Setting.Threads)
		}
	}
	return &d, nil
}

// Figures are a run's per-transaction figures: what the model is compared on.
type Figures struct {
	TPS            float64 `json:"tps"`
	LatencyAvgMs   float64 `json:"latency_avg_ms"`
	LatencyP95Ms   float64 `json:"latency_p95_ms"`
	FlushesPerTx   float64 `json:"device_flushes_per_tx"`
	WritesPerTx    float64 `json:"device_writes_per_tx"`
	ReadsPerTx     float64 `json:"device_reads_per_tx"`
	WriteKBPerTx   float64 `json:"device_write_kB_per_tx"` // KiB
	RedoSyncsPerTx float64 `json:"innodb_fsyncs_per_tx"`   // Innodb_data_fsyncs: redo syncs and the data-file syncs of checkpoints
	TxPerRedoSync  float64 `json:"tx_per_innodb_fsync"`
	BinlogGroupsTx float64 `json:"binlog_groups_per_tx"`
	TxPerGroup     float64 `json:"tx_per_binlog_group"`
	RedoBytesTx    float64 `json:"redo_bytes_per_tx"` // LSN advance
	RedoWrittenTx  float64 `json:"redo_written_per_tx"`
	BinlogBytesTx  float64 `json:"binlog_bytes_per_tx"`
	PagesFlushedTx float64 `json:"pages_flushed_per_tx"`
	ServerCPUUs    float64 `json:"server_cpu_us_per_tx"`
	ServerSysUs    float64 `json:"server_sys_us_per_tx"`
	ClientCPUUs    float64 `json:"client_cpu_us_per_tx"`
	QueriesPerTx   float64 `json:"queries_per_tx"`
	StealPct       float64 `json:"machine_steal_pct"`
	BusyPct        float64 `json:"machine_busy_pct"` // user+nice+system+irq+softirq of all CPUs, % of all CPU time
	// OtherCPUPct is the CPU of everything but mariadbd and sysbench (other
	// processes, niced or not, kernel threads, interrupts), % of all CPU
	// time: the busy ticks less the two processes' own CPU. Above a few per
	// cent the run shared its vCPUs, and a thread that wakes may wait a
	// scheduler slice behind such a process (docs/realdb.md).
	OtherCPUPct float64 `json:"machine_other_cpu_pct"`
	// KernelThreadsPct is the kernel threads' share of it (Run.KernelThreads),
	// % of all CPU time: background work on the same vCPUs (DAMON's kdamond
	// took 3-5 % of the stop-31 host under load, docs/realdb.md).
	KernelThreadsPct float64 `json:"kernel_threads_cpu_pct"`
	// BackgroundPct is the part of it that is not the I/O path's workers
	// (kworker: the flush dispatch and write-back; jbd2: the journal),
	// which the model charges per I/O: the host's own background work
	// (machine.background_burst).
	BackgroundPct float64 `json:"background_cpu_pct"`
	Load          float64 `json:"loadavg_1min"` // before the run: the machine is shared
	LRUFlushedTx  float64 `json:"lru_pages_flushed_per_tx"`
	WaitFreeTx    float64 `json:"free_page_waits_per_tx"`
	CkptAgeMeanMB float64 `json:"checkpoint_age_mean_mb"` // over the samples, 10^6 bytes
	CkptAgeMaxMB  float64 `json:"checkpoint_age_max_mb"`
	// Pages written per transaction by page-cleaner source, from
	// INNODB_METRICS (innodb_monitor_enable=module_buffer; 0 otherwise):
	// furious flushing to the sync point, adaptive, idle/background, the
	// LRU batch, and the neighbours flushed with them (flush_neighbors).
	SyncFlushTx     float64 `json:"sync_flush_pages_per_tx"`
	AdaptiveFlushTx float64 `json:"adaptive_flush_pages_per_tx"`
	BackgroundTx    float64 `json:"background_flush_pages_per_tx"`
	LRUBatchTx      float64 `json:"lru_batch_pages_per_tx"`
	NeighborTx      float64 `json:"neighbor_pages_per_tx"`
	// AgeTx is the transactions the data had served since prepare when the
	// run began (Doc.RunAges): index k's splits and merges depend on it.
	AgeTx float64 `json:"age_transactions"`
}

// Derive computes a run's per-transaction figures.
func (r Run) Derive() Figures {
	n := float64(r.Sysbench.Transactions)
	per := func(x float64) float64 { return x / n }
	f := Figures{
		TPS:          r.Sysbench.TPS,
		LatencyAvgMs: r.Sysbench.Latency["avg"],
		LatencyP95Ms: r.Sysbench.Latency["p95_sysbench"],
		FlushesPerTx: per(float64(r.Disk["flushes"])),
		// Linux counts the empty preflush bio of each fdatasync
		// (blkdev_issue_flush) in /sys/block/DEV/stat as a write as well
		// as a flush; a block-layer trace of a 4 KiB O_DIRECT write +
		// fdatasync loop on the realdb host shows the device gets only the
		// data write, the inode block write and the flush (docs/realdb.md).
		// So the device's write requests are the writes less the flushes.
		WritesPerTx:     per(float64(r.Disk["writes"] - r.Disk["flushes"])),
		ReadsPerTx:      per(float64(r.Disk["reads"])),
		WriteKBPerTx:    per(float64(r.Disk["sectors_written"]) * 512 / 1024),
		RedoSyncsPerTx:  per(r.Status["Innodb_data_fsyncs"]),
		RedoBytesTx:     per(r.Status["Innodb_lsn_current"]),
		RedoWrittenTx:   per(r.Status["Innodb_os_log_written"]),
		PagesFlushedTx:  per(r.Status["Innodb_buffer_pool_pages_flushed"]),
		LRUFlushedTx:    per(r.Status["Innodb_buffer_pool_pages_LRU_flushed"]),
		WaitFreeTx:      per(r.Status["Innodb_buffer_pool_wait_free"]),
		SyncFlushTx:     per(r.Metrics["buffer_flush_sync_total_pages"]),
		AdaptiveFlushTx: per(r.Metrics["buffer_flush_adaptive_total_pages"]),
		BackgroundTx:    per(r.Metrics["buffer_flush_background_total_pages"]),
		LRUBatchTx:      per(r.Metrics["buffer_LRU_batch_flush_total_pages"]),
		NeighborTx:      per(r.Metrics["buffer_flush_neighbor_total_pages"]),
		ServerCPUUs:     per((r.CPU.ServerUser + r.CPU.ServerSys) * 1e6),
		ServerSysUs:     per(r.CPU.ServerSys * 1e6),
		ClientCPUUs:     per((r.CPU.ClientUser + r.CPU.ClientSys) * 1e6),
		QueriesPerTx:    per(float64(r.Sysbench.Queries)),
	}
	for _, smp := range r.Samples {
		a := smp["innodb_checkpoint_age"] / 1e6
		f.CkptAgeMeanMB += a / float64(len(r.Samples))
		f.CkptAgeMaxMB = max(f.CkptAgeMaxMB, a)
	}
	if len(r.Load) > 0 {
		f.Load = r.Load[0]
	}
	if f.RedoSyncsPerTx > 0 {
		f.TxPerRedoSync = 1 / f.RedoSyncsPerTx
	}
	if c := r.Status["Binlog_commits"]; c > 0 {
		f.BinlogGroupsTx = r.Status["Binlog_group_commits"] / n
		f.TxPerGroup = c / r.Status["Binlog_group_commits"]
		f.BinlogBytesTx = r.Status["Binlog_bytes_written"] / c
	}
	var all int64
	for _, v := range r.CPU.MachineTicks {
		all += v
	}
	if all > 0 {
		t := r.CPU.MachineTicks
		f.StealPct = 100 * float64(t["steal"]) / float64(all)
		busy := t["user"] + t["nice"] + t["system"] + t["irq"] + t["softirq"]
		f.BusyPct = 100 * float64(busy) / float64(all)
		if hz := r.CPU.ClkTck; hz > 0 {
			own := (r.CPU.ServerUser + r.CPU.ServerSys + r.CPU.ClientUser + r.CPU.ClientSys) * float64(hz)
			f.OtherCPUPct = max(0, 100*(float64(busy)-own)/float64(all))
			var kt, bg float64
			for g, v := range r.KernelThreads {
				kt += v
				if !ioWorkers[g] {
					bg += v
				}
			}
			f.KernelThreadsPct = 100 * kt * float64(hz) / float64(all)
			f.BackgroundPct = 100 * bg * float64(hz) / float64(all)
		}
	}
	return f
}

// Range is the measured spread of one figure over a setting's repeats.
type Range struct {
	Min, Mean, Max float64
}

// Contains reports whether x lies in [Min, Max] widened by tol (relative).
func (r Range) Contains(x, tol float64) bool {
	return x >= r.Min*(1-tol) && x <= r.Max*(1+tol)
}

// Point is one setting at one thread count with its repeats.
type Point struct {
	Setting Setting
	Runs    []Figures
}

// Range returns the spread of the figure get over the repeats.
func (p Point) Range(get func(Figures) float64) Range {
	r := Range{Min: math.Inf(1), Max: math.Inf(-1)}
	for _, f := range p.Runs {
		x := get(f)
		r.Min, r.Max = math.Min(r.Min, x), math.Max(r.Max, x)
		r.Mean += x / float64(len(p.Runs))
	}
	return r
}

// RunAges returns, for each run, the oltp_write_only transactions the data
// had served since sysbench prepare when the run began: the --age slices,
// every earlier run, and the warm-ups, which the document does not count
// and which are estimated at the TPS of the load they ran (a run's own for
// its --warmup; for the --server-warmup at each server start, the mean TPS
// of that server's runs at its most threads, the thread count the harness
// warms up with). The harness restarts the server whenever the binlog mode
// or the pass changes.
func (d *Doc) RunAges() []float64 {
	age := 0.0
	for _, s := range d.Age.Slices {
		age += s.Transactions
	}
	out := make([]float64, len(d.Runs))
	for i := 0; i < len(d.Runs); {
		// One server session: consecutive runs of the same pass and mode.
		j := i
		maxTh := 0
		for j < len(d.Runs) && d.Runs[j].Repeat == d.Runs[i].Repeat && d.Runs[j].Setting.Binlog == d.Runs[i].Setting.Binlog {
			maxTh = max(maxTh, d.Runs[j].Setting.Threads)
			j++
		}
		var tps float64
		n := 0
		for _, r := range d.Runs[i:j] {
			if r.Setting.Threads == maxTh {
				tps += r.Sysbench.TPS
				n++
			}
		}
		age += d.Args.ServerWarmup * tps / float64(n)
		for k := i; k < j; k++ {
			r := d.Runs[k]
			age += d.Args.Warmup * r.Sysbench.TPS
			out[k] = age
			age += float64(r.Sysbench.Transactions)
		}
		i = j
	}
	return out
}

// Summarise groups the runs by setting and thread count, in the order
// binlog off before on, then sync_binlog, flush, threads.
func (d *Doc) Summarise() []Point {
	idx := map[string]int{}
	var pts []Point
	ages := d.RunAges()
	for ri, r := range d.Runs {
		s := r.Setting
		if r.Cap != nil {
			s.CapBPS, s.CapIOPS = r.Cap.BPS, r.Cap.IOPS
		}
		k := fmt.Sprintf("%s/%d", s.Key(), s.Threads)
		i, ok := idx[k]
		if !ok {
			i = len(pts)
			idx[k] = i
			s := r.Setting
			s.SyncBinlog = nil
			if r.Cap != nil {
				s.CapBPS, s.CapIOPS = r.Cap.BPS, r.Cap.IOPS
			}
			if r.Setting.Binlog {
				v := r.Setting.sync()
				s.SyncBinlog = &v
			}
			pts = append(pts, Point{Setting: s})
		}
		f := r.Derive()
		f.AgeTx = ages[ri]
		pts[i].Runs = append(pts[i].Runs, f)
	}
	sort.SliceStable(pts, func(i, j int) bool {
		a, b := pts[i].Setting, pts[j].Setting
		if a.Binlog != b.Binlog {
			return !a.Binlog
		}
		if a.sync() != b.sync() {
			return a.sync() < b.sync()
		}
		if a.Flush != b.Flush {
			return a.Flush < b.Flush
		}
		if a.Threads != b.Threads {
			return a.Threads < b.Threads
		}
		return a.CapBPS > b.CapBPS
	})
	return pts
}

// Uncapped returns the points measured without a blkio cap.
func Uncapped(pts []Point) []Point {
	var out []Point
	for _, p := range pts {
		if !p.Setting.capped() {
			out = append(out, p)
		}
	}
	return out
}

// Find returns the uncapped point of a setting, or false.
func Find(pts []Point, binlog bool, syncBinlog, flush, threads int) (Point, bool) {
	for _, p := range pts {
		s := p.Setting
		if s.is(binlog, syncBinlog, flush, threads) && !s.capped() {
			return p, true
		}
	}
	return Point{}, false
}
