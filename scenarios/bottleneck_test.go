package scenarios

import (
	"context"
	"math"
	"testing"

	"simrun/internal/result"
)

// The fio scenarios name what limits each job: the actuator of a seek-bound
// HDD, the cap a deep queue runs into, the round trip of a job with one
// I/O in flight, and a gp2 volume's credits once its bucket runs dry.
func TestBottleneckFio(t *testing.T) {
	for _, tc := range []struct {
		reason   string
		scenario string
		cases    []string
		set      map[string]any
		want     map[string]string // case -> binding resource
	}{
		{"an HDD serves one I/O at a time: its actuator is busy while the caps are idle",
			"disk/fio-hdd", nil, nil,
			map[string]string{"randread-qd1": "volume_busy", "randread-10g": "volume_busy", "randwrite-qd4": "volume_busy", "seqread-1m": "volume_busy"}},
		{"a network volume: a deep queue meets a cap, one I/O in flight is its own round trip",
			"disk/fio-network-caps", nil, nil,
			map[string]string{"4k-qd16": "volume_iops", "16k-qd16": "volume_bandwidth", "4k-qd1": "round_trip", "4k-qd1-fsync": "round_trip", "1m-seqwrite": "volume_bandwidth"}},
		{"one I/O in flight held at a low IOPS cap waits for the cap, not for its round trip",
			"disk/fio-network-caps", []string{"4k-qd1"}, map[string]any{"volume.iops_max": int64(500)},
			map[string]string{"4k-qd1": "volume_iops"}},
		{"gp2 while its credits last: the iops_max cap",
			"disk/fio-gp2-burst", nil, nil,
			map[string]string{"base": "volume_iops"}},
		{"gp2 after its bucket runs dry: the credits, held to the baseline",
			"disk/fio-gp2-burst", nil, map[string]any{"volume.credits.balance": int64(3000)},
			map[string]string{"base": "volume_credits"}},
	} {
		t.Run(tc.reason, func(t *testing.T) {
			sc := mustLoad(t, tc.scenario)
			for k, v := range tc.set {
				if err := sc.Override(k, v, Source{Kind: "flag", Name: "test"}); err != nil {
					t.Fatal(err)
				}
			}
			shrinkForTest(t, sc, "2s", "0s")
			doc, err := Run(context.Background(), sc, Options{Cases: tc.cases, Analyse: true})
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range doc.Cases {
				b := c.Bottleneck
				if b == nil {
					t.Errorf("%s: no bottleneck", c.Name)
					continue
				}
				if b.Resource != tc.want[c.Name] {
					t.Errorf("%s: bound by %s %.1f %%, want %s; ranked %+v", c.Name, b.Resource, b.UtilPct, tc.want[c.Name], b.Ranked)
				}
				if b.UtilPct < 95 {
					t.Errorf("%s: %s only %.1f %% used", c.Name, b.Resource, b.UtilPct)
				}
			}
		})
	}
}

// Each fio and credit candidate is the documented formula
// (docs/capacity-planning.md, "Bottleneck summary") of the row's metrics,
// and is offered only where it means something.
func TestBottleneckFormulas(t *testing.T) {
	fio := func(kind string, depth int64, m result.Metrics) (*Case, result.Metrics) {
		c := &Case{resolved: resolved{Settings: DefaultSettings(), Config: DefaultConfig()}}
		c.Config.Workload.Kind = "fio"
		c.Config.Volume.Kind = kind
		m["iodepth"], m["numjobs"], m["runtime_s"] = depth, int64(1), 2.0
		return c, m
	}
	disk := func(extra result.Metrics) result.Metrics {
		d := result.Metrics{"util_pct": 100.0, "read_kB_per_s": 0.0, "write_kB_per_s": 4000.0, "reads_per_s": 0.0, "writes_per_s": 1000.0,
			"avg_read_kB": 0.0, "avg_write_kB": 4.0, "iops_cap_bound_pct": 0.0, "bw_cap_bound_pct": 0.0}
		for k, v := range extra {
			d[k] = v
		}
		return d
	}
	dir := func(iops, meanMs float64) result.Metrics {
		return result.Metrics{"iops": iops, "clat_ms": result.Metrics{"mean": meanMs}}
	}
	type row struct {
		reason string
		c      *Case
		m      result.Metrics
		want   map[string]float64 // resource -> util_pct; NaN: not offered
	}
	var cases []row
	add := func(reason string, c *Case, m result.Metrics, want map[string]float64) {
		cases = append(cases, row{reason, c, m, want})
	}
	c, m := fio("network", 1, result.Metrics{"disk": disk(nil), "read": dir(0, 0), "write": dir(1000, 0.5),
		"sync": result.Metrics{"total_ios": int64(2000), "lat_ms": result.Metrics{"mean": 0.4}}})
	add("qd1 writes and fsyncs: 1000/s x 0.5 ms + 2000/2 s x 0.4 ms = 90 %", c, m,
		map[string]float64{"round_trip": 90, "volume_busy": math.NaN()})
	c, m = fio("network", 1, result.Metrics{"disk": disk(result.Metrics{"iops_cap_bound_pct": 60.0, "credits": result.Metrics{"bound_pct": 10.0}}),
		"read": dir(500, 1), "write": dir(500, 1)})
	add("qd1 held at caps 70 % of the time: 100 - 70", c, m, map[string]float64{"round_trip": 30})
	c, m = fio("network", 16, result.Metrics{"disk": disk(nil), "read": dir(0, 0), "write": dir(1000, 16)})
	add("qd16: no round trip", c, m, map[string]float64{"round_trip": math.NaN()})
	c, m = fio("hdd", 4, result.Metrics{"disk": disk(result.Metrics{"util_pct": 87.5}), "read": dir(100, 40), "write": dir(0, 0)})
	add("an HDD: %util", c, m, map[string]float64{"volume_busy": 87.5, "round_trip": math.NaN()})
	c, m = fio("network", 4, result.Metrics{"disk": disk(result.Metrics{"credits": result.Metrics{"balance_start": 27000.0, "refill": 9000.0, "taken": 18000.0, "bound_pct": 0.0}}),
		"read": dir(0, 0), "write": dir(1000, 4)})
	add("credits: 18000 taken of 27000 + 9000", c, m, map[string]float64{"volume_credits": 50})
	sb := &Case{resolved: resolved{Settings: DefaultSettings(), Config: DefaultConfig()}}
	sb.Config.Workload.Kind = "sysbench"
	sb.Config.Volume.Kind = "hdd"
	add("not fio: no volume_busy from disk.util_pct, no round trip", sb,
		result.Metrics{"disk": disk(nil), "iodepth": int64(1), "numjobs": int64(1), "runtime_s": 2.0},
		map[string]float64{"volume_busy": math.NaN(), "round_trip": math.NaN()})

	for _, tc := range cases {
		b := Bottleneck(tc.c, tc.m)
		got := map[string]float64{}
		for _, r := range b.Ranked {
			got[r.Name] = r.UtilPct
		}
		for name, want := range tc.want {
			g, ok := got[name]
			switch {
			case math.IsNaN(want) && ok:
				t.Errorf("%s: %s offered (%.3f %%)", tc.reason, name, g)
			case !math.IsNaN(want) && !ok:
				t.Errorf("%s: %s not offered; ranked %+v", tc.reason, name, b.Ranked)
			case !math.IsNaN(want) && math.Abs(g-want) > 1e-9:
				t.Errorf("%s: %s = %.6f %%, want %.6f", tc.reason, name, g, want)
			}
		}
	}
}
