package disk

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/BurntSushi/toml"

	"simrun/sim"
)

// presetDir holds the volume presets of the scenario library.
var presetDir = filepath.Join("..", "..", "scenarios", "library", "volume")

// presetFile is the shape of a preset: a description and a [volume] table.
type presetFile struct {
	Description string `toml:"description"`
	Volume      Config `toml:"volume"`
}

// loadPreset decodes a preset strictly (every key known) into a zero Config,
// so a preset must be complete on its own, and validates it.
func loadPreset(t testing.TB, name string) Config {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(presetDir, name+".toml"))
	if err != nil {
		t.Fatal(err)
	}
	var f presetFile
	md, err := toml.Decode(string(b), &f)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if und := md.Undecoded(); len(und) > 0 {
		t.Fatalf("%s: unknown keys %v", name, und)
	}
	if err := f.Volume.Validate(); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return f.Volume
}

// driver is a closed-loop load generator: depth outstanding I/Os, each
// reissued when it completes, like fio with an async engine.
type driver struct {
	env      *sim.Env
	v        *Volume
	rng      *sim.Stream
	size     int64
	span     int64 // random offsets are size-aligned in [0, span)
	readPct  float64
	flushPct float64
	seqOff   int64
	seq      bool
	file     int32
	src      Source
	kernel   bool // submitted as a kernel thread's (Request.Kernel)
	stopAt   sim.Time
	done     int64
	latSum   time.Duration
	cb       func(any)
	slots    []drvSlot
}

type drvSlot struct{ start sim.Time }

func newDriver(env *sim.Env, v *Volume, depth int, size, span int64) *driver {
	d := &driver{env: env, v: v, rng: env.Stream("test/driver"), size: size, span: span, file: 1 << 20, stopAt: sim.Never}
	d.cb = d.onDone
	d.slots = make([]drvSlot, depth)
	return d
}

func (d *driver) start() {
	for i := range d.slots {
		d.issue(&d.slots[i])
	}
}

func (d *driver) issue(s *drvSlot) {
	op := Write
	if d.readPct > 0 && d.rng.Float64()*100 < d.readPct {
		op = Read
	}
	if d.flushPct > 0 && d.rng.Float64()*100 < d.flushPct {
		s.start = d.env.Now()
		d.v.Submit(Request{Op: Flush, Kernel: d.kernel, Done: d.cb, Arg: s})
		return
	}
	var off int64
	if d.seq {
		off = d.seqOff
		d.seqOff += d.size
	} else {
		off = int64(d.rng.Uint64N(uint64(d.span/d.size))) * d.size
	}
	s.start = d.env.Now()
	d.v.Submit(Request{Op: op, File: d.file, Offset: off, Size: d.size, Source: d.src, Kernel: d.kernel, Done: d.cb, Arg: s})
}

func (d *driver) onDone(a any) {
	s := a.(*drvSlot)
	d.done++
	d.latSum += time.Duration(d.env.Now() - s.start)
	if d.env.Now() < d.stopAt {
		d.issue(s)
	}
}

// run drives a volume built from cfg for warmup+measure and returns its
// iostat over the measured part.
func runClosed(t testing.TB, cfg Config, depth int, size, span int64, readPct float64, warmup, measure time.Duration) (Iostat, *driver) {
	t.Helper()
	env := sim.New(7)
	v, err := New(env, cfg)
	if err != nil {
		t.Fatal(err)
	}
	d := newDriver(env, v, depth, size, span)
	d.readPct = readPct
	d.start()
	env.RunUntil(sim.At(warmup))
	v.ResetStats()
	d.done, d.latSum = 0, 0
	env.RunUntil(sim.At(warmup + measure))
	return v.Iostat(), d
}
