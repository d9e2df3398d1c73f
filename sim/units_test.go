package sim

import (
	"strings"
	"testing"
	"time"
)

func TestParseBytes(t *testing.T) {
	tests := []struct {
		in     string
		want   Bytes
		errSub string // non-empty: an error containing this is expected
	}{
		{"16KiB", 16 << 10, ""},
		{"16 KiB", 16 << 10, ""},
		{"1GiB", 1 << 30, ""},
		{"1Gi", 1 << 30, ""},
		{"4k", 4000, ""},
		{"4K", 4000, ""},
		{"4kB", 4000, ""},
		{"4KB", 4000, ""},
		{"120MB", 120e6, ""},
		{"4096", 0, "a size needs a unit; allowed units: B, KiB"},
		{"4096B", 4096, ""},
		{"1.5KiB", 1536, ""},
		{"0.1MB", 100000, ""},
		{"1e3B", 1000, ""},
		{"15_000B", 15000, ""},
		{"2TiB", 2 << 40, ""},
		{"0", 0, ""},
		{"16KB/s", 0, `bad size "16KB/s": a rate is not a size; want a size like 16KiB or 4MB`},
		{"4kb", 0, "b means bits"},
		{"4mB", 0, "m means milli"},
		{"4KIB", 0, "binary prefixes"},
		{"1.5B", 0, "not a whole number"},
		{"-4KiB", 0, "must not be negative"},
		{"", 0, "want a size"},
		{"KiB", 0, "want a size"},
		{"1..2k", 0, "want a size"},
		{"99999999999TiB", 0, "too large"},
		{"1/2", 0, "want a size"},
		{"0x10", 0, "want a size"},
		{"1e999999999KiB", 0, "want a size"}, // must fail fast, not expand
		{"1e-999999999", 0, "want a size"},
	}
	for _, tt := range tests {
		got, err := ParseBytes(tt.in)
		if tt.errSub != "" {
			if err == nil || !strings.Contains(err.Error(), tt.errSub) {
				t.Errorf("ParseBytes(%q) = %v, %v; want error containing %q", tt.in, got, err, tt.errSub)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("ParseBytes(%q) = %v, %v; want %d", tt.in, got, err, tt.want)
		}
	}
}

func TestParseRate(t *testing.T) {
	tests := []struct {
		in     string
		want   Rate
		errSub string
	}{
		{"120MB/s", 120e6, ""},
		{"125MiB/s", 125 << 20, ""},
		{"54 MB/s", 54e6, ""},
		{"1GB/s", 1e9, ""},
		{"1000", 0, "a rate needs a unit; allowed units: B/s"},
		{"0", 0, ""},
		{"500B/s", 500, ""},
		{"120MB", 0, "a size is not a rate"},
		{"120Mb/s", 0, "b means bits"},
		{"fast", 0, "want a rate"},
		{"-1MB/s", 0, "must not be negative"},
		{"0.5B/s", 0, "whole number of bytes per second"},
	}
	for _, tt := range tests {
		got, err := ParseRate(tt.in)
		if tt.errSub != "" {
			if err == nil || !strings.Contains(err.Error(), tt.errSub) {
				t.Errorf("ParseRate(%q) = %v, %v; want error containing %q", tt.in, got, err, tt.errSub)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("ParseRate(%q) = %v, %v; want %d", tt.in, got, err, tt.want)
		}
	}
}

func TestParseCount(t *testing.T) {
	tests := []struct {
		in     string
		want   Count
		errSub string
	}{
		{"6750", 6750, ""},
		{"6.75k", 6750, ""},
		{"6.75K", 6750, ""},
		{"1.2M", 1.2e6, ""},
		{"900/s", 900, ""},
		{"15k/s", 15000, ""},
		{"0.5", 0.5, ""},
		{"2G", 2e9, ""},
		{"6.75Ki", 0, "decimal prefixes"},
		{"1m", 0, "m means milli"},
		{"-3", 0, "must not be negative"},
		{"lots", 0, "want a number"},
	}
	for _, tt := range tests {
		got, err := ParseCount(tt.in)
		if tt.errSub != "" {
			if err == nil || !strings.Contains(err.Error(), tt.errSub) {
				t.Errorf("ParseCount(%q) = %v, %v; want error containing %q", tt.in, got, err, tt.errSub)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("ParseCount(%q) = %v, %v; want %v", tt.in, got, err, tt.want)
		}
	}
}

func TestParseDuration(t *testing.T) {
	tests := []struct {
		in     string
		want   time.Duration
		errSub string
	}{
		{"1.5ms", 1500 * time.Microsecond, ""},
		{"600s", 600 * time.Second, ""},
		{"250us", 250 * time.Microsecond, ""},
		{"250µs", 250 * time.Microsecond, ""},
		{"1m30s", 90 * time.Second, ""},
		{"2 ms", 2 * time.Millisecond, ""},
		{"0", 0, ""},
		{"10", 0, "needs a unit"},
		{"-1s", 0, "must not be negative"},
		{"1.5 fortnights", 0, "want a duration"},
		{"", 0, "want a duration"},
	}
	for _, tt := range tests {
		got, err := ParseDuration(tt.in)
		if tt.errSub != "" {
			if err == nil || !strings.Contains(err.Error(), tt.errSub) {
				t.Errorf("ParseDuration(%q) = %v, %v; want error containing %q", tt.in, got, err, tt.errSub)
			}
			continue
		}
		if err != nil || got.D() != tt.want {
			t.Errorf("ParseDuration(%q) = %v, %v; want %v", tt.in, got, err, tt.want)
		}
	}
}

// TestUnitsRoundTrip checks that String output parses back to the same value.
func TestUnitsRoundTrip(t *testing.T) {
	for _, b := range []Bytes{0, 1, 1000, 1024, 1536, 16 * KiB, 120 * MB, GiB, 12345, 3 * TiB} {
		got, err := ParseBytes(b.String())
		if err != nil || got != b {
			t.Errorf("Bytes %d -> %q -> %v, %v", int64(b), b.String(), got, err)
		}
	}
	for _, r := range []Rate{0, 120e6, 125 << 20, 54e6, 7} {
		got, err := ParseRate(r.String())
		if err != nil || got != r {
			t.Errorf("Rate %d -> %q -> %v, %v", int64(r), r.String(), got, err)
		}
	}
	for _, c := range []Count{0, 6750, 0.25, 1.2e6} {
		got, err := ParseCount(c.String())
		if err != nil || got != c {
			t.Errorf("Count %v -> %q -> %v, %v", float64(c), c.String(), got, err)
		}
	}
	for _, d := range []Duration{0, 1, Duration(250 * time.Microsecond), Duration(1500 * time.Microsecond), Duration(10 * time.Minute)} {
		got, err := ParseDuration(d.String())
		if err != nil || got != d {
			t.Errorf("Duration %d -> %q -> %v, %v", int64(d), d.String(), got, err)
		}
	}
	if s := Duration(250 * time.Microsecond).String(); s != "250us" {
		t.Errorf("Duration string = %q, want ASCII 250us", s)
	}
	// The exact form with the fewest digits, binary on a tie.
	for b, want := range map[Bytes]string{120 * MB: "120MB", 900 * GB: "900GB", 1 << 30: "1GiB", 1500: "1500B", 2048: "2KiB", 3 << 20: "3MiB", 0: "0B"} {
		if s := b.String(); s != want {
			t.Errorf("Bytes(%d).String() = %q, want %q", int64(b), s, want)
		}
	}
}

func TestUnmarshalTOMLValues(t *testing.T) {
	var b Bytes
	// A bare number is refused: bandwidth_max = 120 once ran at 120 B/s.
	if err := b.UnmarshalTOML(int64(4096)); err == nil || !strings.Contains(err.Error(), "needs a unit") {
		t.Errorf("Bytes from int: %v, %v", b, err)
	}
	if err := b.UnmarshalTOML(float64(2048)); err == nil || !strings.Contains(err.Error(), "needs a unit") {
		t.Errorf("Bytes from whole float: %v, %v", b, err)
	}
	if err := b.UnmarshalTOML(int64(0)); err != nil || b != 0 {
		t.Errorf("Bytes from 0: %v, %v", b, err)
	}
	if err := b.UnmarshalTOML(1.5); err == nil {
		t.Errorf("Bytes from 1.5: want error")
	}
	if err := b.UnmarshalTOML(true); err == nil || !strings.Contains(err.Error(), "boolean") {
		t.Errorf("Bytes from bool: %v", err)
	}
	var r Rate
	if err := r.UnmarshalTOML(int64(-1)); err == nil {
		t.Errorf("Rate from -1: want error")
	}
	if err := r.UnmarshalTOML(int64(120)); err == nil || !strings.Contains(err.Error(), "allowed units: B/s, KiB/s") {
		t.Errorf("Rate from 120: %v, %v", r, err)
	}
	var c Count
	if err := c.UnmarshalTOML(6.75e3); err != nil || c != 6750 {
		t.Errorf("Count from float: %v, %v", c, err)
	}
	var d Duration
	if err := d.UnmarshalTOML(int64(5)); err == nil || !strings.Contains(err.Error(), "needs a unit") {
		t.Errorf("Duration from 5: %v", err)
	}
	if err := d.UnmarshalTOML(int64(0)); err != nil || d != 0 {
		t.Errorf("Duration from 0: %v, %v", d, err)
	}
}
