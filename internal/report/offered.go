package report

import (
	"strconv"
	"strings"

	"github.com/encbench/encbench/internal/locale"
)

// closedLoop keeps the cells that ran as fast as the server went (fixed
// false) or those run at a fixed offered load (fixed true), which compare
// latency and CPU, not throughput.
func closedLoop(rows []*Row, fixed bool) []*Row {
	var out []*Row
	for _, c := range rows {
		if (c.Rate > 0) == fixed {
			out = append(out, c)
		}
	}
	return out
}

// offeredTable compares the variants at equal offered load: the same
// rate for every variant, latency from each event's intended start.
func offeredTable(l *locale.Lang, rows []*Row) Table {
	t := Table{Head: []string{l.T("col.target"), l.T("offered.workload"), l.T("col.threads"), l.T("col.variant"), l.T("offered.offered"), l.T("offered.achieved"),
		l.T("offered.p95"), l.T("offered.p95_added"), l.T("col.server_added"), l.T("col.client_added")}}
	for _, c := range closedLoop(rows, true) {
		p95Added, srv, cli := "", "", ""
		if !c.Baseline {
			p95Added, srv, cli = diffText(l, c.P95Added), diffText(l, c.ServerUsAdded), diffText(l, c.ClientUsAdded)
		}
		t.Rows = append(t.Rows, []Text{{S: c.Target}, {S: c.Workload}, {S: strconv.Itoa(c.Threads)}, {S: c.Variant},
			{S: l.F("%.0f", c.Rate)}, {S: l.F("%.0f", c.TPS.Mean)}, {S: ci(l, c.P95Ms, 2)},
			{S: p95Added, Strong: c.P95Added != nil && c.P95Added.Significant}, {S: srv}, {S: cli}})
	}
	return t
}

// offeredConclusions say, per target and variant, what it does to latency
// and CPU at the highest equal offered load measured, at the most threads.
func offeredConclusions(l *locale.Lang, rows []*Row, baseline string, order Order) []string {
	var out []string
	for _, target := range order.Targets {
		for _, variant := range order.Variants {
			var top *Row
			for _, c := range closedLoop(rows, true) {
				if c.Target != target || c.Variant != variant || c.Baseline || c.P95Added == nil {
					continue
				}
				if top == nil || c.Threads > top.Threads || (c.Threads == top.Threads && c.Rate > top.Rate) {
					top = c
				}
			}
			if top == nil {
				continue
			}
			p95 := ciText(l, *top.P95Added, 2, "unit.ms")
			var s []string
			if d := top.ServerUsAdded; d != nil {
				s = append(s, l.T("offered.concl.cpu", target, variant, top.Workload, threadsText(l, top.Threads), top.Rate, p95, ciText(l, *d, 1, "unit.us")))
			} else {
				s = append(s, l.T("offered.concl", target, variant, top.Workload, threadsText(l, top.Threads), top.Rate, p95))
			}
			if top.TPS.Mean < 0.97*top.Rate {
				s = append(s, l.T("offered.concl.short", top.TPS.Mean))
			}
			out = append(out, strings.Join(s, l.T("sentence.sep")))
		}
	}
	return out
}
