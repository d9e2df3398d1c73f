package plot

import (
	"testing"

	"simrun/internal/result"
)

func TestEnough(t *testing.T) {
	tests := []struct {
		reason string
		tps    []float64
		want   int
	}{
		{"saturates at the third point", []float64{1900, 3800, 4510, 4520, 4520}, 2},
		{"still rising: the last point", []float64{1, 2, 3}, 2},
		{"flat: the first point", []float64{5, 5, 5}, 0},
		{"no throughput", []float64{0, 0}, -1},
	}
	for _, tc := range tests {
		if got := Enough(tc.tps); got != tc.want {
			t.Errorf("%s: Enough(%v) = %d, want %d", tc.reason, tc.tps, got, tc.want)
		}
	}
	if !capacityAxis([]float64{20, 10, 5}) || capacityAxis([]float64{5, 10, 20}) {
		t.Error("capacityAxis: falling latency is a capacity axis, rising latency a load axis")
	}
}

func TestAxisLabel(t *testing.T) {
	for _, tc := range []struct {
		x    float64
		unit string
		want string
	}{
		{4e7, "bytes/s", "40MB/s"}, {1.5e-3, "s", "1.5ms"}, {16384, "bytes", "16KiB"}, {16e3, "bytes", "16kB"}, {8, "", "8"},
	} {
		if got := axisLabel(tc.x, tc.unit); got != tc.want {
			t.Errorf("axisLabel(%v, %q) = %q, want %q", tc.x, tc.unit, got, tc.want)
		}
	}
}

// TestPointLabel: a legend names a line's other swept values in their
// keys' units, an inline table as TOML text.
func TestPointLabel(t *testing.T) {
	d := &result.Document{Sweep: []result.Axis{
		{Key: "workload.threads"},
		{Key: "volume.bandwidth_max", Unit: "bytes/s"},
		{Key: "workload.demo.service"},
	}}
	c := result.Case{Name: "file", Point: map[string]any{
		"workload.threads":      int64(16),
		"volume.bandwidth_max":  int64(54000000),
		"workload.demo.service": map[string]any{"mean": "1ms", "dist": "exponential"},
	}}
	for _, tc := range []struct {
		skip, want string
	}{
		{"", `threads=16 bandwidth_max=54MB/s service={ dist = "exponential", mean = "1ms" }`},
		{"workload.threads", `bandwidth_max=54MB/s service={ dist = "exponential", mean = "1ms" }`},
		{"workload.demo.service", "threads=16 bandwidth_max=54MB/s"},
	} {
		if got := pointLabel(d, c, tc.skip); got != tc.want {
			t.Errorf("pointLabel(skip %q) = %q, want %q", tc.skip, got, tc.want)
		}
	}
	if got, want := caseLabel(d, c), "file threads=16 bandwidth_max=54MB/s service={ dist = \"exponential\", mean = \"1ms\" }"; got != want {
		t.Errorf("caseLabel = %q, want %q", got, want)
	}
}
