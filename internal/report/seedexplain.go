package report

import (
	"math"
	"time"

	"github.com/encbench/encbench/internal/locale"
	"github.com/encbench/encbench/internal/suite"
)

// The four verdicts of a published figure (issue 58, item 5): inside
// encbench's interval here; explained by encbench's projection to the
// report's setting; different in the layer itself (the report's layer
// adds a time per transaction that encbench's does not come near); or
// unexplained.
const (
	Explained   Verdict = "explained"
	InLayer     Verdict = "in_layer"
	Unexplained Verdict = "unexplained"
)

// holdsWithin is how close a projected loss must come to a published one
// to explain it, in points: the bound the projections are checked
// against on this machine (bench/whatif-holdout.sh).
const holdsWithin = 3.0

// layerFactor: a published figure differs in the layer when the time its
// layer adds to a transaction is more than this many times encbench's, or
// less than its inverse: a faster or slower core moves encbench's cost by
// less than that.
const layerFactor = 2.0

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

// verdict judges a published loss against encbench's cell c (its loss
// here) and its projection p (nil: none).
func (e *explainer) verdict(pub float64, c *Row, p *Projection, implied float64, hasImplied bool) Verdict {
	if c.Loss != nil && pub >= c.Loss.Low && pub <= c.Loss.High {
		return Agrees
	}
	if p != nil && p.LossPct != nil && (math.Abs(p.LossPct.Mean-pub) <= holdsWithin || pub >= p.LossPct.Low && pub <= p.LossPct.High) {
		return Explained
	}
	if hasImplied {
		// encbench's added time at the report's setting where projected,
		// else as measured here.
		lo, hi, ok := 0.0, 0.0, false
		switch {
		case p != nil && p.AddedMs != nil:
			lo, hi, ok = p.AddedMs.Low, p.AddedMs.High, true
		case c.TimeAdded != nil:
			lo, hi, ok = c.TimeAdded.Low, c.TimeAdded.High, true
		}
		if ok && (implied > layerFactor*max(hi, 0) || implied < max(lo, 0)/layerFactor) {
			return InLayer
		}
	}
	return Unexplained
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

// countText counts a section's four verdicts.
func countText(l *locale.Lang, count map[Verdict]int) string {
	return l.T("seeds.count4", count[Agrees], count[Explained], count[InLayer], count[Unexplained])
}

// verdictCell is a verdict in the report's language, counted; place says
// where the figure lay against encbench's interval here (lower, higher).
func verdictCell(l *locale.Lang, v, place Verdict, count map[Verdict]int) Text {
	count[v]++
	s := l.T("seeds.verdict." + string(v))
	if v != Agrees && place != Agrees {
		s = l.T("seeds.verdict.placed", s, l.T("seeds.verdict."+string(place)))
	}
	return Text{S: s, Strong: v == InLayer || v == Unexplained}
}
