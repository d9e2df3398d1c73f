package sim

import (
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
	"time"
)

// Units a person writes in a scenario file. Each type parses from a string
// with a unit ("16KiB", "120MB/s", "6.75k", "1.5ms") and, where a bare number
// is unambiguous, from a TOML integer or float. The rules are stated in
// docs/scenarios.md; in short:
//
//   - decimal prefixes k (or K), M, G, T are powers of 1000;
//   - binary prefixes Ki, Mi, Gi, Ti are powers of 1024;
//   - the B after a size prefix is optional ("4k" = "4kB" = 4000 bytes);
//   - a lower-case b (bits) and m (milli) are rejected rather than guessed;
//   - sizes and rates must come out as whole bytes; nothing may be negative.
//
// Parsing is exact (math/big rationals), so "1.5KiB" is 1536 and "0.1MB" is
// 100000 with no float rounding.

// Bytes is a size in bytes.
type Bytes int64

// Size units.
const (
	KB Bytes = 1000
	MB Bytes = 1000 * KB
	GB Bytes = 1000 * MB
	TB Bytes = 1000 * GB

	KiB Bytes = 1 << 10
	MiB Bytes = 1 << 20
	GiB Bytes = 1 << 30
	TiB Bytes = 1 << 40
)

// Rate is a bandwidth in bytes per second.
type Rate int64

// Count is a number of things or events, possibly per second (IOPS, arrival
// rates, thread counts written as "6.75k"). It is a float because rates of
// events need not be whole.
type Count float64

// Duration is a span of virtual time written with a unit ("1.5ms", "600s").
type Duration time.Duration

// prefix is one accepted multiplier prefix.
type prefix struct {
	name string
	mult int64
}

// sizePrefixes lists the accepted size prefixes, longest first so that "Ki"
// wins over "K".
var sizePrefixes = []prefix{
	{"Ki", 1 << 10}, {"Mi", 1 << 20}, {"Gi", 1 << 30}, {"Ti", 1 << 40},
	{"k", 1e3}, {"K", 1e3}, {"M", 1e6}, {"G", 1e9}, {"T", 1e12},
	{"", 1},
}

// countPrefixes are the decimal prefixes a Count accepts.
var countPrefixes = []prefix{
	{"k", 1e3}, {"K", 1e3}, {"M", 1e6}, {"G", 1e9}, {"T", 1e12}, {"", 1},
}

// sizeUnits and rateUnits list the units a size and a rate accept, for
// the error that a bare number gets.
const (
	sizeUnits = "B, KiB, MiB, GiB, TiB, kB, MB, GB, TB"
	rateUnits = "B/s, KiB/s, MiB/s, GiB/s, kB/s, MB/s, GB/s"
)

const (
	wantSize     = "want a size like 16KiB or 4MB"
	wantRate     = "want a rate like 120MB/s or 125MiB/s"
	wantCount    = "want a number like 6750, 6.75k or 1.2M"
	wantDuration = "want a duration like 1.5ms, 250us or 600s"
)

// splitNumber splits s into a leading decimal number and the rest (the
// unit), both trimmed. The number may have a sign, a fraction and an
// exponent ("1e6"); an 'e' counts as an exponent only when a digit follows.
func splitNumber(s string) (num, unit string) {
	s = strings.TrimSpace(s)
	i := 0
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	for i < len(s) && (s[i] >= '0' && s[i] <= '9' || s[i] == '.' || s[i] == '_') {
		i++
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		j := i + 1
		if j < len(s) && (s[j] == '+' || s[j] == '-') {
			j++
		}
		if j < len(s) && s[j] >= '0' && s[j] <= '9' {
			for j < len(s) && s[j] >= '0' && s[j] <= '9' {
				j++
			}
			i = j
		}
	}
	return s[:i], strings.TrimSpace(s[i:])
}

// parseRat parses a decimal number exactly. Underscores between digits are
// allowed, as in TOML ("15_000").
func parseRat(num string) (*big.Rat, bool) {
	if num == "" || strings.HasPrefix(num, "_") || strings.HasSuffix(num, "_") || strings.Contains(num, "__") {
		return nil, false
	}
	num = strings.ReplaceAll(num, "_", "")
	// big.Rat accepts fractions "1/2" and hex; only plain decimals are meant.
	for _, c := range num {
		if !(c >= '0' && c <= '9' || c == '.' || c == '+' || c == '-' || c == 'e' || c == 'E') {
			return nil, false
		}
	}
	if strings.Count(num, ".") > 1 || num == "." || strings.HasPrefix(num, "+.") || strings.HasPrefix(num, "-.") {
		return nil, false
	}
	// big.Rat would expand "1e999999999" into a billion digits.
	if i := strings.IndexAny(num, "eE"); i >= 0 {
		if e, err := strconv.Atoi(num[i+1:]); err != nil || e < -30 || e > 30 {
			return nil, false
		}
	}
	r, ok := new(big.Rat).SetString(num)
	return r, ok
}

// scaledInt returns r*mult if it is a whole number that fits an int64.
func scaledInt(r *big.Rat, mult int64) (int64, string) {
	v := new(big.Rat).Mul(r, new(big.Rat).SetInt64(mult))
	if !v.IsInt() {
		return 0, "not a whole number of bytes"
	}
	n := v.Num()
	if !n.IsInt64() {
		return 0, "too large"
	}
	return n.Int64(), ""
}

// needUnit says that a bare number needs one of the units.
func needUnit(kind, units string) string {
	return fmt.Sprintf("a %s needs a unit; allowed units: %s, e.g. %q", kind, units, map[string]string{"size": "16KiB", "rate": "120MB/s"}[kind])
}

func unitErr(kind string, input any, msg string) error {
	if s, ok := input.(string); ok {
		return fmt.Errorf("bad %s %q: %s", kind, s, msg)
	}
	return fmt.Errorf("bad %s %v: %s", kind, input, msg)
}

// parseSizeUnit returns the multiplier of a size unit ("KiB", "k", "MB", "").
func parseSizeUnit(u string) (int64, bool) {
	for _, p := range sizePrefixes {
		if u == p.name || u == p.name+"B" {
			return p.mult, true
		}
	}
	return 0, false
}

// ParseBytes parses a size such as "16KiB", "1GiB", "4k", "4096B" or
// "1.5MB". A bare number other than 0 is rejected: is 120 bytes, kB or MB?
func ParseBytes(s string) (Bytes, error) {
	num, unit := splitNumber(s)
	r, ok := parseRat(num)
	if !ok {
		return 0, unitErr("size", s, wantSize)
	}
	if unit == "" && r.Sign() != 0 {
		return 0, unitErr("size", s, needUnit("size", sizeUnits))
	}
	mult, ok := parseSizeUnit(unit)
	if !ok {
		return 0, unitErr("size", s, unitHint(unit, wantSize))
	}
	if r.Sign() < 0 {
		return 0, unitErr("size", s, "must not be negative")
	}
	n, why := scaledInt(r, mult)
	if why != "" {
		return 0, unitErr("size", s, why)
	}
	return Bytes(n), nil
}

// unitHint explains common mistakes before repeating what is wanted.
func unitHint(unit, want string) string {
	switch {
	case strings.HasSuffix(unit, "/s") && want == wantSize:
		return "a rate is not a size; " + want
	case strings.HasSuffix(unit, "b") || strings.HasSuffix(unit, "bit") || strings.HasSuffix(unit, "bps"):
		return "b means bits; sizes are in bytes (B); " + want
	case strings.HasPrefix(unit, "m") && want != wantDuration:
		return "m means milli; write M for mega; " + want
	case strings.HasPrefix(unit, "KI") || strings.HasPrefix(unit, "ki") || strings.HasPrefix(unit, "MI") || strings.HasPrefix(unit, "GI"):
		return "binary prefixes are Ki, Mi, Gi, Ti; " + want
	}
	return want
}

// String prints b exactly, in the largest binary unit that divides it, else
// the largest decimal unit, else bytes: "16KiB", "120MB", "1000B".
func (b Bytes) String() string { return formatSize(int64(b), "") }

func formatSize(n int64, suffix string) string {
	if n == 0 {
		return "0B" + suffix
	}
	type u struct {
		name string
		mult int64
	}
	// The exact form with the fewest digits, binary on a tie: 1GiB,
	// 900GB (not 878906250KiB), 1500B.
	best := strconv.FormatInt(n, 10) + "B"
	digits := len(best) - 1
	for _, units := range [][]u{{{"TiB", 1 << 40}, {"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}},
		{{"TB", 1e12}, {"GB", 1e9}, {"MB", 1e6}, {"kB", 1e3}}} {
		for _, x := range units {
			if n%x.mult == 0 {
				if d := strconv.FormatInt(n/x.mult, 10); len(d) < digits {
					best, digits = d+x.name, len(d)
				}
				break
			}
		}
	}
	return best + suffix
}

// MarshalText implements encoding.TextMarshaler.
func (b Bytes) MarshalText() ([]byte, error) { return []byte(b.String()), nil }

// UnmarshalText implements encoding.TextUnmarshaler.
func (b *Bytes) UnmarshalText(text []byte) error {
	v, err := ParseBytes(string(text))
	if err != nil {
		return err
	}
	*b = v
	return nil
}

// UnmarshalTOML accepts a string with a unit, or the number 0.
func (b *Bytes) UnmarshalTOML(v any) error {
	n, err := tomlInt(v, "size", wantSize+" (a string)")
	if err == nil {
		if n != 0 {
			return unitErr("size", v, needUnit("size", sizeUnits)+" (a string)")
		}
		*b = 0
		return nil
	}
	if s, ok := v.(string); ok {
		return b.UnmarshalText([]byte(s))
	}
	return err
}

// tomlInt converts a TOML integer or whole float to a non-negative int64.
func tomlInt(v any, kind, want string) (int64, error) {
	switch x := v.(type) {
	case int64:
		if x < 0 {
			return 0, unitErr(kind, x, "must not be negative")
		}
		return x, nil
	case float64:
		if x != math.Trunc(x) || math.IsInf(x, 0) || math.IsNaN(x) || x >= 1<<63 {
			return 0, unitErr(kind, x, "not a whole number; "+want)
		}
		if x < 0 {
			return 0, unitErr(kind, x, "must not be negative")
		}
		return int64(x), nil
	case string:
		return 0, errNotNumber
	}
	return 0, typeErr(kind, v, want)
}

// typeErr reports a TOML value of a type the unit cannot take.
func typeErr(kind string, v any, want string) error {
	return fmt.Errorf("bad %s: got a %s; %s", kind, tomlTypeName(v), want)
}

var errNotNumber = fmt.Errorf("not a number")

// tomlTypeName names the TOML type of a decoded value, for error messages.
func tomlTypeName(v any) string {
	switch v.(type) {
	case int64:
		return "integer"
	case float64:
		return "float"
	case string:
		return "string"
	case bool:
		return "boolean"
	case []any, []map[string]any:
		return "array"
	case map[string]any:
		return "table"
	case time.Time:
		return "datetime"
	}
	return fmt.Sprintf("%T", v)
}

// ParseRate parses a bandwidth such as "120MB/s", "125MiB/s" or "1GB/s". A
// bare number other than 0 is rejected: "120" ran at 120 B/s where
// 120 MB/s was meant.
func ParseRate(s string) (Rate, error) {
	num, unit := splitNumber(s)
	r, ok := parseRat(num)
	if !ok {
		return 0, unitErr("rate", s, wantRate)
	}
	var mult int64
	switch {
	case unit == "" && r.Sign() == 0:
		mult = 1
	case unit == "":
		return 0, unitErr("rate", s, needUnit("rate", rateUnits))
	case strings.HasSuffix(unit, "/s"):
		mult, ok = parseSizeUnit(strings.TrimSuffix(unit, "/s"))
		if !ok {
			return 0, unitErr("rate", s, unitHint(strings.TrimSuffix(unit, "/s"), wantRate))
		}
	default:
		if _, isSize := parseSizeUnit(unit); isSize {
			return 0, unitErr("rate", s, "a size is not a rate (add /s); "+wantRate)
		}
		return 0, unitErr("rate", s, unitHint(unit, wantRate))
	}
	if r.Sign() < 0 {
		return 0, unitErr("rate", s, "must not be negative")
	}
	n, why := scaledInt(r, mult)
	if why != "" {
		return 0, unitErr("rate", s, strings.Replace(why, "bytes", "bytes per second", 1))
	}
	return Rate(n), nil
}

// String prints r exactly like a size followed by "/s": "120MB/s".
func (r Rate) String() string { return formatSize(int64(r), "/s") }

// BytesPerSecond returns r as a float, for reporting.
func (r Rate) BytesPerSecond() float64 { return float64(r) }

// MarshalText implements encoding.TextMarshaler.
func (r Rate) MarshalText() ([]byte, error) { return []byte(r.String()), nil }

// UnmarshalText implements encoding.TextUnmarshaler.
func (r *Rate) UnmarshalText(text []byte) error {
	v, err := ParseRate(string(text))
	if err != nil {
		return err
	}
	*r = v
	return nil
}

// UnmarshalTOML accepts a string with a unit, or the number 0.
func (r *Rate) UnmarshalTOML(v any) error {
	n, err := tomlInt(v, "rate", wantRate+" (a string)")
	if err == nil {
		if n != 0 {
			return unitErr("rate", v, needUnit("rate", rateUnits)+" (a string)")
		}
		*r = 0
		return nil
	}
	if s, ok := v.(string); ok {
		return r.UnmarshalText([]byte(s))
	}
	return err
}

// ParseCount parses a count or rate of events: "6750", "6.75k", "1.2M", with
// an optional "/s" ("900/s").
func ParseCount(s string) (Count, error) {
	num, unit := splitNumber(s)
	r, ok := parseRat(num)
	if !ok {
		return 0, unitErr("number", s, wantCount)
	}
	unit = strings.TrimSpace(strings.TrimSuffix(unit, "/s"))
	var mult int64
	for _, p := range countPrefixes {
		if unit == p.name {
			mult = p.mult
			break
		}
	}
	if mult == 0 {
		hint := wantCount
		if _, isSize := parseSizeUnit(unit); isSize || strings.Contains(unit, "i") {
			hint = "counts take decimal prefixes k, M, G, T only; " + wantCount
		} else if strings.HasPrefix(unit, "m") {
			hint = "m means milli; write M for mega; " + wantCount
		}
		return 0, unitErr("number", s, hint)
	}
	if r.Sign() < 0 {
		return 0, unitErr("number", s, "must not be negative")
	}
	f, _ := new(big.Rat).Mul(r, new(big.Rat).SetInt64(mult)).Float64()
	if math.IsInf(f, 0) {
		return 0, unitErr("number", s, "too large")
	}
	return Count(f), nil
}

// String prints c as a plain decimal number ("6750", "0.5").
func (c Count) String() string { return strconv.FormatFloat(float64(c), 'f', -1, 64) }

// Float returns c as a float64.
func (c Count) Float() float64 { return float64(c) }

// MarshalText implements encoding.TextMarshaler.
func (c Count) MarshalText() ([]byte, error) { return []byte(c.String()), nil }

// UnmarshalText implements encoding.TextUnmarshaler.
func (c *Count) UnmarshalText(text []byte) error {
	v, err := ParseCount(string(text))
	if err != nil {
		return err
	}
	*c = v
	return nil
}

// UnmarshalTOML accepts a number or a string such as "6.75k".
func (c *Count) UnmarshalTOML(v any) error {
	switch x := v.(type) {
	case int64:
		if x < 0 {
			return unitErr("number", x, "must not be negative")
		}
		*c = Count(x)
		return nil
	case float64:
		if x < 0 || math.IsNaN(x) || math.IsInf(x, 0) {
			return unitErr("number", x, "must be finite and not negative")
		}
		*c = Count(x)
		return nil
	case string:
		return c.UnmarshalText([]byte(x))
	}
	return typeErr("number", v, wantCount)
}

// ParseDuration parses a duration such as "1.5ms", "250us", "250µs", "600s"
// or "1m30s" (Go's time.ParseDuration syntax). Negative durations are
// rejected; a bare number other than 0 is rejected because its unit would
// be a guess.
func ParseDuration(s string) (Duration, error) {
	t := strings.TrimSpace(s)
	if t == "" {
		return 0, unitErr("duration", s, wantDuration)
	}
	if num, unit := splitNumber(t); unit == "" && num != "" {
		if r, ok := parseRat(num); ok && r.Sign() == 0 {
			return 0, nil
		}
		return 0, unitErr("duration", s, "a duration needs a unit; "+wantDuration)
	}
	d, err := time.ParseDuration(strings.ReplaceAll(t, " ", ""))
	if err != nil {
		return 0, unitErr("duration", s, wantDuration+" (units ns, us, ms, s, m, h)")
	}
	if d < 0 {
		return 0, unitErr("duration", s, "must not be negative")
	}
	return Duration(d), nil
}

// D returns d as a time.Duration.
func (d Duration) D() time.Duration { return time.Duration(d) }

// Seconds returns d in seconds, for reporting.
func (d Duration) Seconds() float64 { return time.Duration(d).Seconds() }

// String prints d like time.Duration but with an ASCII "us" for
// microseconds, so that output stays plain ASCII: "1.5ms", "250us", "10m0s".
func (d Duration) String() string {
	return strings.Replace(time.Duration(d).String(), "µs", "us", 1)
}

// MarshalText implements encoding.TextMarshaler.
func (d Duration) MarshalText() ([]byte, error) { return []byte(d.String()), nil }

// UnmarshalText implements encoding.TextUnmarshaler.
func (d *Duration) UnmarshalText(text []byte) error {
	v, err := ParseDuration(string(text))
	if err != nil {
		return err
	}
	*d = v
	return nil
}

// UnmarshalTOML accepts a string with a unit, or the number 0.
func (d *Duration) UnmarshalTOML(v any) error {
	switch x := v.(type) {
	case string:
		return d.UnmarshalText([]byte(x))
	case int64:
		if x == 0 {
			*d = 0
			return nil
		}
		return unitErr("duration", x, "a duration needs a unit; "+wantDuration+" (a string)")
	case float64:
		if x == 0 {
			*d = 0
			return nil
		}
		return unitErr("duration", x, "a duration needs a unit; "+wantDuration+" (a string)")
	}
	return typeErr("duration", v, wantDuration+" (a string)")
}
