package server

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"simrun/internal/trace"
	"simrun/model/commit"
	"simrun/model/disk"
	"simrun/model/engine"
	"simrun/model/workload"
	"simrun/sim"
)

// runTraced runs case c for dur with rec (nil: no trace) and returns the
// metrics as JSON.
func runTraced(t *testing.T, c studyCase, dur time.Duration, rec *trace.Recorder) []byte {
	t.Helper()
	env := sim.New(1)
	vol, err := disk.New(env, studyVolume(false))
	if err != nil {
		t.Fatal(err)
	}
	m, err := RunSysbenchTraced(env, 4, vol, engine.DefaultConfig(), c.commit(), workload.DefaultConfig(), 0, dur, rec)
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func caseNamed(name string) studyCase {
	for _, c := range study {
		if c.name == name {
			return c
		}
	}
	panic("no case " + name)
}

// A trace of a short window of Case8 (file binlog, two fsyncs per group)
// shows the client threads, their statements and the stage each commit
// waited in, the redo and binlog group commits, the fsyncs and the device
// I/Os, all inside the window; recording it does not change the run.
func TestTraceCase8(t *testing.T) {
	c := caseNamed("Case8")
	from, to := sim.At(1900*time.Millisecond), sim.At(1950*time.Millisecond)
	rec := trace.NewRecorder(from, to)
	traced := runTraced(t, c, 2*time.Second, rec)
	if plain := runTraced(t, c, 2*time.Second, nil); !bytes.Equal(traced, plain) {
		t.Error("recording a trace changed the metrics")
	}
	var buf bytes.Buffer
	if err := rec.WriteJSON(&buf); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		TraceEvents []struct {
			Name string         `json:"name"`
			Ph   string         `json:"ph"`
			Ts   float64        `json:"ts"`
			Dur  float64        `json:"dur"`
			Pid  int            `json:"pid"`
			Tid  int            `json:"tid"`
			Args map[string]any `json:"args"`
			Cat  string         `json:"cat"`
		} `json:"traceEvents"`
	}
	if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatalf("trace is not JSON: %v", err)
	}
	threads := map[[2]int]string{} // (pid, tid) -> thread name
	for _, e := range doc.TraceEvents {
		if e.Ph == "M" && e.Name == "thread_name" {
			threads[[2]int{e.Pid, e.Tid}] = e.Args["name"].(string)
		}
	}
	lo, hi := float64(from)/1e3, float64(to)/1e3 // µs
	spans := map[string]map[string]int{}         // "cat/thread" -> span name -> count
	for _, e := range doc.TraceEvents {
		if e.Ph != "X" {
			continue
		}
		if e.Ts < lo || e.Ts+e.Dur > hi+1e-3 {
			t.Errorf("span %q [%v, %v] µs outside the window [%v, %v]", e.Name, e.Ts, e.Ts+e.Dur, lo, hi)
		}
		th := strings.SplitN(threads[[2]int{e.Pid, e.Tid}], " #", 2)[0]
		k := e.Cat + "/" + th
		if spans[k] == nil {
			spans[k] = map[string]int{}
		}
		spans[k][e.Name]++
	}
	for _, want := range []struct{ track, span string }{
		{"clients/thread 07", "transaction"},
		{"clients/thread 07", "commit wait"},
		{"clients/thread 07", "BEGIN"},
		{"clients/thread 07", "INSERT"},
		{"clients/thread 07", "binlog fsync"},
		{"clients/thread 07", "redo fsync"},
		{"commit/redo group", "redo sync"},
		{"commit/binlog group", "binlog group"},
		{"fsync/redo", "fdatasync ib_logfile0"},
		{"fsync/binlog", "fdatasync binlog"},
		{"disk/write", "write binlog_file"},
		{"disk/write", "write redo"},
		{"disk/flush", "flush fs_journal"}, // in this window every sync of Case8 commits the journal
	} {
		if spans[want.track][want.span] == 0 {
			t.Errorf("no %q span on %s; have %v", want.span, want.track, spans[want.track])
		}
	}
	if rec.Dropped() != 0 {
		t.Errorf("%d events dropped", rec.Dropped())
	}
}

// A page-cleaner batch, its doublewrite chunks and its checkpoint appear on
// the flush tracks (a small redo log makes the cleaner work early).
func TestTraceFlush(t *testing.T) {
	env := sim.New(1)
	vol, err := disk.New(env, studyVolume(false))
	if err != nil {
		t.Fatal(err)
	}
	ec := engine.DefaultConfig()
	ec.Redo.LogFileSize = 64 * sim.MiB
	ec.Flushing.CheckpointPerBatch = true // else the first checkpoint comes at the sync point, after the window
	rec := trace.NewRecorder(0, sim.At(3*time.Second))
	if _, err := RunSysbenchTraced(env, 4, vol, ec, commit.DefaultConfig(), workload.DefaultConfig(), 0, 3*time.Second, rec); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := rec.WriteJSON(&buf); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{`"flush batch"`, `"doublewrite batch"`, `"doublewrite copy + fdatasync"`, `"checkpoint"`, `"binlog page write"`, `"checkpoint age MB"`} {
		if !bytes.Contains(buf.Bytes(), []byte(`"name":`+name)) {
			t.Errorf("no %s event in the trace", name)
		}
	}
}
