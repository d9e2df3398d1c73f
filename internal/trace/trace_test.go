package trace

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"simrun/sim"
)

var update = flag.Bool("update", false, "rewrite testdata/*.json goldens")

func at(d time.Duration) sim.Time { return sim.At(d) }

// record builds a small commit pipeline picture: two clients, a commit
// group, an fsync, overlapping device I/Os and a queue-depth counter.
func record() *Recorder {
	r := NewRecorder(at(10*time.Millisecond), at(10*time.Millisecond+200*time.Microsecond))
	c1 := r.Track("client/1")
	c2 := r.Track("client/2")
	grp := r.Track("commit/groups")
	dev := r.Track("disk/wal")
	// A transaction that began before the window: clipped.
	r.Span(c1, "trx", at(9*time.Millisecond), at(10*time.Millisecond+150*time.Microsecond), Int("trx", 7))
	r.Span(c1, "UPDATE", at(10*time.Millisecond+10*time.Microsecond), at(10*time.Millisecond+30*time.Microsecond), Str("table", `sbtest"1`))
	r.Span(c1, "commit wait", at(10*time.Millisecond+40*time.Microsecond), at(10*time.Millisecond+150*time.Microsecond))
	r.Span(c2, "trx", at(10*time.Millisecond+20*time.Microsecond), at(10*time.Millisecond+150*time.Microsecond), Int("trx", 8), Bool("ro", false))
	r.Span(grp, "group", at(10*time.Millisecond+45*time.Microsecond), at(10*time.Millisecond+150*time.Microsecond), Int("size", 2), Float("bytes_kB", 1.5))
	// Two overlapping device writes: they need two lanes.
	r.Span(dev, "write 16KiB", at(10*time.Millisecond+50*time.Microsecond), at(10*time.Millisecond+120*time.Microsecond))
	r.Span(dev, "write 4KiB", at(10*time.Millisecond+60*time.Microsecond), at(10*time.Millisecond+140*time.Microsecond))
	r.Span(dev, "flush", at(10*time.Millisecond+140*time.Microsecond), at(10*time.Millisecond+148*time.Microsecond))
	r.Instant(grp, "leader elected", at(10*time.Millisecond+45*time.Microsecond))
	r.Counter("disk/wal queue depth", at(9*time.Millisecond), 1) // replayed at window start
	r.Counter("disk/wal queue depth", at(10*time.Millisecond+50*time.Microsecond), 2)
	r.Counter("disk/wal queue depth", at(10*time.Millisecond+140*time.Microsecond), 0)
	r.Flow("durable", c1, at(10*time.Millisecond+45*time.Microsecond), grp, at(10*time.Millisecond+46*time.Microsecond))
	// Outside the window: dropped silently.
	r.Span(c2, "trx", at(time.Millisecond), at(2*time.Millisecond))
	r.Instant(c2, "late", at(time.Second))
	r.Flow("x", c1, at(time.Millisecond), grp, at(10*time.Millisecond+46*time.Microsecond))
	return r
}

func encode(t *testing.T, r *Recorder) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := r.WriteJSON(&buf); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestGolden(t *testing.T) {
	got := encode(t, record())
	path := filepath.Join("testdata", "small.json")
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("trace differs from %s (go test ./internal/trace -update to accept):\n%s", path, got)
	}
	if again := encode(t, record()); !bytes.Equal(got, again) {
		t.Errorf("two recordings of the same events differ")
	}
}

// traceFile is the JSON object form of the Trace Event format.
type traceFile struct {
	DisplayTimeUnit string           `json:"displayTimeUnit"`
	OtherData       map[string]any   `json:"otherData"`
	TraceEvents     []map[string]any `json:"traceEvents"`
}

// checkEvents checks that each event has the fields the Trace Event format
// requires for its phase.
func checkEvents(t *testing.T, b []byte) traceFile {
	t.Helper()
	var f traceFile
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatalf("trace is not JSON: %v\n%s", err, b)
	}
	for i, e := range f.TraceEvents {
		for _, k := range []string{"name", "ph", "ts", "pid", "tid"} {
			if _, ok := e[k]; !ok {
				t.Errorf("event %d lacks %q: %v", i, k, e)
			}
		}
		need := map[string][]string{
			"X": {"dur"}, "C": {"args"}, "M": {"args"}, "s": {"id"}, "f": {"id", "bp"}, "i": {"s"},
		}
		ph, _ := e["ph"].(string)
		req, ok := need[ph]
		if !ok {
			t.Errorf("event %d has unexpected phase %q", i, ph)
		}
		for _, k := range req {
			if _, ok := e[k]; !ok {
				t.Errorf("event %d (ph %s) lacks %q: %v", i, ph, k, e)
			}
		}
		if ts, ok := e["ts"].(float64); !ok || ts < 0 {
			t.Errorf("event %d: ts %v", i, e["ts"])
		}
	}
	return f
}

func TestFormat(t *testing.T) {
	f := checkEvents(t, encode(t, record()))
	var names []string
	lanes := map[string]float64{}
	for _, e := range f.TraceEvents {
		if e["ph"] == "M" && e["name"] == "thread_name" {
			n := e["args"].(map[string]any)["name"].(string)
			names = append(names, n)
			lanes[n] = e["tid"].(float64)
		}
	}
	if d := cmp.Diff([]string{"1", "2", "groups", "wal", "wal #2"}, names); d != "" {
		t.Errorf("thread names (-want +got):\n%s", d)
	}
	var clipped, flows, counters int
	for _, e := range f.TraceEvents {
		switch e["ph"] {
		case "X":
			if a, ok := e["args"].(map[string]any); ok && a["clipped"] == true {
				clipped++
				if e["ts"].(float64) != 10000 {
					t.Errorf("clipped span starts at %v µs, want 10000", e["ts"])
				}
			}
			if e["name"] == "write 4KiB" && e["tid"] != lanes["wal #2"] {
				t.Errorf("overlapping write not on lane 2: %v", e)
			}
			if e["name"] == "flush" && e["tid"] != lanes["wal"] {
				t.Errorf("flush after the first write should reuse lane 1: %v", e)
			}
			if e["name"] == "UPDATE" && e["tid"] != lanes["1"] {
				t.Errorf("nested statement left its client's lane: %v", e)
			}
		case "s", "f":
			flows++
		case "C":
			counters++
		}
	}
	if clipped != 1 || flows != 2 || counters != 3 {
		t.Errorf("clipped=%d flows=%d counters=%d, want 1 2 3", clipped, flows, counters)
	}
}

func TestNilRecorder(t *testing.T) {
	var r *Recorder
	id := r.Track("client/1")
	r.Span(id, "x", 0, 10, Int("a", 1))
	r.Instant(id, "x", 0)
	r.Counter("c", 0, 1)
	r.Flow("f", id, 0, id, 1)
	r.SetLimit(1)
	if r.Enabled() || r.Len() != 0 || r.Dropped() != 0 {
		t.Errorf("nil recorder is not empty")
	}
	checkEvents(t, encode(t, r))
	allocs := testing.AllocsPerRun(1000, func() {
		r.Span(id, "UPDATE", 5, 10, Int("trx", 42), Str("table", "sbtest1"))
		r.Counter("disk/q", 3, 4)
	})
	if allocs != 0 {
		t.Errorf("nil recorder allocates %v per call", allocs)
	}
}

func TestLimit(t *testing.T) {
	r := NewRecorder(0, 1000)
	r.SetLimit(2)
	tr := r.Track("a")
	for i := range 5 {
		r.Instant(tr, "i", sim.Time(i))
	}
	if r.Len() != 2 || r.Dropped() != 3 {
		t.Errorf("len %d dropped %d, want 2 3", r.Len(), r.Dropped())
	}
	b := encode(t, r)
	if !bytes.Contains(b, []byte(`"dropped_events":3`)) {
		t.Errorf("dropped count not written:\n%s", b)
	}
}

func TestTrackIDsStable(t *testing.T) {
	r := NewRecorder(0, 1)
	a, b := r.Track("disk/data"), r.Track("disk/wal")
	if a != 0 || b != 1 || r.Track("disk/data") != 0 {
		t.Errorf("ids %d %d %d", a, b, r.Track("disk/data"))
	}
}

func TestMisusePanics(t *testing.T) {
	for _, tc := range []struct {
		name string
		fn   func()
	}{
		{"empty window", func() { NewRecorder(5, 5) }},
		{"end before start", func() { r := NewRecorder(0, 10); r.Span(r.Track("a"), "x", 5, 4) }},
		{"unknown track", func() { r := NewRecorder(0, 10); r.Span(3, "x", 1, 2) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			defer func() {
				p := recover()
				if s, _ := p.(string); !strings.HasPrefix(s, "trace: ") {
					t.Errorf("panic %v, want a trace: message", p)
				}
			}()
			tc.fn()
		})
	}
}

func TestStringEscaping(t *testing.T) {
	r := NewRecorder(0, 10)
	r.Instant(r.Track("g/\x01weird\"\\\n"), "bad \xff utf8 \t✓", 1, Str("k", "<&>"))
	checkEvents(t, encode(t, r))
}

func BenchmarkNilRecorder(b *testing.B) {
	var r *Recorder
	id := r.Track("client/1")
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		r.Span(id, "UPDATE", sim.Time(i), sim.Time(i+10), Int("trx", int64(i)))
	}
}

func BenchmarkOutsideWindow(b *testing.B) {
	r := NewRecorder(at(time.Hour), at(time.Hour+time.Second))
	id := r.Track("client/1")
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		r.Span(id, "UPDATE", sim.Time(i), sim.Time(i+10), Int("trx", int64(i)))
	}
}

func BenchmarkRecord(b *testing.B) {
	r := NewRecorder(0, sim.Never)
	r.SetLimit(1 << 30)
	id := r.Track("client/1")
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		r.Span(id, "UPDATE", sim.Time(i), sim.Time(i+10), Int("trx", int64(i)))
	}
	b.ReportMetric(float64(len(r.events))/b.Elapsed().Seconds(), "events/s")
}

func TestParseWindow(t *testing.T) {
	for _, tc := range []struct {
		in       string
		from, to sim.Time
		err      string
	}{
		{"10s:10.2s", at(10 * time.Second), at(10*time.Second + 200*time.Millisecond), ""},
		{"0:1ms", 0, at(time.Millisecond), ""},
		{"10s", 0, 0, "want FROM:TO"},
		{"10s:5s", 0, 0, "the end must be after the start"},
		{"x:5s", 0, 0, "start:"},
		{"1s:2", 0, 0, "end:"},
		{"0s:2m", 0, 0, "at most 1m0s long"},
	} {
		from, to, err := ParseWindow(tc.in)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("ParseWindow(%q) error %v, want %q", tc.in, err, tc.err)
			}
			continue
		}
		if err != nil || from != tc.from || to != tc.to {
			t.Errorf("ParseWindow(%q) = %v %v %v", tc.in, from, to, err)
		}
	}
}
