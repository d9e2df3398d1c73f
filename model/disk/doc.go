// Package disk models a block volume: a cloud network volume with IOPS and
// throughput caps, a local NVMe drive, a 7,200 rpm SATA disk, or RAM. A
// volume accepts reads, writes and flushes in virtual time and calls back
// when each completes; it records what iostat -x would show.
//
// # The path of an I/O
//
//	Submit ─► split at max_io_size ─► volume queue (FIFO; sequential back
//	merges up to max_io_size) ─► caps: IOPS bucket (ceil(size/io_unit)
//	tokens) and byte bucket, each refilled at its cap and holding
//	cap × burst_window ─► device slot (queue_depth) ─► service ─► Done
//
// Service is, by kind:
//
//   - network, nvme, ram: a base latency drawn from read_latency or
//     write_latency plus size/transfer_rate; up to queue_depth I/Os are
//     served at once.
//   - hdd: one actuator serves one I/O at a time: seek (a curve in the
//     distance travelled, fitted to seek_min, seek_avg, seek_max),
//     rotational latency (uniform over a revolution, or exactly the rest of
//     the revolution for a sequential continuation after an idle gap) and
//     size/transfer_rate, plus the controller overhead in read_latency or
//     write_latency.
//
// A flush (Op Flush) carries no data, is exempt from the caps and
// bypasses the queue of data I/Os (as Linux sends an empty flush straight to
// the device); it completes flush_latency after every write acknowledged
// before it is durable. Without a write cache that is at once. With
// write_cache, writes are acknowledged by the cache after write_latency and
// destaged in order, at destage_rate (or through the hdd actuator); a write
// that does not fit in write_cache_size waits for destaging, and a flush
// waits for the destaging of the writes acknowledged before it.
//
// # Files
//
// File adds what a filesystem does: Sync (fsync/fdatasync) waits for the
// file's writes issued before it, then flushes. A file that grew since its
// last sync also needs its metadata journal committed (one extra small
// journal write and flush, jbd2-style batched across files): this is the
// append penalty F_append ≈ 1.5–2 × F_overwrite that separates a growing
// binlog file from a preallocated redo log.
//
// # RAID 0
//
// Array is a RAID 0 set (Linux md) of volumes with the same filesystem on
// it: files and the journal are the code a Volume uses, over a block device
// that splits each request at chunk boundaries across the members and sends
// a flush to every member.
//
// # Figures
//
// Iostat and Metrics report r/s, w/s, f/s, rkB/s, wkB/s (kB = 1024 bytes, as
// iostat), average request sizes, awaits (from entering the volume queue to
// completion), aqu-sz (mean I/Os queued or in flight), %util (fraction of
// time with at least one I/O queued or in flight) and the fraction of time
// the head of the queue waited for each cap, for the whole run since
// ResetStats and per second.
//
// docs/model-disk.md gives the equations, parameters, sources of the presets
// and validation results.
package disk
