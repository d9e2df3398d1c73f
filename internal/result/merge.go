package result

import (
	"bytes"
	"fmt"
	"strings"
)

// Merge joins the partial results of the shards of one sweep into the
// document the unsharded sweep would have written. The parts may come in
// any order. Every part must carry a Shard and agree on everything but its
// rows; every shard 0..n-1 must be present exactly once. A part that was
// itself interrupted (Partial) makes the merged document partial too.
func Merge(parts []*Document) (*Document, error) {
	if len(parts) == 0 {
		return nil, fmt.Errorf("result: merge: no parts")
	}
	first := parts[0]
	if first.Shard == nil {
		return nil, fmt.Errorf("result: merge: part 1 is not a shard (no \"shard\" field); only results written with --shard can be merged")
	}
	n, total := first.Shard.Count, first.Shard.Total
	head, err := header(first)
	if err != nil {
		return nil, err
	}
	seenShard := make([]int, n) // part number + 1 that holds shard i
	rows := make([]*Case, total)
	partial := false
	for pi, p := range parts {
		if p.Shard == nil {
			return nil, fmt.Errorf("result: merge: part %d is not a shard", pi+1)
		}
		s := p.Shard
		if s.Count != n || s.Total != total {
			return nil, fmt.Errorf("result: merge: part %d is shard %d/%d of %d rows; part 1 is of %d/%d rows",
				pi+1, s.Index, s.Count, s.Total, n, total)
		}
		if h, err := header(p); err != nil {
			return nil, err
		} else if !bytes.Equal(h, head) {
			return nil, fmt.Errorf("result: merge: part %d comes from a different run (scenario, seed, duration, replications or sweep differ)", pi+1)
		}
		if s.Index < 0 || s.Index >= n {
			return nil, fmt.Errorf("result: merge: part %d has shard index %d outside 0..%d", pi+1, s.Index, n-1)
		}
		if seenShard[s.Index] != 0 {
			return nil, fmt.Errorf("result: merge: shard %d/%d given twice (parts %d and %d)", s.Index, n, seenShard[s.Index], pi+1)
		}
		seenShard[s.Index] = pi + 1
		if len(s.Rows) != len(p.Cases) {
			return nil, fmt.Errorf("result: merge: part %d lists %d rows for %d cases", pi+1, len(s.Rows), len(p.Cases))
		}
		for i, r := range s.Rows {
			if r < 0 || r >= total || r%n != s.Index {
				return nil, fmt.Errorf("result: merge: part %d holds row %d, which is not in shard %d/%d", pi+1, r, s.Index, n)
			}
			if rows[r] != nil {
				return nil, fmt.Errorf("result: merge: row %d given twice", r)
			}
			rows[r] = &p.Cases[i]
		}
		partial = partial || p.Partial
	}
	var missing []string
	for i, pn := range seenShard {
		if pn == 0 {
			missing = append(missing, fmt.Sprint(i))
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("result: merge: missing shard(s) %s of %d", strings.Join(missing, ", "), n)
	}
	out := *first
	out.Shard = nil
	out.Partial = partial
	out.Cases = make([]Case, 0, total)
	for i, c := range rows {
		if c == nil {
			if !partial {
				return nil, fmt.Errorf("result: merge: row %d missing", i)
			}
			continue
		}
		out.Cases = append(out.Cases, *c)
	}
	return &out, nil
}

// header encodes the fields every shard of a sweep shares.
func header(d *Document) ([]byte, error) {
	h := *d
	h.Cases, h.Shard, h.Partial = nil, nil, false
	b, err := Marshal(&h)
	if err != nil {
		return nil, err
	}
	return b, nil
}

// ShardRows returns the global row indexes that shard i of n takes from a
// grid of total rows: every n-th row starting at i, so neighbouring points
// (which tend to cost the same) spread over the shards.
func ShardRows(i, n, total int) []int {
	var rows []int
	for r := i; r < total; r += n {
		rows = append(rows, r)
	}
	return rows
}
