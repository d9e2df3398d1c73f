package scenarios

import (
	"fmt"
	"reflect"
	"strings"
)

// Reference renders every configuration key a scenario file may set, with
// its default, unit, allowed values and meaning, as markdown: one table per
// section, in the order of Config. docs/parameters.md is this text; a test
// keeps the two equal, so the reference cannot fall behind the code.
func Reference() string {
	var b strings.Builder
	b.WriteString(`# Parameter reference

Every key a scenario file may set, generated from the model configuration types
(` + "`go test ./scenarios -run TestReference -update`" + ` regenerates this page). The default is
the value a key takes when neither a preset, the file, nor a case sets it; ` + "`simrun explain FILE`" + `
shows the value each case resolves to and where it came from. Units and their spellings are in
docs/scenarios.md. Sub-sections of ` + "`[workload]`" + ` apply only to the workload kind they name.

`)
	def := reflect.ValueOf(resolved{Settings: DefaultSettings(), Config: DefaultConfig()})
	var top []row
	sections := map[string][]row{}
	var order []string
	collect(def, "", &top, sections, &order)
	writeTable(&b, "Run settings (top level)", top)
	for _, s := range order {
		writeTable(&b, "["+s+"]", sections[s])
	}
	return b.String()
}

type row struct{ key, value, unit, doc string }

// collect walks a configuration value: leaves at the top level go to top,
// the rest to the table of their enclosing section path.
func collect(v reflect.Value, path string, top *[]row, sections map[string][]row, order *[]string) {
	for _, f := range fieldsOf(v.Type()) {
		p := joinPath(path, f.key)
		fv := v.FieldByIndex(f.index)
		if !f.leaf {
			collect(fv, p, top, sections, order)
			continue
		}
		doc := f.doc
		if len(f.enum) > 0 {
			doc += " (one of: " + strings.Join(f.enum, ", ") + ")"
		}
		r := row{key: f.key, value: formatParam(fv), unit: f.unit, doc: doc}
		if path == "" {
			*top = append(*top, r)
			continue
		}
		if _, ok := sections[path]; !ok {
			*order = append(*order, path)
		}
		sections[path] = append(sections[path], r)
	}
}

func writeTable(b *strings.Builder, title string, rows []row) {
	fmt.Fprintf(b, "## %s\n\n| key | default | unit | meaning |\n|---|---|---|---|\n", title)
	cell := func(s string) string { return strings.ReplaceAll(s, "|", "\\|") }
	for _, r := range rows {
		fmt.Fprintf(b, "| `%s` | `%s` | %s | %s |\n", r.key, cell(r.value), cell(r.unit), cell(r.doc))
	}
	b.WriteString("\n")
}
