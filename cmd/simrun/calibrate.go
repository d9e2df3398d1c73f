package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"simrun/model/fio"
	"simrun/model/realdb"
)

// calibrateCmd turns a real fio --output-format=json result into a volume
// preset: caps from the measured maxima, latency from the completion-latency
// percentiles.
func (e env) calibrateCmd(args []string) error {
	fs := e.newFlags("calibrate")
	out := fs.String("o", "", "write the volume preset to FILE (atomically); default stdout")
	name := fs.String("name", "", "preset name (default: the output file's base name, or \"calibrated\")")
	harness := fs.String("harness", "", "also calibrate from this scripts/realdb harness JSON: -o is then a directory for machine, volume, engine and workload presets; without a fio JSON the fio run the harness kept (harness.py --fio) calibrates the volume")
	irq := fs.String("irq-probe", "", "with --harness: scripts/realdb/irq-cost.sh's output (one JSON line a round), for machine.irq_cost; a harness run with --irq-probe keeps its own")
	kblockd := fs.String("kblockd-probe", "", "with --harness: scripts/realdb/kblockd.sh's output (one JSON line a round), for machine.flush_dispatch; a harness run with --kblockd-probe keeps its own")
	pos, err := e.parse(fs, args)
	if err != nil {
		return err
	}
	var probes realdb.Probes
	for _, p := range []struct {
		flag, path string
		into       *[]byte
	}{{"--irq-probe", *irq, &probes.IRQ}, {"--kblockd-probe", *kblockd, &probes.Kblockd}} {
		if p.path == "" {
			continue
		}
		if *harness == "" {
			return usagef("calibrate: %s needs --harness", p.flag)
		}
		if *p.into, err = os.ReadFile(p.path); err != nil {
			return usagef("calibrate: %s: %v", p.flag, err)
		}
	}
	if *harness != "" && len(pos) == 0 {
		// the fio run the harness kept (harness.py --fio)
		return e.calibrateRealDB(nil, probes, *harness, *out, *name)
	}
	if len(pos) != 1 {
		return usagef("calibrate takes one fio JSON file, got %d (see simrun help calibrate)", len(pos))
	}
	data, err := os.ReadFile(pos[0])
	if err != nil {
		return usagef("calibrate: %v", err)
	}
	if *harness != "" {
		return e.calibrateRealDB(data, probes, *harness, *out, *name)
	}
	if err := checkOutput(*out); err != nil {
		return err
	}
	preset := *name
	if preset == "" {
		preset = "calibrated"
		if *out != "" && *out != "-" {
			preset = strings.TrimSuffix(filepath.Base(*out), filepath.Ext(*out))
		}
	}
	cal, err := fio.CalibrateDetail(data)
	if err != nil {
		return usagef("calibrate: %s: %v", pos[0], err)
	}
	toml, err := cal.Preset(preset)
	if err != nil {
		return usagef("calibrate: %s: %v", pos[0], err)
	}
	// The warnings are in the preset's comments too, but a preset
	// written to a file would hide them.
	for _, w := range cal.Warnings() {
		fmt.Fprintf(e.stderr, "simrun: calibrate: %s\n", w)
	}
	return e.output(*out, func(w io.Writer, _ bool) error {
		_, err := w.Write(toml)
		return err
	})
}

// calibrateRealDB writes the presets calibrated from a scripts/realdb
// harness JSON and fio JSON into the directory dir.
func (e env) calibrateRealDB(fioJSON []byte, probes realdb.Probes, harness, dir, name string) error {
	hb, err := os.ReadFile(harness)
	if err != nil {
		return usagef("calibrate: %v", err)
	}
	if dir == "" || dir == "-" {
		return usagef("calibrate --harness: -o must name a directory for the presets")
	}
	if name == "" {
		name = filepath.Base(dir)
	}
	files, err := realdb.PresetFiles(hb, fioJSON, probes, name)
	if err != nil {
		return usagef("calibrate: %s: %v", harness, err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, f := range realdb.PresetNames {
		if err := e.output(filepath.Join(dir, f), func(w io.Writer, _ bool) error { _, err := w.Write(files[f]); return err }); err != nil {
			return err
		}
	}
	return nil
}
