package trace

import (
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strings"
)

// Validate checks a Trace Event JSON file against the rules Perfetto's JSON
// importer applies, so that a trace that passes draws as intended rather
// than with silently missing slices or arrows:
//
//   - every event has ph, pid and tid; every event but metadata has a
//     numeric ts; slices (X, B) have a name; X has dur >= 0;
//   - B and E balance on each thread, E closing the innermost open B;
//   - slices on one thread nest: each one lies inside the one enclosing it
//     or starts after it ends (Perfetto drops or truncates the others);
//   - flow events (s, t, f) carry an id and a cat; v1 flows are bound by
//     (cat, name, id), so each s needs an f with the same triple and each f
//     a preceding s; each end must land on a slice of its thread (s and
//     "bp":"e" f on the slice enclosing ts, other f on the next slice);
//   - instants have scope g, p or t; counters have numeric args.
//
// It returns every problem found, one per line, or nil.
func Validate(data []byte) error {
	var file struct {
		TraceEvents []map[string]any `json:"traceEvents"`
	}
	if err := json.Unmarshal(data, &file); err != nil {
		return fmt.Errorf("trace: not a Trace Event JSON object: %v", err)
	}
	v := validator{threads: map[[2]int64]*thread{}, flows: map[string]*flowEnds{}}
	for i, ev := range file.TraceEvents {
		v.event(i, ev)
	}
	v.finish()
	if len(v.problems) == 0 {
		return nil
	}
	if len(v.problems) > 20 {
		v.problems = append(v.problems[:20], fmt.Sprintf("... and %d more", len(v.problems)-20))
	}
	return fmt.Errorf("trace: %s", strings.Join(v.problems, "\n"))
}

type slice struct {
	start, end int64 // ns
	name       string
}

type thread struct {
	slices []slice
	open   []slice // B events not yet closed
}

type flowPoint struct {
	tid  [2]int64
	ts   int64
	next bool // binds to the next slice, not the enclosing one
	idx  int
}

type flowEnds struct {
	starts, ends []flowPoint
}

type validator struct {
	threads  map[[2]int64]*thread
	flows    map[string]*flowEnds
	problems []string
}

func (v *validator) addf(format string, a ...any) {
	v.problems = append(v.problems, fmt.Sprintf(format, a...))
}

func num(ev map[string]any, k string) (float64, bool) {
	f, ok := ev[k].(float64)
	return f, ok && !math.IsNaN(f)
}

func ns(us float64) int64 { return int64(math.Round(us * 1000)) }

func (v *validator) thread(id [2]int64) *thread {
	t := v.threads[id]
	if t == nil {
		t = &thread{}
		v.threads[id] = t
	}
	return t
}

func (v *validator) event(i int, ev map[string]any) {
	ph, _ := ev["ph"].(string)
	name, _ := ev["name"].(string)
	where := fmt.Sprintf("event %d (%s %q)", i, ph, name)
	if ph == "" {
		v.addf("%s: no ph", where)
		return
	}
	pid, okP := num(ev, "pid")
	tid, okT := num(ev, "tid")
	if !okP || !okT {
		v.addf("%s: pid and tid must be numbers", where)
		return
	}
	id := [2]int64{int64(pid), int64(tid)}
	if ph == "M" {
		if _, ok := ev["args"].(map[string]any); !ok {
			v.addf("%s: metadata without args", where)
		}
		return
	}
	tsUS, ok := num(ev, "ts")
	if !ok {
		v.addf("%s: no numeric ts", where)
		return
	}
	ts := ns(tsUS)
	switch ph {
	case "X", "B":
		if name == "" {
			v.addf("%s: slice without a name", where)
		}
		if ph == "B" {
			t := v.thread(id)
			t.open = append(t.open, slice{start: ts, name: name})
			return
		}
		dur, ok := num(ev, "dur")
		if !ok || dur < 0 {
			v.addf("%s: X needs dur >= 0", where)
			return
		}
		t := v.thread(id)
		t.slices = append(t.slices, slice{start: ts, end: ts + ns(dur), name: name})
	case "E":
		t := v.thread(id)
		if len(t.open) == 0 {
			v.addf("%s: E without an open B on pid %d tid %d", where, id[0], id[1])
			return
		}
		b := t.open[len(t.open)-1]
		t.open = t.open[:len(t.open)-1]
		if name != "" && name != b.name {
			v.addf("%s: E closes %q, the innermost open B", where, b.name)
		}
		b.end = ts
		if b.end < b.start {
			v.addf("%s: E before its B", where)
		}
		t.slices = append(t.slices, b)
	case "i", "I":
		if s, ok := ev["s"].(string); ok && s != "g" && s != "p" && s != "t" {
			v.addf("%s: instant scope %q, want g, p or t", where, s)
		}
	case "C":
		args, ok := ev["args"].(map[string]any)
		if !ok || len(args) == 0 {
			v.addf("%s: counter without args", where)
		}
		for k, a := range args {
			if _, ok := a.(float64); !ok {
				v.addf("%s: counter arg %q is not a number", where, k)
			}
		}
	case "s", "t", "f":
		cat, _ := ev["cat"].(string)
		fid, hasID := ev["id"]
		if !hasID || cat == "" {
			v.addf("%s: flow event needs id and cat", where)
			return
		}
		key := fmt.Sprintf("%s\x00%s\x00%v", cat, name, fid)
		fe := v.flows[key]
		if fe == nil {
			fe = &flowEnds{}
			v.flows[key] = fe
		}
		p := flowPoint{tid: id, ts: ts, idx: i}
		switch ph {
		case "s":
			fe.starts = append(fe.starts, p)
		case "f":
			bp, _ := ev["bp"].(string)
			p.next = bp != "e"
			fe.ends = append(fe.ends, p)
		}
		v.thread(id)
	default:
		v.addf("%s: unknown phase", where)
	}
}

func (v *validator) finish() {
	ids := make([][2]int64, 0, len(v.threads))
	for id := range v.threads {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(a, b int) bool {
		if ids[a][0] != ids[b][0] {
			return ids[a][0] < ids[b][0]
		}
		return ids[a][1] < ids[b][1]
	})
	for _, id := range ids {
		t := v.threads[id]
		for _, b := range t.open {
			v.addf("pid %d tid %d: B %q never ends", id[0], id[1], b.name)
		}
		s := t.slices
		sort.SliceStable(s, func(a, b int) bool {
			if s[a].start != s[b].start {
				return s[a].start < s[b].start
			}
			return s[a].end > s[b].end
		})
		var stack []slice
		for _, x := range s {
			for len(stack) > 0 && stack[len(stack)-1].end <= x.start {
				stack = stack[:len(stack)-1]
			}
			if n := len(stack); n > 0 && x.end > stack[n-1].end {
				v.addf("pid %d tid %d: slice %q [%d, %d] ns overlaps %q [%d, %d] ns without nesting",
					id[0], id[1], x.name, x.start, x.end, stack[n-1].name, stack[n-1].start, stack[n-1].end)
				continue
			}
			stack = append(stack, x)
		}
	}
	keys := make([]string, 0, len(v.flows))
	for k := range v.flows {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fe := v.flows[k]
		label := strings.ReplaceAll(k, "\x00", " ")
		if len(fe.starts) == 0 {
			v.addf("flow (cat name id) %s: f without an s of the same cat, name and id", label)
		}
		if len(fe.ends) == 0 {
			v.addf("flow (cat name id) %s: s without an f of the same cat, name and id", label)
		}
		for _, p := range append(append([]flowPoint(nil), fe.starts...), fe.ends...) {
			if !v.bound(p) {
				v.addf("flow (cat name id) %s: event %d at %d ns on pid %d tid %d has no slice to bind to", label, p.idx, p.ts, p.tid[0], p.tid[1])
			}
		}
	}
}

// bound reports whether a flow point has a slice on its thread: one that
// encloses ts, or for a next-slice binding one that starts at or after ts.
func (v *validator) bound(p flowPoint) bool {
	for _, s := range v.threads[p.tid].slices {
		if p.next && s.start >= p.ts {
			return true
		}
		if !p.next && s.start <= p.ts && p.ts <= s.end {
			return true
		}
	}
	return false
}
