// Package fio runs fio-style benchmark jobs against a simulated disk.Volume
// and calibrates volume presets from real fio results.
//
// A job is written in fio's own vocabulary (rw, rwmixread, bs, iodepth,
// numjobs, fsync, size, runtime, time_based, ramp_time, direct), so a job
// file run on real hardware and the same job run here can be compared line
// by line. Each of numjobs jobs has its own preallocated file of size bytes
// (fio lays files out before it starts) and keeps iodepth I/Os outstanding,
// as fio does with an asynchronous engine (libaio, io_uring); iodepth=1 is
// the synchronous psync engine. With fsync=N a job, after every N writes,
// waits for its I/Os in flight and calls fsync (File.Sync), as fio's
// engines do for a sync request. Random offsets are bs-aligned and uniform
// over the file (fio's norandommap); sequential jobs wrap at the end of the
// file. Results are fio's: iops, bandwidth (KiB/s, as fio's "bw") and
// completion-latency percentiles per direction, plus fsync latency. Only
// direct I/O is modelled: direct=0 runs as direct=1 and the result says
// so, because the page cache is not part of the volume model.
//
// Calibrate goes the other way: it reads fio's --output-format=json and
// builds a disk.Config whose caps are the highest IOPS and bandwidth any
// job reached and whose latency distributions are the measured
// completion-latency percentiles of the lowest-queue-depth job
// (sim.DistSpec kind "empirical"). disk.WritePreset writes it as a
// scenario-library preset.
package fio
