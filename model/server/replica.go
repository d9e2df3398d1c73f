package server

import (
	"errors"
	"fmt"
	"time"

	"simrun/model/commit"
	"simrun/model/disk"
	"simrun/sim"
)

// ReplicaConfig is the make-up of a replication replica's server: its
// vCPUs, a RAID 0 volume, the InnoDB costs of the rows the applier
// changes, and the durability switches of the MySQL 8.4/9.x commit
// flavour. The applier maps its [applier] section onto it.
type ReplicaConfig struct {
	Cores   int         // vCPUs (sim.CPU servers)
	Member  disk.Config // every RAID member
	Members int         // RAID 0 members
	Chunk   int64       // RAID 0 chunk, bytes

	Redo                bool // innodb_flush_log_at_trx_commit=1 with the redo log on (off: ALTER INSTANCE DISABLE INNODB REDO_LOG)
	Binlog              bool // log_bin with sync_binlog=1 (needs PreserveCommitOrder: binlog group commit orders the commits)
	PreserveCommitOrder bool // replica_preserve_commit_order

	RedoPerRow int64         // redo bytes per changed row, bytes
	RedoPerTrx int64         // redo bytes per transaction besides its rows (undo header, prepare, commit), bytes
	CommitCPU  time.Duration // engine commit of one transaction (InnoDB commit, gtid_executed update)
	Commit     commit.MySQLConfig
}

// Validate checks what NewReplica relies on.
func (c ReplicaConfig) Validate() error {
	var errs []error
	if c.Cores < 1 || c.Cores > 4096 {
		errs = append(errs, fmt.Errorf("cores: must be in [1, 4096], got %d", c.Cores))
	}
	if c.Binlog && !c.PreserveCommitOrder {
		errs = append(errs, errors.New("binlog: the replica's binlog group commit needs replica_preserve_commit_order"))
	}
	if c.RedoPerRow < 0 || c.RedoPerTrx < 0 {
		errs = append(errs, fmt.Errorf("redo: bytes per row and per transaction must be >= 0, got %d and %d", c.RedoPerRow, c.RedoPerTrx))
	}
	if c.CommitCPU < 0 {
		errs = append(errs, fmt.Errorf("commit cpu: must be >= 0, got %v", c.CommitCPU))
	}
	if err := c.Commit.Validate(); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// Replica is the server a replication applier drives: the machine's vCPUs
// (sim.CPU), a RAID 0 set (disk.Array, the same File and journal layer as
// every volume), InnoDB's redo log as MySQL's log writer and flusher run
// it (commit.Redo) and the ordered commit of the MySQL flavour
// (commit.OrderedCommit: binlog group commit, or the commit order
// manager's flush stage without a binlog). The applier's threads run
// their CPU on it and its workers talk to it through ReplicaSessions.
//
// The engine here is the part of InnoDB a replica's commit path sees: the
// redo its rows generate and the engine commit's CPU. The buffer pool, the
// page cleaner, the doublewrite and checkpoints against the redo capacity
// (engine.Engine) are not run: engine.Engine works over one disk.Volume
// with MariaDB's redo log, which would be a second log beside this
// commit.Redo, and a relay-log transaction does not carry its rows
// (docs/model-applier.md §5.1 lists what running it would take).
type Replica struct {
	env     *sim.Env
	cfg     ReplicaConfig
	cpu     *sim.CPU
	arr     *disk.Array
	redo    *commit.Redo          // nil: redo log disabled
	ordered *commit.OrderedCommit // nil without commit order
}

// NewReplica builds the replica server. committed(seq) runs for each
// transaction committed in order (CommitInOrder), in sequence order. The
// files are opened in a fixed order (redo, then binlog) so that their
// places on the stripe do not depend on who opens what later.
func NewReplica(env *sim.Env, cfg ReplicaConfig, committed func(seq int64)) (*Replica, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	arr, err := disk.NewArray(env, cfg.Member, cfg.Members, cfg.Chunk)
	if err != nil {
		return nil, fmt.Errorf("volume: %w", err)
	}
	r := &Replica{env: env, cfg: cfg, cpu: sim.NewCPU(env, cfg.Cores), arr: arr}
	if cfg.Redo {
		r.redo = commit.NewRedo(arr.OpenFile("ib_redo", true), arr.RegisterSource("redo"))
	}
	if cfg.PreserveCommitOrder {
		var binlog *disk.File
		var src disk.Source
		if cfg.Binlog {
			binlog, src = arr.OpenFile("binlog.000001", false), arr.RegisterSource("binlog")
		}
		r.ordered = commit.NewOrderedCommit(env, cfg.Commit, r.cpu, r.redo, binlog, src, cfg.CommitCPU, committed)
	}
	return r, nil
}

// CPU returns the machine's processors: the replication threads that are
// not sessions (receiver, coordinator, scheduler) run their CPU there.
func (r *Replica) CPU() *sim.CPU { return r.cpu }

// Array returns the RAID 0 set (for the relay log and the I/O metrics).
func (r *Replica) Array() *disk.Array { return r.arr }

// Redo returns the redo log, nil when it is disabled.
func (r *Replica) Redo() *commit.Redo { return r.redo }

// Ordered returns the ordered commit, nil without commit order.
func (r *Replica) Ordered() *commit.OrderedCommit { return r.ordered }

// CommitInOrder queues transaction seq, the next in sequence order, with
// binlogBytes of binlog events for the ordered commit; committed(seq) runs
// when its commit is done. The caller must have executed it (its redo is
// in the log) and the server must preserve commit order.
func (r *Replica) CommitInOrder(seq, binlogBytes int64) { r.ordered.Register(seq, binlogBytes) }

// ResetStats starts the measured window.
func (r *Replica) ResetStats() {
	r.cpu.ResetStats()
	if r.redo != nil {
		r.redo.ResetStats()
	}
	if r.ordered != nil {
		r.ordered.ResetStats()
	}
	r.arr.ResetStats()
}

// ReplicaSession is one applier worker's connection: it runs the
// transaction's statement work, then commits it unordered (the worker
// waits until its redo is durable), or hands it to CommitInOrder.
type ReplicaSession struct {
	r     *Replica
	burst [1]time.Duration // the session thread's CPU job
	lsn   int64            // redo LSN of the executed transaction
	rows  int              // rows the executing transaction changes

	done                 func(any)
	arg                  any
	executedCB, commitCB func(any)
	durableCB            func(any)
}

// NewSession opens a session.
func (r *Replica) NewSession() *ReplicaSession {
	s := &ReplicaSession{r: r}
	s.executedCB, s.commitCB, s.durableCB = s.onExecuted, s.onCommitCPU, s.onDurable
	return s
}

// Execute runs a transaction's statement work: cpu on a processor, then
// the rows' changes enter the redo log (rows x redo per row plus the
// transaction's own records). done(arg) runs after that.
func (s *ReplicaSession) Execute(cpu time.Duration, rows int, done func(any), arg any) {
	s.done, s.arg, s.rows = done, arg, rows
	s.burst[0] = cpu
	s.r.cpu.Run(s.burst[:], s.executedCB, nil)
}

func (s *ReplicaSession) onExecuted(any) {
	if r := s.r; r.redo != nil {
		s.lsn = r.redo.Append(r.cfg.RedoPerTrx + int64(s.rows)*r.cfg.RedoPerRow)
	}
	s.done(s.arg)
}

// Commit commits the executed transaction without ordering: the engine
// commit's CPU, then, with the redo log on, the wait until its redo is
// durable (log_write_up_to in the committing thread). done(arg) runs when
// it is.
func (s *ReplicaSession) Commit(done func(any), arg any) {
	s.done, s.arg = done, arg
	s.burst[0] = s.r.cfg.CommitCPU
	s.r.cpu.Run(s.burst[:], s.commitCB, nil)
}

func (s *ReplicaSession) onCommitCPU(any) {
	if s.r.redo == nil {
		s.onDurable(nil)
		return
	}
	s.r.redo.WaitDurable(s.lsn, s.durableCB, nil)
}

func (s *ReplicaSession) onDurable(any) { s.done(s.arg) }
