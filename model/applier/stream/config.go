package stream

import (
	"errors"
	"fmt"
	"math"
	"time"

	"simrun/sim"
)

// Config is the [applier.source] section: the source server and its
// client load.
type Config struct {
	Threads       int       `toml:"threads" unit:"threads" doc:"sysbench client threads on the source; the study used 256"`
	Tables        int       `toml:"tables" unit:"tables" doc:"sysbench tables; the study used 8"`
	TableRows     sim.Count `toml:"table_rows" unit:"rows" doc:"rows per table; the study used 8,000,000"`
	UpdatesPerTrx int       `toml:"updates_per_trx" unit:"statements" doc:"non-indexed-column UPDATEs per transaction, all on one table (sysbench --non_index_updates); the study used 1 and 10"`

	KeyDist    string    `toml:"key_dist" enum:"uniform|special|hot" doc:"row id distribution: special = sysbench 1.0 default rand-type; uniform; hot = hot_pct % of updates on hot_rows rows"`
	SpecialPct float64   `toml:"special_pct" unit:"%" doc:"sysbench --rand-spec-pct: width of the hot id range as % of the table (special only); sysbench default 1"`
	SpecialRes float64   `toml:"special_res" unit:"%" doc:"sysbench --rand-spec-res: % of draws that land in the hot range (special only); sysbench default 75"`
	HotRows    sim.Count `toml:"hot_rows" unit:"rows" doc:"hot rows per table (hot only): ids 0..hot_rows-1"`
	HotPct     float64   `toml:"hot_pct" unit:"%" doc:"% of updates that go to a hot row (hot only)"`

	Dependency  string `toml:"dependency" enum:"writeset|commit_order" doc:"how the source computes last_committed: writeset, what MySQL 8.4 and 9.x always do (binlog_transaction_dependency_tracking was removed in 8.4; WL#9556, rpl_trx_tracking.cc); commit_order (binlog group commit intervals, MySQL 5.7 LOGICAL_CLOCK) is a what-if only, not the study's source"`
	HistorySize int    `toml:"history_size" unit:"hashes" doc:"binlog_transaction_dependency_history_size: row hashes the writeset history holds; MySQL 9.7 default 10000000 (sql/sys_vars.cc; 8.0 had 25000)"`

	Cores       int          `toml:"cores" unit:"cores" doc:"source CPU cores; assumption: a server like the replica (32 logical cores)"`
	CPUPerStmt  sim.Duration `toml:"cpu_per_statement" unit:"duration" doc:"source CPU per statement (BEGIN, UPDATE or COMMIT) including parsing, execution and contention; assumption chosen so that the source delivers about 11k ten-update TPS (the CSA online figure, which kept up with it)"`
	RoundTrip   sim.Duration `toml:"round_trip" unit:"duration" doc:"client-server round trip per statement; assumption: same-zone network"`
	SyncLatency sim.DistSpec `toml:"sync_latency" unit:"duration" doc:"time the source's binlog group commit leader spends making a group durable (redo fsync + binlog fsync); assumption: two block-volume syncs"`
}

// DefaultConfig returns the source of the applier study (see the doc tags
// for the assumptions).
func DefaultConfig() Config {
	return Config{
		Threads:       256,
		Tables:        8,
		TableRows:     8_000_000,
		UpdatesPerTrx: 1,
		KeyDist:       "special",
		SpecialPct:    1,
		SpecialRes:    75,
		HotRows:       1000,
		HotPct:        0,
		Dependency:    "writeset",
		HistorySize:   10_000_000,
		Cores:         32,
		CPUPerStmt:    sim.Duration(240 * time.Microsecond),
		RoundTrip:     sim.Duration(150 * time.Microsecond),
		SyncLatency:   sim.LognormalDist(sim.Duration(2*time.Millisecond), sim.Duration(5*time.Millisecond)),
	}
}

// Limits keep a run bounded.
const (
	MaxThreads       = 100_000
	MaxTables        = 1 << 16
	MaxTableRows     = 1 << 40
	MaxUpdatesPerTrx = 10_000
	MaxHistorySize   = 100_000_000
)

// Validate checks the configuration; each message starts with its key.
func (c Config) Validate() error {
	var errs []error
	bad := func(format string, a ...any) { errs = append(errs, fmt.Errorf(format, a...)) }
	if c.Threads < 1 || c.Threads > MaxThreads {
		bad("threads: must be in [1, %d], got %d", MaxThreads, c.Threads)
	}
	if c.Tables < 1 || c.Tables > MaxTables {
		bad("tables: must be in [1, %d], got %d", MaxTables, c.Tables)
	}
	if !(c.TableRows >= 1 && float64(c.TableRows) <= MaxTableRows) || c.TableRows != sim.Count(math.Trunc(float64(c.TableRows))) {
		bad("table_rows: must be a whole number in [1, 2^40], got %v", c.TableRows)
	}
	if c.UpdatesPerTrx < 1 || c.UpdatesPerTrx > MaxUpdatesPerTrx {
		bad("updates_per_trx: must be in [1, %d], got %d", MaxUpdatesPerTrx, c.UpdatesPerTrx)
	}
	switch c.KeyDist {
	case "uniform":
	case "special":
		if !(c.SpecialPct > 0 && c.SpecialPct <= 100) {
			bad("special_pct: must be in (0, 100], got %v", c.SpecialPct)
		}
		if !(c.SpecialRes >= 0 && c.SpecialRes < 100) {
			bad("special_res: must be in [0, 100), got %v", c.SpecialRes)
		}
	case "hot":
		if !(c.HotRows >= 1 && c.HotRows <= c.TableRows) || c.HotRows != sim.Count(math.Trunc(float64(c.HotRows))) {
			bad("hot_rows: must be a whole number in [1, table_rows=%v], got %v", c.TableRows, c.HotRows)
		}
		if !(c.HotPct >= 0 && c.HotPct <= 100) {
			bad("hot_pct: must be in [0, 100], got %v", c.HotPct)
		}
	default:
		bad("key_dist: must be one of uniform, special, hot, got %q", c.KeyDist)
	}
	switch c.Dependency {
	case "commit_order", "writeset":
	default:
		bad("dependency: must be one of commit_order, writeset, got %q", c.Dependency)
	}
	if c.HistorySize < 1 || c.HistorySize > MaxHistorySize {
		bad("history_size: must be in [1, %d], got %d", MaxHistorySize, c.HistorySize)
	}
	if c.Cores < 1 || c.Cores > 4096 {
		bad("cores: must be in [1, 4096], got %d", c.Cores)
	}
	if c.CPUPerStmt < 0 || c.CPUPerStmt > sim.Duration(time.Second) {
		bad("cpu_per_statement: must be in [0, 1s], got %v", c.CPUPerStmt)
	}
	if c.RoundTrip < 0 || c.RoundTrip > sim.Duration(time.Second) {
		bad("round_trip: must be in [0, 1s], got %v", c.RoundTrip)
	}
	if err := c.SyncLatency.Validate(); err != nil {
		bad("sync_latency: %v", err)
	}
	if c.CPUPerStmt == 0 && c.RoundTrip == 0 && len(errs) == 0 && c.SyncLatency.MeanDuration() == 0 {
		bad("cpu_per_statement: cpu_per_statement, round_trip and sync_latency are all zero: the source would produce infinitely fast")
	}
	return errors.Join(errs...)
}
