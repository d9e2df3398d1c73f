package scenarios

import (
	"os"
	"path/filepath"
	"testing"
)

// TestReference keeps docs/parameters.md equal to what the configuration
// types say; rerun with -update after changing a model's Config.
func TestReference(t *testing.T) {
	path := filepath.Join("..", "docs", "parameters.md")
	got := Reference()
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./scenarios -run TestReference -update)", err)
	}
	if string(want) != got {
		t.Fatalf("docs/parameters.md is stale: run go test ./scenarios -run TestReference -update")
	}
}
