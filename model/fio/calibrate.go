package fio

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"simrun/model/disk"
	"simrun/sim"
)

// fioOutput is the part of fio 3.x --output-format=json that calibration reads.
type fioOutput struct {
	Version       string            `json:"fio version"`
	GlobalOptions map[string]string `json:"global options"`
	Jobs          []fioJob          `json:"jobs"`
}

type fioJob struct {
	Name    string            `json:"jobname"`
	Error   int               `json:"error"`
	Options map[string]string `json:"job options"`
	Read    fioDir            `json:"read"`
	Write   fioDir            `json:"write"`
	Sync    struct {
		TotalIOs int64  `json:"total_ios"`
		Lat      fioLat `json:"lat_ns"`
	} `json:"sync"`
}

type fioDir struct {
	IOPS     float64 `json:"iops"`
	BW       float64 `json:"bw"` // KiB/s
	IOBytes  int64   `json:"io_bytes"`
	TotalIOs int64   `json:"total_ios"`
	Clat     fioLat  `json:"clat_ns"`
}

type fioLat struct {
	Min        float64            `json:"min"`
	Max        float64            `json:"max"`
	Mean       float64            `json:"mean"`
	N          int64              `json:"N"`
	Percentile map[string]float64 `json:"percentile"`
}

// Calibration is a calibrated volume and how it was derived.
type Calibration struct {
	Config disk.Config
	Notes  []string // one line per choice made, for the preset's comments
}

// Calibrate reads fio's JSON output and returns a volume configuration:
// see CalibrateDetail.
func Calibrate(fioJSON []byte) (disk.Config, error) {
	c, err := CalibrateDetail(fioJSON)
	return c.Config, err
}

// CalibrateDetail builds a disk.Config from fio 3.x JSON output:
//
//   - iops_max: the highest read+write IOPS of any job entry, rounded up;
//     bandwidth_max: the highest read+write bandwidth (fio's bw is KiB/s).
//     A measured maximum is a lower bound of the cap: run a saturating job
//     (high iodepth or numjobs with group_reporting) for a meaningful one.
//   - read_latency / write_latency: the completion-latency percentiles
//     (clat_ns) of the job with the lowest iodepth that did I/O in that
//     direction, as an empirical distribution from min (p=0) to max (p=1).
//     At iodepth 1 that is the device's service time at the job's bs; the
//     transfer time is part of it, so transfer_rate is set to 0.
//   - transfer_rate: when two iodepth-1 O_DIRECT jobs wrote with different
//     block sizes (fio.sh: 16 KiB random writes, and the 4 KiB writes of
//     its fdatasync job), the size part of a write's service time,
//     (bs_large - bs_small) / (mean_large - mean_small). The latency
//     distributions are then the small job's (and the read job's) less
//     their own transfer time, so an I/O of the measured size keeps its
//     measured mean and a redo write of a few KiB costs what the small
//     writes cost rather than a 16 KiB page write's latency.
//   - flush_latency: the sync latency percentiles (sync.lat_ns) of the
//     first job run with fsync=N or fdatasync=N, when there is one.
//   - everything else keeps disk.DefaultConfig's value; queue_depth is at
//     least the largest iodepth x numjobs seen.
func CalibrateDetail(fioJSON []byte) (Calibration, error) {
	var out fioOutput
	said, body, err := splitMessages(fioJSON)
	if err != nil {
		return Calibration{}, err
	}
	if err := json.NewDecoder(bytes.NewReader(body)).Decode(&out); err != nil {
		return Calibration{}, fmt.Errorf("fio: not fio JSON output (--output-format=json): %v", err)
	}
	if len(out.Jobs) == 0 {
		return Calibration{}, errors.New("fio: the JSON output has no jobs")
	}
	cal := Calibration{Config: disk.DefaultConfig()}
	cfg := &cal.Config
	note := func(f string, a ...any) { cal.Notes = append(cal.Notes, fmt.Sprintf(f, a...)) }
	for _, m := range said {
		note("fio said: %s", m)
	}
	cfg.Name = "calibrated"
	cfg.TransferRate = 0
	var bestIOPS, bestBW float64
	var iopsJ, bwJ *fioJob
	depth := 0
	type pick struct {
		job   *fioJob
		depth int
	}
	var lat [2]*pick
	var syncJob *fioJob
	for i := range out.Jobs {
		j := &out.Jobs[i]
		if j.Error != 0 {
			return Calibration{}, fmt.Errorf("fio: job %q reported error %d", j.Name, j.Error)
		}
		d := j.depth(out.GlobalOptions)
		n := j.intOption(out.GlobalOptions, "numjobs", 1)
		depth = max(depth, d*n)
		if x := j.Read.IOPS + j.Write.IOPS; x > bestIOPS {
			bestIOPS, iopsJ = x, j
		}
		if x := j.Read.BW + j.Write.BW; x > bestBW {
			bestBW, bwJ = x, j
		}
		for k, dir := range []*fioDir{&j.Read, &j.Write} {
			if dir.TotalIOs > 0 && len(dir.Clat.Percentile) > 0 && (lat[k] == nil || d < lat[k].depth) {
				lat[k] = &pick{j, d}
			}
		}
		if j.syncs() > 0 && len(j.Sync.Lat.Percentile) > 0 && syncJob == nil {
			syncJob = j
		}
	}
	if bestIOPS <= 0 || bestBW <= 0 {
		return Calibration{}, errors.New("fio: no job did any I/O")
	}
	cfg.IOPSMax = sim.Count(math.Ceil(bestIOPS))
	cfg.BandwidthMax = sim.Rate(math.Ceil(bestBW * 1024))
	note("iops_max = %v: highest read+write IOPS, job %q (a lower bound of the cap)", cfg.IOPSMax, iopsJ.Name)
	note("bandwidth_max = %v: highest read+write bandwidth, job %q (a lower bound of the cap)", cfg.BandwidthMax, bwJ.Name)
	cfg.QueueDepth = max(cfg.QueueDepth, depth)
	if sm, lg, ok := sizePair(out); ok {
		dBytes := float64(lg.bs - sm.bs)
		dNs := lg.job.Write.Clat.Mean - sm.job.Write.Clat.Mean
		cfg.TransferRate = sim.Rate(math.Round(dBytes * 1e9 / dNs))
		lat[1] = &pick{sm.job, 1}
		note("transfer_rate = %v: the %s writes of job %q took %.1fus more on average than the %s writes of job %q (iodepth 1, direct)", cfg.TransferRate, lg.job.option(out.GlobalOptions, "bs", "4k"), lg.job.Name, dNs/1e3, sm.job.option(out.GlobalOptions, "bs", "4k"), sm.job.Name)
	}
	for k, key := range []string{"read_latency", "write_latency"} {
		p := lat[k]
		if p == nil {
			note("%s: no job did %s; kept the default %v", key, []string{"reads", "writes"}[k], []sim.DistSpec{cfg.ReadLatency, cfg.WriteLatency}[k])
			continue
		}
		dir := []*fioDir{&p.job.Read, &p.job.Write}[k]
		less := 0.0 // the job's own transfer time, ns
		if cfg.TransferRate > 0 {
			less = float64(p.job.blockSize(out.GlobalOptions)) * 1e9 / float64(cfg.TransferRate)
		}
		spec, err := empirical(dir.Clat, less)
		if err != nil {
			return Calibration{}, fmt.Errorf("fio: job %q %s clat_ns: %v", p.job.Name, []string{"read", "write"}[k], err)
		}
		if k == 0 {
			cfg.ReadLatency = spec
		} else {
			cfg.WriteLatency = spec
		}
		note("%s: clat_ns percentiles of job %q (iodepth %d, bs %s, mean %.1fus)", key, p.job.Name, p.depth, p.job.option(out.GlobalOptions, "bs", "4k"), dir.Clat.Mean/1e3)
		if set := p.job.intOption(out.GlobalOptions, "iodepth", 1); set > p.depth {
			note("%s: job %q set iodepth=%d, but %s is a synchronous engine: one I/O in flight, so no queueing", key, p.job.Name, set, p.job.engine(out.GlobalOptions))
		}
		if less > 0 {
			note("%s: less the job's %s transfer time at transfer_rate, %.1fus", key, p.job.option(out.GlobalOptions, "bs", "4k"), less/1e3)
		}
		if p.depth > 1 {
			note("%s: WARNING: measured at iodepth %d, so it includes queueing; run an iodepth=1 job for the device's own latency", key, p.depth)
		}
	}
	// A buffered job measured the page cache: say which values it gave.
	uses := []struct {
		key string
		job *fioJob
	}{{"iops_max", iopsJ}, {"bandwidth_max", bwJ}}
	for k, key := range []string{"read_latency", "write_latency"} {
		if lat[k] != nil {
			uses = append(uses, struct {
				key string
				job *fioJob
			}{key, lat[k].job})
		}
	}
	var fed []*fioJob
	used := map[*fioJob][]string{}
	for _, u := range uses {
		if !u.job.buffered(out.GlobalOptions) {
			continue
		}
		if used[u.job] == nil {
			fed = append(fed, u.job)
		}
		used[u.job] = append(used[u.job], u.key)
	}
	for _, j := range fed {
		note("%s: WARNING: job %q ran buffered (direct=0 and no fsync, fdatasync or sync), so it measured the page cache, not the device; run it with --direct=1", joinAnd(used[j]), j.Name)
	}
	if syncJob != nil {
		spec, err := empirical(syncJob.Sync.Lat, 0)
		if err != nil {
			return Calibration{}, fmt.Errorf("fio: job %q sync lat_ns: %v", syncJob.Name, err)
		}
		cfg.FlushLatency = spec
		note("flush_latency: %s latency of job %q (%s, %d syncs, mean %.1fus)", syncJob.syncKind(out.GlobalOptions), syncJob.Name, syncJob.syncOption(out.GlobalOptions), syncJob.syncs(), syncJob.Sync.Lat.Mean/1e3)
		if syncJob.option(out.GlobalOptions, "direct", "0") != "1" {
			note("flush_latency: WARNING: measured with direct=0, so the sync also wrote back page-cache data")
		}
	} else {
		note("flush_latency: no job ran with fsync=N or fdatasync=N; kept the default %v", cfg.FlushLatency)
	}
	if err := cfg.Validate(); err != nil {
		return Calibration{}, fmt.Errorf("fio: calibrated volume is invalid: %v", err)
	}
	return cal, nil
}

// splitMessages separates the lines fio writes to stdout ahead of its JSON
// (fio 3.33: "note: both iodepth >= 1 and synchronous I/O engine are
// selected, queue depth will be capped at 1", "fio: ..." warnings), which
// a `fio ... > out.json` run keeps in the file, from the JSON that starts
// at the first line beginning with '{'.
func splitMessages(b []byte) (said []string, body []byte, err error) {
	b = bytes.TrimPrefix(b, []byte("\ufeff"))
	for len(b) > 0 {
		if t := bytes.TrimLeft(b, " \t\r\n"); len(t) > 0 && t[0] == '{' {
			return said, t, nil
		}
		line, rest, _ := bytes.Cut(b, []byte("\n"))
		if s := strings.TrimSpace(string(line)); s != "" {
			said = append(said, s)
		}
		b = rest
	}
	msg := "fio: no JSON object in the file: want fio's --output-format=json output, which starts with '{'"
	if len(said) > 0 {
		msg += fmt.Sprintf("; it starts with %q", firstN(said[0], 60))
	}
	return nil, nil, errors.New(msg)
}

func firstN(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "..."
	}
	return s
}

// syncEngines are fio's synchronous I/O engines: each job thread has one
// I/O in flight whatever iodepth says (fio caps it at 1 and says so).
// psync is fio's default engine on Linux.
var syncEngines = map[string]bool{"sync": true, "psync": true, "vsync": true, "pvsync": true, "pvsync2": true, "mmap": true, "splice": true}

// engine is the job's ioengine, fio's default psync when unset.
func (j *fioJob) engine(global map[string]string) string {
	return j.option(global, "ioengine", "psync")
}

// depth is the number of I/Os a job thread kept in flight: iodepth with an
// asynchronous engine, 1 with a synchronous one.
func (j *fioJob) depth(global map[string]string) int {
	if syncEngines[j.engine(global)] {
		return 1
	}
	return j.intOption(global, "iodepth", 1)
}

// buffered reports a job that went through the page cache without forcing
// its data to the device: direct=0 (fio's default) and no fsync=N,
// fdatasync=N or sync (O_SYNC).
func (j *fioJob) buffered(global map[string]string) bool {
	if j.option(global, "direct", "0") != "0" {
		return false
	}
	for _, k := range []string{"fsync", "fdatasync"} {
		if j.option(global, k, "0") != "0" {
			return false
		}
	}
	s := j.option(global, "sync", "0")
	return s == "0" || s == "none"
}

func joinAnd(xs []string) string {
	if len(xs) < 2 {
		return strings.Join(xs, "")
	}
	return strings.Join(xs[:len(xs)-1], ", ") + " and " + xs[len(xs)-1]
}

// syncs is the number of fsync/fdatasync calls the job measured. fio 3.33
// counts fsync=N calls in sync.total_ios but leaves it 0 for fdatasync=N
// (only the latency block's N counts them), so N is the fallback.
func (j *fioJob) syncs() int64 {
	if j.Sync.TotalIOs > 0 {
		return j.Sync.TotalIOs
	}
	return j.Sync.Lat.N
}

// syncKind names the sync call of a job: fdatasync when it ran with
// fdatasync=N, else fsync.
func (j *fioJob) syncKind(global map[string]string) string {
	if j.option(global, "fdatasync", "0") != "0" {
		return "fdatasync"
	}
	return "fsync"
}

// syncOption is the job's sync option as fio spells it, e.g. "fdatasync=1".
func (j *fioJob) syncOption(global map[string]string) string {
	k := j.syncKind(global)
	return k + "=" + j.option(global, k, "?")
}

func (j *fioJob) option(global map[string]string, key, def string) string {
	if v, ok := j.Options[key]; ok {
		return v
	}
	if v, ok := global[key]; ok {
		return v
	}
	return def
}

func (j *fioJob) intOption(global map[string]string, key string, def int) int {
	n, err := strconv.Atoi(j.option(global, key, strconv.Itoa(def)))
	if err != nil || n < 1 {
		return def
	}
	return n
}

// sized is an iodepth-1 O_DIRECT job that only wrote, with its block size.
type sized struct {
	job *fioJob
	bs  int64
}

// sizePair finds the iodepth-1, direct, write-only jobs with the smallest
// and the largest block size, when they differ and the larger took longer
// on average; the first job of each size counts.
func sizePair(out fioOutput) (small, large sized, ok bool) {
	g := out.GlobalOptions
	for i := range out.Jobs {
		j := &out.Jobs[i]
		if j.Write.TotalIOs == 0 || j.Read.TotalIOs > 0 || j.depth(g) != 1 || j.intOption(g, "numjobs", 1) != 1 || j.option(g, "direct", "0") != "1" {
			continue
		}
		bs := j.blockSize(g)
		if bs <= 0 {
			continue
		}
		if small.job == nil || bs < small.bs {
			small = sized{j, bs}
		}
		if large.job == nil || bs > large.bs {
			large = sized{j, bs}
		}
	}
	ok = small.job != nil && large.bs > small.bs && large.job.Write.Clat.Mean > small.job.Write.Clat.Mean
	return small, large, ok
}

// blockSize is the job's bs in bytes (fio's k and m are binary); 0 when it
// cannot be read.
func (j *fioJob) blockSize(global map[string]string) int64 {
	s := strings.ToLower(strings.TrimSpace(j.option(global, "bs", "4k")))
	mult := int64(1)
	switch {
	case strings.HasSuffix(s, "k"):
		mult, s = 1<<10, strings.TrimSuffix(s, "k")
	case strings.HasSuffix(s, "m"):
		mult, s = 1<<20, strings.TrimSuffix(s, "m")
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n <= 0 {
		return 0
	}
	return n * mult
}

// empirical turns fio's latency percentiles, less a constant (ns, the
// part another parameter carries), into an empirical distribution from min
// (p = 0) to max (p = 1), at least 0. fio's percentiles are bin midpoints
// and may stray past min or max; they are clamped and made non-decreasing.
func empirical(l fioLat, less float64) (sim.DistSpec, error) {
	type pt struct{ p, v float64 }
	var pts []pt
	for k, v := range l.Percentile {
		p, err := strconv.ParseFloat(k, 64)
		if err != nil || p <= 0 || p >= 100 {
			return sim.DistSpec{}, fmt.Errorf("bad percentile key %q", k)
		}
		pts = append(pts, pt{math.Round(p*1e4) / 1e6, v}) // fio keys are percent with 6 decimals
	}
	sort.Slice(pts, func(i, j int) bool { return pts[i].p < pts[j].p })
	lo, hi := l.Min, l.Max
	if hi < lo || lo < 0 {
		return sim.DistSpec{}, fmt.Errorf("min %v / max %v inconsistent", lo, hi)
	}
	sub := func(v float64) float64 { return math.Max(0, v-math.Round(less)) }
	spec := sim.DistSpec{Kind: "empirical"}
	spec.Points = append(spec.Points, sim.QuantilePoint{P: 0, Value: sub(math.Round(lo))})
	prev := math.Round(lo)
	for _, x := range pts {
		v := math.Round(math.Min(math.Max(x.v, prev), hi))
		spec.Points = append(spec.Points, sim.QuantilePoint{P: x.p, Value: sub(v)})
		prev = v
	}
	spec.Points = append(spec.Points, sim.QuantilePoint{P: 1, Value: sub(math.Round(math.Max(hi, prev)))})
	if err := spec.Validate(); err != nil {
		return sim.DistSpec{}, err
	}
	return spec, nil
}

// CalibratePreset calibrates from fio JSON and writes a preset named name:
// the TOML that `simrun calibrate fio.json -o volume.toml` saves.
func CalibratePreset(fioJSON []byte, name string) ([]byte, error) {
	cal, err := CalibrateDetail(fioJSON)
	if err != nil {
		return nil, err
	}
	return cal.Preset(name)
}

// Warnings returns the notes that warn about the measurement (a latency
// with queueing in it, a buffered job), which the command also prints.
func (cal Calibration) Warnings() []string {
	var out []string
	for _, n := range cal.Notes {
		if strings.Contains(n, "WARNING:") {
			out = append(out, n)
		}
	}
	return out
}

// Preset writes the calibrated volume as a preset named name, its notes as
// comments.
func (cal Calibration) Preset(name string) ([]byte, error) {
	cal.Config.Name = name
	var b strings.Builder
	b.WriteString("# Calibrated from fio JSON output by simrun calibrate:\n")
	for _, n := range cal.Notes {
		b.WriteString("#   " + n + "\n")
	}
	desc := fmt.Sprintf("Volume calibrated from fio: %v IOPS, %v, latency from measured percentiles", cal.Config.IOPSMax, cal.Config.BandwidthMax)
	if err := disk.WritePreset(&b, cal.Config, desc); err != nil {
		return nil, err
	}
	return []byte(b.String()), nil
}
