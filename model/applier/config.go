package applier

import (
	"errors"
	"fmt"
	"math"
	"time"

	"simrun/model/applier/stream"
	"simrun/model/commit"
	"simrun/sim"
)

// Config is the [applier] section of a scenario: which applier, how many
// workers, the replica's durability profile, the mode, and the costs that
// drive them. One parameter set serves every case; cases change only
// version, workers, profile, mode and source.updates_per_trx (and the
// sweeps change workers or source.hot_pct).
type Config struct {
	Version        string       `toml:"version" enum:"mta|csa" doc:"mta = multi-threaded applier (APPLIER_VERSION=1, LOGICAL_CLOCK); csa = Change Stream Applier (APPLIER_VERSION=2)"`
	Workers        int          `toml:"workers" unit:"threads" doc:"replica_parallel_workers or APPLIER_WORKER_COUNT, 1..1024; the study used 64"`
	Profile        string       `toml:"profile" enum:"nologs|nologs+redo|nologs+rpco|default" doc:"replica durability: nologs = no binlog, redo disabled, replica_preserve_commit_order off; +redo turns the redo log on (innodb_flush_log_at_trx_commit=1); +rpco turns commit order on; default = binlog (sync_binlog=1), redo and commit order on"`
	Mode           string       `toml:"mode" enum:"online|backlog" doc:"online: the source runs and the replica follows, lag is reported; backlog: the relay log already holds backlog_trx transactions and the replica catches up"`
	BacklogTrx     sim.Count    `toml:"backlog_trx" unit:"transactions" doc:"transactions in the relay log at the start of a backlog run; the study used 1,000,000"`
	BacklogTimeMax sim.Duration `toml:"backlog_time_max" unit:"duration" doc:"a backlog run stops here if it has not caught up (it then reports drained = false); warmup and duration do not apply to backlog runs"`
	LagInterval    sim.Duration `toml:"lag_interval" unit:"duration" doc:"interval of the lag and TPS series (online), like Seconds_Behind_Source sampled once a second"`
	NetworkLatency sim.Duration `toml:"network_latency" unit:"duration" doc:"source-to-replica delay of a binlog group (one-way network + dump thread); assumption: same data centre"`

	Source      stream.Config      `toml:"source" doc:"the source server and its sysbench clients"`
	Events      Events             `toml:"events" doc:"row-based binlog event sizes"`
	MTA         MTAConfig          `toml:"mta" doc:"multi-threaded applier settings"`
	CSA         CSAConfig          `toml:"csa" doc:"Change Stream Applier settings"`
	CPU         CPUCosts           `toml:"cpu" doc:"CPU cost of each step on the replica's cores"`
	Storage     Storage            `toml:"storage" doc:"the replica's RAID 0 set and its log traffic"`
	Commit      commit.MySQLConfig `toml:"commit" doc:"the replica's binlog group commit waits (MySQL flavour of model/commit)"`
	Compression Compression        `toml:"compression" doc:"binary log transaction compression (binlog_transaction_compression); off by default, as in MySQL"`
}

// Compression is binary log transaction compression (MySQL 8.0.20+,
// WL#3549): the source compresses each transaction's events after its GTID
// event into one Transaction_payload event; the relay log and, written as
// received, the replica's binlog hold it compressed, and the worker that
// applies the transaction decompresses it and decodes the events inside.
type Compression struct {
	Enabled        bool      `toml:"enabled" doc:"binlog_transaction_compression on the source (MySQL default OFF, as in every profile of the study's figures)"`
	Ratio          float64   `toml:"ratio" unit:"fraction" doc:"compressed / uncompressed bytes of a transaction's events after its GTID event, at binlog_transaction_compression_level_zstd = 3 (MySQL default); assumption: 0.35, from the entropy of sysbench's c and pad strings and the repeats between a row's before and after images (docs/model-applier.md section 2)"`
	PayloadHeader  sim.Bytes `toml:"payload_header" unit:"bytes" doc:"Transaction_payload_log_event besides its compressed bytes: common header, compression type, payload and uncompressed sizes, checksum; from the event layout"`
	DecompressRate sim.Rate  `toml:"decompress_rate" unit:"bytes/s" doc:"zstd decompression on one core, per uncompressed byte; assumption: 1 GB/s (zstd's published single-core speeds are 1-1.5 GB/s at level 3; small frames pay their set-up)"`
}

// Events gives the size of each row-based event of a sysbench UPDATE
// transaction: GTID, Query(BEGIN), then Table_map + Update_rows per UPDATE,
// then XID. Sizes from the event layouts (mechanisms-notes §4).
type Events struct {
	GTID       sim.Bytes `toml:"gtid" unit:"bytes" doc:"Gtid_log_event with last_committed, sequence_number, timestamps and transaction_length"`
	Begin      sim.Bytes `toml:"begin" unit:"bytes" doc:"Query_log_event BEGIN with status variables"`
	TableMap   sim.Bytes `toml:"table_map" unit:"bytes" doc:"Table_map_log_event, one per statement"`
	UpdateRows sim.Bytes `toml:"update_rows" unit:"bytes" doc:"Update_rows_log_event with FULL before and after images of one sysbench row (2 x ~191 B + headers)"`
	Xid        sim.Bytes `toml:"xid" unit:"bytes" doc:"Xid_log_event"`
}

// MTAConfig holds the multi-threaded applier's own settings.
type MTAConfig struct {
	PendingJobsSizeMax sim.Bytes    `toml:"pending_jobs_size_max" unit:"bytes" doc:"replica_pending_jobs_size_max: bytes of events the coordinator may have queued to workers and not yet executed; default 128MiB (WL#11348)"`
	CheckpointGroup    int          `toml:"checkpoint_group" unit:"transactions" doc:"replica_checkpoint_group: capacity of the coordinator's group assigned queue (GAQ); when that many transactions were assigned since the last checkpoint the coordinator forces one, and waits if the oldest has not committed; MySQL default 512, range 32..524280"`
	CheckpointPeriod   sim.Duration `toml:"checkpoint_period" unit:"duration" doc:"replica_checkpoint_period: the coordinator also checkpoints when this much time has passed since the last one; MySQL default 300ms"`
	GTIDOnly           bool         `toml:"gtid_only" doc:"the channel's GTID_ONLY option; MySQL default 0 (Master_info, sql/rpl_mi.cc): the worker updates its mysql.slave_worker_info row in every transaction and each checkpoint commits the relay-log info row in its own transaction, waiting for the redo flush when the redo log is on; 1 skips both (the CSA requires 1)"`
}

// CSAConfig holds the Change Stream Applier's own settings.
type CSAConfig struct {
	EventMemoryLimit sim.Bytes `toml:"event_memory_limit" unit:"bytes" doc:"APPLIER_EVENT_MEMORY_LIMIT: bytes of events held (GTID events of the window plus the events of transactions being applied); assumption: 128MiB, the MTA default (the manual's example uses 2GiB)"`
	Window           int       `toml:"window" unit:"transactions" doc:"transactions the scheduler holds from reading their GTID event until they commit; assumption (not published): 4 x the study's 64 workers"`
}

// CPUCosts are the replica's CPU costs per step. Each step runs on one of
// the machine's processors (sim.CPU, shared by every thread).
type CPUCosts struct {
	SchedulePerTrx  sim.Duration `toml:"schedule_per_trx" unit:"duration" doc:"serial coordinator/scheduler work per transaction: dependency check, queue bookkeeping and handing it to a worker (mutex + condition-variable signal); calibrated so that the scheduler-bound NOLOGS 1-update backlog gives the published CSA figure"`
	ParsePerEvent   sim.Duration `toml:"parse_per_event" unit:"duration" doc:"reading one event from the (cached) relay log: header decode, allocation, checksum set-up; the MTA coordinator pays it for every event, CSA's scheduler only for GTID events (the GTID event carries transaction_length)"`
	ParseRate       sim.Rate     `toml:"parse_rate" unit:"bytes/s" doc:"bytes per second of event copy and CRC32 check when reading events; assumption: ~1 GB/s"`
	ApplyPerTrx     sim.Duration `toml:"apply_per_trx" unit:"duration" doc:"worker CPU per transaction besides its rows: BEGIN, GTID bookkeeping, prepare"`
	ApplyPerUpdate  sim.DistSpec `toml:"apply_per_update" unit:"duration" doc:"worker CPU per Update_rows event, drawn per row: open table, primary-key lookup in the buffer pool, compare the before image, update in place, undo and redo records; its spread (CPU caches, page latches, B-tree depth) is what makes a worker wait for a slower predecessor under commit order. Assumption: data fits the buffer pool (256 GB RAM, 8 x 8M rows ~ 13 GB)"`
	Checkpoint      sim.Duration `toml:"checkpoint" unit:"duration" doc:"MTA coordinator CPU per checkpoint (mta_checkpoint_routine): move the GAQ head past the committed prefix, re-sort the workers, update the relay-log info table; assumption"`
	CommitPerTrx    sim.Duration `toml:"commit_per_trx" unit:"duration" doc:"engine commit of one transaction (InnoDB commit, gtid_executed update); run by the worker, or serially by the leader of an ordered commit stage"`
	ReceivePerEvent sim.Duration `toml:"receive_per_event" unit:"duration" doc:"receiver (I/O) thread CPU per event written to the relay log"`
	Wakeup          sim.Duration `toml:"wakeup" unit:"duration" doc:"CPU a thread spends to resume after it slept on a condition variable, a lock or an I/O (futex wake, scheduler switch, syscall return); it runs only when the thread gets a processor (sim.CPU). Assumption: 10us, the engine's cpu.wakeup (docs/model-engine.md)"`
}

// Storage describes the replica's RAID 0 set and the bytes it writes.
type Storage struct {
	Members       int       `toml:"members" unit:"volumes" doc:"block volumes striped in RAID 0; the study used 4 x 1 TB; every member has the [volume] configuration"`
	ChunkSize     sim.Bytes `toml:"chunk_size" unit:"bytes" doc:"RAID 0 chunk (stripe unit); mdadm's default is 512KiB"`
	RedoPerUpdate sim.Bytes `toml:"redo_per_update" unit:"bytes" doc:"InnoDB redo bytes per updated row (page change + undo record with the 120-byte before image); assumption from record layouts (mechanisms-notes §4)"`
	RedoPerTrx    sim.Bytes `toml:"redo_per_trx" unit:"bytes" doc:"InnoDB redo bytes per transaction besides its rows (undo header, prepare, commit)"`
	SyncRelayLog  int       `toml:"sync_relay_log" unit:"events" doc:"sync_relay_log: the receiver fsyncs the relay log every this many events (0 = never); MySQL default 10000"`
}

// DefaultConfig returns the parameter set of the applier study: MTA, 64
// workers, DEFAULT profile, online mode, the source of stream.DefaultConfig.
// Each value's source or assumption is in its doc tag and in
// docs/model-applier.md.
func DefaultConfig() Config {
	us := func(n float64) sim.Duration { return sim.Duration(time.Duration(n * float64(time.Microsecond))) }
	return Config{
		Version:        "mta",
		Workers:        64,
		Profile:        "default",
		Mode:           "online",
		BacklogTrx:     1_000_000,
		BacklogTimeMax: sim.Duration(time.Hour),
		LagInterval:    sim.Duration(time.Second),
		NetworkLatency: us(200),
		Source:         stream.DefaultConfig(),
		Events: Events{
			GTID:       79,
			Begin:      75,
			TableMap:   60,
			UpdateRows: 416,
			Xid:        31,
		},
		MTA: MTAConfig{
			PendingJobsSizeMax: 128 * sim.MiB,
			CheckpointGroup:    512,
			CheckpointPeriod:   sim.Duration(300 * time.Millisecond),
		},
		CSA: CSAConfig{EventMemoryLimit: 128 * sim.MiB, Window: 256},
		CPU: CPUCosts{
			SchedulePerTrx:  us(17.5),
			ParsePerEvent:   us(0.3),
			ParseRate:       sim.Rate(sim.GB),
			ApplyPerTrx:     us(40),
			ApplyPerUpdate:  sim.LognormalDist(us(20), us(80)),
			Checkpoint:      us(50),
			CommitPerTrx:    us(10),
			ReceivePerEvent: us(0.5),
			Wakeup:          us(10),
		},
		Compression: Compression{
			Enabled:        false,
			Ratio:          0.35,
			PayloadHeader:  40,
			DecompressRate: sim.Rate(sim.GB),
		},
		Storage: Storage{
			Members:       4,
			ChunkSize:     512 * sim.KiB,
			RedoPerUpdate: 450,
			RedoPerTrx:    250,
			SyncRelayLog:  10000,
		},
	}
}

// Limits keep a run bounded.
const (
	MaxWorkers    = 1024
	MaxBacklogTrx = 50_000_000
	MaxWindow     = 1 << 22
)

// Validate checks every field and returns all problems, each naming its
// key (relative to [applier]) and the allowed range.
func (c Config) Validate() error {
	var errs []error
	bad := func(format string, a ...any) { errs = append(errs, fmt.Errorf(format, a...)) }
	switch c.Version {
	case "mta", "csa":
	default:
		bad("version: must be one of mta, csa, got %q", c.Version)
	}
	if c.Workers < 1 || c.Workers > MaxWorkers {
		bad("workers: must be in [1, %d], got %d", MaxWorkers, c.Workers)
	}
	if _, ok := profiles[c.Profile]; !ok {
		bad("profile: must be one of nologs, nologs+redo, nologs+rpco, default, got %q", c.Profile)
	}
	switch c.Mode {
	case "online", "backlog":
	default:
		bad("mode: must be one of online, backlog, got %q", c.Mode)
	}
	if !(c.BacklogTrx >= 1 && c.BacklogTrx <= MaxBacklogTrx) || c.BacklogTrx != sim.Count(math.Trunc(float64(c.BacklogTrx))) {
		bad("backlog_trx: must be a whole number in [1, %d], got %v", MaxBacklogTrx, c.BacklogTrx)
	}
	if c.BacklogTimeMax <= 0 || c.BacklogTimeMax > sim.Duration(30*24*time.Hour) {
		bad("backlog_time_max: must be in (0, 720h], got %v", c.BacklogTimeMax)
	}
	if c.LagInterval < sim.Duration(time.Millisecond) || c.LagInterval > sim.Duration(time.Hour) {
		bad("lag_interval: must be in [1ms, 1h], got %v", c.LagInterval)
	}
	if c.NetworkLatency < 0 || c.NetworkLatency > sim.Duration(time.Second) {
		bad("network_latency: must be in [0, 1s], got %v", c.NetworkLatency)
	}
	if err := c.Source.Validate(); err != nil {
		errs = append(errs, prefixed("source.", err))
	}
	for _, e := range []struct {
		key string
		v   sim.Bytes
	}{{"gtid", c.Events.GTID}, {"begin", c.Events.Begin}, {"table_map", c.Events.TableMap}, {"update_rows", c.Events.UpdateRows}, {"xid", c.Events.Xid}} {
		if e.v < 19 || e.v > 64*sim.MiB {
			bad("events.%s: must be in [19B, 64MiB] (an event has a 19-byte header), got %v", e.key, e.v)
		}
	}
	if c.MTA.PendingJobsSizeMax < 1024 || c.MTA.PendingJobsSizeMax > 64*sim.GiB {
		bad("mta.pending_jobs_size_max: must be in [1KiB, 64GiB], got %v", c.MTA.PendingJobsSizeMax)
	}
	if c.MTA.CheckpointGroup < 32 || c.MTA.CheckpointGroup > 524280 {
		bad("mta.checkpoint_group: must be in [32, 524280], got %d", c.MTA.CheckpointGroup)
	}
	if c.MTA.CheckpointPeriod < sim.Duration(time.Millisecond) || c.MTA.CheckpointPeriod > sim.Duration(4294967295*time.Millisecond) {
		bad("mta.checkpoint_period: must be in [1ms, 4294967295ms], got %v", c.MTA.CheckpointPeriod)
	}
	if c.CSA.EventMemoryLimit < 1024 || c.CSA.EventMemoryLimit > 64*sim.GiB {
		bad("csa.event_memory_limit: must be in [1KiB, 64GiB], got %v", c.CSA.EventMemoryLimit)
	}
	if c.CSA.Window < 1 || c.CSA.Window > MaxWindow {
		bad("csa.window: must be in [1, %d], got %d", MaxWindow, c.CSA.Window)
	}
	for _, d := range []struct {
		key string
		v   sim.Duration
	}{
		{"schedule_per_trx", c.CPU.SchedulePerTrx}, {"parse_per_event", c.CPU.ParsePerEvent},
		{"apply_per_trx", c.CPU.ApplyPerTrx}, {"checkpoint", c.CPU.Checkpoint},
		{"commit_per_trx", c.CPU.CommitPerTrx}, {"receive_per_event", c.CPU.ReceivePerEvent},
		{"wakeup", c.CPU.Wakeup},
	} {
		if d.v < 0 || d.v > sim.Duration(time.Second) {
			bad("cpu.%s: must be in [0, 1s], got %v", d.key, d.v)
		}
	}
	if err := c.CPU.ApplyPerUpdate.Validate(); err != nil {
		bad("cpu.apply_per_update: %v", err)
	} else if m := c.CPU.ApplyPerUpdate.MeanDuration(); m > sim.Duration(time.Second) {
		bad("cpu.apply_per_update: mean must be <= 1s, got %v", m)
	}
	if c.CPU.ParseRate < sim.Rate(sim.MB) {
		bad("cpu.parse_rate: must be >= 1MB/s, got %v", c.CPU.ParseRate)
	}
	if c.Storage.Members < 1 || c.Storage.Members > 64 {
		bad("storage.members: must be in [1, 64], got %d", c.Storage.Members)
	}
	if c.Storage.ChunkSize < 4*sim.KiB || c.Storage.ChunkSize > sim.GiB || c.Storage.ChunkSize%512 != 0 {
		bad("storage.chunk_size: must be a multiple of 512B in [4KiB, 1GiB], got %v", c.Storage.ChunkSize)
	}
	if c.Storage.RedoPerUpdate < 0 || c.Storage.RedoPerUpdate > 16*sim.MiB {
		bad("storage.redo_per_update: must be in [0, 16MiB], got %v", c.Storage.RedoPerUpdate)
	}
	if c.Storage.RedoPerTrx < 0 || c.Storage.RedoPerTrx > 16*sim.MiB {
		bad("storage.redo_per_trx: must be in [0, 16MiB], got %v", c.Storage.RedoPerTrx)
	}
	if c.Storage.RedoPerTrx+c.Storage.RedoPerUpdate == 0 {
		bad("storage.redo_per_trx: redo_per_trx + redo_per_update must be > 0")
	}
	if err := c.Commit.Validate(); err != nil {
		for _, e := range err.(interface{ Unwrap() []error }).Unwrap() {
			bad("commit.%v", e)
		}
	}
	if !(c.Compression.Ratio > 0 && c.Compression.Ratio <= 1) {
		bad("compression.ratio: must be in (0, 1], got %v", c.Compression.Ratio)
	}
	if c.Compression.PayloadHeader < 19 || c.Compression.PayloadHeader > sim.MiB {
		bad("compression.payload_header: must be in [19B, 1MiB] (an event has a 19-byte header), got %v", c.Compression.PayloadHeader)
	}
	if c.Compression.DecompressRate < sim.Rate(sim.MB) {
		bad("compression.decompress_rate: must be >= 1MB/s, got %v", c.Compression.DecompressRate)
	}
	if c.Storage.SyncRelayLog < 0 || c.Storage.SyncRelayLog > 1<<30 {
		bad("storage.sync_relay_log: must be in [0, 2^30], got %d", c.Storage.SyncRelayLog)
	}
	return errors.Join(errs...)
}

// prefixed puts prefix before every message of a joined error.
func prefixed(prefix string, err error) error {
	var out []error
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		for _, e := range j.Unwrap() {
			out = append(out, fmt.Errorf("%s%w", prefix, e))
		}
		return errors.Join(out...)
	}
	return fmt.Errorf("%s%w", prefix, err)
}

// profile says which logs and orderings a durability profile turns on.
type profile struct {
	binlog, redo, rpco bool
}

var profiles = map[string]profile{
	"nologs":      {},
	"nologs+redo": {redo: true},
	"nologs+rpco": {rpco: true},
	"default":     {binlog: true, redo: true, rpco: true},
}

// trxBytes returns the events and bytes of a transaction of n updates.
func (e Events) trx(n int) (events int, bytes int64) {
	return 2*n + 3, int64(e.GTID+e.Begin+e.Xid) + int64(n)*int64(e.TableMap+e.UpdateRows)
}

// parseCosts returns the CPU of reading and parsing a relay-logged
// transaction of n updates: its GTID event, the rest of its events, and
// (compressed) the decompression and parse of the payload's events.
func (c Config) parseCosts(n int) (gtid, rest, inflate time.Duration) {
	events, bytes, inner := c.relay(n)
	per := time.Duration(c.CPU.ParsePerEvent)
	gtid = per + bytesTime(int64(c.Events.GTID), c.CPU.ParseRate)
	rest = time.Duration(events-1)*per + bytesTime(bytes-int64(c.Events.GTID), c.CPU.ParseRate)
	if inner > 0 {
		// The payload's 2N+2 events are decoded as if read from the relay
		// log, after zstd has restored their bytes.
		all, _ := c.Events.trx(n)
		inflate = bytesTime(inner, c.Compression.DecompressRate) + time.Duration(all-1)*per + bytesTime(inner, c.CPU.ParseRate)
	}
	return gtid, rest, inflate
}

// Demand is the mean CPU one transaction asks of the applier's serial
// scheduler (the MTA's coordinator, CSA's scheduler) and of the worker
// that applies it, from the configured costs, charged where the replica
// charges them.
type Demand struct{ Scheduler, Worker time.Duration }

// Demand returns the demand of a transaction of n updates. The MTA's
// coordinator reads every event; CSA's scheduler reads only the GTID
// event, its worker the rest. Unless GTID_ONLY, an MTA worker also updates
// its row of mysql.slave_worker_info.
func (c Config) Demand(n int) Demand {
	gtid, rest, inflate := c.parseCosts(n)
	upd := time.Duration(c.CPU.ApplyPerUpdate.MeanDuration())
	apply := time.Duration(c.CPU.ApplyPerTrx) + time.Duration(n)*upd + time.Duration(c.CPU.CommitPerTrx)
	sched := time.Duration(c.CPU.SchedulePerTrx)
	if c.Version == "csa" {
		return Demand{Scheduler: gtid + sched, Worker: rest + inflate + apply}
	}
	if !c.MTA.GTIDOnly {
		apply += upd
	}
	return Demand{Scheduler: gtid + sched + rest, Worker: inflate + apply}
}

// relay returns what the relay log holds of a transaction of n updates:
// its events and bytes, and the uncompressed bytes a worker decompresses
// (0 without compression). Compressed, the events after the GTID event
// are one Transaction_payload event.
func (c Config) relay(n int) (events int, bytes, inflate int64) {
	events, bytes = c.Events.trx(n)
	if !c.Compression.Enabled {
		return events, bytes, 0
	}
	inner := bytes - int64(c.Events.GTID)
	packed := int64(math.Ceil(float64(inner) * c.Compression.Ratio))
	return 2, int64(c.Events.GTID) + int64(c.Compression.PayloadHeader) + packed, inner
}
