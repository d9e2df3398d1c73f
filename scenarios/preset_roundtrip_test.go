package scenarios

import (
	"strings"
	"testing"

	"simrun/model/disk"
)

// A volume preset written by disk.WritePreset (what simrun calibrate
// writes) loads as a scenario's [volume] section: every key it writes is one
// the loader accepts, with a value in its allowed range.
func TestWrittenPresetLoads(t *testing.T) {
	for _, name := range []string{"default", "none-journal"} {
		cfg := disk.DefaultConfig()
		if name == "none-journal" {
			cfg.Journal = disk.JournalNone
		}
		var b strings.Builder
		if err := disk.WritePreset(&b, cfg, "x"); err != nil {
			t.Fatal(err)
		}
		vol := b.String()[strings.Index(b.String(), "[volume]"):]
		src := "name = \"preset-check\"\nduration = \"1s\"\n[workload]\nkind = \"fio\"\n" + vol
		if _, err := LoadBytes("check.toml", []byte(src)); err != nil {
			t.Errorf("%s: the written preset does not load: %v\n%s", name, err, vol)
		}
	}
}
