package scenarios

import (
	"fmt"
	"sort"
	"strings"
)

// Error is one problem in a scenario, located in its file.
type Error struct {
	File    string // as the user named it, or builtin:topic/name.toml
	Line    int    // 1-based; 0 if unknown
	Case    string // the case whose key is at fault, if any
	Path    string // dotted key path, e.g. workload.demo.servers
	Msg     string
	Allowed string // what would be accepted, if there is a short answer
}

// Error prints FILE:LINE: [case NAME: ]key.path: message (allowed: ...).
func (e *Error) Error() string {
	var b strings.Builder
	switch {
	case e.File != "" && e.Line > 0:
		fmt.Fprintf(&b, "%s:%d: ", e.File, e.Line)
	case e.File != "":
		fmt.Fprintf(&b, "%s: ", e.File)
	}
	if e.Case != "" {
		fmt.Fprintf(&b, "case %s: ", e.Case)
	}
	if e.Path != "" {
		b.WriteString(e.Path)
		b.WriteString(": ")
	}
	b.WriteString(e.Msg)
	if e.Allowed != "" {
		fmt.Fprintf(&b, " (allowed: %s)", e.Allowed)
	}
	return b.String()
}

// ErrorList is every problem found in a scenario, in file and line order.
// Loading reports all of them at once rather than one per attempt.
type ErrorList []*Error

func (l ErrorList) Error() string {
	lines := make([]string, len(l))
	for i, e := range l {
		lines[i] = e.Error()
	}
	return strings.Join(lines, "\n")
}

// errs collects errors without duplicates.
type errs struct {
	list ErrorList
	seen map[string]bool
}

func (c *errs) add(e *Error) {
	if c.seen == nil {
		c.seen = map[string]bool{}
	}
	k := e.Error()
	if c.seen[k] {
		return
	}
	c.seen[k] = true
	c.list = append(c.list, e)
}

func (c *errs) addAll(l ErrorList) {
	for _, e := range l {
		c.add(e)
	}
}

func (c *errs) err() error {
	if len(c.list) == 0 {
		return nil
	}
	out := append(ErrorList(nil), c.list...)
	// Files in the order their first error was found (the top file's
	// errors usually first), lines in order within a file.
	rank := map[string]int{}
	for _, e := range out {
		if _, ok := rank[e.File]; !ok {
			rank[e.File] = len(rank)
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if ri, rj := rank[out[i].File], rank[out[j].File]; ri != rj {
			return ri < rj
		}
		return out[i].Line < out[j].Line
	})
	return out
}

// suggest returns a close match for a misspelt key, or "".
func suggest(key string, allowed []string) string {
	best, bestD := "", 3
	for _, a := range allowed {
		if d := editDistance(key, a); d < bestD {
			best, bestD = a, d
		}
	}
	return best
}

func editDistance(a, b string) int {
	if len(a) > 64 || len(b) > 64 {
		return 99
	}
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// Suggest returns the entry of allowed closest to name (at most two edits
// away), or "": the did-you-mean of a misspelt case or scenario name.
func Suggest(name string, allowed []string) string { return suggest(name, allowed) }
