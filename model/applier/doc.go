// Package applier models a MySQL replica applying a row-based replication
// stream in parallel: the relay log, the dependency information of each
// transaction, the multi-threaded applier (MTA, APPLIER_VERSION=1) and the
// Change Stream Applier (CSA, APPLIER_VERSION=2), and the replica's own
// durability (redo log, binlog group commit, commit order) on a RAID 0 set
// of block volumes. It reproduces study 3 of the reference material.
//
// # The pieces
//
//	source (package stream) ─ binlog groups ─► receiver ─► relay log (RAID 0)
//	      │                                                   │
//	      └─ last_committed, sequence_number per GTID event   ▼
//	                        MTA coordinator  |  CSA scheduler + window
//	                                   │              │
//	                                   ▼              ▼
//	                              workers (CPU on the machine's cores)
//	                                   │
//	            commit: engine CPU | redo flush | ordered stage | binlog group commit
//
// Every thread's CPU work (coordinator, scheduler, workers, receiver, the
// commit stage's leader) runs on the machine's processors (sim.CPU); a
// thread that slept needs cpu.wakeup of CPU on a processor to resume.
// The processors, the RAID 0 set (disk.Array), the redo log and the
// ordered commit belong to the replica's server (server.Replica); each
// worker executes and commits through its server.ReplicaSession.
//
// # The two appliers, in one paragraph each
//
// MTA: the coordinator reads every event of the relay log in order. It may
// hand the next transaction to a worker only when every transaction up to
// its last_committed has committed (lwm >= last_committed) and a worker is
// idle; until then it schedules nothing (head-of-line blocking). A worker
// applies, then commits; with commit order preserved it parks after
// applying until its predecessor has entered the commit and stays blocked
// until its group has committed. At most replica_checkpoint_group
// transactions hold a slot of the group assigned queue; checkpoints free
// the slots of the committed prefix.
//
// CSA: the scheduler reads only GTID events into a window. Any transaction
// whose dependencies have applied (not committed: apply and commit
// progress are tracked separately) may start, lowest first, even past one
// that waits. Workers read their transaction's events themselves just
// before executing them, within an event memory limit. With commit order
// preserved an applied transaction waits for its turn without a worker;
// when its turn comes a free worker runs its commit.
//
// docs/model-applier.md gives every rule, what each applier waits on, the
// parameters with their sources, and rejected alternatives;
// docs/validation.md compares the model with the published figures.
//
// # Invariants
//
// Every transaction commits exactly once; none starts before every
// transaction it depends on has applied; with commit order preserved,
// commits follow source order; events held in memory never exceed the
// limit, except a single transaction that runs alone. The model counts
// breaches (invariant_violations in the metrics, always 0) and the tests
// check them again from a trace.
package applier
