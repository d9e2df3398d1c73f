package disk

import (
	"fmt"
	"io"
	"reflect"
	"strconv"
	"strings"
)

// WritePreset writes cfg as a scenario-library preset: a description and
// a [volume] table with every key, each followed by its meaning as a
// comment. The output decodes back to cfg (see the round-trip test). The
// optional sub-tables (credits, throttle) are written only when on.
func WritePreset(w io.Writer, cfg Config, description string) error {
	var b strings.Builder
	fmt.Fprintf(&b, "description = %s\n\n[volume]\n", strconv.Quote(description))
	type table struct {
		name  string
		lines []string
	}
	var tables []table
	on := map[reflect.Type]bool{
		reflect.TypeOf(Credits{}):  cfg.Credits.Balance > 0,
		reflect.TypeOf(Throttle{}): cfg.Throttle.On(),
	}
	rv := reflect.ValueOf(cfg)
	rt := rv.Type()
	for i := 0; i < rt.NumField(); i++ {
		f := rt.Field(i)
		if isOn, sub := on[f.Type]; sub {
			if isOn {
				t := table{name: f.Tag.Get("toml")}
				for k := 0; k < f.Type.NumField(); k++ {
					t.lines = append(t.lines, presetLine(f.Type.Field(k), rv.Field(i).Field(k)))
				}
				tables = append(tables, t)
			}
			continue
		}
		if f.Tag.Get("enum") != "" && rv.Field(i).Kind() == reflect.String && rv.Field(i).String() == "" {
			continue // an empty choice means the default; the loader takes only named values
		}
		b.WriteString(presetLine(f, rv.Field(i)))
	}
	for _, t := range tables {
		b.WriteString("\n[volume." + t.name + "]\n")
		for _, l := range t.lines {
			b.WriteString(l)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func presetLine(f reflect.StructField, v reflect.Value) string {
	var val string
	switch x := v.Interface().(type) {
	case string:
		val = strconv.Quote(x)
	case bool:
		val = strconv.FormatBool(x)
	case int:
		val = strconv.Itoa(x)
	case fmt.Stringer:
		s := x.String()
		if v.Kind() == reflect.Struct || v.Kind() == reflect.Float64 {
			val = s // DistSpec inline table; Count plain number
		} else {
			val = strconv.Quote(s)
		}
	default:
		panic(fmt.Sprintf("disk: WritePreset: unhandled field type %T", x))
	}
	line := fmt.Sprintf("%s = %s", f.Tag.Get("toml"), val)
	if doc := f.Tag.Get("doc"); doc != "" {
		line += "  # " + doc
	}
	return line + "\n"
}
