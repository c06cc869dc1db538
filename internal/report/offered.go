package report

import (
	"fmt"
	"strconv"
)

// closedLoop keeps the cells that ran as fast as the server went (fixed
// false) or those run at a fixed offered load (fixed true), which compare
// latency and CPU, not throughput.
func closedLoop(cells []*Cell, fixed bool) []*Cell {
	var out []*Cell
	for _, c := range cells {
		if (c.Rate > 0) == fixed {
			out = append(out, c)
		}
	}
	return out
}

// offeredTable compares the variants at equal offered load: the same
// rate for every variant, latency from each event's intended start.
func offeredTable(cells []*Cell) Table {
	t := Table{Head: []string{"target", "workload at load", "threads", "variant", "offered tps", "achieved tps", "p95 ms (95% CI)", "p95 ms added (95% CI)", "server us/txn added (95% CI)", "client us/txn added (95% CI)"}}
	for _, c := range closedLoop(cells, true) {
		p95Added, srv, cli := "", "", ""
		if !c.Baseline {
			p95Added, srv, cli = diffText(c.P95Added), diffText(c.ServerUsAdded), diffText(c.ClientUsAdded)
		}
		t.Rows = append(t.Rows, []Text{{S: c.Target}, {S: c.Workload}, {S: strconv.Itoa(c.Threads)}, {S: c.Variant},
			{S: fmt.Sprintf("%.0f", c.Rate)}, {S: fmt.Sprintf("%.0f", c.TPS.Mean)}, {S: ci(c.P95Ms, 2)},
			{S: p95Added, Strong: c.P95Added != nil && c.P95Added.Significant}, {S: srv}, {S: cli}})
	}
	return t
}

// offeredConclusions say, per target and variant, what it does to latency
// and CPU at the highest equal offered load measured, at the most threads.
func offeredConclusions(cells []*Cell, baseline string, order Order) []string {
	var out []string
	for _, target := range order.Targets {
		for _, variant := range order.Variants {
			var top *Cell
			for _, c := range closedLoop(cells, true) {
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
			s := fmt.Sprintf("%s, %s at equal offered load (%s at %s, %.0f transactions/s for every variant): p95 latency changes by %s ms",
				target, variant, top.Workload, threadsText(top.Threads), top.Rate, ciText(*top.P95Added, 2, ""))
			if d := top.ServerUsAdded; d != nil {
				s += ", server CPU per transaction by " + ciText(*d, 1, " us")
			}
			if top.TPS.Mean < 0.97*top.Rate {
				s += fmt.Sprintf("; it reached only %.0f transactions/s, so it could not carry this load", top.TPS.Mean)
			}
			out = append(out, s+".")
		}
	}
	return out
}
