package disk

import (
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Every preset in the library decodes strictly, validates and builds.
func TestPresetsLoad(t *testing.T) {
	ents, err := os.ReadDir(presetDir)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range ents {
		name, ok := strings.CutSuffix(e.Name(), ".toml")
		if !ok {
			continue
		}
		n++
		t.Run(name, func(t *testing.T) {
			cfg := loadPreset(t, name)
			if cfg.Name != name {
				t.Errorf("preset %s has name %q; want the file name", name, cfg.Name)
			}
		})
	}
	for _, want := range []string{"network-15k-120MBps", "network-6750-54MBps", "gp3", "gp2-100GiB", "nvme-plp", "hdd-7200", "ram"} {
		if _, err := os.Stat(presetDir + "/" + want + ".toml"); err != nil {
			t.Errorf("missing preset %s", want)
		}
	}
	if n < 7 {
		t.Errorf("found %d presets", n)
	}
}

// DefaultConfig is the network-15k-120MBps preset.
func TestDefaultConfigIsPreset(t *testing.T) {
	p := loadPreset(t, "network-15k-120MBps")
	if diff := cmp.Diff(p, DefaultConfig()); diff != "" {
		t.Errorf("DefaultConfig differs from the preset (-preset +default):\n%s", diff)
	}
}
