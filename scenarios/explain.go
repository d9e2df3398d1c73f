package scenarios

import (
	"fmt"
	"reflect"
	"strconv"
)

// ExplainSchema tags the JSON form of simrun explain.
const ExplainSchema = "simrun.explain/v1"

// Param is one resolved parameter of a case.
type Param struct {
	Key      string `json:"key"` // dotted path, as used by --set and [[case]]
	Value    string `json:"value"`
	Unit     string `json:"unit,omitempty"`
	Doc      string `json:"doc,omitempty"`
	Source   string `json:"source"`             // default | preset NAME | file PATH:LINE | case NAME | flag --NAME
	Location string `json:"location,omitempty"` // PATH:LINE where it was set
}

// Params lists every parameter of the case in declaration order: the
// settings, then each section; of a workload only the chosen kind's
// sub-section. A section that uses a preset lists it first as
// SECTION.preset.
func (c *Case) Params() []Param {
	var out []Param
	c.params(reflect.ValueOf(c.resolved), "", &out)
	return out
}

func (c *Case) params(v reflect.Value, path string, out *[]Param) {
	if path != "" && !containsDot(path) {
		if ps, ok := c.presets[path]; ok {
			src := c.Source(path + ".preset")
			*out = append(*out, Param{Key: path + ".preset", Value: strconv.Quote(ps.Name),
				Doc: "named preset (" + ps.File + ") applied before this section's own keys", Source: src.String(), Location: src.Location()})
		}
	}
	for _, f := range fieldsOf(v.Type()) {
		p := joinPath(path, f.key)
		fv := v.FieldByIndex(f.index)
		if !f.leaf {
			if path == "" && isModelSection(f.key) && !usesSection(c.Config.Workload.Kind, f.key) {
				continue
			}
			if f.variant != "" {
				sel, ok := findField(v.Type(), f.variant)
				if !ok || v.FieldByIndex(sel.index).String() != f.key {
					continue
				}
			}
			c.params(fv, p, out)
			continue
		}
		src := c.Source(p)
		*out = append(*out, Param{
			Key:      p,
			Value:    formatParam(fv),
			Unit:     f.unit,
			Doc:      f.doc,
			Source:   src.String(),
			Location: src.Location(),
		})
	}
}

func containsDot(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] == '.' {
			return true
		}
	}
	return false
}

func formatParam(v reflect.Value) string {
	if s, ok := v.Interface().(fmt.Stringer); ok {
		return s.String()
	}
	switch v.Kind() {
	case reflect.String:
		return strconv.Quote(v.String())
	case reflect.Float32, reflect.Float64:
		return strconv.FormatFloat(v.Float(), 'g', -1, 64)
	}
	return fmt.Sprint(v.Interface())
}

// Explanation is the JSON document of simrun explain.
type Explanation struct {
	Schema      string            `json:"schema"`
	Scenario    string            `json:"scenario"`
	Description string            `json:"description,omitempty"`
	File        string            `json:"file"`
	Cases       []CaseExplanation `json:"cases"`
}

// CaseExplanation is one case of an Explanation.
type CaseExplanation struct {
	Name        string  `json:"name"`
	Description string  `json:"description,omitempty"`
	Location    string  `json:"location,omitempty"`
	Params      []Param `json:"params"`
}

// Explain resolves the named cases (all if none) for simrun explain.
func Explain(sc *Scenario, names []string) (*Explanation, error) {
	cases, err := selectCases(sc, names)
	if err != nil {
		return nil, err
	}
	ex := &Explanation{Schema: ExplainSchema, Scenario: sc.Name, Description: sc.Description, File: sc.File}
	for _, c := range cases {
		ce := CaseExplanation{Name: c.Name, Description: c.Description, Params: c.Params()}
		if c.Line > 0 {
			ce.Location = fmt.Sprintf("%s:%d", c.File, c.Line)
		}
		ex.Cases = append(ex.Cases, ce)
	}
	return ex, nil
}
