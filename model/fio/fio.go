package fio

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"simrun/model/disk"
	"simrun/sim"
	"simrun/sim/stats"
)

// Config is one fio job section, in fio's vocabulary.
type Config struct {
	Name      string       `toml:"name" doc:"job name, as fio's [section]; names the random streams"`
	RW        string       `toml:"rw" enum:"read|write|randread|randwrite|randrw|readwrite|rw" doc:"I/O pattern, as fio's rw="`
	RWMixRead int          `toml:"rwmixread" unit:"%" doc:"percentage of reads in a mixed pattern (randrw, readwrite); fio's default 50"`
	BS        sim.Bytes    `toml:"bs" unit:"bytes" doc:"block size of each I/O; fio's default 4KiB"`
	IODepth   int          `toml:"iodepth" unit:"I/Os" doc:"I/Os each job keeps outstanding; 1 = a synchronous engine (psync)"`
	NumJobs   int          `toml:"numjobs" unit:"jobs" doc:"identical jobs run in parallel, each on its own file"`
	Fsync     int          `toml:"fsync" unit:"writes" doc:"fsync the file after every this many writes (0 = never), as fio's fsync="`
	Size      sim.Bytes    `toml:"size" unit:"bytes" doc:"file size of each job; offsets fall in [0, size)"`
	Runtime   sim.Duration `toml:"runtime" unit:"duration" doc:"measured run time; 0 = the run's duration (scenario duration)"`
	TimeBased bool         `toml:"time_based" doc:"run for runtime even after size bytes are done (fio's time_based); otherwise a job stops after size bytes"`
	RampTime  sim.Duration `toml:"ramp_time" unit:"duration" doc:"run this long before measuring (fio's ramp_time); Run only"`
	Direct    int          `toml:"direct" doc:"1 = O_DIRECT; 0 is accepted but runs as 1 (the page cache is not modelled)"`
}

// DefaultConfig is fio's defaults for a 4 KiB random-write job.
func DefaultConfig() Config {
	return Config{
		Name: "job", RW: "randwrite", RWMixRead: 50, BS: 4 * sim.KiB, IODepth: 1, NumJobs: 1,
		Size: sim.GiB, TimeBased: true, Direct: 1,
	}
}

var rwModes = []string{"read", "write", "randread", "randwrite", "randrw", "readwrite", "rw"}

// Validate checks the job; errors name the key and the allowed range.
func (c Config) Validate() error {
	var errs []error
	bad := func(f string, a ...any) { errs = append(errs, fmt.Errorf(f, a...)) }
	ok := false
	for _, m := range rwModes {
		ok = ok || c.RW == m
	}
	if !ok {
		bad("rw: must be one of %s, got %q", strings.Join(rwModes, ", "), c.RW)
	}
	if c.RWMixRead < 0 || c.RWMixRead > 100 {
		bad("rwmixread: must be in [0, 100], got %d", c.RWMixRead)
	}
	if c.BS < 512 || c.BS > 64*sim.MiB {
		bad("bs: must be in [512B, 64MiB], got %v", c.BS)
	}
	if c.IODepth < 1 || c.IODepth > 65536 {
		bad("iodepth: must be in [1, 65536], got %d", c.IODepth)
	}
	if c.NumJobs < 1 || c.NumJobs > 4096 {
		bad("numjobs: must be in [1, 4096], got %d", c.NumJobs)
	}
	if c.Fsync < 0 {
		bad("fsync: must be >= 0, got %d", c.Fsync)
	}
	if c.Size < c.BS {
		bad("size: must be >= bs (%v), got %v", c.BS, c.Size)
	}
	if c.Direct != 0 && c.Direct != 1 {
		bad("direct: must be 0 or 1, got %d", c.Direct)
	}
	return errors.Join(errs...)
}

func (c Config) random() bool { return strings.HasPrefix(c.RW, "rand") }

func (c Config) readPct() int {
	switch c.RW {
	case "read", "randread":
		return 100
	case "write", "randwrite":
		return 0
	}
	return c.RWMixRead
}

// Bench is a set of running fio jobs.
type Bench struct {
	env  *sim.Env
	vol  *disk.Volume
	cfg  Config
	jobs []*job
	src  disk.Source

	since   sim.Time
	stopped bool
	endAt   sim.Time // when the last job finished (non-time_based), or 0

	lat  [2]stats.Histogram // completion latency, ns, per direction
	ios  [2]int64
	byts [2]int64
	sync stats.Histogram
}

type job struct {
	b        *Bench
	f        *disk.File
	rng      *sim.Stream
	slots    []slot
	inflight int
	parked   []*slot // slots waiting for an fsync to finish
	unpark   []*slot // scratch for onSynced
	sinceSyn int     // writes issued since the last fsync
	syncing  bool
	syncAt   sim.Time
	seqOff   int64
	issued   int64 // bytes issued (for size-limited jobs)
	done     bool
	complete func(any)
	synced   func(any)
}

type slot struct {
	j     *job
	dir   int // 0 read, 1 write
	start sim.Time
}

// Start lays out the jobs' files and starts every job at the current time.
func Start(env *sim.Env, vol *disk.Volume, cfg Config) (*Bench, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	b := &Bench{env: env, vol: vol, cfg: cfg, since: env.Now(), src: vol.RegisterSource("fio")}
	for i := 0; i < cfg.NumJobs; i++ {
		j := &job{b: b, rng: env.Stream(fmt.Sprintf("fio/%s/%d", cfg.Name, i))}
		// fio lays the file out in full before the run: preallocated.
		j.f = vol.OpenFile(fmt.Sprintf("%s.%d.0", cfg.Name, i), true)
		j.complete = j.onComplete
		j.synced = j.onSynced
		j.slots = make([]slot, cfg.IODepth)
		j.parked = make([]*slot, 0, cfg.IODepth)
		j.unpark = make([]*slot, 0, cfg.IODepth)
		b.jobs = append(b.jobs, j)
	}
	for _, j := range b.jobs {
		for k := range j.slots {
			j.slots[k].j = j
			j.issue(&j.slots[k])
		}
	}
	return b, nil
}

// issue starts the next I/O of a slot, or parks it for an fsync.
func (j *job) issue(s *slot) {
	b := j.b
	cfg := &b.cfg
	if b.stopped || j.done {
		return
	}
	if j.syncing {
		j.parked = append(j.parked, s)
		return
	}
	if cfg.Fsync > 0 && j.sinceSyn >= cfg.Fsync {
		// fio issues the sync once the I/Os in flight have completed.
		j.parked = append(j.parked, s)
		if j.inflight == 0 {
			j.startSync()
		}
		return
	}
	if !cfg.TimeBased && j.issued >= int64(cfg.Size) {
		if j.inflight == 0 {
			j.finish()
		}
		return
	}
	bs := int64(cfg.BS)
	var off int64
	if cfg.random() {
		off = int64(j.rng.Uint64N(uint64(int64(cfg.Size)/bs))) * bs
	} else {
		if j.seqOff+bs > int64(cfg.Size) {
			j.seqOff = 0
		}
		off = j.seqOff
		j.seqOff += bs
	}
	s.dir = 1
	if rp := cfg.readPct(); rp == 100 || rp > 0 && j.rng.IntN(100) < rp {
		s.dir = 0
	}
	s.start = b.env.Now()
	j.inflight++
	j.issued += bs
	if s.dir == 0 {
		j.f.ReadAt(off, bs, b.src, j.complete, s)
	} else {
		j.sinceSyn++
		j.f.WriteAt(off, bs, b.src, j.complete, s)
	}
}

func (j *job) onComplete(a any) {
	s := a.(*slot)
	b := j.b
	j.inflight--
	now := b.env.Now()
	if s.start >= b.since {
		b.lat[s.dir].Record(int64(now - s.start))
		b.ios[s.dir]++
		b.byts[s.dir] += int64(b.cfg.BS)
	}
	j.issue(s)
	if j.inflight == 0 && !j.syncing && len(j.parked) > 0 && !b.stopped {
		j.startSync()
	}
}

func (j *job) startSync() {
	j.syncing = true
	j.syncAt = j.b.env.Now()
	j.f.Sync(j.synced, nil)
}

func (j *job) onSynced(any) {
	b := j.b
	if j.syncAt >= b.since {
		b.sync.Record(int64(b.env.Now() - j.syncAt))
	}
	j.syncing = false
	j.sinceSyn = 0
	// Take the parked slots first: issuing may park them again (the next
	// fsync is due), and they must then wait for that one.
	j.unpark = append(j.unpark[:0], j.parked...)
	j.parked = j.parked[:0]
	for _, s := range j.unpark {
		j.issue(s)
	}
}

func (j *job) finish() {
	if j.done {
		return
	}
	j.done = true
	b := j.b
	for _, o := range b.jobs {
		if !o.done {
			return
		}
	}
	b.endAt = b.env.Now()
}

// Done reports whether every job has finished its size bytes (never for
// time_based jobs).
func (b *Bench) Done() bool { return b.endAt != 0 }

// Stop stops issuing new I/O; I/Os in flight complete.
func (b *Bench) Stop() { b.stopped = true }

// ResetStats starts the measured window now (the end of ramp_time).
func (b *Bench) ResetStats() {
	b.since = b.env.Now()
	for i := range b.lat {
		b.lat[i].Reset()
		b.ios[i], b.byts[i] = 0, 0
	}
	b.sync.Reset()
}

// Metrics returns fio-like results for the measured window: per direction
// iops, bw_kB_per_s (KiB/s, fio's "bw"), io_bytes, total_ios and clat_ms
// percentiles; sync (fsync) latency when fsync > 0.
func (b *Bench) Metrics() map[string]any {
	end := b.env.Now()
	if b.endAt != 0 && b.endAt < end {
		end = b.endAt
	}
	secs := time.Duration(end - b.since).Seconds()
	dir := func(i int) map[string]any {
		m := map[string]any{"total_ios": b.ios[i], "io_bytes": b.byts[i], "iops": 0.0, "bw_kB_per_s": 0.0}
		if secs > 0 {
			m["iops"] = float64(b.ios[i]) / secs
			m["bw_kB_per_s"] = float64(b.byts[i]) / 1024 / secs
		}
		m["clat_ms"] = latMs(&b.lat[i])
		return m
	}
	out := map[string]any{
		"jobname":   b.cfg.Name,
		"rw":        b.cfg.RW,
		"bs_bytes":  int64(b.cfg.BS),
		"iodepth":   int64(b.cfg.IODepth),
		"numjobs":   int64(b.cfg.NumJobs),
		"runtime_s": secs,
		// Why disk.writes_per_s differs from write.iops: the job's I/Os of
		// bs bytes become this many device I/Os (split at max_io_size,
		// Linux max_sectors_kb) and each costs this many IOPS tokens
		// (ceil(bs / io_unit)); see docs/results.md.
		"device_ios_per_io":  ceilDiv(int64(b.cfg.BS), int64(b.vol.Config().MaxIOSize)),
		"iops_tokens_per_io": ceilDiv(int64(b.cfg.BS), int64(b.vol.Config().IOUnit)),
		"read":               dir(0),
		"write":              dir(1),
	}
	if b.cfg.Fsync > 0 {
		out["sync"] = map[string]any{"total_ios": b.sync.Count(), "lat_ms": latMs(&b.sync)}
	}
	if b.cfg.Direct == 0 {
		out["note"] = "direct=0 ran as direct=1: the page cache is not modelled"
	}
	return out
}

func latMs(h *stats.Histogram) map[string]any {
	s := h.Summary()
	ms := func(v int64) float64 { return float64(v) / 1e6 }
	return map[string]any{
		"mean": s.Mean / 1e6, "min": ms(s.Min), "max": ms(s.Max),
		"p50": ms(s.P50), "p95": ms(s.P95), "p99": ms(s.P99), "p99_9": ms(s.P999),
	}
}

// Run starts the jobs on vol at the current time, runs ramp_time, resets
// the bench's and the volume's statistics, then runs for duration (or the
// job's runtime when duration is 0; the shorter of the two when both are
// set) or until every size-limited job is done, and returns the bench's
// metrics with the volume's under "disk".
func Run(env *sim.Env, vol *disk.Volume, cfg Config, duration time.Duration) (map[string]any, error) {
	if duration < 0 {
		return nil, fmt.Errorf("fio: negative duration %v", duration)
	}
	run := duration
	if rt := cfg.Runtime.D(); rt > 0 && (run == 0 || rt < run) {
		run = rt
	}
	if run == 0 {
		return nil, fmt.Errorf("runtime: must be > 0 when the run has no duration")
	}
	b, err := Start(env, vol, cfg)
	if err != nil {
		return nil, err
	}
	if r := cfg.RampTime.D(); r > 0 {
		env.RunUntil(env.Now().Add(r))
		b.ResetStats()
		vol.ResetStats()
	}
	end := env.Now().Add(run)
	env.RunWhile(func() bool { return !b.Done() && env.NextAt() <= end })
	if !b.Done() {
		env.RunUntil(end)
	}
	m := b.Metrics()
	b.Stop()
	m["disk"] = vol.Metrics()
	return m, nil
}

// ceilDiv is ceil(a / b) for positive sizes; 1 when b is 0 (no limit).
func ceilDiv(a, b int64) int64 {
	if b <= 0 || a <= 0 {
		return 1
	}
	return (a + b - 1) / b
}
