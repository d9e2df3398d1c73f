// Package workload generates the transactions that drive a database model.
//
// Today it holds sysbench 1.0's OLTP scripts as oltp_common.lua runs them:
// oltp_write_only is BEGIN, index_updates × "UPDATE SET k=k+1 WHERE id=?",
// non_index_updates × "UPDATE SET c=? WHERE id=?", delete_inserts × (DELETE
// and INSERT of the same id), COMMIT. Each block of statements picks its
// table uniformly (get_table_num); each id comes from sysbench's default
// distribution (get_id), "special": 75 % of draws fall in the central 1 % of
// the ids, the rest follow a bell curve made of the mean of 12 uniform draws
// (sb_rand.c, pinned here so that results do not change with a library).
//
// A Generator fills a caller-owned Tx; the steady state allocates nothing.
// The client threads themselves (closed loop, no think time, CPU per query
// and round-trip latency) live in model/server, which owns the machine.
package workload
