package report

import (
	"github.com/encbench/encbench/internal/locale"
	"github.com/encbench/encbench/internal/result"
	"github.com/encbench/encbench/internal/stats"
)

// missedRule is what the report needs to say why a cell missed the
// suite's precision target.
type missedRule struct {
	precision float64
	// most is the blocks a cell may get; spent says the budget ended the
	// blocks; stallPct is the stall rule's threshold.
	most     int
	spent    bool
	stallPct float64
	// disturbed is what the runs discarded as disturbed cost the budget.
	disturbed disturbance
}

// missedTable lists every variant whose loss interval stayed wider than
// the precision target, with its half-width, its blocks, how much its
// loss moved from block to block and what kept it wide: a finding, where
// the glance table only has a *.
func missedTable(l *locale.Lang, rows []*Row, baseline string, rule missedRule) Table {
	t := Table{Head: []string{l.T("col.target"), l.T("col.workload"), l.T("col.threads"), l.T("col.variant"),
		l.T("missed.col.half"), l.T("missed.col.blocks"), l.T("missed.col.sd"), l.T("missed.col.why")}}
	if rule.precision <= 0 {
		return t
	}
	for _, c := range rows {
		if c.Baseline || c.Loss == nil || c.Rate > 0 {
			continue
		}
		hw := c.Loss.HalfWidth()
		if hw <= rule.precision {
			continue
		}
		blocks := len(c.Results)
		sdText := "-"
		if sd, ok := blockSD(c); ok {
			sdText = l.F("%.1f", sd)
		}
		// From the interval itself, so the estimate is never fewer
		// blocks than already ran.
		need := stats.BlocksFor(hw, blocks, rule.precision)
		base := findRow(rows, c.Target, c.Workload, baseline, c.Threads)
		own, theirs := stallsIn(c, rule.stallPct), 0
		if base != nil {
			theirs = stallsIn(base, rule.stallPct)
		}
		t.Rows = append(t.Rows, []Text{{S: c.Target}, {S: c.Workload}, {S: threadsText(l, c.Threads)}, {S: c.Variant},
			{S: l.F("±%.1f", hw), Strong: true}, {S: l.F("%d", blocks)}, {S: sdText},
			{S: missedWhy(l, rule, blocks, need, own, theirs)}})
	}
	return t
}

// missedWhy names what kept a cell's interval wide, the most telling
// first: the layer stalling its server, then the blocks' limit, then
// reruns of disturbed runs that took a named share of the budget, then
// the budget.
func missedWhy(l *locale.Lang, rule missedRule, blocks, need, own, theirs int) string {
	switch {
	case own > theirs:
		return l.T("missed.why.stall", own, theirs)
	case blocks >= rule.most:
		return l.T("missed.why.most", rule.most, need)
	case rule.disturbed.named():
		return l.T("missed.why.disturbed", rule.disturbed.runs, l.F("%.0f", rule.disturbed.sharePc), need)
	case rule.spent:
		return l.T("missed.why.budget", need)
	default:
		return l.T("missed.why.share", need)
	}
}

// blockSD is the standard deviation of the cell's loss from block to
// block, in points; false when its blocks do not pair with the baseline's.
func blockSD(c *Row) (float64, bool) {
	if len(c.pairBase) < 2 || len(c.pairBase) != len(c.pairTPS) {
		return 0, false
	}
	losses := make([]float64, 0, len(c.pairBase))
	for i, b := range c.pairBase {
		if b > 0 {
			losses = append(losses, 100*(1-c.pairTPS[i]/b))
		}
	}
	s, err := stats.Summarize(losses)
	if err != nil {
		return 0, false
	}
	return s.SD, true
}

// stallsIn counts the row's runs that stalled.
func stallsIn(c *Row, stallPct float64) int {
	n := 0
	for _, r := range c.Results {
		n += runStalls(r, stallPct)
	}
	return n
}

// runStalls counts a result's stalls: its runs run again for a stall
// (counted on the variant that stalled, not on every cell of its block)
// and the run kept when the reruns ran out.
func runStalls(r *result.Result, stallPct float64) int {
	n := 0
	if r.Suite != nil {
		for _, why := range r.Suite.Discarded {
			if v, cause := result.DiscardOf(why); cause == result.CauseStall && v == r.Variant.Name {
				n++
			}
		}
	}
	if _, ok := r.Stall(stallPct); ok {
		n++
	}
	return n
}
