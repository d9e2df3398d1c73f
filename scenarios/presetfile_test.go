package scenarios

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"simrun/model/fio"
	"simrun/sim"
)

// Every .toml file of the repository's scenarios folder loads: a scenario,
// or a preset that Load checks as one of its section (library/SECTION/ and
// the realdb presets calibrate wrote, realdb/calibrated/SECTION.toml).
// simrun validate scenarios/**/*.toml relies on it.
func TestEveryFileIsScenarioOrPreset(t *testing.T) {
	var presets int
	err := filepath.WalkDir(".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".toml") || strings.HasPrefix(p, "testdata") {
			return err
		}
		want := ""
		switch dir := filepath.ToSlash(filepath.Dir(p)); {
		case strings.HasPrefix(dir, presetDir+"/"):
			want = strings.TrimPrefix(dir, presetDir+"/")
		case dir == "realdb/calibrated":
			want = strings.TrimSuffix(filepath.Base(p), ".toml")
		}
		_, err = Load(p)
		var pf *PresetFile
		switch {
		case want == "" && err != nil:
			t.Errorf("%s: want a scenario, got %v", p, err)
		case want != "" && !errors.As(err, &pf):
			t.Errorf("%s: want a [%s] preset, got %v", p, want, err)
		case want != "":
			presets++
			if d := cmp.Diff(&PresetFile{File: p, Section: want, Description: pf.Description}, pf); d != "" || pf.Description == "" {
				t.Errorf("%s: (-want +got)\n%s", p, d)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if presets < 10 {
		t.Errorf("found %d preset files, want the library's and realdb/calibrated's", presets)
	}
}

// The preset simrun calibrate writes is checked as a [volume] preset; a
// scenario beside it uses it by its path, with no rebuild; and run,
// which wants a scenario, reports the file as a scenario error that
// names that path form.
func TestCalibratedPresetFile(t *testing.T) {
	b, err := os.ReadFile("../model/fio/testdata/fio-2jobs.json")
	if err != nil {
		t.Fatal(err)
	}
	vol, err := fio.CalibratePreset(b, "my-volume")
	if err != nil {
		t.Fatal(err)
	}
	dir := writeFiles(t, map[string]string{
		"my-volume.toml": string(vol),
		"use.toml":       "name = \"use\"\n[workload]\nkind = \"fio\"\n[volume]\npreset = \"my-volume.toml\"\n",
		"builtin.toml":   "name = \"b\"\n[workload]\nkind = \"fio\"\n[volume]\npreset = \"my-volume\"\n",
	})
	_, err = Load(filepath.Join(dir, "my-volume.toml"))
	var pf *PresetFile
	if !errors.As(err, &pf) || pf.Section != "volume" {
		t.Fatalf("Load(my-volume.toml) = %v, want a [volume] PresetFile", err)
	}
	var se *Error
	if !errors.As(err, &se) || !strings.Contains(se.Error(), `preset = "my-volume.toml"`) {
		t.Errorf("as a scenario error: %v", se)
	}
	sc := mustLoad(t, filepath.Join(dir, "use.toml"))
	if got, want := sc.Cases[0].Volume.Name, "my-volume"; got != want {
		t.Errorf("volume name %q, want %q from the preset", got, want)
	}
	if sc.Cases[0].Volume.IOPSMax != sim.Count(15315) {
		t.Errorf("iops_max %v, want the calibrated 15315", sc.Cases[0].Volume.IOPSMax)
	}
	// Named without .toml, the preset must be built in: the error says
	// so and gives the path form.
	_, err = Load(filepath.Join(dir, "builtin.toml"))
	if err == nil || !strings.Contains(err.Error(), `no preset "my-volume" built into simrun for [volume]; name a preset file of your own by its path relative to this file, preset = "my-volume.toml"`) {
		t.Errorf("built-in name of a local preset: %v", err)
	}
}
