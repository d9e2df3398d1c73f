package scenarios

import (
	"bytes"
	"encoding/json"
	"fmt"

	"simrun/internal/result"
	"simrun/model/disk"
	"simrun/model/workload/bulkload"
	"simrun/sim"
)

// runBulkload runs a bulk load to its end (or to warm-up + duration,
// whichever comes first) and reports the load's result. Warm-up is not
// used: the load's start is part of what it measures.
func runBulkload(rc RunContext) (result.Metrics, error) {
	env := sim.New(rc.Seed)
	vol, err := disk.New(env, rc.Config.Volume)
	if err != nil {
		return nil, err
	}
	l, err := bulkload.New(env, rc.Config.Machine.Cores, vol, bulkload.Server{Engine: rc.Config.Engine, Commit: rc.Config.Commit}, rc.Config.Workload.Bulkload)
	if err != nil {
		return nil, err
	}
	l.Start(nil)
	end := rc.End()
	n := 0
	env.RunWhile(func() bool {
		n++
		if n&4095 == 0 && rc.Context != nil && rc.Context.Err() != nil {
			return false
		}
		return !l.Done() && env.NextAt() <= end
	})
	if rc.Context != nil && rc.Context.Err() != nil {
		return nil, rc.Context.Err()
	}
	if err := l.Err(); err != nil {
		return nil, err
	}
	m, err := toMetrics(l.Result())
	if err != nil {
		return nil, err
	}
	m["disk"] = vol.Metrics() // iostat figures and per-second series, as every workload reports them
	return m, nil
}

// toMetrics turns a typed result into the document's metrics tree through
// its json tags, keeping integers as int64 and series as []float64.
func toMetrics(v any) (result.Metrics, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var m map[string]any
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	if err := d.Decode(&m); err != nil {
		return nil, err
	}
	out, ok := convert(m).(map[string]any)
	if !ok {
		return nil, fmt.Errorf("scenarios: result is not an object")
	}
	return result.Metrics(out), nil
}

func convert(v any) any {
	switch x := v.(type) {
	case map[string]any:
		m := result.Metrics{}
		for k, e := range x {
			m[k] = convert(e)
		}
		return map[string]any(m)
	case []any:
		f := make([]float64, len(x))
		for i, e := range x {
			if n, ok := e.(json.Number); ok {
				f[i], _ = n.Float64()
			}
		}
		return f
	case json.Number:
		if i, err := x.Int64(); err == nil {
			return i
		}
		f, _ := x.Float64()
		return f
	}
	return v
}
