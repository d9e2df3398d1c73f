package applier

import "simrun/internal/result"

// Metrics is the applier block of the replication workload
// (simrun.result/v1; the json tags are the contract, docs/model-applier.md
// §9 documents every field). The embedded pointers hold the fields that
// exist only in one mode or for one applier; nil leaves them out.
type Metrics struct {
	Version       string `json:"version"`
	Profile       string `json:"profile"`
	Mode          string `json:"mode"`
	Workers       int64  `json:"workers"`
	UpdatesPerTrx int64  `json:"updates_per_trx"`
	TrxBytes      int64  `json:"trx_bytes"`
	TrxEvents     int64  `json:"trx_events"`

	SourceGroupSizeMean float64 `json:"source_group_size_mean"`
	*BacklogMetrics
	*OnlineMetrics

	ElapsedS          float64            `json:"elapsed_s"`
	TrxCommitted      int64              `json:"trx_committed"`
	TPS               float64            `json:"tps"`
	CPUUtilPct        float64            `json:"cpu_util_pct"`
	CPUCores          int64              `json:"cpu_cores"`
	CPUWaitUsAvg      float64            `json:"cpu_wait_us_avg"`
	WorkerStatePct    map[string]float64 `json:"worker_state_pct"`
	WorkerMsPerTrx    map[string]float64 `json:"worker_ms_per_trx"`
	WorkerBusyPct     float64            `json:"worker_busy_pct"`
	WorkerApplyPct    float64            `json:"worker_apply_pct"`
	ParkedS           float64            `json:"parked_s"`
	WorkerCommitWaitS float64            `json:"worker_commit_wait_s"`
	LockWaitS         float64            `json:"lock_wait_s"`
	Latency           result.Latency     `json:"latency_ms"`
	RowLockWaits      int64              `json:"row_lock_waits"`
	MemoryMaxBytes    int64              `json:"memory_max_bytes"`
	MemoryLimitBytes  int64              `json:"memory_limit_bytes"`

	CommitTurnWaitMsAvg *float64       `json:"commit_turn_wait_ms_avg,omitempty"` // commit order: applied to registered
	DependencyWaitMsAvg *float64       `json:"dependency_wait_ms_avg,omitempty"`  // CSA window: read to ready
	CommitGroupSizeMean *float64       `json:"commit_group_size_mean,omitempty"`  // ordered commit groups
	CommitStageMs       *CommitStageMs `json:"commit_stage_ms,omitempty"`         // ordered commit: mean per transaction
	RedoFlushesPerS     *float64       `json:"redo_flushes_per_s,omitempty"`      // redo on
	RedoWaitersPerFlush *float64       `json:"redo_waiters_per_flush,omitempty"`
	BinlogSyncsPerS     *float64       `json:"binlog_syncs_per_s,omitempty"` // binlog on
	BinlogSyncGroupMean *float64       `json:"binlog_sync_group_mean,omitempty"`

	InvariantViolations int64 `json:"invariant_violations"`
	*MTAMetrics
	*CSAMetrics
	Storage map[string]any `json:"storage"` // disk.Array.Metrics
}

// CommitStageMs is a transaction's mean time in each part of the ordered
// commit (commit.OrderedCommit.StageMeans), in ms.
type CommitStageMs struct {
	Queue      float64 `json:"queue"`
	Flush      float64 `json:"flush"`
	SyncWait   float64 `json:"sync_wait"`
	Sync       float64 `json:"sync"`
	CommitWait float64 `json:"commit_wait"`
	Commit     float64 `json:"commit"`
}

// BacklogMetrics are the backlog mode's fields.
type BacklogMetrics struct {
	SourceLastCommittedGapMean float64 `json:"source_last_committed_gap_mean"`
	BacklogTrx                 int64   `json:"backlog_trx"`
	Drained                    bool    `json:"drained"`
	CatchupS                   float64 `json:"catchup_s"` // projected at the rate so far when not drained
}

// OnlineMetrics are the online mode's fields.
type OnlineMetrics struct {
	SourceTPS       float64   `json:"source_tps"`
	MaxLagS         float64   `json:"max_lag_s"`
	LagS            []float64 `json:"lag_s"`
	FinalLagS       float64   `json:"final_lag_s"`
	LagIntervalS    float64   `json:"lag_interval_s"`
	RelayBacklogTrx int64     `json:"relay_backlog_trx"`
	TPSSeries       []float64 `json:"tps_series"`
}

// MTAMetrics is the MTA coordinator's time by what it waited on.
type MTAMetrics struct {
	CoordinatorBusyPct float64 `json:"coordinator_busy_pct"`
	HOLBlockedS        float64 `json:"hol_blocked_s"`
	HOLBlockedPct      float64 `json:"hol_blocked_pct"`
	WaitWorkerS        float64 `json:"wait_worker_s"`
	WaitMemoryS        float64 `json:"wait_memory_s"`
	WaitRelayS         float64 `json:"wait_relay_s"`
	GAQWaitS           float64 `json:"gaq_wait_s"`
	CheckpointWaitS    float64 `json:"checkpoint_wait_s"`
	Checkpoints        int64   `json:"checkpoints"`
}

// CSAMetrics is the CSA scheduler's figures.
type CSAMetrics struct {
	SchedulerBusyPct float64 `json:"scheduler_busy_pct"`
	Window           int64   `json:"window"`
}

func ptr(f float64) *float64 { return &f }
