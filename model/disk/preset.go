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
// credits table is written only when credits are on.
func WritePreset(w io.Writer, cfg Config, description string) error {
	var b strings.Builder
	fmt.Fprintf(&b, "description = %s\n\n[volume]\n", strconv.Quote(description))
	var credits []string
	rv := reflect.ValueOf(cfg)
	rt := rv.Type()
	for i := 0; i < rt.NumField(); i++ {
		f := rt.Field(i)
		key := f.Tag.Get("toml")
		if f.Type == reflect.TypeOf(Credits{}) {
			if cfg.Credits.Balance > 0 {
				ct := f.Type
				cv := rv.Field(i)
				for k := 0; k < ct.NumField(); k++ {
					credits = append(credits, presetLine(ct.Field(k), cv.Field(k)))
				}
			}
			_ = key
			continue
		}
		if f.Tag.Get("enum") != "" && rv.Field(i).Kind() == reflect.String && rv.Field(i).String() == "" {
			continue // an empty choice means the default; the loader takes only named values
		}
		b.WriteString(presetLine(f, rv.Field(i)))
	}
	if len(credits) > 0 {
		b.WriteString("\n[volume.credits]\n")
		for _, l := range credits {
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
