package report

import (
	"time"

	"github.com/encbench/encbench/internal/locale"
	"github.com/encbench/encbench/internal/suite"
)

// explainer projects a seed section's cells to the report's setting.
type explainer struct {
	l           *locale.Lang
	ref         *suite.Reference
	rows        []*Row
	projections []Projection
}

func newExplainer(l *locale.Lang, ref *suite.Reference, rows []*Row, baseline string) *explainer {
	e := &explainer{l: l, ref: ref, rows: rows}
	if env := ref.Environment; env != nil {
		w := &WhatIf{ClientCPUs: env.ClientCores, ServerCPUs: env.ServerCores, Speed: 1,
			RTT: time.Duration(env.RTTMs * float64(time.Millisecond))}
		e.projections = project(l, closedLoop(rows, false), baseline, w)
	}
	return e
}

// projection is the projection of a cell to the report's setting at the
// published thread count (from encbench's cell at that count).
func (e *explainer) projection(target, workload, variant string, threads int) *Projection {
	for i, p := range e.projections {
		if p.Target == target && p.Workload == workload && p.Variant == variant && p.Measured == threads && p.Threads == threads {
			return &e.projections[i]
		}
	}
	return nil
}

// implied is the time the report's layer added to one transaction, by
// Little's law from its published throughputs: threads / TPS with the
// layer on, minus the same with it off, in ms; false when the report gives
// no throughputs.
func (e *explainer) implied(workload, variant, baseline string, threads int) (float64, bool) {
	byVariant := e.ref.TPS[workload]
	on, off := byVariant[variant][threads], byVariant[baseline][threads]
	if on <= 0 || off <= 0 {
		return 0, false
	}
	return 1000 * float64(threads) * (1/on - 1/off), true
}

// projectedText is a projection's loss, or why there is none.
func (e *explainer) projectedText(p *Projection) string {
	switch {
	case p == nil:
		return e.l.T("seeds.not_projected.none")
	case p.LossPct == nil:
		return e.l.T("whatif.not", p.Reason)
	}
	return ci(e.l, *p.LossPct, 1)
}

// costText is what encbench's layer adds to one transaction here: its
// time (threads / TPS) and its CPU on the client and the server.
func (e *explainer) costText(c *Row) string {
	l := e.l
	t := l.T("na")
	if c.TimeAdded != nil {
		t = l.F("%+.3f", c.TimeAdded.Mean)
	}
	cpu := 0.0
	if c.ClientUsAdded != nil {
		cpu += c.ClientUsAdded.Mean
	}
	if c.ServerUsAdded != nil {
		cpu += c.ServerUsAdded.Mean
	}
	return l.T("seeds.cost", t, l.F("%+.0f", cpu))
}
