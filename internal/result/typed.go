package result

import (
	"fmt"
	"reflect"
	"strings"

	"simrun/sim/stats"
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
		fv := rv.Field(i)
		if f.Anonymous && f.Tag.Get("json") == "" {
			// An embedded struct without a tag is inlined, as
			// encoding/json does; a nil embedded pointer adds nothing.
			for fv.Kind() == reflect.Pointer {
				if fv.IsNil() {
					break
				}
				fv = fv.Elem()
			}
			if fv.Kind() == reflect.Struct {
				for k, v := range structMetrics(fv) {
					out[k] = v
				}
			}
			continue
		}
		if name == "" || name == "-" || !f.IsExported() {
			continue
		}
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

// StructKeys returns the metric paths a typed metrics struct can emit, from
// its type alone: every json name (embedded structs inlined, whether set or
// not) and, down to depth levels, the names inside nested structs, sorted.
// Maps are leaves here: their keys are data. maps lists the paths that are
// maps, whose documented children a docs test cannot check from the type.
func StructKeys(v any, depth int) (paths, maps []string) {
	t := reflect.TypeOf(v)
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	var walk func(t reflect.Type, prefix string, d int)
	walk = func(t reflect.Type, prefix string, d int) {
		for i := range t.NumField() {
			f := t.Field(i)
			ft := f.Type
			for ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if f.Anonymous && f.Tag.Get("json") == "" && ft.Kind() == reflect.Struct {
				walk(ft, prefix, d)
				continue
			}
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if name == "" || name == "-" || !f.IsExported() {
				continue
			}
			p := prefix + name
			paths = append(paths, p)
			switch {
			case ft.Kind() == reflect.Struct && d > 1:
				walk(ft, p+".", d-1)
			case ft.Kind() == reflect.Map:
				maps = append(maps, p)
			}
		}
	}
	walk(t, "", depth)
	OrderPaths(paths)
	return paths, maps
}

// Latency is a latency block, {avg, p50, p95, p99, max} in milliseconds.
type Latency struct {
	Avg float64 `json:"avg"`
	P50 float64 `json:"p50"`
	P95 float64 `json:"p95"`
	P99 float64 `json:"p99"`
	Max float64 `json:"max"`
}

// LatencyMs is the latency block of a histogram of nanoseconds.
func LatencyMs(h *stats.Histogram) Latency {
	return Latency{
		Avg: h.Mean() / 1e6,
		P50: float64(h.Quantile(0.50)) / 1e6,
		P95: float64(h.Quantile(0.95)) / 1e6,
		P99: float64(h.Quantile(0.99)) / 1e6,
		Max: float64(h.Max()) / 1e6,
	}
}
