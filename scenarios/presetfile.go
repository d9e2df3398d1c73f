package scenarios

import (
	"fmt"
	"path"
	"reflect"
	"strings"
)

// PresetFile is what Load returns, as its error, for a file that is a
// preset rather than a scenario (see presetSection) and has no errors as a
// preset of its section: it cannot run by itself, but it is valid. A
// preset with errors gives an ErrorList, as a broken scenario does.
// simrun validate reports a PresetFile as checked ("ok FILE (preset
// volume)"); run and the other commands report the Error it wraps.
type PresetFile struct {
	File        string // as the user named it, or builtin:library/volume/gp3.toml
	Section     string // the section it presets, e.g. "volume"
	Description string
}

func (p *PresetFile) Error() string { return p.Unwrap().Error() }

// Unwrap returns the problem of using the file as a scenario, located in
// the file, so that a command that wanted a scenario reports it as a
// scenario error.
func (p *PresetFile) Unwrap() error {
	return &Error{File: p.File, Msg: fmt.Sprintf(
		"a [%s] preset, not a scenario (a scenario has a name; this file has one section and no name): use it from a scenario's [%s] section with preset = %q, a path relative to that scenario",
		p.Section, p.Section, path.Base(strings.ReplaceAll(strings.TrimPrefix(p.File, BuiltinPrefix), `\`, "/")))}
}

// presetSection reports the section of a file that is a preset rather
// than a scenario: it has no name, extends or [[case]], exactly one of its
// top-level keys is a section table (such as [volume] or [machine]), and no
// other top-level key is a scenario setting (duration, seed, ...). That is
// how the files under library/<section>/ and the ones simrun calibrate
// writes look; a scenario always has a name. Other top-level keys, such as
// description, are checked as the preset's.
func presetSection(tree map[string]any) (string, bool) {
	for _, k := range []string{"name", "extends", "case"} {
		if _, ok := tree[k]; ok {
			return "", false
		}
	}
	settings := reflect.TypeOf(Settings{})
	section := ""
	for k, v := range tree {
		if _, ok := findField(settings, k); ok {
			return "", false
		}
		if _, ok := v.(map[string]any); ok && isSection(k) {
			if section != "" {
				return "", false
			}
			section = k
		}
	}
	return section, section != ""
}

// loadPresetFile checks a parsed preset file of section as a scenario that
// names it would: its top level, then every key of the section (unknown
// keys, types and units, as applying it does), then the section's own
// Validate (ranges). Only the section is validated: the rest of a scenario
// is not there to check.
func (ld *loader) loadPresetFile(ref fileRef, p *parsed, section string) error {
	pl := ld.presetLayer(section, ref, p, strings.TrimSuffix(path.Base(ref.path), ".toml"))
	c := &Case{
		resolved: resolved{Settings: DefaultSettings(), Config: DefaultConfig()},
		File:     ref.String(),
		sources:  map[string]Source{},
		presets:  map[string]Source{},
	}
	ld.applier(c, nil).apply(c.root(), pl.tree, "", pl)
	bad := ld.decodeFailures()
	report := c.reporter(ref.String(), func(e *Error) {
		if !underAny(e.Path, bad) {
			ld.e.add(e)
		}
	})
	cv := reflect.ValueOf(c.Config)
	f, _ := findField(cv.Type(), section)
	sv := cv.FieldByIndex(f.index)
	if w, ok := sv.Interface().(Workload); ok && w.Kind == "" {
		// A workload preset may leave the kind to the scenario: check
		// the sub-sections it sets.
		tab, _ := pl.tree[section].(map[string]any)
		for _, vf := range fieldsOf(sv.Type()) {
			if _, set := tab[vf.key]; set && vf.variant != "" {
				c.validateStruct(sv.FieldByIndex(vf.index), joinPath(section, vf.key), report)
			}
		}
	} else {
		c.validateStruct(sv, section, report)
	}
	if err := ld.e.err(); err != nil {
		return err
	}
	desc, _ := p.tree["description"].(string)
	return &PresetFile{File: ref.String(), Section: section, Description: desc}
}
