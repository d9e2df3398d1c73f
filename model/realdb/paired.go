package realdb

import (
	"fmt"

	"simrun/internal/result"
)

// Alternation is one paired measurement of the harness (--alternate): a
// single sysbench run during which the setting switches between two
// values every PeriodS seconds, in the order A B B A A B B A ..., each
// slice measured after SettleS seconds of its setting. Adjacent slices see
// one state of the page cleaner and nearly one speed of the host, which
// separate runs do not (docs/realdb.md, "Paired alternations").
type Alternation struct {
	Threads int     `json:"threads"`
	PeriodS float64 `json:"period_s"`
	SettleS float64 `json:"settle_s"`
	Slices  []Slice `json:"slices"`
	// Error is why the harness could not finish the alternation (it then
	// keeps the rest of its document); such an alternation has no slices.
	Error string `json:"error"`
}

// Slice is one measured stretch of an alternation.
type Slice struct {
	Setting Setting            `json:"setting"`
	T       float64            `json:"t_s"` // since the first slice's start
	Elapsed float64            `json:"elapsed_s"`
	Status  map[string]float64 `json:"status_delta"`
	Disk    map[string]int64   `json:"disk_delta"`
	CPU     struct {
		ServerUser   float64          `json:"mariadbd_utime_s"`
		ServerSys    float64          `json:"mariadbd_stime_s"`
		ClientUser   float64          `json:"sysbench_utime_s"`
		ClientSys    float64          `json:"sysbench_stime_s"`
		MachineTicks map[string]int64 `json:"machine_ticks_delta"`
		ClkTck       int64            `json:"clk_tck"`
	} `json:"cpu"`
}

// Run is the slice as a run: its transactions are the server's commits in
// it (sysbench reports only the whole run).
func (s Slice) Run() Run {
	var r Run
	r.Setting = s.Setting
	r.Elapsed = s.Elapsed
	r.Sysbench.Transactions = int64(s.Status["Com_commit"])
	r.Sysbench.Seconds = s.Elapsed
	if s.Elapsed > 0 {
		r.Sysbench.TPS = s.Status["Com_commit"] / s.Elapsed
	}
	r.Status, r.Disk = s.Status, s.Disk
	r.CPU.ServerUser, r.CPU.ServerSys = s.CPU.ServerUser, s.CPU.ServerSys
	r.CPU.ClientUser, r.CPU.ClientSys = s.CPU.ClientUser, s.CPU.ClientSys
	r.CPU.MachineTicks, r.CPU.ClkTck = s.CPU.MachineTicks, s.CPU.ClkTck
	return r
}

// PairedCost is what switching from Without to With costs, from the
// adjacent slice pairs of an alternation.
type PairedCost struct {
	With, Without Setting
	Pairs         int
	// Cost is 1 - TPS(With)/TPS(Without): Mean over the pairs, Min and
	// Max the ends of its 95 % Student-t interval.
	Cost Range
	// The mean figures of each side's slices.
	WithFig, WithoutFig Figures
}

// String prints the cost as one line.
func (p PairedCost) String() string {
	return fmt.Sprintf("%s vs %s, %d threads: TPS cost %.3f [%.3f, %.3f] over %d pairs; TPS %.0f vs %.0f, CPU %.0f vs %.0f us/tx (server %.0f vs %.0f, client %.0f vs %.0f)",
		p.With.Key(), p.Without.Key(), p.With.Threads, p.Cost.Mean, p.Cost.Min, p.Cost.Max, p.Pairs,
		p.WithFig.TPS, p.WithoutFig.TPS, p.WithFig.ServerCPUUs+p.WithFig.ClientCPUUs, p.WithoutFig.ServerCPUUs+p.WithoutFig.ClientCPUUs,
		p.WithFig.ServerCPUUs, p.WithoutFig.ServerCPUUs, p.WithFig.ClientCPUUs, p.WithoutFig.ClientCPUUs)
}

// same reports whether two settings are one point (the cap aside).
func same(a, b Setting) bool { return a.is(b.Binlog, b.sync(), b.Flush, b.Threads) }

// PairedCosts returns the paired costs of issue 12's two 16-thread checks
// that the document's alternations measure: flush=1 against flush=0 with
// the binlog off, and sync_binlog=1 against 0 at flush=1.
func (d *Doc) PairedCosts() []PairedCost {
	one, zero := 1, 0
	var out []PairedCost
	for _, a := range d.Alternations {
		th := a.Threads
		for _, p := range [][2]Setting{
			{{Flush: 1, Threads: th}, {Flush: 0, Threads: th}},
			{{Binlog: true, SyncBinlog: &one, Flush: 1, Threads: th}, {Binlog: true, SyncBinlog: &zero, Flush: 1, Threads: th}},
		} {
			if c, ok := a.cost(p[0], p[1]); ok {
				out = append(out, c)
			}
		}
	}
	return out
}

// cost pairs slices 2k and 2k+1 (A B, B A, ...: each pair adjacent, the
// order alternating) and takes the mean of 1 - TPS(with)/TPS(without).
func (a Alternation) cost(with, without Setting) (PairedCost, bool) {
	var costs []float64
	var wf, wof []Figures
	for i := 0; i+1 < len(a.Slices); i += 2 {
		x, y := a.Slices[i], a.Slices[i+1]
		if same(y.Setting, with) && same(x.Setting, without) {
			x, y = y, x
		}
		if !same(x.Setting, with) || !same(y.Setting, without) {
			continue
		}
		fx, fy := x.Run().Derive(), y.Run().Derive()
		if fx.TPS <= 0 || fy.TPS <= 0 {
			continue
		}
		costs = append(costs, 1-fx.TPS/fy.TPS)
		wf, wof = append(wf, fx), append(wof, fy)
	}
	if len(costs) < 2 {
		return PairedCost{}, false
	}
	m, h := result.MeanCI95(costs)
	return PairedCost{With: with, Without: without, Pairs: len(costs), Cost: Range{Min: m - h, Mean: m, Max: m + h},
		WithFig: meanFigures(wf), WithoutFig: meanFigures(wof)}, true
}

// meanFigures averages the figures the paired report prints.
func meanFigures(fs []Figures) Figures {
	var m Figures
	k := 1 / float64(len(fs))
	for _, f := range fs {
		m.TPS += f.TPS * k
		m.ServerCPUUs += f.ServerCPUUs * k
		m.ServerSysUs += f.ServerSysUs * k
		m.ClientCPUUs += f.ClientCPUUs * k
		m.FlushesPerTx += f.FlushesPerTx * k
		m.WritesPerTx += f.WritesPerTx * k
		m.TxPerRedoSync += f.TxPerRedoSync * k
		m.TxPerGroup += f.TxPerGroup * k
		m.BusyPct += f.BusyPct * k
		m.StealPct += f.StealPct * k
	}
	return m
}
