package main

import (
	"bytes"
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"simrun/scenarios"
)

// TestProgressTicksInsideARun: a run reports the virtual time it reached
// while it runs, not only when it ends, and the terminal line shows it.
func TestProgressTicksInsideARun(t *testing.T) {
	sc, err := scenarios.Load("binlog/quick")
	if err != nil {
		t.Fatal(err)
	}
	sc.Override("duration", "2s", scenarios.Source{Kind: "flag", Name: "--duration"})
	var mu sync.Mutex
	var ticks []time.Duration
	finished := 0
	opt := scenarios.Options{Cases: []string{"Case1"}, Workers: 1,
		Tick: func(run string, now, end time.Duration) {
			mu.Lock()
			defer mu.Unlock()
			if run != "Case1" || finished > 0 {
				t.Errorf("tick %q at %v after the run finished", run, now)
			}
			ticks = append(ticks, now)
		},
		Finished: func(run string, done, total int) { finished++ },
	}
	if _, err := scenarios.Run(context.Background(), sc, opt); err != nil {
		t.Fatal(err)
	}
	if len(ticks) < 3 || ticks[0] <= 0 || ticks[len(ticks)-1] <= ticks[0] || finished != 1 {
		t.Fatalf("%d ticks %v, %d finished: want several, rising, before the end", len(ticks), ticks, finished)
	}

	var buf bytes.Buffer
	p := &progress{w: &buf, on: true, start: time.Now(), live: map[string]float64{}}
	p.update(0, 2)
	p.last = time.Time{}
	p.tick("Case1", 5*time.Second, 20*time.Second)
	if !strings.Contains(buf.String(), "0/2 runs · Case1 25%") {
		t.Errorf("terminal line %q", buf.String())
	}
}

// TestProgressLinesInLogs: with stderr not a terminal, each finished run
// gets a plain line and no control characters.
func TestProgressLinesInLogs(t *testing.T) {
	_, errOut, code := simrun(t, "run", "demo/mmc", "--duration", "1s")
	if code != 0 {
		t.Fatal(errOut)
	}
	for _, c := range []string{"mm4", "md4", "mg4-lognormal", "mm4-busy"} {
		if !strings.Contains(errOut, "simrun: done "+c+" (") {
			t.Errorf("no line for %s in:\n%s", c, errOut)
		}
	}
	if strings.ContainsAny(errOut, "\r\x1b") {
		t.Errorf("control characters in a log: %q", errOut)
	}
}

// TestSweepLinesInUnits: a sweep's progress lines and table name each
// point as the warnings do, in the key's unit or as TOML text, while the
// CSV and JSON keep the numbers (the public contract).
func TestSweepLinesInUnits(t *testing.T) {
	for _, tt := range []struct {
		name     string
		args     []string
		want     []string // in the table and the progress lines
		wantData []string // in the CSV and JSON
		never    []string // anywhere a person reads
	}{
		{
			name: "rate",
			args: []string{"sweep", "binlog/quick", "--case", "Case2", "--duration", "1s", "--set", "volume.bandwidth_max=40MB/s..400MB/s:2"},
			want: []string{
				"simrun: done Case2 [volume.bandwidth_max=40MB/s] (", "simrun: done Case2 [volume.bandwidth_max=400MB/s] (",
				"\nCase2         40MB/s ", "\nCase2        400MB/s ",
			},
			wantData: []string{"Case2,40000000,", "Case2,400000000,", `"key": "volume.bandwidth_max"`, "40000000,\n        400000000\n"},
			never:    []string{"40000000", "0B/s]"},
		},
		{
			name: "inline table",
			args: []string{"sweep", "demo/mmc", "--case", "mm4", "--duration", "1s", "--set", `workload.demo.service=1ms,{ mean = "1ms", dist = "exponential" }`},
			want: []string{
				`simrun: done mm4 [workload.demo.service={ dist = "exponential", mean = "1ms" }] (`,
				`  { dist = "exponential", mean = "1ms" }  `,
			},
			wantData: []string{`"dist": "exponential"`},
			never:    []string{"map["},
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			out, errOut, code := simrun(t, tt.args...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			read := out + errOut
			for _, w := range tt.want {
				if !strings.Contains(read, w) {
					t.Errorf("no %q in:\n%s", w, read)
				}
			}
			for _, n := range tt.never {
				if strings.Contains(read, n) {
					t.Errorf("%q in:\n%s", n, read)
				}
			}
			csv, _, code := simrun(t, append(tt.args, "--format", "csv")...)
			js, _, code2 := simrun(t, append(tt.args, "--format", "json")...)
			if code != 0 || code2 != 0 {
				t.Fatalf("csv exit %d, json exit %d", code, code2)
			}
			for _, w := range tt.wantData {
				if !strings.Contains(csv+js, w) {
					t.Errorf("no %q in the CSV or JSON:\n%s\n%s", w, csv, js)
				}
			}
		})
	}
}
