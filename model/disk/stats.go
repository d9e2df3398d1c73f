package disk

import (
	"time"

	"simrun/internal/result"
	"simrun/sim"
	"simrun/sim/stats"
)

// Cap-binding states of the queue head.
const (
	boundNone = iota
	boundIOPS
	boundBW
	boundCredits // a burst-credit bucket's, below iops_max: held to baseline_iops
)

// seriesPoints is the number of per-interval points kept; at 1 s a run of
// up to an hour keeps full resolution, longer runs are coarsened.
const seriesPoints = 3600

// stats_ holds a volume's statistics since the last ResetStats. Per-interval
// series are indexed by time since that reset.
type stats_ struct {
	since sim.Time

	reads, writes, flushes      int64
	readBytes, writeBytes       int64
	rMerges, wMerges            int64
	rAwait, wAwait, fAwait      int64 // ns, summed over completed I/Os
	subBytes, doneBytes         int64 // request bytes submitted / completed
	srcWrite, srcRead           [MaxSources]int64
	depth, busy, iopsBnd, bwBnd stats.TimeAvg
	credBnd                     stats.TimeAvg
	credStart, credTaken        int64 // credits in the bucket at the start, taken since
	bound                       int
	depthN                      int
	sReads, sWrites, sFlushes   *stats.Series
	sReadKB, sWriteKB           *stats.Series
	sRAwait, sWAwait            *stats.Series
	gUtil, gDepth               *stats.GaugeSeries
}

func (s *stats_) init(now sim.Time) {
	s.since = now
	s.sReads = stats.NewSeries(time.Second, seriesPoints)
	s.sWrites = stats.NewSeries(time.Second, seriesPoints)
	s.sFlushes = stats.NewSeries(time.Second, seriesPoints)
	s.sReadKB = stats.NewSeries(time.Second, seriesPoints)
	s.sWriteKB = stats.NewSeries(time.Second, seriesPoints)
	s.sRAwait = stats.NewSeries(time.Second, seriesPoints)
	s.sWAwait = stats.NewSeries(time.Second, seriesPoints)
	s.gUtil = stats.NewGaugeSeries(time.Second, seriesPoints)
	s.gDepth = stats.NewGaugeSeries(time.Second, seriesPoints)
	s.depth.Reset(now)
	s.busy.Reset(now)
	s.iopsBnd.Reset(now)
	s.bwBnd.Reset(now)
	s.credBnd.Reset(now)
}

func (s *stats_) rel(now sim.Time) sim.Time { return now - s.since }

func (s *stats_) submitted(op Op, size int64) {
	if op != Flush {
		s.subBytes += size
	}
}

func (s *stats_) merged(op Op) {
	if op == Read {
		s.rMerges++
	} else {
		s.wMerges++
	}
}

// depthAdd changes the number of device I/Os queued or in flight.
func (s *stats_) depthAdd(now sim.Time, d int) {
	s.depthN += d
	s.depth.Set(now, float64(s.depthN))
	s.gDepth.Set(s.rel(now), float64(s.depthN))
	b := 0.0
	if s.depthN > 0 {
		b = 1
	}
	if b != s.busy.Value() {
		s.busy.Set(now, b)
		s.gUtil.Set(s.rel(now), b)
	}
}

func (s *stats_) setBound(now sim.Time, why int) {
	if why == s.bound {
		return
	}
	s.bound = why
	s.iopsBnd.Set(now, b2f(why == boundIOPS))
	s.bwBnd.Set(now, b2f(why == boundBW))
	s.credBnd.Set(now, b2f(why == boundCredits))
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// completed records one device I/O leaving the device after wait+service.
func (s *stats_) completed(now sim.Time, op Op, size int64, await sim.Time) {
	s.depthAdd(now, -1)
	t := s.rel(now)
	kb := float64(size) / 1024
	switch op {
	case Read:
		s.reads++
		s.readBytes += size
		s.rAwait += int64(await)
		s.sReads.Add(t, 1)
		s.sReadKB.Add(t, kb)
		s.sRAwait.Add(t, float64(await))
	case Write:
		s.writes++
		s.writeBytes += size
		s.wAwait += int64(await)
		s.sWrites.Add(t, 1)
		s.sWriteKB.Add(t, kb)
		s.sWAwait.Add(t, float64(await))
	case Flush:
		s.flushes++
		s.fAwait += int64(await)
		s.sFlushes.Add(t, 1)
	}
}

// reqDone records a caller's request completing.
func (s *stats_) reqDone(op Op, src Source, size int64) {
	switch op {
	case Read:
		s.doneBytes += size
		s.srcRead[src] += size
	case Write:
		s.doneBytes += size
		s.srcWrite[src] += size
	}
}

// ResetStats forgets the statistics gathered so far (the end of a warm-up).
// I/Os queued and in flight are kept; the per-interval series restart at
// zero at the current time.
func (v *Volume) ResetStats() {
	now := v.env.Now()
	v.thr.resetStats()
	old := v.st
	v.st = stats_{}
	v.st.init(now)
	v.st.depthN = old.depthN
	v.st.bound = old.bound
	// Carry the gauges' current values into the new window.
	v.st.depth.Set(now, float64(old.depthN))
	v.st.depth.Reset(now)
	v.st.gDepth.Set(0, float64(old.depthN))
	b := b2f(old.depthN > 0)
	v.st.busy.Set(now, b)
	v.st.busy.Reset(now)
	v.st.gUtil.Set(0, b)
	v.st.iopsBnd.Set(now, b2f(old.bound == boundIOPS))
	v.st.iopsBnd.Reset(now)
	v.st.bwBnd.Set(now, b2f(old.bound == boundBW))
	v.st.bwBnd.Reset(now)
	v.st.credBnd.Set(now, b2f(old.bound == boundCredits))
	v.st.credBnd.Reset(now)
	if v.credits != nil {
		v.st.credStart = v.credits.Level(now)
	}
}

// Iostat is the iostat -x view of a volume over the run since ResetStats.
// kB is 1024 bytes, as in iostat. Awaits count from the moment the I/O
// entered the volume queue (cap waits included) to its completion; a merged
// I/O counts from its first request.
type Iostat struct {
	Elapsed time.Duration

	Reads, Writes, Flushes int64 // device I/Os completed (merged = 1, split pieces each count)
	ReadBytes, WriteBytes  int64

	ReadsPerS, WritesPerS, FlushesPerS float64 // r/s, w/s, f/s
	ReadKBPerS, WriteKBPerS            float64 // rkB/s, wkB/s
	AvgReadKB, AvgWriteKB              float64 // rareq-sz, wareq-sz
	ReadMergesPerS, WriteMergesPerS    float64 // rrqm/s, wrqm/s
	RAwaitMs, WAwaitMs, FAwaitMs       float64 // r_await, w_await, f_await
	AwaitMs                            float64 // mean over reads, writes and flushes
	AquSz                              float64 // mean I/Os queued or in flight
	UtilPct                            float64 // % of time with >= 1 I/O queued or in flight
	IOPSCapBoundPct, BWCapBoundPct     float64 // % of time the queue head waited for that cap

	// Credits is the burst-credit bucket's account, when the volume has
	// one (Config.Credits).
	Credits *CreditMetrics

	SubmittedBytes, CompletedBytes int64 // caller request bytes (reads + writes)
}

// Iostat returns the whole-run figures since ResetStats, up to now.
func (v *Volume) Iostat() Iostat {
	now := v.env.Now()
	s := &v.st
	io := Iostat{
		Elapsed: time.Duration(now - s.since),
		Reads:   s.reads, Writes: s.writes, Flushes: s.flushes,
		ReadBytes: s.readBytes, WriteBytes: s.writeBytes,
		SubmittedBytes: s.subBytes, CompletedBytes: s.doneBytes,
	}
	sec := io.Elapsed.Seconds()
	if sec > 0 {
		io.ReadsPerS = float64(s.reads) / sec
		io.WritesPerS = float64(s.writes) / sec
		io.FlushesPerS = float64(s.flushes) / sec
		io.ReadKBPerS = float64(s.readBytes) / 1024 / sec
		io.WriteKBPerS = float64(s.writeBytes) / 1024 / sec
		io.ReadMergesPerS = float64(s.rMerges) / sec
		io.WriteMergesPerS = float64(s.wMerges) / sec
		io.AquSz = s.depth.Mean(now)
		io.UtilPct = 100 * s.busy.Mean(now)
		io.IOPSCapBoundPct = 100 * s.iopsBnd.Mean(now)
		io.BWCapBoundPct = 100 * s.bwBnd.Mean(now)
	}
	if v.credits != nil {
		io.Credits = &CreditMetrics{
			BalanceStart: s.credStart,
			Refill:       float64(v.credits.Rate()) * sec,
			Taken:        s.credTaken,
			BalanceEnd:   v.credits.Level(now),
		}
		if sec > 0 {
			io.Credits.BoundPct = 100 * s.credBnd.Mean(now)
		}
	}
	if s.reads > 0 {
		io.AvgReadKB = float64(s.readBytes) / 1024 / float64(s.reads)
		io.RAwaitMs = float64(s.rAwait) / 1e6 / float64(s.reads)
	}
	if s.writes > 0 {
		io.AvgWriteKB = float64(s.writeBytes) / 1024 / float64(s.writes)
		io.WAwaitMs = float64(s.wAwait) / 1e6 / float64(s.writes)
	}
	if s.flushes > 0 {
		io.FAwaitMs = float64(s.fAwait) / 1e6 / float64(s.flushes)
	}
	if n := s.reads + s.writes + s.flushes; n > 0 {
		io.AwaitMs = float64(s.rAwait+s.wAwait+s.fAwait) / 1e6 / float64(n)
	}
	return io
}

// Interval is one per-interval iostat report.
type Interval struct {
	Start, End                         sim.Time // since ResetStats
	ReadsPerS, WritesPerS, FlushesPerS float64
	ReadKBPerS, WriteKBPerS            float64
	RAwaitMs, WAwaitMs                 float64
	AquSz, UtilPct                     float64
}

// Intervals returns the per-interval figures (1 s wide, coarsened past an
// hour) since ResetStats, up to now.
func (v *Volume) Intervals() []Interval {
	s := &v.st
	t := s.rel(v.env.Now())
	reads, writes, flushes := s.sReads.Points(t), s.sWrites.Points(t), s.sFlushes.Points(t)
	rkb, wkb, ra, wa := s.sReadKB.Points(t), s.sWriteKB.Points(t), s.sRAwait.Points(t), s.sWAwait.Points(t)
	util, depth := s.gUtil.Points(t), s.gDepth.Points(t)
	n := min(len(reads), len(util))
	out := make([]Interval, n)
	for i := range n {
		p := reads[i]
		iv := Interval{
			Start: p.Start, End: p.Start.Add(p.Width),
			ReadsPerS: p.Rate(), WritesPerS: writes[i].Rate(), FlushesPerS: flushes[i].Rate(),
			ReadKBPerS: rkb[i].Rate(), WriteKBPerS: wkb[i].Rate(),
			AquSz: depth[i].Mean, UtilPct: 100 * util[i].Mean,
		}
		if reads[i].Sum > 0 {
			iv.RAwaitMs = ra[i].Sum / 1e6 / reads[i].Sum
		}
		if writes[i].Sum > 0 {
			iv.WAwaitMs = wa[i].Sum / 1e6 / writes[i].Sum
		}
		out[i] = iv
	}
	return out
}

// Metrics is the JSON `disk` block (simrun.result/v1; the json tags are
// the contract): whole-run iostat figures with units in their names, bytes
// per source, and a per-second series.
type Metrics struct {
	ReadsPerS         float64          `json:"reads_per_s"`
	WritesPerS        float64          `json:"writes_per_s"`
	FlushesPerS       float64          `json:"flushes_per_s"`
	ReadKBPerS        float64          `json:"read_kB_per_s"`
	WriteKBPerS       float64          `json:"write_kB_per_s"`
	AvgReadKB         float64          `json:"avg_read_kB"`
	AvgWriteKB        float64          `json:"avg_write_kB"`
	ReadMergesPerS    float64          `json:"read_merges_per_s"`
	WriteMergesPerS   float64          `json:"write_merges_per_s"`
	UtilPct           float64          `json:"util_pct"`
	AwaitMs           float64          `json:"await_ms"`
	RAwaitMs          float64          `json:"r_await_ms"`
	WAwaitMs          float64          `json:"w_await_ms"`
	FAwaitMs          float64          `json:"f_await_ms"`
	AquSz             float64          `json:"aqu_sz"`
	IOPSCapBoundPct   float64          `json:"iops_cap_bound_pct"`
	BWCapBoundPct     float64          `json:"bw_cap_bound_pct"`
	ReadBytes         int64            `json:"read_bytes"`
	WriteBytes        int64            `json:"write_bytes"`
	WriteBytesBySrc   map[string]int64 `json:"write_bytes_by_source"` // registered sources; the predefined two only when non-zero
	ReadBytesBySource map[string]int64 `json:"read_bytes_by_source"`
	Series            Series           `json:"series"`
	Throttle          *ThrottleMetrics `json:"throttle,omitempty"` // the server's blkio throttle (Config.Throttle), when set
	Credits           *CreditMetrics   `json:"credits,omitempty"`  // the burst-credit bucket (Config.Credits), when set
}

// CreditMetrics is the account of a burst-credit bucket over the window:
// every IOPS token (an I/O's io_unit pieces) also takes a credit, and the
// bucket refills at baseline_iops. BalanceStart + Refill - Taken is
// BalanceEnd unless the bucket sat full (a full bucket drops its refill).
type CreditMetrics struct {
	BalanceStart int64   `json:"balance_start"` // credits in the bucket when the window began
	Refill       float64 `json:"refill"`        // baseline_iops x the window's length
	Taken        int64   `json:"taken"`         // credits the window's I/Os took
	BalanceEnd   int64   `json:"balance_end"`   // credits left at its end
	BoundPct     float64 `json:"bound_pct"`     // % of time the queue head waited for credits: held to baseline_iops
}

// Series is the volume's per-interval figures.
type Series struct {
	IntervalS   float64   `json:"interval_s"`
	WriteKBPerS []float64 `json:"write_kB_per_s"`
	UtilPct     []float64 `json:"util_pct"`
	WritesPerS  []float64 `json:"writes_per_s"`
	AquSz       []float64 `json:"aqu_sz"` // mean I/Os queued or in flight
}

// Report returns the typed `disk` block.
func (v *Volume) Report() Metrics {
	io := v.Iostat()
	bySrc := map[string]int64{}
	readBySrc := map[string]int64{}
	for i, name := range v.sources {
		if b := v.st.srcWrite[i]; b > 0 || i >= 2 {
			bySrc[name] = b
		}
		if b := v.st.srcRead[i]; b > 0 || i >= 2 {
			readBySrc[name] = b
		}
	}
	ivs := v.Intervals()
	wkb := make([]float64, len(ivs))
	util := make([]float64, len(ivs))
	wps := make([]float64, len(ivs))
	aqu := make([]float64, len(ivs))
	for i, iv := range ivs {
		wkb[i], util[i], wps[i], aqu[i] = iv.WriteKBPerS, iv.UtilPct, iv.WritesPerS, iv.AquSz
	}
	return Metrics{
		ReadsPerS:         io.ReadsPerS,
		WritesPerS:        io.WritesPerS,
		FlushesPerS:       io.FlushesPerS,
		ReadKBPerS:        io.ReadKBPerS,
		WriteKBPerS:       io.WriteKBPerS,
		AvgReadKB:         io.AvgReadKB,
		AvgWriteKB:        io.AvgWriteKB,
		ReadMergesPerS:    io.ReadMergesPerS,
		WriteMergesPerS:   io.WriteMergesPerS,
		UtilPct:           io.UtilPct,
		AwaitMs:           io.AwaitMs,
		RAwaitMs:          io.RAwaitMs,
		WAwaitMs:          io.WAwaitMs,
		FAwaitMs:          io.FAwaitMs,
		AquSz:             io.AquSz,
		IOPSCapBoundPct:   io.IOPSCapBoundPct,
		BWCapBoundPct:     io.BWCapBoundPct,
		ReadBytes:         io.ReadBytes,
		WriteBytes:        io.WriteBytes,
		WriteBytesBySrc:   bySrc,
		ReadBytesBySource: readBySrc,
		Series:            Series{IntervalS: v.st.sWrites.Width().Seconds(), WriteKBPerS: wkb, UtilPct: util, WritesPerS: wps, AquSz: aqu},
		Throttle:          v.thr.report(),
		Credits:           io.Credits,
	}
}

// Metrics returns the `disk` block as the generic tree the reporting code
// walks (Report's fields under their json names).
func (v *Volume) Metrics() map[string]any { return result.FromStruct(v.Report()) }
