package scenarios

import (
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"simrun/internal/result"
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
	t.Helper()
	b, err := os.ReadFile("../docs/results.md")
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	i := strings.Index(text, from)
	j := strings.Index(text[i+1:], to)
	if i < 0 || j < 0 {
		t.Fatalf("docs/results.md: no section between %q and %q", from, to)
	}
	var names strings.Builder
	for _, line := range strings.Split(text[i:i+1+j], "\n") {
		if strings.HasPrefix(line, "|") {
			line, _, _ = strings.Cut(line[1:], "|")
		}
		names.WriteString(line + "\n")
	}
	var out []string
	for _, m := range regexp.MustCompile("`([A-Za-z0-9_]+)(?: \\{([^}]*)\\})?`").FindAllStringSubmatch(names.String(), -1) {
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
// registered sources) are exactly those docs/results.md lists for it.
func TestResultsDocDisk(t *testing.T) {
	env := sim.New(1)
	vol, err := disk.New(env, disk.DefaultConfig())
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
	doc := docFields(t, "| `reads_per_s`, `writes_per_s`, `flushes_per_s`", "A metric value is")
	result.OrderPaths(doc)
	if diff := cmp.Diff(doc, emitted); diff != "" {
		t.Errorf("docs/results.md (disk) and the emitted fields differ (-documented +emitted):\n%s", diff)
	}
}
