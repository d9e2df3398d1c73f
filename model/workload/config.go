package workload

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"simrun/sim"
)

// Config is the [workload] section of a scenario: which generator drives
// the run, and one sub-table per kind.
type Config struct {
	Kind     string   `toml:"kind" unit:"" doc:"workload generator: sysbench"`
	Sysbench Sysbench `toml:"sysbench" unit:"" doc:"sysbench 1.0 OLTP client threads (used when kind = sysbench)"`
}

// Sysbench is the [workload.sysbench] sub-table: sysbench 1.0's OLTP
// scripts as oltp_common.lua runs them.
type Sysbench struct {
	Test            string       `toml:"test" unit:"" doc:"sysbench script; oltp_write_only (BEGIN, index UPDATEs, non-index UPDATEs, DELETE+INSERT pairs, COMMIT)"`
	Threads         int          `toml:"threads" unit:"threads" doc:"closed-loop client threads (--threads); each runs one transaction at a time with no think time"`
	Tables          int          `toml:"tables" unit:"tables" doc:"sbtestN tables (--tables); each statement picks its table uniformly"`
	TableSize       int64        `toml:"table_size" unit:"rows" doc:"rows per table (--table-size); ids 1..table_size"`
	RandType        string       `toml:"rand_type" unit:"" doc:"row-choice distribution (--rand-type): special (sysbench 1.0 default), uniform, gaussian or pareto; sysbench sb_rand.c"`
	RandSpecPct     float64      `toml:"rand_spec_pct" unit:"%" doc:"special: size of the hot id range as a percentage of the table (--rand-spec-pct, default 1)"`
	RandSpecRes     float64      `toml:"rand_spec_res" unit:"%" doc:"special: percentage of draws that hit the hot range (--rand-spec-res, default 75)"`
	RandSpecIter    int          `toml:"rand_spec_iter" unit:"draws" doc:"special/gaussian: uniform draws summed for the bell-shaped part (--rand-spec-iter, default 12)"`
	RandParetoH     float64      `toml:"rand_pareto_h" unit:"" doc:"pareto: the h parameter (--rand-pareto-h, default 0.2)"`
	IndexUpdates    int          `toml:"index_updates" unit:"statements/tx" doc:"UPDATE ... SET k=k+1 WHERE id=? per transaction (--index-updates, default 1)"`
	NonIndexUpdates int          `toml:"non_index_updates" unit:"statements/tx" doc:"UPDATE ... SET c=? WHERE id=? per transaction (--non-index-updates, default 1)"`
	DeleteInserts   int          `toml:"delete_inserts" unit:"pairs/tx" doc:"DELETE + INSERT of the same id per transaction (--delete-inserts, default 1)"`
	ClientCPU       sim.Duration `toml:"client_cpu" unit:"s per query" doc:"CPU the sysbench client (Lua, libmariadb, socket send/recv) spends per query on the same machine; assumption: 20us (sysbench and the server share the 4 vCPUs)"`
	RoundTrip       sim.Duration `toml:"round_trip" unit:"s per query" doc:"non-CPU delay of one client/server round trip over loopback (wake-ups, scheduler latency); assumption: 15us"`
	ClientThread    bool         `toml:"client_thread" unit:"" doc:"what-if: run each connection's sysbench client as a thread of its own, so that every query is two wake-ups on the vCPUs (the request wakes the server thread, the reply the client) where the default runs a connection's client and server CPU as one thread, a segment per query (docs/realdb.md, 'A host that pays for waking a vCPU'); false (default)"`
	CValueLen       int          `toml:"c_len" unit:"bytes" doc:"length of the c value written (CHAR(120) column holding 119 digits and dashes; oltp_common.lua c_value_template)"`
	PadValueLen     int          `toml:"pad_len" unit:"bytes" doc:"length of the pad value written (CHAR(60) column holding 59 characters; oltp_common.lua pad_value_template)"`
}

// Rand types accepted by rand_type.
var RandTypes = []string{"special", "uniform", "gaussian", "pareto"}

// Tests accepted by test.
var Tests = []string{"oltp_write_only"}

// DefaultConfig returns sysbench oltp_write_only with the settings of the
// MariaDB 12.3 binlog study: 16 threads, 10 tables of 1,000,000 rows,
// sysbench 1.0 defaults for everything else.
func DefaultConfig() Config {
	return Config{Kind: "sysbench", Sysbench: DefaultSysbench()}
}

// DefaultSysbench returns the sysbench defaults (see DefaultConfig).
func DefaultSysbench() Sysbench {
	return Sysbench{
		Test:            "oltp_write_only",
		Threads:         16,
		Tables:          10,
		TableSize:       1_000_000,
		RandType:        "special",
		RandSpecPct:     1,
		RandSpecRes:     75,
		RandSpecIter:    12,
		RandParetoH:     0.2,
		IndexUpdates:    1,
		NonIndexUpdates: 1,
		DeleteInserts:   1,
		ClientCPU:       sim.Duration(20 * time.Microsecond),
		RoundTrip:       sim.Duration(15 * time.Microsecond),
		CValueLen:       119,
		PadValueLen:     59,
	}
}

// Limits that keep a run bounded in memory.
const (
	MaxThreads    = 100_000
	MaxTables     = 10_000
	MaxTableSize  = 1 << 31
	MaxStatements = 1000
)

// Validate checks the configuration; every message names its toml key.
func (c Config) Validate() error {
	if c.Kind != "sysbench" {
		return fmt.Errorf("kind: must be sysbench, got %q", c.Kind)
	}
	if err := c.Sysbench.Validate(); err != nil {
		return prefixErr("sysbench.", err)
	}
	return nil
}

// Validate checks the sysbench sub-table.
func (s Sysbench) Validate() error {
	var errs []error
	bad := func(format string, a ...any) { errs = append(errs, fmt.Errorf(format, a...)) }
	if !contains(Tests, s.Test) {
		bad("test: must be one of %s, got %q", strings.Join(Tests, ", "), s.Test)
	}
	if s.Threads < 1 || s.Threads > MaxThreads {
		bad("threads: must be in [1, %d], got %d", MaxThreads, s.Threads)
	}
	if s.Tables < 1 || s.Tables > MaxTables {
		bad("tables: must be in [1, %d], got %d", MaxTables, s.Tables)
	}
	if s.TableSize < 100 || s.TableSize > MaxTableSize {
		bad("table_size: must be in [100, %d], got %d", int64(MaxTableSize), s.TableSize)
	}
	if !contains(RandTypes, s.RandType) {
		bad("rand_type: must be one of %s, got %q", strings.Join(RandTypes, ", "), s.RandType)
	}
	if !(s.RandSpecPct > 0 && s.RandSpecPct <= 100) {
		bad("rand_spec_pct: must be in (0, 100], got %v", s.RandSpecPct)
	}
	if !(s.RandSpecRes >= 0 && s.RandSpecRes < 100) {
		bad("rand_spec_res: must be in [0, 100), got %v", s.RandSpecRes)
	}
	if s.RandSpecIter < 1 || s.RandSpecIter > 1000 {
		bad("rand_spec_iter: must be in [1, 1000], got %d", s.RandSpecIter)
	}
	if !(s.RandParetoH > 0 && s.RandParetoH < 1) {
		bad("rand_pareto_h: must be in (0, 1), got %v", s.RandParetoH)
	}
	for _, x := range []struct {
		key string
		v   int
	}{{"index_updates", s.IndexUpdates}, {"non_index_updates", s.NonIndexUpdates}, {"delete_inserts", s.DeleteInserts}} {
		if x.v < 0 || x.v > MaxStatements {
			bad("%s: must be in [0, %d], got %d", x.key, MaxStatements, x.v)
		}
	}
	if s.IndexUpdates+s.NonIndexUpdates+s.DeleteInserts == 0 {
		bad("index_updates: index_updates, non_index_updates and delete_inserts must not all be 0")
	}
	if s.ClientCPU < 0 || s.ClientCPU > sim.Duration(time.Second) {
		bad("client_cpu: must be in [0, 1s], got %v", s.ClientCPU)
	}
	if s.RoundTrip < 0 || s.RoundTrip > sim.Duration(time.Second) {
		bad("round_trip: must be in [0, 1s], got %v", s.RoundTrip)
	}
	if s.CValueLen < 0 || s.CValueLen > 255 {
		bad("c_len: must be in [0, 255], got %d", s.CValueLen)
	}
	if s.PadValueLen < 0 || s.PadValueLen > 255 {
		bad("pad_len: must be in [0, 255], got %d", s.PadValueLen)
	}
	return errors.Join(errs...)
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// prefixErr prefixes every line of a joined error with p (a toml path).
func prefixErr(p string, err error) error {
	lines := strings.Split(err.Error(), "\n")
	errs := make([]error, len(lines))
	for i, l := range lines {
		errs[i] = errors.New(p + l)
	}
	return errors.Join(errs...)
}
