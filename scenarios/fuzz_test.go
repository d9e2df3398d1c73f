package scenarios

import (
	"context"
	"errors"
	"io/fs"
	"testing"
)

// FuzzLoad feeds the loader arbitrary files, seeded with the built-in
// library and the bad inputs of TestLoadErrors. Every input must either be
// rejected with an ErrorList, be a valid preset file (a *PresetFile), or
// load, validate and run for 1ms; nothing may panic. Run it with: go test ./scenarios -fuzz FuzzLoad -fuzztime 60s
func FuzzLoad(f *testing.F) {
	fs.WalkDir(library, ".", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			b, _ := fs.ReadFile(library, p)
			f.Add(b)
		}
		return nil
	})
	for _, b := range badInputs {
		f.Add([]byte(b.src))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		sc, err := LoadBytes("fuzz.toml", data)
		if err != nil {
			var el ErrorList
			var pf *PresetFile
			if errors.As(err, &pf) { // a valid preset file, not a scenario
				if pf.Section == "" || !isSection(pf.Section) {
					t.Fatalf("preset of section %q", pf.Section)
				}
				return
			}
			if !errors.As(err, &el) {
				t.Fatalf("error is %T, not an ErrorList: %v", err, err)
			}
			for _, e := range el {
				if e.Msg == "" {
					t.Fatalf("empty message in %v", e)
				}
			}
			return
		}
		shrinkForTest(t, sc, "1ms", "0s")
		for _, c := range sc.Cases {
			c.Params() // explain must not panic either
		}
		if _, err := Run(context.Background(), sc, Options{Workers: 1}); err != nil {
			t.Fatalf("valid scenario failed to run: %v", err)
		}
	})
}
