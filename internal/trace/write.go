package trace

import (
	"bufio"
	"io"
	"math"
	"sort"
	"strconv"
	"unicode/utf8"

	"simrun/sim"
)

// lane is one row of a track: spans that nest.
type lane struct {
	tid  int
	open []sim.Time // end times of the open spans, innermost last
	tops []int      // event indexes of its top-level spans, by start
}

// fits reports whether a span [start, end] can go on l, popping the spans
// that ended by start.
func (l *lane) fits(start, end sim.Time) bool {
	for len(l.open) > 0 && l.open[len(l.open)-1] <= start {
		l.open = l.open[:len(l.open)-1]
	}
	return len(l.open) == 0 || end <= l.open[len(l.open)-1]
}

// layout is the assignment of tracks' spans to lanes and of lanes to tids.
type layout struct {
	lanes   [][]*lane // per track
	spanTid []int     // per event (spans only)
}

func (r *Recorder) layout() *layout {
	lo := &layout{lanes: make([][]*lane, len(r.tracks)), spanTid: make([]int, len(r.events))}
	laneOf := make([]int, len(r.events))
	byTrack := make([][]int, len(r.tracks))
	for i, e := range r.events {
		if e.kind == kSpan {
			byTrack[e.track] = append(byTrack[e.track], i)
		}
	}
	for t := range r.tracks {
		spans := byTrack[t]
		sort.SliceStable(spans, func(a, b int) bool {
			ea, eb := &r.events[spans[a]], &r.events[spans[b]]
			if ea.start != eb.start {
				return ea.start < eb.start
			}
			return ea.end > eb.end
		})
		lanes := []*lane{{}}
		for _, i := range spans {
			e := &r.events[i]
			k := 0
			for k < len(lanes) && !lanes[k].fits(e.start, e.end) {
				k++
			}
			if k == len(lanes) {
				lanes = append(lanes, &lane{})
			}
			l := lanes[k]
			if len(l.open) == 0 {
				l.tops = append(l.tops, i)
			}
			l.open = append(l.open, e.end)
			laneOf[i] = k
		}
		lo.lanes[t] = lanes
	}
	// tids: tracks in creation order, lanes in order, from 1.
	tid := 1
	for t := range r.tracks {
		for _, l := range lo.lanes[t] {
			l.tid = tid
			tid++
		}
	}
	for i, e := range r.events {
		if e.kind == kSpan {
			lo.spanTid[i] = lo.lanes[e.track][laneOf[i]].tid
		}
	}
	return lo
}

// tidAt returns the tid of the lane of track t whose top-level span
// encloses at (the first such lane), or lane 1's.
func (r *Recorder) tidAt(lo *layout, t TrackID, at sim.Time) int {
	for _, l := range lo.lanes[t] {
		k := sort.Search(len(l.tops), func(k int) bool { return r.events[l.tops[k]].start > at }) - 1
		if k >= 0 && r.events[l.tops[k]].end >= at {
			return l.tid
		}
	}
	return lo.lanes[t][0].tid
}

// out is one output event before serialisation.
type out struct {
	ts, dur sim.Time
	seq     int
	line    []byte
}

// WriteJSON writes the recording as a Trace Event JSON object. The same
// recording always gives the same bytes. A nil Recorder writes an empty,
// valid trace.
func (r *Recorder) WriteJSON(w io.Writer) error {
	bw := bufio.NewWriter(w)
	if r == nil {
		bw.WriteString(`{"displayTimeUnit":"ns","traceEvents":[]}` + "\n")
		return bw.Flush()
	}
	lo := r.layout()
	var meta [][]byte
	metaEv := func(name string, pid, tid int, key string, val string, num int) {
		b := []byte(`{"name":`)
		b = appendString(b, name)
		b = append(b, `,"ph":"M","ts":0,"pid":`...)
		b = strconv.AppendInt(b, int64(pid), 10)
		b = append(b, `,"tid":`...)
		b = strconv.AppendInt(b, int64(tid), 10)
		b = append(b, `,"args":{`...)
		b = appendString(b, key)
		b = append(b, ':')
		if key == "name" {
			b = appendString(b, val)
		} else {
			b = strconv.AppendInt(b, int64(num), 10)
		}
		b = append(b, "}}"...)
		meta = append(meta, b)
	}
	for g, name := range r.groups {
		metaEv("process_name", g+1, 0, "name", name, 0)
		metaEv("process_sort_index", g+1, 0, "sort_index", "", g+1)
	}
	for t, tr := range r.tracks {
		for k, l := range lo.lanes[t] {
			name := tr.thread
			if k > 0 {
				name += " #" + strconv.Itoa(k+1)
			}
			metaEv("thread_name", tr.group+1, l.tid, "name", name, 0)
			metaEv("thread_sort_index", tr.group+1, l.tid, "sort_index", "", l.tid)
		}
	}

	evs := make([]out, 0, len(r.events)+len(r.counters))
	for ci, c := range r.counters {
		if c.hasPr {
			evs = append(evs, out{ts: r.from, seq: -len(r.counters) + ci,
				line: r.counterLine(c, r.from, c.pre)})
		}
	}
	flowID := 0
	for i := range r.events {
		e := &r.events[i]
		switch e.kind {
		case kSpan:
			tr := r.tracks[e.track]
			b := r.head(e.name, "X", tr.group, lo.spanTid[i], e.start)
			b = append(b, `,"dur":`...)
			b = appendMicros(b, e.end-e.start)
			b = r.appendArgs(b, e, e.clipLeft || e.clipRite)
			b = append(b, '}')
			evs = append(evs, out{ts: e.start, dur: e.end - e.start, seq: i, line: b})
		case kInstant:
			tr := r.tracks[e.track]
			b := r.head(e.name, "i", tr.group, lo.lanes[e.track][0].tid, e.start)
			b = append(b, `,"s":"t"`...)
			b = r.appendArgs(b, e, false)
			b = append(b, '}')
			evs = append(evs, out{ts: e.start, seq: i, line: b})
		case kCounter:
			evs = append(evs, out{ts: e.start, seq: i, line: r.counterLine(r.counters[e.track], e.start, e.val)})
		case kFlow:
			flowID++
			from, to := r.tracks[e.track], r.tracks[e.track2]
			// Both ends carry the same cat: Perfetto binds v1 flows by
			// (cat, name, id) and draws nothing for a half-matched pair.
			b := r.headCat(e.name, flowCat, "s", from.group, r.tidAt(lo, e.track, e.start), e.start)
			b = append(b, `,"id":`...)
			b = strconv.AppendInt(b, int64(flowID), 10)
			b = append(b, '}')
			evs = append(evs, out{ts: e.start, seq: i, line: b})
			b = r.headCat(e.name, flowCat, "f", to.group, r.tidAt(lo, e.track2, e.end), e.end)
			b = append(b, `,"id":`...)
			b = strconv.AppendInt(b, int64(flowID), 10)
			b = append(b, `,"bp":"e"}`...)
			evs = append(evs, out{ts: e.end, seq: i, line: b})
		}
	}
	sort.SliceStable(evs, func(a, b int) bool {
		if evs[a].ts != evs[b].ts {
			return evs[a].ts < evs[b].ts
		}
		if evs[a].dur != evs[b].dur {
			return evs[a].dur > evs[b].dur
		}
		return evs[a].seq < evs[b].seq
	})

	bw.WriteString(`{"displayTimeUnit":"ns","otherData":{"generator":"simrun","window_from_ns":`)
	bw.WriteString(strconv.FormatInt(int64(r.from), 10))
	bw.WriteString(`,"window_to_ns":`)
	bw.WriteString(strconv.FormatInt(int64(r.to), 10))
	bw.WriteString(`,"dropped_events":`)
	bw.WriteString(strconv.FormatInt(r.dropped, 10))
	bw.WriteString("},\n\"traceEvents\":[\n")
	first := true
	emit := func(b []byte) {
		if !first {
			bw.WriteString(",\n")
		}
		first = false
		bw.Write(b)
	}
	for _, m := range meta {
		emit(m)
	}
	for _, e := range evs {
		emit(e.line)
	}
	bw.WriteString("\n]}\n")
	return bw.Flush()
}

// flowCat is the cat of both ends of every flow.
const flowCat = "flow"

func (r *Recorder) head(name, ph string, group, tid int, ts sim.Time) []byte {
	return r.headCat(name, r.groups[group], ph, group, tid, ts)
}

func (r *Recorder) headCat(name, cat, ph string, group, tid int, ts sim.Time) []byte {
	b := make([]byte, 0, 128)
	b = append(b, `{"name":`...)
	b = appendString(b, name)
	b = append(b, `,"cat":`...)
	b = appendString(b, cat)
	b = append(b, `,"ph":"`...)
	b = append(b, ph...)
	b = append(b, `","ts":`...)
	b = appendMicros(b, ts)
	b = append(b, `,"pid":`...)
	b = strconv.AppendInt(b, int64(group+1), 10)
	b = append(b, `,"tid":`...)
	b = strconv.AppendInt(b, int64(tid), 10)
	return b
}

func (r *Recorder) counterLine(c counter, at sim.Time, v float64) []byte {
	b := r.head(c.label, "C", c.group, 0, at)
	b = append(b, `,"args":{"value":`...)
	b = appendFloat(b, v)
	b = append(b, "}}"...)
	return b
}

func (r *Recorder) appendArgs(b []byte, e *event, clipped bool) []byte {
	if e.argN == 0 && !clipped {
		return b
	}
	b = append(b, `,"args":{`...)
	for k, a := range r.args[e.argOff : e.argOff+e.argN] {
		if k > 0 {
			b = append(b, ',')
		}
		b = appendString(b, a.Key)
		b = append(b, ':')
		switch a.kind {
		case argInt:
			b = strconv.AppendInt(b, a.num, 10)
		case argFloat:
			b = appendFloat(b, a.f)
		case argStr:
			b = appendString(b, a.str)
		case argBool:
			b = strconv.AppendBool(b, a.num != 0)
		}
	}
	if clipped {
		if e.argN > 0 {
			b = append(b, ',')
		}
		b = append(b, `"clipped":true`...)
	}
	return append(b, '}')
}

// appendMicros prints t (ns) as microseconds with three decimals, from
// integers, so no float rounding is involved.
func appendMicros(b []byte, t sim.Time) []byte {
	if t < 0 {
		b = append(b, '-')
		t = -t
	}
	b = strconv.AppendInt(b, int64(t/1000), 10)
	ns := int64(t % 1000)
	if ns == 0 {
		return b
	}
	b = append(b, '.', byte('0'+ns/100), byte('0'+ns/10%10), byte('0'+ns%10))
	return b
}

func appendFloat(b []byte, f float64) []byte {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return append(b, "null"...)
	}
	return strconv.AppendFloat(b, f, 'g', -1, 64)
}

// appendString appends s as a JSON string. Invalid UTF-8 becomes U+FFFD.
func appendString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\':
				b = append(b, '\\', c)
			case c == '\n':
				b = append(b, '\\', 'n')
			case c == '\t':
				b = append(b, '\\', 't')
			case c < 0x20:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&15])
			default:
				b = append(b, c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, "\ufffd"...)
		} else {
			b = append(b, s[i:i+size]...)
		}
		i += size
	}
	return append(b, '"')
}
