package plot

import (
	"fmt"
	"math"
	"sort"
	"strings"

	gplot "gonum.org/v1/plot"

	"simrun/internal/result"
)

// stageOrder puts commit stages in the order a commit passes them; other
// components follow alphabetically.
var stageOrder = []string{
	"cpu", "execute", "lock", "lock_wait", "queue", "group_wait", "leader_wait",
	"prepare", "redo_write", "redo_fsync", "prepare_fsync",
	"binlog_write", "binlog_fsync", "commit", "commit_write", "commit_fsync",
	"stall", "checkpoint_stall", "other",
}

func stageRank(s string) int {
	for i, x := range stageOrder {
		if x == s {
			return i
		}
	}
	return len(stageOrder)
}

// components returns the numeric children of a breakdown block across the
// cases, in stage order; "total" and "sum" (the stages added up) and intervals are left out.
func components(cases []result.Case, block string) []string {
	seen := map[string]bool{}
	var out []string
	for _, c := range cases {
		v, ok := c.Metrics.Lookup(block)
		if !ok {
			continue
		}
		var m map[string]any
		switch x := v.(type) {
		case result.Metrics:
			m = x
		case map[string]any:
			m = x
		default:
			continue
		}
		for k, e := range m {
			if _, isNum := result.Float(e); !isNum || k == "total" || k == "sum" || strings.HasSuffix(k, result.CISuffix) || seen[k] {
				continue
			}
			seen[k] = true
			out = append(out, k)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		ri, rj := stageRank(out[i]), stageRank(out[j])
		if ri != rj {
			return ri < rj
		}
		return out[i] < out[j]
	})
	return out
}

// breakdownLabels returns the chart's title tail and y label for a
// breakdown block: a time per transaction (ms unless the name says
// otherwise), or a count per transaction for a "_per_tx" block
// (pages_written_per_tx, write_bytes_per_tx), stacked by source.
func breakdownLabels(block string) (head, ylabel string) {
	if block == "commit_breakdown_ms" {
		return "where commit time goes", "commit latency by stage (ms)"
	}
	if strings.HasSuffix(block, "_per_tx") {
		what := strings.TrimSuffix(title(block), " per tx")
		return what + " by source", what + " per transaction"
	}
	unit := "ms"
	for _, u := range units {
		if strings.HasSuffix(block, u.suffix) {
			unit = u.unit
			break
		}
	}
	return "where commit time goes", fmt.Sprintf("%s per transaction (%s)", title(block), unit)
}

func drawBreakdown(d *result.Document, cases []result.Case, opt Options) ([]*gplot.Plot, error) {
	block := opt.Metric
	if block == "" {
		block = "commit_breakdown_ms"
		if bs := breakdownBlocks(cases); len(bs) > 0 {
			block = bs[0]
		}
	}
	comps := components(cases, block)
	if len(comps) == 0 {
		return nil, suggest(noMetric(Breakdown, block), Breakdown, breakdownBlocks(cases))
	}
	g := grid{series: make([]string, len(comps))}
	for i, c := range comps {
		g.series[i] = strings.ReplaceAll(c, "_", " ")
	}
	for _, c := range cases {
		g.clusters = append(g.clusters, caseLabel(d, c))
	}
	for _, comp := range comps {
		vals := make([]float64, len(cases))
		has := make([]bool, len(cases))
		for j, c := range cases {
			if v, ok := number(c.Metrics, block+"."+comp); ok && !math.IsNaN(v) && v > 0 {
				vals[j], has[j] = v, true
			}
		}
		g.val = append(g.val, vals)
		g.ci = append(g.ci, make([]float64, len(cases)))
		g.has = append(g.has, has)
	}
	head, ylabel := breakdownLabels(block)
	p := newPlot(fmt.Sprintf("%s: %s", d.Scenario, head), "", ylabel)
	if err := addBars(p, g, opt, true); err != nil {
		return nil, err
	}
	return []*gplot.Plot{p}, nil
}

// StageOrder returns the order in which breakdown charts stack known commit
// stages (bottom first); unknown components follow alphabetically.
func StageOrder() []string { return append([]string(nil), stageOrder...) }
