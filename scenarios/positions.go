package scenarios

import (
	"strconv"
	"strings"
)

// BurntSushi/toml keeps a position per key only internally, and for arrays
// of tables ([[case]]) it keeps just the last element's. So the loader finds
// lines itself: after the decoder has accepted a file (so its syntax is
// valid), scanLines walks the source once, tracking the current table
// header, and records the line of every header and every "key = value".
// Values are skipped with a small lexer that knows strings (basic, literal,
// multi-line), comments, and arrays and inline tables spanning lines, so
// text inside a value is never mistaken for a key. Keys inside an inline
// table are not recorded; they resolve to the line of the key that holds
// the table, which is the same line (inline tables cannot span lines).

// lineIndex maps a key path to the line (1-based) that defines it. Paths
// are dotted; the elements of an array of tables carry an index:
// "case[2].workload.demo.servers".
type lineIndex map[string]int

// line returns the line of path, or of its nearest ancestor that has one,
// or 0.
func (ix lineIndex) line(path string) int {
	for path != "" {
		if l, ok := ix[path]; ok {
			return l
		}
		path = parentPath(path)
	}
	return 0
}

// parentPath strips the last segment (or array index) of a path.
func parentPath(p string) string {
	if strings.HasSuffix(p, "]") {
		if i := strings.LastIndexByte(p, '['); i >= 0 {
			return p[:i]
		}
	}
	if i := strings.LastIndexByte(p, '.'); i >= 0 {
		return p[:i]
	}
	return ""
}

func joinPath(prefix, key string) string {
	if prefix == "" {
		return key
	}
	return prefix + "." + key
}

type lineScanner struct {
	src    string
	i      int
	line   int
	ix     lineIndex
	arrays map[string]int // resolved array-of-tables path -> element count
}

func scanLines(src string) lineIndex {
	s := &lineScanner{src: src, line: 1, ix: lineIndex{}, arrays: map[string]int{}}
	s.run()
	return s.ix
}

func (s *lineScanner) peek(k int) byte {
	if s.i+k < len(s.src) {
		return s.src[s.i+k]
	}
	return 0
}

func (s *lineScanner) advance() {
	if s.src[s.i] == '\n' {
		s.line++
	}
	s.i++
}

func (s *lineScanner) skipSpace() {
	for s.i < len(s.src) && (s.src[s.i] == ' ' || s.src[s.i] == '\t' || s.src[s.i] == '\r') {
		s.i++
	}
}

func (s *lineScanner) skipToEOL() {
	for s.i < len(s.src) && s.src[s.i] != '\n' {
		s.i++
	}
}

func (s *lineScanner) run() {
	prefix := ""
	for s.i < len(s.src) {
		s.skipSpace()
		if s.i >= len(s.src) {
			return
		}
		switch c := s.src[s.i]; {
		case c == '\n':
			s.advance()
		case c == '#':
			s.skipToEOL()
		case c == '[':
			line := s.line
			array := s.peek(1) == '['
			if array {
				s.i += 2
			} else {
				s.i++
			}
			segs := s.key()
			prefix = s.resolve(segs, array)
			s.ix[prefix] = line
			s.skipToEOL()
		default:
			line := s.line
			segs := s.key()
			if len(segs) == 0 { // not a key: give up on this line
				s.skipToEOL()
				continue
			}
			p := prefix
			for _, seg := range segs {
				p = joinPath(p, seg)
				if _, ok := s.ix[p]; !ok {
					s.ix[p] = line
				}
			}
			s.ix[p] = line
			s.skipSpace()
			if s.peek(0) == '=' {
				s.i++
				s.value()
			}
			s.skipToEOL()
		}
	}
}

// resolve turns the segments of a table header into a path, inserting the
// current element index of every array of tables on the way.
func (s *lineScanner) resolve(segs []string, array bool) string {
	p := ""
	for k, seg := range segs {
		p = joinPath(p, seg)
		last := k == len(segs)-1
		if last && array {
			n := s.arrays[p]
			s.arrays[p] = n + 1
			return p + "[" + strconv.Itoa(n) + "]"
		}
		if n, ok := s.arrays[p]; ok && n > 0 {
			p += "[" + strconv.Itoa(n-1) + "]"
		}
	}
	return p
}

// key reads a dotted key (bare, "basic" or 'literal' segments).
func (s *lineScanner) key() []string {
	var segs []string
	for {
		s.skipSpace()
		if s.i >= len(s.src) {
			return segs
		}
		c := s.src[s.i]
		switch {
		case c == '"':
			segs = append(segs, s.basicString())
		case c == '\'':
			s.i++
			start := s.i
			for s.i < len(s.src) && s.src[s.i] != '\'' && s.src[s.i] != '\n' {
				s.i++
			}
			segs = append(segs, s.src[start:s.i])
			if s.i < len(s.src) && s.src[s.i] == '\'' {
				s.i++
			}
		case isBare(c):
			start := s.i
			for s.i < len(s.src) && isBare(s.src[s.i]) {
				s.i++
			}
			segs = append(segs, s.src[start:s.i])
		default:
			return segs
		}
		s.skipSpace()
		if s.peek(0) != '.' {
			return segs
		}
		s.i++
	}
}

func isBare(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-'
}

// basicString reads a "..." string at s.i and returns its unescaped text
// (escapes other than \" and \\ are kept verbatim; keys rarely have them).
func (s *lineScanner) basicString() string {
	s.i++
	var b strings.Builder
	for s.i < len(s.src) && s.src[s.i] != '"' && s.src[s.i] != '\n' {
		if s.src[s.i] == '\\' && s.i+1 < len(s.src) {
			s.i++
		}
		b.WriteByte(s.src[s.i])
		s.i++
	}
	if s.i < len(s.src) && s.src[s.i] == '"' {
		s.i++
	}
	return b.String()
}

// value skips one value, which may span lines inside brackets or
// multi-line strings, leaving s.i at the end of its last line's content.
func (s *lineScanner) value() {
	depth := 0
	for s.i < len(s.src) {
		c := s.src[s.i]
		switch {
		case c == '\n':
			if depth == 0 {
				return
			}
			s.advance()
		case c == '#':
			s.skipToEOL()
		case strings.HasPrefix(s.src[s.i:], `"""`):
			s.multiline(`"""`, true)
		case strings.HasPrefix(s.src[s.i:], `'''`):
			s.multiline(`'''`, false)
		case c == '"':
			s.basicString()
		case c == '\'':
			s.i++
			for s.i < len(s.src) && s.src[s.i] != '\'' && s.src[s.i] != '\n' {
				s.i++
			}
			if s.i < len(s.src) && s.src[s.i] == '\'' {
				s.i++
			}
		case c == '[' || c == '{':
			depth++
			s.i++
		case c == ']' || c == '}':
			depth--
			s.i++
			if depth < 0 {
				depth = 0
			}
		default:
			s.i++
		}
	}
}

func (s *lineScanner) multiline(delim string, escapes bool) {
	s.i += 3
	for s.i < len(s.src) {
		if escapes && s.src[s.i] == '\\' && s.i+1 < len(s.src) {
			s.advance()
			s.advance()
			continue
		}
		if strings.HasPrefix(s.src[s.i:], delim) {
			s.i += 3
			// A closing delimiter may be followed by up to two more quotes.
			for k := 0; k < 2 && s.i < len(s.src) && s.src[s.i] == delim[0]; k++ {
				s.i++
			}
			return
		}
		s.advance()
	}
}
