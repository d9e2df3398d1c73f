package result

// The types below are what simrun derives from a row's metrics after its
// runs: whether the run reached steady state, which resource binds, and
// how far the simulation is from a queueing-network estimate. They are
// optional fields of Case, absent when the analysis was not asked for
// (simrun run and sweep ask for it; the library's golden tests do not).

// Steady is the steady-state check of one row.
type Steady struct {
	// Series is the metric path of the per-interval series checked
	// (series.tps), IntervalS its interval width.
	Series    string  `json:"series,omitempty"`
	IntervalS float64 `json:"interval_s,omitempty"`
	// Rule is the truncation rule that judged the series: mser-5, or
	// mser-cycle when the series repeats a cycle of CycleS seconds
	// (MSER with overlapping cycle-long batches), or mser-cycle-drift when
	// that MSER cut in the second half and the cut kept is the earliest
	// across whose remainder the cycle-averaged level drifts by at most
	// 1 %. CycleS is set whenever such a cycle was found, also when the
	// run was too short to judge it.
	Rule   string  `json:"rule,omitempty"`
	CycleS float64 `json:"cycle_s,omitempty"`
	// TransientS is the start-up transient the rule finds at the start of
	// the measured window, in seconds; Settled is false when its minimum
	// falls in the second half of the series (the run never settled).
	TransientS float64 `json:"transient_s"`
	Settled    bool    `json:"settled"`
	// AgeHeldS is when the checkpoint age reached the level it is held at
	// (within 5 %), FirstPassEndS when the redo log's first pass ended
	// (estimated past the run's end when it had not), both in seconds of
	// the measured window; absent when not judged.
	AgeHeldS      float64 `json:"checkpoint_age_held_s,omitempty"`
	FirstPassEndS float64 `json:"redo_first_pass_end_s,omitempty"`
	// Mean and CI95 are the batch-means estimate of the series' mean after
	// the transient and the half-width of its 95 % interval (batches at
	// least a cycle long when there is one).
	Mean    float64 `json:"mean"`
	CI95    float64 `json:"ci95"`
	Batches int     `json:"batches"`
	// TooShort is set when any check says the run ended before steady
	// state; NeededS is the shortest measured duration the checks ask for.
	TooShort bool    `json:"too_short"`
	NeededS  float64 `json:"needed_duration_s,omitempty"`
	// Diverging is set when a queue grows for as long as the load lasts
	// (a replica whose applier cannot keep up with its source), so that no
	// run length is steady; Unbounded lists the metrics that then grow with
	// the run length (applier.max_lag_s), whatever value this run gave.
	Diverging bool     `json:"diverging,omitempty"`
	Unbounded []string `json:"unbounded,omitempty"`
	Warnings  []string `json:"warnings,omitempty"`
}

// Bottleneck names the resource that binds a row, with its utilisation,
// and the next ones.
type Bottleneck struct {
	Resource string     `json:"resource"` // cpu, volume_bandwidth, volume_iops, redo_fsync, ...
	UtilPct  float64    `json:"util_pct"`
	Evidence string     `json:"evidence"` // the metric it was read from
	Ranked   []Resource `json:"ranked"`   // every resource considered, most utilised first
}

// Resource is one candidate bottleneck.
type Resource struct {
	Name     string  `json:"name"`
	UtilPct  float64 `json:"util_pct"`
	Evidence string  `json:"evidence"`
}

// Twin is the analytical estimate beside a simulated row.
type Twin struct {
	Model   string  `json:"model"`   // e.g. "closed MVA: cpu, redo log, think time"
	TPS     float64 `json:"tps"`     // the estimate
	SimTPS  float64 `json:"sim_tps"` // the simulation's figure
	GapPct  float64 `json:"gap_pct"` // (sim - twin) / twin, percent
	Flagged bool    `json:"flagged"` // |gap| above the threshold
	Bound   string  `json:"bound"`   // the station that limits the estimate
	Note    string  `json:"note,omitempty"`
}
