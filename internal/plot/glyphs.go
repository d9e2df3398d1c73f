package plot

import (
	"strconv"
	"strings"
	"sync"

	xfont "golang.org/x/image/font"
	"golang.org/x/image/font/sfnt"
	"gonum.org/v1/plot/font"

	"simrun/internal/result"
)

// Charts are drawn with the Liberation fonts compiled into gonum/plot,
// which cover Latin, Greek and Cyrillic but no CJK: a case named 日本語/テスト
// would be drawn as "/", its glyphs dropped without a word. Rather than
// embed a CJK font (tens of megabytes), a name the font cannot draw is
// drawn with a □ for each rune it lacks and, to keep two such names apart,
// the number of the case it names, counted as the run table lists the
// names: "café-四" becomes "café-□ #1", "日本語/テスト" "□□□/□□□ #2".

// Missing stands in for a rune the chart font cannot draw.
const Missing = '□'

var (
	glyphMu    sync.Mutex
	glyphCache = map[rune]bool{}
	glyphFaces []*sfnt.Font
	glyphBuf   sfnt.Buffer
)

// drawableRune reports whether the chart font (regular and bold) has a
// glyph for r.
func drawableRune(r rune) bool {
	if r < 0x7f || r == Missing {
		return r >= 0x20 || r == '\n' || r == '\t'
	}
	glyphMu.Lock()
	defer glyphMu.Unlock()
	if ok, seen := glyphCache[r]; seen {
		return ok
	}
	if glyphFaces == nil {
		for _, w := range []xfont.Weight{xfont.WeightNormal, xfont.WeightBold} {
			f := sans(10)
			f.Weight = w
			glyphFaces = append(glyphFaces, font.DefaultCache.Lookup(f, f.Size).Face)
		}
	}
	ok := true
	for _, f := range glyphFaces {
		if i, err := f.GlyphIndex(&glyphBuf, r); err != nil || i == 0 {
			ok = false
		}
	}
	glyphCache[r] = ok
	return ok
}

// Drawable returns s with each rune the chart font cannot draw replaced
// by Missing, and whether it had any.
func Drawable(s string) (string, bool) {
	replaced := false
	out := strings.Map(func(r rune) rune {
		if drawableRune(r) {
			return r
		}
		replaced = true
		return Missing
	}, s)
	return out, replaced
}

// namer gives each text of one kind (case names, groups, labels, swept
// values) its drawable form: itself when the font draws it, else Drawable
// of it and a number that tells it apart ("□□□ #2"): the case it names
// (the first that has it, for a group or a label), or its place among
// the swept values.
type namer struct {
	order map[string]int
}

func (n *namer) add(s string, i int) {
	if n.order == nil {
		n.order = map[string]int{}
	}
	if _, ok := n.order[s]; !ok {
		n.order[s] = i
	}
}

func (n *namer) name(s string) string {
	out, replaced := Drawable(s)
	if !replaced {
		return s
	}
	n.add(s, len(n.order)+1) // not in the result: never, but stay distinct
	return out + " #" + strconv.Itoa(n.order[s])
}

// drawableDoc returns d and its chosen cases with every text a chart
// prints from them (the scenario's name, case names, swept values) in a
// form the font can draw, distinct where the originals were; d itself
// and cases are returned as they are when the font draws everything.
// When every name drawn is "group/label" (the bar chart then draws a
// cluster per group and a colour per label) the parts are fixed one by
// one, so the clusters and colours stay apart too.
func drawableDoc(d *result.Document, cases []result.Case) (*result.Document, []result.Case) {
	if allDrawable(d) {
		return d, cases
	}
	var whole, groups, labels namer
	values := map[string]*namer{}
	for _, c := range d.Cases {
		whole.add(c.Name, len(whole.order)+1)
		if i := strings.LastIndexByte(c.Name, '/'); i >= 0 {
			groups.add(c.Name[:i], whole.order[c.Name])
			labels.add(c.Name[i+1:], whole.order[c.Name])
		}
	}
	split := len(d.Sweep) == 0 // as tableGrid splits
	for _, c := range cases {
		split = split && strings.Contains(c.Name, "/")
	}
	for _, a := range d.Sweep {
		values[a.Key] = &namer{}
		for i, v := range a.Values {
			if s, ok := v.(string); ok {
				values[a.Key].add(s, i+1)
			}
		}
	}
	name := func(s string) string {
		if i := strings.LastIndexByte(s, '/'); split && i >= 0 {
			return groups.name(s[:i]) + "/" + labels.name(s[i+1:])
		}
		return whole.name(s)
	}
	value := func(key string, v any) any {
		if s, ok := v.(string); ok && values[key] != nil {
			return values[key].name(s)
		}
		return v
	}
	fix := func(c result.Case) result.Case {
		c.Name = name(c.Name)
		if c.Point != nil {
			p := make(map[string]any, len(c.Point))
			for k, v := range c.Point {
				p[k] = value(k, v)
			}
			c.Point = p
		}
		return c
	}
	out := *d
	out.Scenario, _ = Drawable(d.Scenario)
	out.Cases = make([]result.Case, len(d.Cases))
	for i, c := range d.Cases {
		out.Cases[i] = fix(c)
	}
	out.Sweep = make([]result.Axis, len(d.Sweep))
	for i, a := range d.Sweep {
		a.Values = append([]any(nil), a.Values...)
		for j, v := range a.Values {
			a.Values[j] = value(a.Key, v)
		}
		out.Sweep[i] = a
	}
	fixed := make([]result.Case, len(cases))
	for i, c := range cases {
		fixed[i] = fix(c)
	}
	return &out, fixed
}

// allDrawable reports whether the font draws every text of d a chart
// prints.
func allDrawable(d *result.Document) bool {
	ok := func(s string) bool { _, r := Drawable(s); return !r }
	if !ok(d.Scenario) {
		return false
	}
	for _, c := range d.Cases {
		if !ok(c.Name) {
			return false
		}
		for _, v := range c.Point {
			if s, isStr := v.(string); isStr && !ok(s) {
				return false
			}
		}
	}
	return true
}
