package main

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"io"
	"os"
	"strings"
	"testing"
)

// TestDefaultPGONamesNoPath reads default.pgo, the profile go build uses for
// this binary (scripts/pgo/pgo.sh), and fails if its string table holds an
// absolute path: a profile taken without pgo.sh's -trimpath and
// sanitize.py would commit the paths of the machine it was taken on.
func TestDefaultPGONamesNoPath(t *testing.T) {
	raw, err := os.ReadFile("default.pgo")
	if err != nil {
		t.Fatal(err)
	}
	zr, err := gzip.NewReader(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	buf, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	strs, err := pprofStrings(buf)
	if err != nil {
		t.Fatal(err)
	}
	if len(strs) < 100 {
		t.Fatalf("default.pgo has %d strings: not a profile of the studies", len(strs))
	}
	for _, s := range strs {
		if strings.HasPrefix(s, "/") || strings.Contains(s, ":\\") {
			t.Errorf("default.pgo names a path of a machine: %q (regenerate it with scripts/pgo/pgo.sh)", s)
		}
	}
}

// pprofStrings returns the string table of a decoded pprof profile: the
// top-level field 6 of profile.proto, every other field skipped.
func pprofStrings(b []byte) ([]string, error) {
	var out []string
	for len(b) > 0 {
		key, n := binary.Uvarint(b)
		if n <= 0 {
			return nil, io.ErrUnexpectedEOF
		}
		b = b[n:]
		switch key & 7 {
		case 0:
			_, n = binary.Uvarint(b)
			if n <= 0 {
				return nil, io.ErrUnexpectedEOF
			}
			b = b[n:]
		case 1, 5:
			w := 8
			if key&7 == 5 {
				w = 4
			}
			if len(b) < w {
				return nil, io.ErrUnexpectedEOF
			}
			b = b[w:]
		case 2:
			l, n := binary.Uvarint(b)
			if n <= 0 || uint64(len(b)-n) < l {
				return nil, io.ErrUnexpectedEOF
			}
			if key>>3 == 6 {
				out = append(out, string(b[n:n+int(l)]))
			}
			b = b[n+int(l):]
		default:
			return nil, io.ErrUnexpectedEOF
		}
	}
	return out, nil
}
