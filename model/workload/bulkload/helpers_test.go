package bulkload

import (
	"testing"
	"time"

	"simrun/model/commit"
	"simrun/model/disk"
	"simrun/model/engine"
	"simrun/sim"
)

// hdd2008 is the scenario library's hdd-2008-sata preset, inline.
func hdd2008() disk.Config {
	c := disk.DefaultConfig()
	c.Name, c.Kind = "hdd-2008", "hdd"
	c.IOPSMax = 100000
	c.BandwidthMax = 300 * sim.Rate(sim.MB)
	c.MaxIOSize = 512 * sim.KiB
	c.QueueDepth = 31
	c.ReadLatency = sim.ConstantDist(sim.Duration(100 * time.Microsecond))
	c.WriteLatency = sim.ConstantDist(sim.Duration(100 * time.Microsecond))
	c.FlushLatency = sim.ConstantDist(sim.Duration(100 * time.Microsecond))
	c.TransferRate = 105 * sim.Rate(sim.MB)
	c.TransferRateInner = 55 * sim.Rate(sim.MB)
	c.WriteCache, c.WriteCacheSize = true, 32*sim.MiB
	c.DestageRate = 0
	c.RPM = 7200
	c.SeekMin = sim.Duration(time.Millisecond)
	c.SeekAvg = sim.Duration(8500 * time.Microsecond)
	c.SeekMax = sim.Duration(17 * time.Millisecond)
	c.Capacity = 500 * sim.GB
	c.NCQ = true
	c.FileSpacing = 1 * sim.GiB
	c.Barriers = "off"
	c.ReadsFirst = true
	return c
}

// mysql51 is the engine of step 1: MySQL 5.1 + InnoDB plugin defaults.
func mysql51() Server {
	e := Server{Engine: engine.DefaultConfig(), Commit: commit.DefaultConfig()}
	e.Commit.BinlogStorageEngine = commit.BinlogFile
	e.Commit.SyncBinlog = 0
	e.Commit.FlushLogAtTrxCommit = 1
	e.Engine.BufferPool.Size = 128 * sim.MiB
	e.Engine.Redo.BlockSize = 512
	e.Engine.Flushing.MaxDirtyPagesPct = 75
	e.Engine.Flushing.IOCapacity = 200
	e.Engine.Flushing.IOCapacityMax = 2000
	e.Engine.Flushing.Doublewrite = true
	e.Engine.Flushing.DoublewriteBatch = 128
	return e
}

type step struct {
	name string
	eng  func(*Server)
	wl   func(*Config)
}

// newLoader builds a loader on the 2008 disk.
func newLoader(t testing.TB, ec Server, wc Config, seed uint64) (*sim.Env, *Loader) {
	t.Helper()
	env := sim.New(seed)
	vol, err := disk.New(env, hdd2008())
	if err != nil {
		t.Fatal(err)
	}
	l, err := New(env, 2, vol, ec, wc)
	if err != nil {
		t.Fatal(err)
	}
	return env, l
}

func run(t testing.TB, ec Server, wc Config, limit time.Duration) (Result, *Loader) {
	t.Helper()
	env, l := newLoader(t, ec, wc, 1)
	l.Start(nil)
	env.RunWhile(func() bool { return !l.Done() && env.Now() < sim.At(limit) })
	if l.Err() != nil {
		t.Fatal(l.Err())
	}
	return l.Result(), l
}

// newStep builds a loader for ladder step s with rows rows, seed 1.
func newStep(t testing.TB, s step, rows int64) (*sim.Env, *Loader) {
	t.Helper()
	ec := mysql51()
	s.eng(&ec)
	wc := DefaultConfig()
	wc.Rows = rows
	s.wl(&wc)
	return newLoader(t, ec, wc, 1)
}
