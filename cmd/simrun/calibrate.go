package main

import (
	"io"
	"os"
	"path/filepath"
	"strings"

	"simrun/model/fio"
)

// calibrateCmd turns a real fio --output-format=json result into a volume
// preset: caps from the measured maxima, latency from the completion-latency
// percentiles.
func (e env) calibrateCmd(args []string) error {
	fs := e.newFlags("calibrate")
	out := fs.String("o", "", "write the volume preset to FILE (atomically); default stdout")
	name := fs.String("name", "", "preset name (default: the output file's base name, or \"calibrated\")")
	pos, err := e.parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("calibrate takes one fio JSON file, got %d (see simrun help calibrate)", len(pos))
	}
	if err := checkOutput(*out); err != nil {
		return err
	}
	data, err := os.ReadFile(pos[0])
	if err != nil {
		return usagef("calibrate: %v", err)
	}
	preset := *name
	if preset == "" {
		preset = "calibrated"
		if *out != "" && *out != "-" {
			preset = strings.TrimSuffix(filepath.Base(*out), filepath.Ext(*out))
		}
	}
	toml, err := fio.CalibratePreset(data, preset)
	if err != nil {
		return usagef("calibrate: %s: %v", pos[0], err)
	}
	return e.output(*out, func(w io.Writer, _ bool) error {
		_, err := w.Write(toml)
		return err
	})
}
