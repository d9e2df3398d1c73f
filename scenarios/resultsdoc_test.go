package scenarios

import (
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"simrun/internal/result"
	replica "simrun/model/applier"
	"simrun/model/commit"
	"simrun/model/disk"
	"simrun/model/engine"
	"simrun/model/server"
	"simrun/model/workload"
	"simrun/sim"
)

// docFields returns the metric paths documented in the part of
// docs/results.md between the lines starting with from and to: every
// backticked `name` or `name {a, b}` (giving name, name.a, name.b) in the
// first column of its tables and in its prose lines.
func docFields(t *testing.T, from, to string) []string {
	return docFieldsIn(t, "../docs/results.md", from, to)
}

// docFieldsIn is docFields for another page.
func docFieldsIn(t *testing.T, page, from, to string) []string {
	t.Helper()
	b, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	i := strings.Index(text, from)
	j := strings.Index(text[i+1:], to)
	if i < 0 || j < 0 {
		t.Fatalf("%s: no section between %q and %q", page, from, to)
	}
	var names strings.Builder
	for _, line := range strings.Split(text[i:i+1+j], "\n") {
		if strings.HasPrefix(line, "|") {
			line, _, _ = strings.Cut(line[1:], "|")
		}
		names.WriteString(line + "\n")
	}
	var out []string
	for _, m := range regexp.MustCompile("`([A-Za-z0-9_.]+)(?: \\{([^}]*)\\}|\\.\\{([^}]*)\\})?`").FindAllStringSubmatch(names.String(), -1) {
		if m[2] == "" {
			m[2] = m[3]
		}
		if seg := m[1][strings.LastIndex(m[1], ".")+1:]; seg != "" && seg[0] >= 'A' && seg[0] <= 'Z' {
			continue // a Go type named in the prose (server.Metrics), not a field
		}
		out = append(out, m[1])
		if m[2] != "" {
			for _, sub := range strings.Split(m[2], ",") {
				out = append(out, m[1]+"."+strings.TrimSpace(sub))
			}
		}
	}
	return out
}

// The sysbench block's fields (two levels, the disk block aside) are
// exactly those docs/results.md lists for it.
func TestResultsDocSysbench(t *testing.T) {
	env := sim.New(1)
	vol, err := disk.New(env, disk.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	m, err := server.RunSysbench(env, 4, vol, engine.DefaultConfig(), commit.DefaultConfig(), workload.DefaultConfig(), 0, 200*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	var emitted []string
	for _, k := range result.Keys(m, 2) {
		if !strings.HasPrefix(k, "disk.") {
			emitted = append(emitted, k)
		}
	}
	documented := map[string]bool{"latency_ms.avg": true, "latency_ms.p50": true, "latency_ms.p95": true, "latency_ms.p99": true, "latency_ms.max": true}
	for _, f := range docFields(t, "The sysbench workload", "The fio workload") {
		documented[f] = true
	}
	var doc []string
	for f := range documented {
		doc = append(doc, f)
	}
	result.OrderPaths(doc)
	if diff := cmp.Diff(doc, emitted); diff != "" {
		t.Errorf("docs/results.md (sysbench) and the emitted fields differ (-documented +emitted):\n%s", diff)
	}
}

// The disk block's fields (two levels; the per-source maps' keys are the
// registered sources) are exactly those docs/results.md lists for it. The
// volume has a burst-credit bucket, so that its optional credits block is
// among them.
func TestResultsDocDisk(t *testing.T) {
	env := sim.New(1)
	cfg := disk.DefaultConfig()
	cfg.Credits = disk.Credits{BaselineIOPS: 300, Balance: 1000}
	vol, err := disk.New(env, cfg)
	if err != nil {
		t.Fatal(err)
	}
	vol.OpenFile("f", false).Append(4096, disk.SourceOther, nil, nil)
	env.Run()
	var emitted []string
	for _, k := range result.Keys(vol.Metrics(), 2) {
		if !strings.Contains(k, "_by_source.") {
			emitted = append(emitted, k)
		}
	}
	var doc []string
	for _, f := range docFields(t, "| `disk.reads_per_s`, `disk.writes_per_s`, `disk.flushes_per_s`", "A metric value is") {
		doc = append(doc, strings.TrimPrefix(f, "disk."))
	}
	result.OrderPaths(doc)
	if diff := cmp.Diff(doc, emitted); diff != "" {
		t.Errorf("docs/results.md (disk) and the emitted fields differ (-documented +emitted):\n%s", diff)
	}
}

// The applier block's fields, from the type of applier.Metrics (every mode
// and applier), are exactly those docs/model-applier.md §9 lists (the
// per-state keys of worker_state_pct are data, not type).
func TestResultsDocApplier(t *testing.T) {
	paths, maps := result.StructKeys(replica.Metrics{}, 2)
	doc := docFieldsIn(t, "../docs/model-applier.md", "| `tps` | transactions committed per second in the measured window |", "## 10.")
	var keep []string
	for _, d := range doc {
		isMapChild := false
		for _, m := range maps {
			if strings.HasPrefix(d, m+".") {
				isMapChild = true
			}
		}
		if !isMapChild {
			keep = append(keep, d)
		}
	}
	result.OrderPaths(keep)
	if diff := cmp.Diff(keep, paths); diff != "" {
		t.Errorf("docs/model-applier.md §9 and applier.Metrics differ (-documented +type):\n%s", diff)
	}
}
