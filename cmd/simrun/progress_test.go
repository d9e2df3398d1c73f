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
