package result

import (
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// tomlValue prints a value as TOML text, the way a scenario file or a
// --set flag would give it: strings quoted, inline tables with their keys
// sorted, in the project's { key = value } style. It is deterministic, so
// the same value always reads the same in a table, a progress line and a
// warning.
func tomlValue(v any) string {
	switch x := v.(type) {
	case nil:
		return `""`
	case string:
		return tomlString(x)
	case bool:
		return strconv.FormatBool(x)
	case int:
		return strconv.Itoa(x)
	case int32:
		return strconv.FormatInt(int64(x), 10)
	case int64:
		return strconv.FormatInt(x, 10)
	case uint32:
		return strconv.FormatUint(uint64(x), 10)
	case uint64:
		return strconv.FormatUint(x, 10)
	case float32:
		return tomlFloat(float64(x))
	case float64:
		return tomlFloat(x)
	case json.Number:
		if isIntLiteral(string(x)) {
			return string(x)
		}
		f, err := x.Float64()
		if err != nil {
			return string(x)
		}
		return tomlFloat(f)
	case time.Time:
		return x.Format(time.RFC3339Nano)
	case Metrics:
		return tomlTable(x)
	case map[string]any:
		return tomlTable(x)
	case []any:
		parts := make([]string, len(x))
		for i, e := range x {
			parts[i] = tomlValue(e)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case []float64:
		parts := make([]string, len(x))
		for i, f := range x {
			parts[i] = tomlFloat(f)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case []int64:
		parts := make([]string, len(x))
		for i, n := range x {
			parts[i] = strconv.FormatInt(n, 10)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	}
	// Other TOML values (local dates and times) print as TOML writes them.
	return fmt.Sprint(v)
}

// tomlTable prints an inline table, keys sorted: { a = 1, b = "x" }.
func tomlTable(m map[string]any) string {
	if len(m) == 0 {
		return "{}"
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = tomlKey(k) + " = " + tomlValue(m[k])
	}
	return "{ " + strings.Join(parts, ", ") + " }"
}

// tomlKey prints a key bare when TOML allows it, else quoted.
func tomlKey(k string) string {
	if k == "" {
		return `""`
	}
	for _, c := range k {
		if !(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return tomlString(k)
		}
	}
	return k
}

// tomlString prints s as a TOML basic string.
func tomlString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		i += n
		switch {
		case r == '"':
			b.WriteString(`\"`)
		case r == '\\':
			b.WriteString(`\\`)
		case r == '\b':
			b.WriteString(`\b`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\f':
			b.WriteString(`\f`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == utf8.RuneError && n == 1:
			b.WriteString(`\uFFFD`) // invalid UTF-8: TOML has no byte escapes
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\u%04X`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// tomlFloat prints f as a TOML float: always with a fraction or an
// exponent (1.0, not 1), inf and nan by their TOML names.
func tomlFloat(f float64) string {
	switch {
	case math.IsNaN(f):
		return "nan"
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	}
	s := strconv.FormatFloat(f, 'g', -1, 64)
	if !strings.ContainsAny(s, ".e") {
		s += ".0"
	}
	return s
}
