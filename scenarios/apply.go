package scenarios

import (
	"fmt"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"simrun/sim"
)

// A scenario resolves in layers: the defaults, then each file of the
// extends chain from the root down (a section's preset first, then the
// file's own keys), then the case, then command-line overrides. Each layer
// is a decoded TOML tree that apply walks together with the Go struct it
// configures, so that unknown keys, wrong types and bad units are found
// with the key path in hand, and every leaf remembers which layer set it.
//
// The walk is type-directed: a struct field is a table whose keys merge
// key by key; anything else (including types with their own UnmarshalTOML,
// such as sim.DistSpec) is a leaf that a layer replaces whole.

// Source says where a parameter's value came from.
type Source struct {
	Kind string // default | preset | file | case | flag
	Name string // preset or case name, or the flag
	File string
	Line int
}

// String prints "default", "preset NAME", "file PATH:LINE", "case NAME" or
// "flag --NAME".
func (s Source) String() string {
	switch s.Kind {
	case "", "default":
		return "default"
	case "file":
		return "file " + s.Location()
	case "flag":
		return "flag " + s.Name
	}
	return s.Kind + " " + s.Name
}

// Location returns FILE:LINE, FILE, or "" when the value came from no file.
func (s Source) Location() string {
	switch {
	case s.File == "":
		return ""
	case s.Line > 0:
		return fmt.Sprintf("%s:%d", s.File, s.Line)
	}
	return s.File
}

// layer is one decoded tree to apply.
type layer struct {
	src      Source // Line is filled per key
	tree     map[string]any
	lines    lineIndex
	prefix   string // prefix of this tree's keys in lines, e.g. "case[2]"
	caseName string // set for a case layer, for error messages
}

func (l *layer) at(path string) Source {
	s := l.src
	if l.lines != nil {
		s.Line = l.lines.line(joinPath(l.prefix, path))
	}
	return s
}

func (l *layer) errorAt(path, msg, allowed string) *Error {
	s := l.at(path)
	return &Error{File: s.File, Line: s.Line, Case: l.caseName, Path: path, Msg: msg, Allowed: allowed}
}

type unmarshaler interface{ UnmarshalTOML(any) error }

var unmarshalerType = reflect.TypeOf((*unmarshaler)(nil)).Elem()

// field describes one configurable struct field.
type field struct {
	key     string
	index   []int
	typ     reflect.Type
	unit    string
	doc     string
	enum    []string
	variant string // name of the sibling key that selects this sub-section
	leaf    bool
}

var fieldCache sync.Map // reflect.Type -> []field

// fieldsOf lists the configurable fields of a struct type in declaration
// order. Embedded structs without a toml tag are inlined; fields tagged
// toml:"-" and unexported fields are skipped.
func fieldsOf(t reflect.Type) []field {
	if fs, ok := fieldCache.Load(t); ok {
		return fs.([]field)
	}
	var out []field
	for i := 0; i < t.NumField(); i++ {
		sf := t.Field(i)
		tag, hasTag := sf.Tag.Lookup("toml")
		name, _, _ := strings.Cut(tag, ",")
		if name == "-" {
			continue
		}
		if sf.Anonymous && !hasTag && sf.Type.Kind() == reflect.Struct {
			for _, f := range fieldsOf(sf.Type) {
				f.index = append([]int{i}, f.index...)
				out = append(out, f)
			}
			continue
		}
		if !sf.IsExported() {
			continue
		}
		if name == "" {
			name = strings.ToLower(sf.Name)
		}
		f := field{
			key:     name,
			index:   []int{i},
			typ:     sf.Type,
			unit:    sf.Tag.Get("unit"),
			doc:     sf.Tag.Get("doc"),
			variant: sf.Tag.Get("variant"),
			leaf:    isLeaf(sf.Type),
		}
		if e := sf.Tag.Get("enum"); e != "" {
			f.enum = strings.Split(e, "|")
		}
		if f.unit == "" {
			f.unit = defaultUnit(sf.Type)
		}
		out = append(out, f)
	}
	fieldCache.Store(t, out)
	return out
}

func isLeaf(t reflect.Type) bool {
	if reflect.PointerTo(t).Implements(unmarshalerType) || t == reflect.TypeOf(time.Duration(0)) {
		return true
	}
	return t.Kind() != reflect.Struct
}

func defaultUnit(t reflect.Type) string {
	switch t {
	case reflect.TypeOf(sim.Bytes(0)):
		return "bytes"
	case reflect.TypeOf(sim.Rate(0)):
		return "bytes/s"
	case reflect.TypeOf(sim.Duration(0)), reflect.TypeOf(time.Duration(0)), reflect.TypeOf(sim.DistSpec{}):
		return "duration"
	}
	return ""
}

func findField(t reflect.Type, key string) (field, bool) {
	for _, f := range fieldsOf(t) {
		if f.key == key {
			return f, true
		}
	}
	return field{}, false
}

func keysOf(t reflect.Type) []string {
	var ks []string
	for _, f := range fieldsOf(t) {
		ks = append(ks, f.key)
	}
	return ks
}

// sectionType reports whether key names a top-level section (a struct field
// of Config), which may name a preset.
func isSection(key string) bool {
	f, ok := findField(reflect.TypeOf(Config{}), key)
	return ok && !f.leaf
}

// presetFunc loads the preset NAME of a section as a layer.
type presetFunc func(section, name string, from *layer, path string) (*layer, *Error)

// applier applies layers to one resolved value.
type applier struct {
	sources map[string]Source // leaf path -> where its value came from
	presets map[string]Source // section -> the preset it uses (Name), set where (File, Line)
	preset  presetFunc
	e       *errs
	// topExtra are keys allowed at the top of this layer besides the
	// struct's own (name, description, ...), for the unknown-key message.
	topExtra []string
}

// orderedKeys returns the keys of m in the order of their lines, then by
// name, so errors come out in file order.
func orderedKeys(m map[string]any, l *layer, path string) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Slice(ks, func(i, j int) bool {
		li, lj := l.at(joinPath(path, ks[i])).Line, l.at(joinPath(path, ks[j])).Line
		if li != lj {
			return li < lj
		}
		return ks[i] < ks[j]
	})
	return ks
}

// apply walks tree m into the struct rv at path.
func (a *applier) apply(rv reflect.Value, m map[string]any, path string, l *layer) {
	t := rv.Type()
	section := path != "" && !strings.Contains(path, ".") && isSection(path)
	if section {
		if pv, ok := m["preset"]; ok {
			a.applyPreset(rv, pv, path, l)
		}
	}
	for _, k := range orderedKeys(m, l, path) {
		v := m[k]
		p := joinPath(path, k)
		if section && k == "preset" {
			continue
		}
		f, ok := findField(t, k)
		if !ok {
			allowed := keysOf(t)
			if section {
				allowed = append(allowed, "preset")
			}
			if path == "" {
				allowed = append(append([]string(nil), a.topExtra...), allowed...)
			}
			msg := "unknown key"
			if s := suggest(k, allowed); s != "" {
				msg += fmt.Sprintf("; did you mean %s?", s)
			}
			a.e.add(l.errorAt(p, msg, strings.Join(allowed, ", ")))
			continue
		}
		fv := rv.FieldByIndex(f.index)
		if f.leaf {
			if msg, allowed := decodeLeaf(fv, v, f); msg != "" {
				a.e.add(l.errorAt(p, msg, allowed))
				continue
			}
			a.sources[p] = l.at(p)
			continue
		}
		sub, ok := v.(map[string]any)
		if !ok {
			a.e.add(l.errorAt(p, fmt.Sprintf("want a table ([%s] or %s = { ... }), got %s", p, k, describe(v)), strings.Join(keysOf(f.typ), ", ")))
			continue
		}
		a.apply(fv, sub, p, l)
	}
}

func (a *applier) applyPreset(rv reflect.Value, pv any, section string, l *layer) {
	p := section + ".preset"
	name, ok := pv.(string)
	if !ok || name == "" {
		a.e.add(l.errorAt(p, "want the name of a preset (a string), got "+describe(pv), strings.Join(PresetNames(section), ", ")))
		return
	}
	if l.src.Kind == "preset" {
		a.e.add(l.errorAt(p, "a preset cannot name another preset", ""))
		return
	}
	if a.preset == nil {
		a.e.add(l.errorAt(p, "presets cannot be used here", ""))
		return
	}
	pl, err := a.preset(section, name, l, p)
	if err != nil {
		a.e.add(err)
		return
	}
	a.sources[p] = l.at(p)
	if a.presets != nil {
		s := pl.src
		s.Name = name
		a.presets[section] = s
	}
	if sub, ok := pl.tree[section].(map[string]any); ok {
		a.apply(rv, sub, section, pl)
	}
}

// describe names a TOML value's type (and shows short scalars) for errors.
func describe(v any) string {
	switch x := v.(type) {
	case string:
		if len(x) > 40 {
			x = x[:40] + "..."
		}
		return "string " + strconv.Quote(x)
	case int64:
		return "integer " + strconv.FormatInt(x, 10)
	case float64:
		return "float " + strconv.FormatFloat(x, 'g', -1, 64)
	case bool:
		return "boolean " + strconv.FormatBool(x)
	case map[string]any:
		return "a table"
	case []map[string]any, []any:
		return "an array"
	case time.Time:
		return "a date-time"
	case nil:
		return "nothing"
	}
	return fmt.Sprintf("%T", v)
}

// decodeLeaf stores TOML value v in fv. On failure it returns a message
// and, if there is a short one, what is allowed; fv is then unchanged.
func decodeLeaf(fv reflect.Value, v any, f field) (msg, allowed string) {
	t := fv.Type()
	if t == reflect.TypeOf(time.Duration(0)) {
		var d sim.Duration
		if err := d.UnmarshalTOML(v); err != nil {
			return err.Error(), ""
		}
		fv.SetInt(int64(d))
		return "", ""
	}
	if reflect.PointerTo(t).Implements(unmarshalerType) {
		tmp := reflect.New(t)
		if err := tmp.Interface().(unmarshaler).UnmarshalTOML(v); err != nil {
			return err.Error(), ""
		}
		fv.Set(tmp.Elem())
		return "", ""
	}
	switch t.Kind() {
	case reflect.String:
		s, ok := v.(string)
		if !ok {
			return "want a string, got " + describe(v), strings.Join(f.enum, ", ")
		}
		if len(f.enum) > 0 && !contains(f.enum, s) {
			return fmt.Sprintf("unknown value %q", s), strings.Join(f.enum, ", ")
		}
		fv.SetString(s)
	case reflect.Bool:
		b, ok := v.(bool)
		if !ok {
			return "want true or false, got " + describe(v), ""
		}
		fv.SetBool(b)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		n, ok := v.(int64)
		if !ok {
			return "want an integer, got " + describe(v), ""
		}
		if fv.OverflowInt(n) {
			return fmt.Sprintf("%d is out of range for this key", n), ""
		}
		fv.SetInt(n)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		n, ok := v.(int64)
		if !ok {
			return "want a non-negative integer, got " + describe(v), ""
		}
		if n < 0 {
			return fmt.Sprintf("must not be negative, got %d", n), ""
		}
		if fv.OverflowUint(uint64(n)) {
			return fmt.Sprintf("%d is out of range for this key", n), ""
		}
		fv.SetUint(uint64(n))
	case reflect.Float32, reflect.Float64:
		switch x := v.(type) {
		case int64:
			fv.SetFloat(float64(x))
		case float64:
			fv.SetFloat(x)
		default:
			return "want a number, got " + describe(v), ""
		}
	case reflect.Slice:
		arr, ok := v.([]any)
		if !ok {
			return "want an array, got " + describe(v), ""
		}
		out := reflect.MakeSlice(t, len(arr), len(arr))
		ef := field{typ: t.Elem(), enum: f.enum}
		for i, e := range arr {
			if m, al := decodeLeaf(out.Index(i), e, ef); m != "" {
				return fmt.Sprintf("[%d]: %s", i, m), al
			}
		}
		fv.Set(out)
	default:
		return fmt.Sprintf("scenarios: unsupported field type %s (a programming error)", t), ""
	}
	return "", ""
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// treeAt builds the tree {a: {b: {c: v}}} for the path a.b.c.
func treeAt(path string, v any) map[string]any {
	parts := strings.Split(path, ".")
	m := map[string]any{parts[len(parts)-1]: v}
	for i := len(parts) - 2; i >= 0; i-- {
		m = map[string]any{parts[i]: m}
	}
	return m
}
