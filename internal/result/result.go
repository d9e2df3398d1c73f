package result

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// Schema is the version tag of the result document.
const Schema = "simrun.result/v1"

// Document is the result of one run or sweep of a scenario.
type Document struct {
	Schema       string  `json:"schema"`
	Scenario     string  `json:"scenario"`
	Description  string  `json:"description,omitempty"`
	Seed         uint64  `json:"seed"`
	Duration     float64 `json:"duration_s"` // measured window, seconds
	Warmup       float64 `json:"warmup_s"`   // discarded warm-up before it, seconds
	Replications int     `json:"replications"`
	// SimrunVersion and SimrunCommit name the simrun build that wrote the
	// document: the byte-identical promise holds per commit.
	SimrunVersion string `json:"simrun_version,omitempty"`
	SimrunCommit  string `json:"simrun_commit,omitempty"`
	// Partial is set when the run was interrupted or a shard is missing:
	// Cases then holds only the rows that completed.
	Partial bool `json:"partial,omitempty"`
	// Sweep lists the swept parameters, in the order given; empty for a run.
	Sweep []Axis `json:"sweep,omitempty"`
	// Shard is set on the partial result of one shard of a sweep.
	Shard *Shard `json:"shard,omitempty"`
	Cases []Case `json:"cases"`
}

// Axis is one swept parameter and its values.
type Axis struct {
	Key    string `json:"key"`
	Values []any  `json:"values"`
	// Unit of numeric values: "bytes/s", "bytes", "s", or empty.
	Unit string `json:"unit,omitempty"`
}

// Shard says which rows of the whole grid a partial result holds.
type Shard struct {
	Index int   `json:"index"` // 0-based
	Count int   `json:"count"`
	Total int   `json:"total"` // rows in the whole grid
	Rows  []int `json:"rows"`  // global row index of each entry of Cases
}

// Case is one row of results: a case of the scenario, at one sweep point.
type Case struct {
	Name string `json:"name"`
	// Point holds the swept parameters' values for this row.
	Point map[string]any `json:"point,omitempty"`
	// Seed, Duration and Warmup are set only when the case overrides the
	// document's values.
	Seed     *uint64  `json:"seed,omitempty"`
	Duration *float64 `json:"duration_s,omitempty"`
	Warmup   *float64 `json:"warmup_s,omitempty"`
	Metrics  Metrics  `json:"metrics"`
	// Optional analysis of the row (analysis.go).
	Steady     *Steady     `json:"steady_state,omitempty"`
	Bottleneck *Bottleneck `json:"bottleneck,omitempty"`
	Twin       *Twin       `json:"twin,omitempty"`
}

// Metrics is a tree of named values. Leaves are float64, int64 (or other Go
// integers), string, bool or []float64 series; inner nodes are Metrics (or
// map[string]any).
type Metrics map[string]any

// New returns an empty document with the schema set.
func New(scenario string) *Document {
	return &Document{Schema: Schema, Scenario: scenario, Replications: 1, Cases: []Case{}}
}

// Encode writes d as indented JSON followed by a newline.
func Encode(w io.Writer, d *Document) error {
	b, err := Marshal(d)
	if err != nil {
		return err
	}
	_, err = w.Write(b)
	return err
}

// Marshal returns d as indented JSON followed by a newline.
func Marshal(d *Document) ([]byte, error) {
	out := *d
	out.Cases = make([]Case, len(d.Cases))
	for i, c := range d.Cases {
		m, err := normalize(c.Metrics, "")
		if err != nil {
			return nil, fmt.Errorf("result: case %q: %w", c.Name, err)
		}
		c.Metrics = m.(Metrics)
		if c.Point != nil {
			p, err := normalize(c.Point, "")
			if err != nil {
				return nil, fmt.Errorf("result: case %q point: %w", c.Name, err)
			}
			c.Point = map[string]any(p.(Metrics))
		}
		out.Cases[i] = c
	}
	out.Sweep = make([]Axis, len(d.Sweep))
	for i, a := range d.Sweep {
		vals := make([]any, len(a.Values))
		for j, v := range a.Values {
			nv, err := normalize(v, a.Key)
			if err != nil {
				return nil, fmt.Errorf("result: sweep: %w", err)
			}
			vals[j] = nv
		}
		out.Sweep[i] = Axis{Key: a.Key, Values: vals, Unit: a.Unit}
	}
	if len(out.Sweep) == 0 {
		out.Sweep = nil
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(&out); err != nil {
		return nil, fmt.Errorf("result: %w", err)
	}
	return buf.Bytes(), nil
}

// normalize converts a metric value into what encoding/json should print:
// numbers become json.Number in this package's canonical form, NaN and
// infinities become null, maps become Metrics.
func normalize(v any, path string) (any, error) {
	switch x := v.(type) {
	case nil:
		return nil, nil
	case Metrics:
		return normalizeMap(x, path)
	case map[string]any:
		return normalizeMap(x, path)
	case float64:
		return FormatNumber(x), nil
	case float32:
		return FormatNumber(float64(x)), nil
	case int:
		return json.Number(strconv.FormatInt(int64(x), 10)), nil
	case int32:
		return json.Number(strconv.FormatInt(int64(x), 10)), nil
	case int64:
		return json.Number(strconv.FormatInt(x, 10)), nil
	case uint64:
		return json.Number(strconv.FormatUint(x, 10)), nil
	case uint32:
		return json.Number(strconv.FormatUint(uint64(x), 10)), nil
	case json.Number:
		f, err := x.Float64()
		if err != nil {
			return nil, fmt.Errorf("%s: bad number %q", path, x)
		}
		if isIntLiteral(string(x)) {
			return x, nil
		}
		return FormatNumber(f), nil
	case string, bool:
		return x, nil
	case []float64:
		out := make([]any, len(x))
		for i, f := range x {
			out[i] = FormatNumber(f)
		}
		return out, nil
	case []int64:
		out := make([]any, len(x))
		for i, n := range x {
			out[i] = json.Number(strconv.FormatInt(n, 10))
		}
		return out, nil
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			ne, err := normalize(e, fmt.Sprintf("%s[%d]", path, i))
			if err != nil {
				return nil, err
			}
			out[i] = ne
		}
		return out, nil
	}
	return nil, fmt.Errorf("%s: unsupported metric type %T", path, v)
}

func normalizeMap(m map[string]any, path string) (any, error) {
	out := make(Metrics, len(m))
	for k, v := range m {
		p := k
		if path != "" {
			p = path + "." + k
		}
		nv, err := normalize(v, p)
		if err != nil {
			return nil, err
		}
		out[k] = nv
	}
	return out, nil
}

// FormatNumber returns f rounded to 9 significant digits in its shortest
// decimal form, or null (nil) for NaN and infinities, which JSON cannot
// hold. Parsing the result and formatting it again gives the same text.
func FormatNumber(f float64) any {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return nil
	}
	return json.Number(formatFloat(f))
}

func formatFloat(f float64) string {
	if f == 0 {
		return "0" // also folds -0
	}
	r, _ := strconv.ParseFloat(strconv.FormatFloat(f, 'e', 8, 64), 64)
	if a := math.Abs(r); a >= 1e-6 && a < 1e21 {
		return strconv.FormatFloat(r, 'f', -1, 64)
	}
	return strconv.FormatFloat(r, 'g', -1, 64)
}

func isIntLiteral(s string) bool {
	return !strings.ContainsAny(s, ".eE")
}

// Decode reads a document and checks its schema tag. Numbers in metrics
// come back as int64 when written without a fraction or exponent (and
// fitting), float64 otherwise.
func Decode(r io.Reader) (*Document, error) {
	dec := json.NewDecoder(r)
	dec.UseNumber()
	var d Document
	if err := dec.Decode(&d); err != nil {
		return nil, fmt.Errorf("result: %w", err)
	}
	if d.Schema != Schema {
		return nil, fmt.Errorf("result: schema %q, want %q", d.Schema, Schema)
	}
	for i := range d.Cases {
		d.Cases[i].Metrics = denumber(map[string]any(d.Cases[i].Metrics)).(Metrics)
		if d.Cases[i].Point != nil {
			d.Cases[i].Point = map[string]any(denumber(d.Cases[i].Point).(Metrics))
		}
	}
	for i := range d.Sweep {
		for j, v := range d.Sweep[i].Values {
			d.Sweep[i].Values[j] = denumber(v)
		}
	}
	if d.Cases == nil {
		d.Cases = []Case{}
	}
	return &d, nil
}

// denumber replaces json.Number by int64 or float64 and maps by Metrics.
// Arrays of numbers become []float64 series.
func denumber(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(Metrics, len(x))
		for k, e := range x {
			out[k] = denumber(e)
		}
		return out
	case Metrics:
		return denumber(map[string]any(x))
	case json.Number:
		if isIntLiteral(string(x)) {
			if n, err := strconv.ParseInt(string(x), 10, 64); err == nil {
				return n
			}
		}
		f, _ := strconv.ParseFloat(string(x), 64)
		return f
	case []any:
		allNum := len(x) > 0
		for _, e := range x {
			if _, ok := e.(json.Number); !ok && e != nil {
				allNum = false
			}
		}
		if allNum && allInts(x) {
			ns := make([]int64, len(x))
			for i, e := range x {
				ns[i], _ = strconv.ParseInt(string(e.(json.Number)), 10, 64)
			}
			return ns
		}
		if allNum {
			fs := make([]float64, len(x))
			for i, e := range x {
				if e == nil {
					fs[i] = math.NaN()
					continue
				}
				fs[i], _ = e.(json.Number).Float64()
			}
			return fs
		}
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = denumber(e)
		}
		return out
	}
	return v
}

func allInts(x []any) bool {
	for _, e := range x {
		n, ok := e.(json.Number)
		if !ok || !isIntLiteral(string(n)) {
			return false
		}
		if _, err := strconv.ParseInt(string(n), 10, 64); err != nil {
			return false
		}
	}
	return true
}

// Float returns a numeric metric value as float64.
func Float(v any) (float64, bool) {
	switch x := v.(type) {
	case float64:
		return x, true
	case float32:
		return float64(x), true
	case int:
		return float64(x), true
	case int32:
		return float64(x), true
	case int64:
		return float64(x), true
	case uint64:
		return float64(x), true
	case uint32:
		return float64(x), true
	case json.Number:
		f, err := x.Float64()
		return f, err == nil
	}
	return 0, false
}

// CaseNames returns the distinct case names of d's rows, in row order.
func (d *Document) CaseNames() []string {
	var names []string
	for _, c := range d.Cases {
		if !slices.Contains(names, c.Name) {
			names = append(names, c.Name)
		}
	}
	return names
}

// Rows returns d's rows of the named cases (every row when names is
// empty), or the first name d has no row of.
func (d *Document) Rows(names []string) (rows []Case, missing string) {
	if len(names) == 0 {
		return d.Cases, ""
	}
	have := d.CaseNames()
	for _, n := range names {
		if !slices.Contains(have, n) {
			return nil, n
		}
	}
	for _, c := range d.Cases {
		if slices.Contains(names, c.Name) {
			rows = append(rows, c)
		}
	}
	return rows, ""
}

// Floats returns a series metric as float64s, whichever form it has: the
// []float64 a run makes, or the []int64 (every point whole) or []any a
// decoded result holds. A missing point (JSON null) is NaN.
func Floats(v any) ([]float64, bool) {
	switch x := v.(type) {
	case []float64:
		return x, true
	case []int64:
		out := make([]float64, len(x))
		for i, n := range x {
			out[i] = float64(n)
		}
		return out, true
	case []any:
		out := make([]float64, len(x))
		for i, e := range x {
			f, ok := Float(e)
			if !ok && e != nil {
				return nil, false
			}
			if e == nil {
				f = math.NaN()
			}
			out[i] = f
		}
		return out, true
	}
	return nil, false
}

// Leaf is one flattened metric: its dotted path and value.
type Leaf struct {
	Path  string
	Value any
}

// Flatten returns the leaves of m with dotted paths, sorted by path.
func Flatten(m Metrics) []Leaf {
	var out []Leaf
	flatten(map[string]any(m), "", &out)
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}

func flatten(m map[string]any, prefix string, out *[]Leaf) {
	for k, v := range m {
		p := prefix + k
		switch x := v.(type) {
		case Metrics:
			flatten(x, p+".", out)
		case map[string]any:
			flatten(x, p+".", out)
		default:
			*out = append(*out, Leaf{p, v})
		}
	}
}

// Lookup returns the value at a dotted path.
func (m Metrics) Lookup(path string) (any, bool) {
	var cur any = m
	for _, part := range strings.Split(path, ".") {
		switch x := cur.(type) {
		case Metrics:
			cur = x[part]
		case map[string]any:
			cur = x[part]
		default:
			return nil, false
		}
		if cur == nil {
			return nil, false
		}
	}
	return cur, true
}

// FormatValue prints a leaf value the way CSV output does: numbers in the
// canonical form, series as their length, an inline table (a swept
// distribution) or another array as TOML text.
func FormatValue(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	case bool:
		return strconv.FormatBool(x)
	case []float64:
		return fmt.Sprintf("[%d points]", len(x))
	case []int64:
		return fmt.Sprintf("[%d points]", len(x))
	case Metrics, map[string]any, []any:
		return tomlValue(x)
	}
	if f, ok := Float(v); ok {
		switch v.(type) {
		case float64, float32, json.Number:
			n := FormatNumber(f)
			if n == nil {
				return ""
			}
			return string(n.(json.Number))
		}
		n, _ := normalize(v, "")
		return string(n.(json.Number))
	}
	return fmt.Sprint(v)
}
