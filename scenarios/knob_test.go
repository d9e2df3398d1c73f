package scenarios

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestKnobExpand(t *testing.T) {
	sc, err := Load("binlog/quick")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		key, rng string
		want     []float64
		err      string
	}{
		{"volume.bandwidth_max", "40MB/s..400MB/s:10", []float64{40e6, 80e6, 120e6, 160e6, 200e6, 240e6, 280e6, 320e6, 360e6, 400e6}, ""},
		{"volume.bandwidth_max", "40MB/s..400MB/s*2", []float64{40e6, 80e6, 160e6, 320e6}, ""},
		{"workload.sysbench.threads", "1..64*2", []float64{1, 2, 4, 8, 16, 32, 64}, ""},
		{"workload.sysbench.threads", "1..4", []float64{1, 2, 3, 4}, ""},
		{"workload.sysbench.threads", "1..3:5", []float64{1, 2, 3}, ""},
		{"duration", "1s..3s:3", []float64{1, 2, 3}, ""},
		{"volume.bandwidth_max", "400MB/s..40MB/s:3", nil, "is empty"},
		{"volume.bandwidth_max", "40MB/s..400MB/s", nil, "say how to step it"},
		{"volume.bandwidth_max", "40..fast:3", nil, "rate"},
		{"workload.sysbench.threads", "1.5..3:2", nil, "not a whole number"},
		{"volume.nope", "1..2", nil, "no parameter"},
		{"commit.binlog_storage_engine", "1..2", nil, "not numeric"},
	}
	for _, tc := range tests {
		r, ok, err := ParseRange(tc.rng)
		if !ok || err != nil {
			t.Fatalf("ParseRange(%q): %v %v", tc.rng, ok, err)
		}
		var got []float64
		k, err := sc.Knob(tc.key)
		if err == nil {
			got, err = k.Expand(r, 1000)
		}
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s=%s: error %v, want %q", tc.key, tc.rng, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s=%s: %v", tc.key, tc.rng, err)
			continue
		}
		if d := cmp.Diff(tc.want, got); d != "" {
			t.Errorf("%s=%s (-want +got):\n%s", tc.key, tc.rng, d)
		}
	}
}

// A swept rate is reported as a number of bytes/s, with its unit.
func TestSweepNumericValues(t *testing.T) {
	sc, err := Load("binlog/quick")
	if err != nil {
		t.Fatal(err)
	}
	axes, err := ResolveAxes(sc, []Axis{
		{Key: "volume.bandwidth_max", Values: []any{"54MB/s", int64(120000000)}},
		{Key: "volume.iops_max", Range: &Range{Lo: "1000", Hi: "3000", Points: 3}},
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []ResolvedAxis{
		{Key: "volume.bandwidth_max", Unit: "bytes/s", Values: []any{"54MB/s", int64(120000000)}, Report: []any{int64(54000000), int64(120000000)}},
		{Key: "volume.iops_max", Values: []any{1000.0, 2000.0, 3000.0}, Report: []any{1000.0, 2000.0, 3000.0}},
	}
	if d := cmp.Diff(want, axes); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
}

// TestKnobFormatParses: a value printed by Knob.Format parses back to
// itself wherever it is exact, binary sizes included (1GiB, not 1.074GB).
func TestKnobFormatParses(t *testing.T) {
	sc, err := Load("binlog/quick")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		key string
		x   float64
	}{
		{"engine.redo.log_file_size", 1 << 30},
		{"engine.redo.log_file_size", 96 << 20},
		{"engine.redo.log_file_size", 1.5 * (1 << 30)},
		{"engine.redo.log_file_size", 2e9},
		{"engine.buffer_pool.size", 128 << 20},
		{"volume.bandwidth_max", 54e6},
		{"duration", 600},
		{"workload.sysbench.threads", 64},
	} {
		k, err := sc.Knob(tc.key)
		if err != nil {
			t.Fatal(err)
		}
		s := k.Format(tc.x)
		if got, err := k.Parse(s); err != nil || got != tc.x {
			t.Errorf("%s: Format(%v) = %q parses to %v, %v", tc.key, tc.x, s, got, err)
		}
	}
}
