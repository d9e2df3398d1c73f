package disk

import (
	"errors"
	"fmt"
	"math"
	"time"

	"simrun/sim"
)

// Config describes one block volume. It is what a scenario's [volume] table
// decodes into; every field has a unit and a documented meaning. Validate
// checks it once; New refuses an invalid one.
type Config struct {
	Name string `toml:"name" doc:"label used in reports; free text"`
	Kind string `toml:"kind" enum:"network|nvme|hdd|ram" doc:"device class: network (cloud block volume), nvme, hdd (one actuator, seek + rotation) or ram"`

	IOPSMax      sim.Count    `toml:"iops_max" unit:"IOPS" doc:"IOPS cap, counted in io_unit pieces; a token bucket refilled at this rate. Source per preset (docs/model-disk.md)"`
	BandwidthMax sim.Rate     `toml:"bandwidth_max" unit:"bytes/s" doc:"throughput cap; a token bucket of bytes refilled at this rate"`
	BurstWindow  sim.Duration `toml:"burst_window" unit:"duration" doc:"each cap's bucket holds rate x burst_window tokens, so the device may run ahead of its cap by that much; assumption: providers shape at sub-second granularity (not published)"`
	IOUnit       sim.Bytes    `toml:"io_unit" unit:"bytes" doc:"IOPS accounting unit: an I/O of size s costs max(1, ceil(s/io_unit)) IOPS tokens; 256KiB per the AWS EBS I/O characteristics page"`
	MaxIOSize    sim.Bytes    `toml:"max_io_size" unit:"bytes" doc:"largest single device I/O; larger requests are split and merging stops at this size (Linux max_sectors_kb)"`
	QueueDepth   int          `toml:"queue_depth" unit:"I/Os" doc:"I/Os the device works on at once (device parallelism); more wait in the volume queue"`

	ReadLatency  sim.DistSpec `toml:"read_latency" unit:"duration" doc:"per-I/O base latency of a read, before transfer time; for hdd: controller overhead on top of seek and rotation"`
	WriteLatency sim.DistSpec `toml:"write_latency" unit:"duration" doc:"per-I/O base latency of a write (the acknowledgement from the write cache when write_cache is on)"`
	FlushLatency sim.DistSpec `toml:"flush_latency" unit:"duration" doc:"cost of a flush (cache flush / fsync barrier) once the data it covers is durable"`
	TransferRate sim.Rate     `toml:"transfer_rate" unit:"bytes/s" doc:"per-I/O transfer rate: an I/O of s bytes adds s/transfer_rate to its latency (link or media rate); 0 = folded into the latency distributions"`

	WriteCache     bool      `toml:"write_cache" doc:"volatile write cache: writes are acknowledged from the cache and destaged later; a flush waits for the dirty data acknowledged before it"`
	WriteCacheSize sim.Bytes `toml:"write_cache_size" unit:"bytes" doc:"dirty bytes the cache holds; a write that does not fit waits for destaging (write_cache only)"`
	DestageRate    sim.Rate  `toml:"destage_rate" unit:"bytes/s" doc:"rate the cache drains to media (write_cache on kinds other than hdd; hdd destages through its actuator)"`

	Merge            bool         `toml:"merge" doc:"merge a queued I/O with the next one on the same file that starts where it ends (block-layer back merge), up to max_io_size"`
	Journal          string       `toml:"journal" enum:"ordered|none" doc:"the filesystem's metadata journal: ordered (empty; ext4's default data=ordered with jbd2) commits the journal on every fsync/fdatasync that changed the file's size or extents; none (ext4 without a journal, mkfs -O ^has_journal) instead writes the inode's table block on every sync that follows a write that changed the mtime (timestamp_tick) or the size, then flushes"`
	JournalWriteSize sim.Bytes    `toml:"journal_write_size" unit:"bytes" doc:"size of the filesystem's metadata journal commit that fsync of a grown file adds (ext4/xfs ordered mode); assumption: 3 x 4KiB blocks (descriptor, inode block, commit)"`
	TimestampTick    sim.Duration `toml:"timestamp_tick" unit:"duration" doc:"granularity of the file timestamps a write updates: the kernel's coarse clock, one tick = 1s / CONFIG_HZ (4ms: Debian's kernels, HZ=250). A write dirties the inode only when the tick changed since the file's last mtime, so with journal = none a sync writes the inode block only then; 0: every write changes the mtime"`

	// HDD geometry, used only when kind = "hdd".
	RPM      int          `toml:"rpm" unit:"rev/min" doc:"spindle speed; mean rotational latency is half a revolution (hdd only)"`
	SeekMin  sim.Duration `toml:"seek_min" unit:"duration" doc:"track-to-track seek time (hdd only)"`
	SeekAvg  sim.Duration `toml:"seek_avg" unit:"duration" doc:"average seek over uniformly random positions, as data sheets quote it (hdd only)"`
	SeekMax  sim.Duration `toml:"seek_max" unit:"duration" doc:"full-stroke seek time (hdd only)"`
	Capacity sim.Bytes    `toml:"capacity" unit:"bytes" doc:"addressable size; seek distance is measured as a fraction of it (hdd only)"`

	// HDD refinements (hdd.go); their zero values keep the behaviour above.
	TransferRateInner sim.Rate  `toml:"transfer_rate_inner" unit:"bytes/s" doc:"zoned recording: media rate at the innermost track; the rate falls linearly from transfer_rate at address 0 to this at capacity (hdd only; 0 = one rate)"`
	NCQ               bool      `toml:"ncq" doc:"native command queuing: the drive tracks the platter's angle and serves, among the queued host I/Os and among the cached writes it destages, the one with the shortest positioning time (seek + rotation) next, instead of the oldest / the nearest by seek (hdd only)"`
	FileSpacing       sim.Bytes `toml:"file_spacing" unit:"bytes" doc:"files of one directory on a fresh filesystem: file n starts at n x file_spacing on the platter (hdd only; 0 = files spread over the whole platter)"`
	ReadsFirst        bool      `toml:"reads_first" doc:"the block layer's I/O scheduler (CFQ, the Linux default 2.6.18-2.6.32) dispatches queued reads, which a thread waits for, ahead of queued writes, which it does not"`
	Barriers          string    `toml:"barriers" doc:"filesystem write barriers, on or off (empty = on): on (ext4 default) makes fsync flush the drive's write cache; off (ext3 default until 2.6.28 era distributions) makes it return once the data is in the cache"`

	// Throttle is the server process's blkio throttle in front of the
	// volume (optional; all knobs 0 = none).
	Throttle Throttle `toml:"throttle" doc:"optional cgroup-v1 blkio throttle of the server's threads on this volume (blkio.throttle.*_device): a per-process allowance in front of the volume's queue; kernel write-back and journal commits pass it"`

	// Credits is a gp2-style burst-credit bucket (optional).
	Credits Credits `toml:"credits" doc:"optional burst-credit bucket (AWS gp2 style); balance = 0 turns it off"`
}

// Credits is a second IOPS bucket (used when Balance > 0) that refills slowly and holds a large
// balance: every IOPS token also takes one credit, so the volume runs at
// iops_max while credits last and at baseline_iops after (AWS gp2).
type Credits struct {
	BaselineIOPS sim.Count `toml:"baseline_iops" unit:"IOPS" doc:"credit refill rate = sustained IOPS; gp2: 3 per GiB, min 100"`
	Balance      sim.Count `toml:"balance" unit:"I/O" doc:"credits held (bucket size, initially full); gp2: 5.4M"`
}

// The values of journal.
const (
	JournalOrdered = "ordered" // ext4 data=ordered, jbd2 (the default)
	JournalNone    = "none"    // ext4 without a journal
)

// Kinds lists the accepted values of kind.
var Kinds = []string{"network", "nvme", "hdd", "ram"}

// DefaultConfig returns the network block volume of the MariaDB binlog study:
// an OCI Balanced 250 GB volume, 15,000 IOPS and 120 MB/s (see
// docs/model-disk.md for the sources and assumptions of each number).
func DefaultConfig() Config {
	return Config{
		Name:             "network-15k-120MBps",
		Kind:             "network",
		IOPSMax:          15000,
		BandwidthMax:     120 * sim.Rate(sim.MB),
		BurstWindow:      sim.Duration(10 * time.Millisecond),
		IOUnit:           256 * sim.KiB,
		MaxIOSize:        256 * sim.KiB,
		QueueDepth:       64,
		ReadLatency:      sim.LognormalDist(sim.Duration(231*time.Microsecond), sim.Duration(774*time.Microsecond)),
		WriteLatency:     sim.LognormalDist(sim.Duration(312*time.Microsecond), sim.Duration(979*time.Microsecond)),
		FlushLatency:     sim.LognormalDist(sim.Duration(196*time.Microsecond), sim.Duration(587*time.Microsecond)),
		TransferRate:     250 * sim.Rate(sim.MB),
		Merge:            true,
		JournalWriteSize: 12 * sim.KiB,
		TimestampTick:    sim.Duration(4 * time.Millisecond),
	}
}

// maxBucketTokens is the largest burst sim.TokenBucket can hold.
const maxBucketTokens = math.MaxInt64 / (2 * 1_000_000_000)

// Validate checks every field and returns all problems at once, each naming
// the toml key and the allowed range.
func (c Config) Validate() error {
	var errs []error
	bad := func(format string, a ...any) { errs = append(errs, fmt.Errorf(format, a...)) }
	switch c.Kind {
	case "network", "nvme", "hdd", "ram":
	default:
		bad("kind: must be one of network, nvme, hdd, ram, got %q", c.Kind)
	}
	if !(c.IOPSMax >= 1) || math.IsInf(float64(c.IOPSMax), 0) {
		bad("iops_max: must be >= 1, got %v", c.IOPSMax)
	} else if float64(c.IOPSMax) > 1e9 {
		bad("iops_max: must be <= 1e9, got %v", c.IOPSMax)
	}
	if c.BandwidthMax <= 0 {
		bad("bandwidth_max: must be > 0, got %v", c.BandwidthMax)
	}
	if c.BurstWindow <= 0 || c.BurstWindow > sim.Duration(time.Minute) {
		bad("burst_window: must be in (0, 1m], got %v", c.BurstWindow)
	} else {
		if c.BandwidthMax > 0 && burstTokens(int64(c.BandwidthMax), c.BurstWindow) > maxBucketTokens {
			bad("burst_window: bandwidth_max x burst_window must be <= %d bytes, got %v x %v", int64(maxBucketTokens), c.BandwidthMax, c.BurstWindow)
		}
	}
	if c.IOUnit <= 0 {
		bad("io_unit: must be > 0, got %v", c.IOUnit)
	}
	if c.MaxIOSize < 512 || c.MaxIOSize > sim.GiB {
		bad("max_io_size: must be in [512B, 1GiB], got %v", c.MaxIOSize)
	}
	if c.QueueDepth < 1 || c.QueueDepth > 65536 {
		bad("queue_depth: must be in [1, 65536], got %d", c.QueueDepth)
	}
	for _, d := range []struct {
		key  string
		spec sim.DistSpec
	}{{"read_latency", c.ReadLatency}, {"write_latency", c.WriteLatency}, {"flush_latency", c.FlushLatency}} {
		if err := d.spec.Validate(); err != nil {
			bad("%s: %v", d.key, err)
		}
	}
	if c.TransferRate < 0 {
		bad("transfer_rate: must be >= 0, got %v", c.TransferRate)
	}
	if c.WriteCache {
		if c.WriteCacheSize < c.MaxIOSize {
			bad("write_cache_size: must be >= max_io_size (%v) when write_cache is on, got %v", c.MaxIOSize, c.WriteCacheSize)
		}
		if c.Kind != "hdd" && c.DestageRate <= 0 {
			bad("destage_rate: must be > 0 when write_cache is on (kind %s), got %v", c.Kind, c.DestageRate)
		}
	}
	switch c.Journal {
	case "", JournalOrdered, JournalNone:
	default:
		bad("journal: must be ordered or none, got %q", c.Journal)
	}
	if c.TimestampTick < 0 || c.TimestampTick.D() > time.Second {
		bad("timestamp_tick: must be in [0, 1s], got %v", c.TimestampTick)
	}
	if c.JournalWriteSize <= 0 || c.JournalWriteSize > c.MaxIOSize && c.MaxIOSize >= 512 {
		bad("journal_write_size: must be in (0, max_io_size], got %v", c.JournalWriteSize)
	}
	if c.Kind == "hdd" {
		c.validateHDD(bad)
	}
	switch c.Barriers {
	case "", "on", "off":
	default:
		bad("barriers: must be on or off, got %q", c.Barriers)
	}
	c.Throttle.validate(bad)
	if c.Credits.Balance != 0 || c.Credits.BaselineIOPS != 0 {
		if !(c.Credits.BaselineIOPS >= 1) || float64(c.Credits.BaselineIOPS) > float64(c.IOPSMax) {
			bad("credits.baseline_iops: must be in [1, iops_max=%v], got %v", c.IOPSMax, c.Credits.BaselineIOPS)
		}
		if !(c.Credits.Balance >= 1) || float64(c.Credits.Balance) > maxBucketTokens {
			bad("credits.balance: must be in [1, %d], got %v", int64(maxBucketTokens), c.Credits.Balance)
		}
	}
	return errors.Join(errs...)
}

func (c Config) validateHDD(bad func(string, ...any)) {
	if c.RPM < 3600 || c.RPM > 20000 {
		bad("rpm: must be in [3600, 20000] for kind hdd, got %d", c.RPM)
	}
	if c.Capacity < 1*sim.GB {
		bad("capacity: must be >= 1GB for kind hdd, got %v", c.Capacity)
	}
	if c.TransferRateInner < 0 || c.TransferRateInner > c.TransferRate {
		bad("transfer_rate_inner: must be in [0, transfer_rate=%v], got %v", c.TransferRate, c.TransferRateInner)
	}
	if c.FileSpacing < 0 || c.FileSpacing > c.Capacity {
		bad("file_spacing: must be in [0, capacity=%v], got %v", c.Capacity, c.FileSpacing)
	}
	if c.SeekMin <= 0 {
		bad("seek_min: must be > 0 for kind hdd, got %v", c.SeekMin)
		return
	}
	if c.SeekMax < c.SeekMin {
		bad("seek_max: must be >= seek_min (%v), got %v", c.SeekMin, c.SeekMax)
		return
	}
	// The seek curve t(x) = min + a*sqrt(x) + b*x must have a, b >= 0; see
	// seekCurve. That bounds the average between 1/3 and 8/15 of the range.
	span := float64(c.SeekMax - c.SeekMin)
	lo := sim.Duration(float64(c.SeekMin) + span/3)
	hi := sim.Duration(float64(c.SeekMin) + span*8/15)
	if c.SeekAvg < lo || c.SeekAvg > hi {
		bad("seek_avg: must be in [%v, %v] (seek_min + 1/3..8/15 of seek_max - seek_min), got %v", lo, hi, c.SeekAvg)
	}
}

// burstTokens is rate x window, at least 1.
func burstTokens(rate int64, window sim.Duration) int64 {
	b := float64(rate) * time.Duration(window).Seconds()
	if b > maxBucketTokens {
		return maxBucketTokens + 1
	}
	return max(1, int64(math.Ceil(b)))
}
