package result

import (
	"fmt"
	"reflect"
	"strings"
)

// FromStruct builds the metrics tree of a typed metrics struct: each field
// with a json tag becomes a key of that name, nested structs and maps with
// string keys become nested map[string]any (what the reporting code and
// the models' map-built blocks use), and the other values are kept as they
// are (numbers keep their Go type, so that integers print as integers).
// A nil pointer, map or slice field tagged omitempty is left out, which is
// how a model reports a figure only where it applies. It panics on a value
// that is not a struct (or pointer to one): the types are the contract,
// checked by the models' tests.
func FromStruct(v any) Metrics {
	rv := reflect.ValueOf(v)
	for rv.Kind() == reflect.Pointer {
		rv = rv.Elem()
	}
	if rv.Kind() != reflect.Struct {
		panic(fmt.Sprintf("result: FromStruct of %T", v))
	}
	return Metrics(structMetrics(rv))
}

func structMetrics(rv reflect.Value) map[string]any {
	t := rv.Type()
	out := make(map[string]any, t.NumField())
	for i := range t.NumField() {
		f := t.Field(i)
		name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "" || name == "-" || !f.IsExported() {
			continue
		}
		fv := rv.Field(i)
		if omitNil(fv) && strings.Contains(opts, "omitempty") {
			continue
		}
		out[name] = value(fv)
	}
	return out
}

// omitNil reports whether fv is a nil pointer, map, slice or interface.
func omitNil(fv reflect.Value) bool {
	switch fv.Kind() {
	case reflect.Pointer, reflect.Map, reflect.Slice, reflect.Interface:
		return fv.IsNil()
	}
	return false
}

func value(fv reflect.Value) any {
	switch fv.Kind() {
	case reflect.Pointer, reflect.Interface:
		if fv.IsNil() {
			return nil
		}
		return value(fv.Elem())
	case reflect.Struct:
		return structMetrics(fv)
	case reflect.Map:
		if fv.Type().Key().Kind() != reflect.String {
			panic(fmt.Sprintf("result: map key %v", fv.Type().Key()))
		}
		out := make(map[string]any, fv.Len())
		it := fv.MapRange()
		for it.Next() {
			out[it.Key().String()] = value(it.Value())
		}
		return out
	}
	return fv.Interface()
}

// Keys returns the metric paths of m down to depth levels ("a", "a.b"),
// sorted; the docs-drift tests compare them with docs/results.md.
func Keys(m Metrics, depth int) []string {
	var out []string
	var walk func(m map[string]any, prefix string, d int)
	walk = func(m map[string]any, prefix string, d int) {
		for k, v := range m {
			p := prefix + k
			out = append(out, p)
			if d > 1 {
				switch sub := v.(type) {
				case Metrics:
					walk(sub, p+".", d-1)
				case map[string]any:
					walk(sub, p+".", d-1)
				}
			}
		}
	}
	walk(m, "", depth)
	OrderPaths(out)
	return out
}
