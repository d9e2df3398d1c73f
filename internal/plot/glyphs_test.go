package plot

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"simrun/internal/result"
)

func TestDrawable(t *testing.T) {
	for _, tc := range []struct {
		in, want string
		replaced bool
	}{
		{"Case2", "Case2", false},
		{"café-Ωmega/Привет", "café-Ωmega/Привет", false},
		{"café-四", "café-□", true},
		{"日本語/テスト", "□□□/□□□", true},
		{"a\u0301", "a\u0301", false}, // a combining accent the font has
		{"", "", false},
	} {
		got, replaced := Drawable(tc.in)
		if got != tc.want || replaced != tc.replaced {
			t.Errorf("Drawable(%q) = %q, %v; want %q, %v", tc.in, got, replaced, tc.want, tc.replaced)
		}
	}
}

// barDoc is a run whose cases have these names, each with a TPS.
func barDoc(names ...string) *result.Document {
	d := result.New("uni")
	for i, n := range names {
		d.Cases = append(d.Cases, result.Case{Name: n, Metrics: result.Metrics{"tps": float64(1000 * (i + 1))}})
	}
	return d
}

// TestUndrawableNames: names in a script the chart font lacks are drawn
// with □ for what it cannot draw and the case's number, so no two labels
// merge and a reader can find the row in the table.
func TestUndrawableNames(t *testing.T) {
	type shown struct {
		Title    string
		Clusters []string
		Series   []string
	}
	sweep := barDoc("Case2", "Case2")
	sweep.Sweep = []result.Axis{{Key: "commit.engine", Values: []any{"日本", "中国"}}}
	sweep.Cases[0].Point = map[string]any{"commit.engine": "日本"}
	sweep.Cases[1].Point = map[string]any{"commit.engine": "中国"}
	for _, tc := range []struct {
		reason string
		doc    *result.Document
		cases  []string
		want   shown
	}{
		{"Latin, Greek and Cyrillic are drawn as they are", barDoc("café", "Ωmega", "Привет"), nil,
			shown{"uni: TPS per case", []string{"café", "Ωmega", "Привет"}, []string{""}}},
		{"the QA case: CJK replaced, the case's number added", barDoc("café-四", "日本語/テスト", "中文/テスト"), nil,
			shown{"uni: TPS per case", []string{"café-□ #1", "□□□/□□□ #2", "□□/□□□ #3"}, []string{""}}},
		{"group/label names: each part apart, numbered by the first case with it", barDoc("日本/テスト", "中国/テスト", "日本/x"), nil,
			shown{"uni: TPS per case", []string{"□□ #1", "□□ #2"}, []string{"□□□ #1", "x"}}},
		{"a choice of cases keeps the numbers of the whole result", barDoc("café-四", "日本語/テスト", "中文/テスト"), []string{"中文/テスト"},
			shown{"uni: TPS per case", []string{"□□ #3"}, []string{"□□□ #2"}}},
		{"swept values: numbered by their place in the sweep", sweep, nil,
			shown{"uni: TPS per case", []string{"Case2"}, []string{"engine=□□ #1", "engine=□□ #2"}}},
	} {
		f, err := Draw(tc.doc, Bar, Options{Cases: tc.cases})
		if err != nil {
			t.Fatalf("%s: %v", tc.reason, err)
		}
		p := f.Data()[0]
		got := shown{Title: p.Title, Clusters: p.XTicks}
		for _, b := range p.Bars {
			got.Series = append(got.Series, b.Label)
		}
		if d := cmp.Diff(tc.want, got); d != "" {
			t.Errorf("%s (-want +got):\n%s", tc.reason, d)
		}
	}
}
