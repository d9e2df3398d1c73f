package result

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

type typedInner struct {
	Avg float64 `json:"avg"`
	N   int64   `json:"n"`
}

type typedOuter struct {
	TPS      float64            `json:"tps"`
	Count    int64              `json:"count"`
	Name     string             `json:"name"`
	Lat      typedInner         `json:"latency_ms"`
	Opt      *typedInner        `json:"opt,omitempty"`
	Missing  *float64           `json:"missing,omitempty"`
	Series   []float64          `json:"series"`
	ByKind   map[string]float64 `json:"by_kind"`
	Tree     Metrics            `json:"tree"`
	internal int
	Skipped  int `json:"-"`
}

func TestFromStruct(t *testing.T) {
	x := 2.5
	in := typedOuter{TPS: 1.5, Count: 3, Name: "a", Lat: typedInner{2, 4}, Opt: &typedInner{N: 1},
		Series: []float64{1, 2}, ByKind: map[string]float64{"k": 1}, Tree: Metrics{"z": int64(1)}, internal: 9, Skipped: 7}
	want := Metrics{
		"tps": 1.5, "count": int64(3), "name": "a",
		"latency_ms": map[string]any{"avg": 2.0, "n": int64(4)},
		"opt":        map[string]any{"avg": 0.0, "n": int64(1)},
		"series":     []float64{1, 2},
		"by_kind":    map[string]any{"k": 1.0},
		"tree":       map[string]any{"z": int64(1)},
	}
	if diff := cmp.Diff(want, FromStruct(&in)); diff != "" {
		t.Errorf("FromStruct (-want +got):\n%s", diff)
	}
	in.Opt, in.Missing = nil, &x
	got := FromStruct(in)
	if _, ok := got["opt"]; ok {
		t.Error("a nil omitempty field was emitted")
	}
	if got["missing"] != 2.5 {
		t.Errorf("a set pointer field gave %v", got["missing"])
	}
	if diff := cmp.Diff([]string{"by_kind", "by_kind.k", "count", "latency_ms", "latency_ms.avg", "latency_ms.n", "missing", "name", "series", "tps", "tree", "tree.z"}, sortedKeys(Keys(got, 2))); diff != "" {
		t.Errorf("Keys (-want +got):\n%s", diff)
	}
}

func sortedKeys(k []string) []string {
	out := append([]string(nil), k...)
	for i := range out {
		for j := i + 1; j < len(out); j++ {
			if out[j] < out[i] {
				out[i], out[j] = out[j], out[i]
			}
		}
	}
	return out
}

type typedEmbed struct {
	Only float64 `json:"only"`
}

type typedWithEmbed struct {
	A float64 `json:"a"`
	*typedEmbed
}

// An embedded struct without a tag is inlined; a nil one adds nothing.
func TestFromStructInlines(t *testing.T) {
	if diff := cmp.Diff(Metrics{"a": 1.0, "only": 2.0}, FromStruct(typedWithEmbed{A: 1, typedEmbed: &typedEmbed{Only: 2}})); diff != "" {
		t.Errorf("inlined (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(Metrics{"a": 1.0}, FromStruct(typedWithEmbed{A: 1})); diff != "" {
		t.Errorf("nil embedded (-want +got):\n%s", diff)
	}
}
