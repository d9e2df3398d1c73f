package scenarios

import (
	"errors"
	"fmt"
	"maps"
	"reflect"
	"strings"
	"unicode"

	"github.com/BurntSushi/toml"
)

// Scenario is a loaded, resolved and validated scenario file.
type Scenario struct {
	Name        string
	Description string
	File        string // the file as named, or builtin:topic/name.toml
	// Base is the file resolved without any case: its settings head the
	// result document.
	Base *Case
	// Cases in file order. A file without [[case]] entries has one case,
	// "base".
	Cases []*Case

	explicitCases bool
}

// Case is the fully resolved configuration of one case.
type Case struct {
	resolved           // Settings and Config, promoted
	Name        string // unique within the scenario
	Description string
	File        string // where the case is defined
	Line        int    // line of its [[case]] header; 0 for the implicit case

	sources map[string]Source // leaf path -> where its value came from
	presets map[string]Source // section -> preset used
}

// fileKeys are the top-level keys of a file that are not configuration.
var fileKeys = []string{"name", "description", "extends", "case"}

// caseKeys are the keys of a [[case]] entry that are not configuration.
var caseKeys = []string{"name", "description"}

// maxExtends bounds the length of an extends chain.
const maxExtends = 16

// Load reads, resolves and validates a scenario: a file on disk, or a
// built-in scenario ("demo/mmc", "builtin:demo/mmc.toml"). The error, if
// any, is an ErrorList naming file, line and key of every problem. A file
// that is a preset rather than a scenario (one section table, no name) is
// checked as a preset of its section: a *PresetFile when it is valid, else
// the ErrorList of its problems.
func Load(name string) (*Scenario, error) {
	ref, err := resolveName(name)
	if err != nil {
		return nil, ErrorList{{File: name, Msg: err.Error()}}
	}
	return newLoader().load(ref, nil)
}

// LoadBytes loads a scenario from src as if it were the file name (which
// is used in messages and to resolve extends and presets given as paths).
func LoadBytes(name string, src []byte) (*Scenario, error) {
	return newLoader().load(fileRef{path: name}, src)
}

// Default loads the built-in default scenario.
func Default() (*Scenario, error) { return Load(BuiltinPrefix + DefaultScenario) }

type loader struct {
	e       errs
	presets map[string]*layer
}

func newLoader() *loader { return &loader{presets: map[string]*layer{}} }

// parsed is one decoded file.
type parsed struct {
	tree  map[string]any
	lines lineIndex
}

func (ld *loader) parse(ref fileRef, src []byte) *parsed {
	var tree map[string]any
	if _, err := toml.Decode(string(src), &tree); err != nil {
		e := &Error{File: ref.String(), Msg: "syntax error: " + err.Error()}
		var pe toml.ParseError
		if errors.As(err, &pe) {
			e.Line, e.Msg = pe.Position.Line, "syntax error: "+pe.Message
		}
		ld.e.add(e)
		return nil
	}
	return &parsed{tree: tree, lines: scanLines(string(src))}
}

// chain is a file with everything it extends, flattened.
type chain struct {
	name, desc string
	layers     []*layer // root file first
	cases      []*caseDef
	sections   map[string]bool // top-level sections present in some file
}

type caseDef struct {
	name, desc string
	layer      *layer
	line       int
}

// loadChain loads ref and, first, the files it extends. from and stack
// describe the file that extends ref, for errors.
func (ld *loader) loadChain(ref fileRef, src []byte, stack []string, from *layer) *chain {
	key := ref.String()
	if contains(stack, key) {
		ld.e.add(from.errorAt("extends", "extends cycle: "+strings.Join(append(stack, key), " -> "), ""))
		return nil
	}
	if len(stack) >= maxExtends {
		ld.e.add(from.errorAt("extends", fmt.Sprintf("extends chain longer than %d files", maxExtends), ""))
		return nil
	}
	if src == nil {
		b, err := ref.read()
		if err != nil {
			if from != nil {
				ld.e.add(from.errorAt("extends", fmt.Sprintf("cannot read %s: %v", key, err), ""))
			} else {
				ld.e.add(&Error{File: key, Msg: "cannot read: " + err.Error()})
			}
			return nil
		}
		src = b
	}
	p := ld.parse(ref, src)
	if p == nil {
		return nil
	}
	fl := &layer{src: Source{Kind: "file", File: key}, lines: p.lines}
	own := map[string]any{}
	var name, desc, ext string
	var hasName, hasDesc, hasExt bool
	str := func(k string, v any) (string, bool) {
		s, ok := v.(string)
		if !ok {
			ld.e.add(fl.errorAt(k, "want a string, got "+describe(v), ""))
		}
		return s, ok
	}
	for _, k := range orderedKeys(p.tree, fl, "") {
		v := p.tree[k]
		switch k {
		case "name":
			if name, hasName = str(k, v); hasName && strings.TrimSpace(name) == "" {
				ld.e.add(fl.errorAt(k, "must not be empty", ""))
			}
		case "description":
			desc, hasDesc = str(k, v)
		case "extends":
			ext, hasExt = str(k, v)
		case "case":
		default:
			own[k] = v
		}
	}
	ch := &chain{sections: map[string]bool{}}
	if hasExt {
		baseRef, err := ref.rel(ext)
		if err != nil {
			ld.e.add(fl.errorAt("extends", err.Error(), ""))
			return nil
		}
		base := ld.loadChain(baseRef, nil, append(stack, key), fl)
		if base == nil {
			return nil
		}
		ch.name, ch.desc = base.name, base.desc
		ch.layers = append(ch.layers, base.layers...)
		ch.cases = base.cases
		maps.Copy(ch.sections, base.sections)
	}
	fl.tree = own
	ch.layers = append(ch.layers, fl)
	if hasName {
		ch.name = name
	}
	if hasDesc {
		ch.desc = desc
	}
	if v, ok := p.tree["case"]; ok {
		ch.cases = ld.parseCases(v, fl)
	}
	for k := range own {
		if isSection(k) {
			ch.sections[k] = true
		}
	}
	return ch
}

func (ld *loader) parseCases(v any, fl *layer) []*caseDef {
	var list []map[string]any
	switch x := v.(type) {
	case []map[string]any:
		list = x
	case []any:
		for _, e := range x {
			m, ok := e.(map[string]any)
			if !ok {
				ld.e.add(fl.errorAt("case", "want [[case]] entries (tables), got an array of "+describe(e), ""))
				return nil
			}
			list = append(list, m)
		}
	default:
		ld.e.add(fl.errorAt("case", "want [[case]] entries (an array of tables), got "+describe(v), ""))
		return nil
	}
	var defs []*caseDef
	first := map[string]int{}
	for i, m := range list {
		prefix := fmt.Sprintf("case[%d]", i)
		line := fl.lines.line(prefix)
		cl := &layer{src: Source{Kind: "case", File: fl.src.File}, lines: fl.lines, prefix: prefix}
		nv, ok := m["name"]
		if !ok {
			ld.e.add(&Error{File: fl.src.File, Line: line, Path: prefix, Msg: "missing required key name (a unique name for the case)"})
			continue
		}
		name, ok := nv.(string)
		if !ok {
			ld.e.add(cl.errorAt("name", "want a string, got "+describe(nv), ""))
			continue
		}
		if msg := checkCaseName(name); msg != "" {
			ld.e.add(cl.errorAt("name", msg, ""))
			continue
		}
		if l, dup := first[name]; dup {
			ld.e.add(&Error{File: fl.src.File, Line: cl.at("name").Line, Path: prefix + ".name",
				Msg: fmt.Sprintf("duplicate case name %q (first at line %d)", name, l)})
			continue
		}
		first[name] = cl.at("name").Line
		desc := ""
		if dv, ok := m["description"]; ok {
			if desc, ok = dv.(string); !ok {
				ld.e.add(cl.errorAt("description", "want a string, got "+describe(dv), ""))
			}
		}
		tree := map[string]any{}
		for k, v := range m {
			if !contains(caseKeys, k) {
				tree[k] = v
			}
		}
		cl.tree = tree
		cl.src.Name, cl.caseName = name, name
		defs = append(defs, &caseDef{name: name, desc: desc, layer: cl, line: line})
	}
	return defs
}

func checkCaseName(name string) string {
	if strings.TrimSpace(name) == "" {
		return "must not be empty"
	}
	if len(name) > 100 {
		return "must be at most 100 characters"
	}
	for _, r := range name {
		if unicode.IsControl(r) || r == ',' {
			return "must not contain control characters or commas"
		}
	}
	return ""
}

func (ld *loader) applier(c *Case, topExtra []string) *applier {
	return &applier{sources: c.sources, presets: c.presets, preset: ld.loadPreset, e: &ld.e, topExtra: topExtra}
}

func (ld *loader) load(ref fileRef, src []byte) (*Scenario, error) {
	if src == nil {
		b, err := ref.read()
		if err != nil {
			ld.e.add(&Error{File: ref.String(), Msg: "cannot read: " + err.Error()})
			return nil, ld.e.err()
		}
		src = b
	}
	p := ld.parse(ref, src)
	if p == nil {
		return nil, ld.e.err()
	}
	if section, ok := presetSection(p.tree); ok {
		return nil, ld.loadPresetFile(ref, p, section)
	}
	ch := ld.loadChain(ref, src, nil, nil)
	if ch == nil {
		return nil, ld.e.err()
	}
	top := ref.String()
	sc := &Scenario{Name: ch.name, Description: ch.desc, File: top, explicitCases: len(ch.cases) > 0}
	if ch.name == "" {
		ld.e.add(&Error{File: top, Path: "name", Msg: "missing required key (a short name for the scenario, used in reports)"})
	}
	missing := false
	for _, s := range requiredSections {
		present := ch.sections[s]
		if !present && len(ch.cases) > 0 {
			present = true
			for _, cd := range ch.cases {
				if _, ok := cd.layer.tree[s].(map[string]any); !ok {
					present = false
				}
			}
		}
		if !present {
			ld.e.add(&Error{File: top, Path: s, Msg: fmt.Sprintf("missing required section [%s]", s), Allowed: sectionHint(s)})
			missing = true
		}
	}
	base := &Case{
		resolved: resolved{Settings: DefaultSettings(), Config: DefaultConfig()},
		Name:     "base",
		File:     top,
		sources:  map[string]Source{},
		presets:  map[string]Source{},
	}
	ap := ld.applier(base, fileKeys)
	for _, l := range ch.layers {
		ap.apply(base.root(), l.tree, "", l)
	}
	sc.Base = base
	if len(ch.cases) == 0 {
		sc.Cases = []*Case{base.clone()}
	}
	for _, cd := range ch.cases {
		c := base.clone()
		c.Name, c.Description, c.File, c.Line = cd.name, cd.desc, cd.layer.src.File, cd.line
		ld.applier(c, caseKeys).apply(c.root(), cd.layer.tree, "", cd.layer)
		sc.Cases = append(sc.Cases, c)
	}
	if !missing { // else every case would repeat what is missing
		bad := ld.decodeFailures()
		for _, e := range sc.validate() {
			if !underAny(e.Path, bad) {
				ld.e.add(e)
			}
		}
	}
	if err := ld.e.err(); err != nil {
		return nil, err
	}
	return sc, nil
}

func underAny(p string, set map[string]bool) bool {
	for q := p; q != ""; q = parentPath(q) {
		if set[q] {
			return true
		}
	}
	return false
}

func sectionHint(s string) string {
	if s == "workload" {
		return "kind = " + strings.Join(Kinds(), " | ")
	}
	return ""
}

// loadPreset returns the layer of preset name for section. A name ending in
// .toml is a path relative to the file that names it; any other name is a
// built-in preset, library/<section>/<name>.toml.
func (ld *loader) loadPreset(section, name string, from *layer, path string) (*layer, *Error) {
	var ref fileRef
	var err error
	if strings.HasSuffix(name, ".toml") {
		if strings.HasPrefix(from.src.File, BuiltinPrefix) {
			ref, err = builtinRelative(from.src.File, name)
		} else {
			ref, err = fileRef{path: from.src.File}.rel(name)
		}
	} else {
		ref, err = builtinRef(presetDir + "/" + section + "/" + name + ".toml")
	}
	if err != nil {
		return nil, from.errorAt(path, err.Error(), "")
	}
	key := section + "|" + ref.String()
	if l, ok := ld.presets[key]; ok {
		return l, nil
	}
	src, rerr := ref.read()
	if rerr != nil {
		e := from.errorAt(path, fmt.Sprintf("no preset %q for [%s]", name, section), strings.Join(PresetNames(section), ", "))
		if strings.HasSuffix(name, ".toml") {
			e.Msg, e.Allowed = fmt.Sprintf("cannot read preset %s: %v", ref, rerr), ""
		} else {
			// The built-in presets are compiled into simrun: a file added
			// to library/ counts only after a rebuild, so point at the
			// path form, which reads the file as it is.
			rel := "this file"
			if from.src.Kind == "flag" {
				rel = "the current directory"
			}
			e.Msg = fmt.Sprintf("no preset %q built into simrun for [%s]; name a preset file of your own by its path relative to %s, preset = \"%s.toml\"", name, section, rel, name)
		}
		return nil, e
	}
	p := ld.parse(ref, src)
	if p == nil {
		return nil, from.errorAt(path, fmt.Sprintf("preset %s has errors (above)", ref), "")
	}
	pl := ld.presetLayer(section, ref, p, strings.TrimSuffix(name, ".toml"))
	ld.presets[key] = pl
	return pl, nil
}

// presetLayer checks the top level of a parsed preset file of section (a
// description and the [section] table, nothing else) and returns its
// layer, named name.
func (ld *loader) presetLayer(section string, ref fileRef, p *parsed, name string) *layer {
	pl := &layer{src: Source{Kind: "preset", Name: name, File: ref.String()}, lines: p.lines}
	tree := map[string]any{}
	for _, k := range orderedKeys(p.tree, pl, "") {
		switch v := p.tree[k]; {
		case k == "description":
			if _, ok := v.(string); !ok {
				ld.e.add(pl.errorAt(k, "want a string, got "+describe(v), ""))
			}
		case k == section:
			if _, ok := v.(map[string]any); !ok {
				ld.e.add(pl.errorAt(k, "want a table, got "+describe(v), ""))
				continue
			}
			tree[k] = v
		default:
			ld.e.add(pl.errorAt(k, fmt.Sprintf("unknown key in a [%s] preset", section), "description, "+section))
		}
	}
	pl.tree = tree
	return pl
}

func builtinRelative(fromDisplay, name string) (fileRef, error) {
	r, err := builtinRef(strings.TrimPrefix(fromDisplay, BuiltinPrefix))
	if err != nil {
		return fileRef{}, err
	}
	return r.rel(name)
}

// root is the value layers apply to.
func (c *Case) root() reflect.Value { return reflect.ValueOf(&c.resolved).Elem() }

func (c *Case) clone() *Case {
	d := *c
	d.sources = maps.Clone(c.sources)
	d.presets = maps.Clone(c.presets)
	return &d
}

// Source returns where the value at a dotted key path came from.
func (c *Case) Source(path string) Source {
	if s, ok := c.sources[path]; ok {
		return s
	}
	return Source{Kind: "default"}
}

// validate checks every case. An error that the file shows without any
// case is reported once, without a case name; an error only some cases
// have names its case.
func (sc *Scenario) validate() ErrorList {
	baseErrs := map[string]bool{}
	if sc.explicitCases {
		for _, e := range sc.Base.validate(sc.File) {
			baseErrs[e.Error()] = true
		}
	}
	var c errs
	for _, cs := range sc.Cases {
		for _, e := range cs.validate(sc.File) {
			if sc.explicitCases && e.Case == "" && !baseErrs[e.Error()] {
				e.Case = cs.Name
			}
			c.add(e)
		}
	}
	return c.list
}

type validator interface{ Validate() error }

// reporter returns the report function validateStruct calls: each line of
// a Validate error, located by the key path it starts with, goes to add.
func (c *Case) reporter(topFile string, add func(*Error)) func(t reflect.Type, path string, err error) {
	return func(t reflect.Type, path string, err error) {
		if err == nil {
			return
		}
		for _, line := range strings.Split(err.Error(), "\n") {
			if strings.TrimSpace(line) != "" {
				add(c.locate(t, path, line, topFile))
			}
		}
	}
}

// decodeFailures returns the key paths that failed to decode. Such a key
// keeps its default, and checking that default would only add noise.
func (ld *loader) decodeFailures() map[string]bool {
	bad := map[string]bool{}
	for _, e := range ld.e.list {
		bad[e.Path] = true
	}
	return bad
}

// validate calls Settings.Validate, every section's Validate, and the
// Validate of every selected variant sub-section (such as workload.demo
// when workload.kind = "demo"), and locates each message by the key path
// it starts with.
func (c *Case) validate(topFile string) ErrorList {
	var out ErrorList
	report := c.reporter(topFile, func(e *Error) { out = append(out, e) })
	report(reflect.TypeOf(resolved{}), "", c.Settings.Validate())
	cv := reflect.ValueOf(c.Config)
	for _, f := range fieldsOf(cv.Type()) {
		c.validateStruct(cv.FieldByIndex(f.index), f.key, report)
	}
	return out
}

func (c *Case) validateStruct(v reflect.Value, path string, report func(reflect.Type, string, error)) {
	if vd, ok := v.Interface().(validator); ok {
		report(v.Type(), path, vd.Validate())
	}
	if v.Kind() != reflect.Struct {
		return
	}
	for _, f := range fieldsOf(v.Type()) {
		if f.variant == "" || f.leaf {
			continue
		}
		sel, ok := findField(v.Type(), f.variant)
		if !ok || v.FieldByIndex(sel.index).Kind() != reflect.String {
			continue
		}
		if v.FieldByIndex(sel.index).String() == f.key {
			c.validateStruct(v.FieldByIndex(f.index), joinPath(path, f.key), report)
		}
	}
}

// locate turns a Validate message such as "service: mean: must be > 0"
// from the section at path into an Error at the longest key path its
// leading "key: " parts name, placed where that key's value was set.
func (c *Case) locate(t reflect.Type, path, line, topFile string) *Error {
	parts := strings.Split(line, ": ")
	p, cur := path, t
	i := 0
	for ; i < len(parts)-1; i++ {
		ct, ok := cur, true
		for _, seg := range strings.Split(parts[i], ".") {
			if ct.Kind() != reflect.Struct || isLeaf(ct) {
				ok = false
				break
			}
			f, found := findField(ct, seg)
			if !found {
				ok = false
				break
			}
			ct = f.typ
		}
		if !ok {
			break
		}
		p, cur = joinPath(p, parts[i]), ct
	}
	e := &Error{File: topFile, Path: p, Msg: strings.Join(parts[i:], ": ")}
	if e.Msg == "" {
		e.Msg = line
	}
	if j := strings.LastIndex(e.Msg, " (allowed: "); j >= 0 && strings.HasSuffix(e.Msg, ")") {
		e.Msg, e.Allowed = e.Msg[:j], strings.TrimSuffix(e.Msg[j+len(" (allowed: "):], ")")
	}
	if src, ok := c.sources[p]; ok {
		e.File, e.Line = src.File, src.Line
		if src.Kind == "case" {
			e.Case = src.Name
		}
		if src.Kind == "flag" {
			e.Msg += " (set by " + src.Name + ")"
		}
	} else if isLeaf(cur) && p != "" {
		e.Msg += " (the default value)"
	}
	return e
}

// Validate re-checks every case, e.g. after Override.
func (sc *Scenario) Validate() error {
	var c errs
	c.addAll(sc.validate())
	return c.err()
}

// Override sets the value at a dotted key path in the base and in every
// case, as a command-line flag does ("seed", "workload.demo.servers",
// "machine.preset"). v is a TOML value: string, int64, float64, bool. Call
// Validate afterwards.
func (sc *Scenario) Override(path string, v any, src Source) error {
	var e errs
	for _, c := range append([]*Case{sc.Base}, sc.Cases...) {
		c.override(path, v, src, &e)
	}
	return e.err()
}

func (c *Case) override(path string, v any, src Source, e *errs) {
	l := &layer{src: src, tree: treeAt(path, v)}
	ap := &applier{sources: c.sources, presets: c.presets, preset: newLoader().loadPreset, e: e}
	ap.apply(c.root(), l.tree, "", l)
}

// With returns a copy of c with the values at the given paths replaced and
// checked, for one point of a sweep.
func (c *Case) With(sets []Set, src Source) (*Case, error) {
	d := c.clone()
	var e errs
	for _, s := range sets {
		d.override(s.Key, s.Value, src, &e)
	}
	if err := e.err(); err != nil {
		return nil, err
	}
	for _, ve := range d.validate(d.File) {
		if ve.Case == "" {
			ve.Case = d.Name
		}
		e.add(ve)
	}
	if err := e.err(); err != nil {
		return nil, err
	}
	return d, nil
}

// Set is one key = value override.
type Set struct {
	Key   string
	Value any
}
