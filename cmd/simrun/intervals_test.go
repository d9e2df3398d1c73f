package main

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"simrun/internal/result"
)

// TestIntervalReports: sysbench-style lines and iostat -x-style rows from
// the series in a result, regrouped to the asked interval.
func TestIntervalReports(t *testing.T) {
	d := result.New("x")
	d.Cases = []result.Case{{Name: "c1", Metrics: result.Metrics{
		"series": result.Metrics{"interval_s": int64(1), "tps": []float64{100, 200, 300, 400}},
		"disk":   result.Metrics{"series": result.Metrics{"interval_s": int64(1), "writes_per_s": []float64{10, 30, 50, 70}, "util_pct": []float64{50, 50, 100, 100}}},
	}}}
	var buf bytes.Buffer
	if err := writeIntervals(&buf, d, 2*time.Second, true); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, want := range []string{
		"c1, every 2s (sysbench --report-interval style):\n[ 2s ] tps: 150.00\n[ 4s ] tps: 350.00\n",
		"time     Device         w/s     %util\n2s       vol          20.00     50.00\n4s       vol          60.00    100.00\n",
		"not recorded per interval: r/s, rkB/s",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if err := writeIntervals(&buf, d, 1500*time.Millisecond, false); err == nil || !strings.Contains(err.Error(), "multiple of the recorded interval") {
		t.Errorf("1.5s: %v", err)
	}
	out2, errOut, code := simrun(t, "run", "demo/mmc", "--case", "mm4", "--duration", "1s", "--report-interval", "1s")
	if code != 0 || !strings.Contains(out2, "no per-interval series in this result") {
		t.Errorf("demo --report-interval: exit %d %s\n%s", code, errOut, out2)
	}
	if _, errOut, code := simrun(t, "run", "demo/mmc", "--report-interval", "10s", "--format", "json"); code != 2 || !strings.Contains(errOut, "print with the table") {
		t.Errorf("json + --report-interval: exit %d %s", code, errOut)
	}
}
