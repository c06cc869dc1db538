package report

import (
	"fmt"
	"maps"
	"slices"

	"github.com/encbench/encbench/internal/locale"
	"github.com/encbench/encbench/internal/suite"
)

// Published is one number a report published, judged against the
// stand-in engine: the comparison, then the facts about a disagreement
// and the cause they support (analysis.json's published array).
type Published struct {
	Report string `json:"report"`
	Figure string `json:"figure"`
	// Unit is the figure's: loss_pct (a loss in percent), bound_pct (an
	// "at most" loss in percent) or ratio (a time with the layer on over
	// off).
	Unit      string  `json:"unit"`
	Published float64 `json:"published"`
	Engine    string  `json:"engine"`
	Variant   string  `json:"variant"`
	Threads   int     `json:"threads,omitempty"`
	// Measured is encbench's figure on the stand-in (nil: not measured);
	// AtReportSetting the same at the report's setting, by the what-if
	// model or through the emulated network at its round trip.
	Measured        *Span      `json:"measured"`
	AtReportSetting *Span      `json:"at_report_setting"`
	Comparison      Comparison `json:"comparison"`
	// By is encbench's figure minus the published one, in the figure's
	// unit (nil: not measured).
	By    *float64 `json:"by"`
	Label Label    `json:"label,omitempty"`
	// BaseTimeRatio is encbench's baseline time per transaction at the
	// report's setting over the report's (null: either is unknown).
	BaseTimeRatio *float64 `json:"base_time_ratio"`
	BaseMs        Times    `json:"base_ms"`
	AddedMs       Times    `json:"added_ms"`
	// Limit is what limited encbench's cell (Limit* constants, "": not
	// known).
	Limit  string `json:"limit,omitempty"`
	Reason string `json:"reason"`
}

// judge compares and, for a disagreement, labels.
func (p *Published) judge(l *locale.Lang, e Evidence) {
	if p.Measured == nil {
		p.Comparison, p.Reason = CompNotMeasured, l.T("published.reason.not_measured")
		return
	}
	by := p.Measured.Value - p.Published
	p.By = &by
	if p.Unit == "bound_pct" {
		p.Comparison = compareBound(p.Published, *p.Measured)
	} else {
		p.Comparison = compare(p.Published, *p.Measured)
	}
	p.BaseTimeRatio = e.BaseTimeRatio()
	if p.Comparison == CompAgrees || p.Comparison == CompWithinBound {
		return
	}
	label, key := labelOf(e)
	p.Label = label
	ratio := l.T("na")
	if r := p.BaseTimeRatio; r != nil {
		ratio = l.F("%.2f", *r)
	}
	switch key {
	case "published.reason.different":
		p.Reason = l.T(key, e.Different)
	case "published.reason.no_cause":
		p.Reason = l.T(key, e.NoCause)
	case "published.reason.not_projected":
		why := e.NotProjected
		if why == "" {
			why = l.T("seeds.not_projected.none")
		}
		p.Reason = l.T(key, why)
	case "published.reason.no_base":
		p.Reason = l.T(key)
	default:
		p.Reason = l.T(key, ratio)
	}
}

// standInTarget is the target that ran the stand-in engine ("": none
// ran).
func standInTarget(rows []*Row, ref *suite.Reference) string {
	if ref.StandIn == nil {
		return ""
	}
	// A suite's targets are named by their engine unless named otherwise;
	// the result's own engine kind is the driver's (mysql for MariaDB).
	for _, match := range []func(c *Row) bool{
		func(c *Row) bool { return c.Target == ref.StandIn.Engine },
		func(c *Row) bool { return c.Engine == ref.StandIn.Engine },
	} {
		for _, c := range rows {
			if match(c) {
				return c.Target
			}
		}
	}
	return ""
}

// msPerTxn is threads / TPS in ms, the interval from the TPS's.
func msPerTxn(threads int, tps Span) *Span {
	if tps.Value <= 0 || tps.Low <= 0 {
		return nil
	}
	n := 1000 * float64(threads)
	return &Span{Value: n / tps.Value, Low: n / tps.High, High: n / tps.Low}
}

// publishedLosses judges each published loss (R3, R4) on the stand-in.
func (e *explainer) publishedLosses(ref *suite.Reference, target, baseline string) []Published {
	l := e.l
	var out []Published
	losses := ref.Losses()
	for _, w := range slices.Sorted(maps.Keys(losses)) {
		for _, v := range slices.Sorted(maps.Keys(losses[w])) {
			for _, th := range slices.Sorted(maps.Keys(losses[w][v])) {
				p := Published{Report: ref.Report, Figure: l.T("published.figure.loss", w, v, th), Unit: "loss_pct",
					Published: losses[w][v][th], Engine: ref.StandIn.Engine, Variant: v, Threads: th}
				ev := Evidence{Published: p.Published}
				if off := ref.TPS[w][baseline][th]; off > 0 {
					ms := 1000 * float64(th) / off
					p.BaseMs.Report = &ms
				}
				if implied, ok := e.implied(w, v, baseline, th); ok {
					p.AddedMs.Report = &implied
				}
				if c := findRow(e.rows, target, w, v, th); c != nil && c.Loss != nil {
					m := lossSpan(*c.Loss)
					p.Measured, ev.Measured, p.Limit = &m, m, c.Limit
					if c.TimeAdded != nil {
						p.AddedMs.Measured = &Span{Value: c.TimeAdded.Mean, Low: c.TimeAdded.Low, High: c.TimeAdded.High}
					}
					if b := findRow(e.rows, target, w, baseline, th); b != nil {
						p.BaseMs.Measured = msPerTxn(th, Span{Value: b.TPS.Mean, Low: b.TPS.Low, High: b.TPS.High})
					}
				}
				pr := e.projection(target, w, v, th)
				if pr != nil && pr.LossPct == nil {
					ev.NotProjected = pr.Reason
				}
				if pr != nil && pr.LossPct != nil {
					s := Span{Value: pr.LossPct.Mean, Low: pr.LossPct.Low, High: pr.LossPct.High}
					p.AtReportSetting, ev.Projected = &s, &s
					p.BaseMs.Projected = msPerTxn(th, Span{Value: pr.BaseTPS.Mean, Low: pr.BaseTPS.Low, High: pr.BaseTPS.High})
					p.AddedMs.Projected = &Span{Value: pr.AddedMs.Mean, Low: pr.AddedMs.Low, High: pr.AddedMs.High}
				}
				ev.Base, ev.Added = p.BaseMs, p.AddedMs
				p.judge(l, ev)
				out = append(out, p)
			}
		}
	}
	return out
}

// publishedBounds judges each bound (R1) on the stand-in: the bound
// holds unless some workload's whole interval lies above it, and the
// workload shown is the one nearest to breaking it (the highest interval
// low end). R1 gives no throughputs, so no cause can be tested.
func (e *explainer) publishedBounds(ref *suite.Reference, target string, order Order) []Published {
	l := e.l
	var out []Published
	for _, b := range ref.Bounds {
		th := boundThreads(e.rows, b)
		p := Published{Report: ref.Report, Unit: "bound_pct", Published: b.AtMost, Engine: ref.StandIn.Engine, Threads: th}
		var worst *Row
		for _, c := range e.rows {
			if c.Target != target || c.Threads != th || c.Baseline || c.Variant == "aa" || c.Loss == nil {
				continue
			}
			if worst == nil || c.Loss.Low > worst.Loss.Low {
				worst = c
			}
		}
		p.Figure = l.T("published.figure.bound", l.F("%g", b.AtMost), l.T("published.bound."+b.Threads), threadsText(l, th))
		ev := Evidence{Published: b.AtMost, NoCause: l.T("published.no_cause.no_tps")}
		if worst != nil {
			m := lossSpan(*worst.Loss)
			p.Measured, ev.Measured, p.Variant, p.Limit = &m, m, worst.Variant, worst.Limit
			p.Figure = l.T("published.figure.bound_worst", p.Figure, worst.Workload)
			if worst.TimeAdded != nil {
				p.AddedMs.Measured = &Span{Value: worst.TimeAdded.Mean, Low: worst.TimeAdded.Low, High: worst.TimeAdded.High}
			}
			if pr := e.projection(target, worst.Workload, worst.Variant, th); pr != nil && pr.LossPct != nil {
				s := Span{Value: pr.LossPct.Mean, Low: pr.LossPct.Low, High: pr.LossPct.High}
				p.AtReportSetting, ev.Projected = &s, &s
				p.AddedMs.Projected = &Span{Value: pr.AddedMs.Mean, Low: pr.AddedMs.Low, High: pr.AddedMs.High}
			}
		}
		p.judge(l, ev)
		out = append(out, p)
	}
	return out
}

// publishedParts judges R2's four pairs of times on the stand-in and its
// variant, as ratios on / off: measured on loopback, and at the report's
// round trip through the emulated network where the suite ran one. A
// part the reference's topology times as the report did is judged on
// that target instead, when it ran there.
func publishedParts(l *locale.Lang, ref *suite.Reference, a *anatomy, rows []*Row, standIn string) []Published {
	var out []Published
	var reportRTT *float64
	if env := ref.Environment; env != nil {
		reportRTT = &env.RTTMs
	}
	v := ref.StandIn.Variant
	tp := ref.Topology
	if tp != nil && !topologyRan(a, tp, v) {
		tp = nil // an older run, or one without that target: the stand-in's words hold
	}
	for _, part := range anatomyParts {
		pub, ok := ref.Parts[part]
		if !ok {
			continue
		}
		target, engine, different := standIn, ref.StandIn.Engine, ref.Different[part]
		if tp != nil {
			if why, ok := tp.StillDifferent[part]; ok {
				different = why
			}
			if slices.Contains(tp.Parts, part) {
				target, engine, different = tp.Target, tp.Target, ""
			}
		}
		off, on := pub["off"], pub["on"]
		added := on - off
		p := Published{Report: ref.Report, Figure: l.T("published.figure.part", part, l.F("%.2f", off), l.F("%.2f", on)), Unit: "ratio",
			Published: on / off, Engine: engine, Variant: v, Threads: 1}
		p.BaseMs.Report, p.AddedMs.Report = &off, &added
		ev := Evidence{Published: p.Published, Different: different}
		if here := a.at(target, v, part, 0); here != nil {
			m := here.ratioSpan()
			p.Measured, ev.Measured = &m, m
			p.BaseMs.Measured = &Span{Value: here.offMs, Low: here.offMs, High: here.offMs}
			p.AddedMs.Measured = diffSpan(here)
			if c := findRow(rows, target, here.workload, v, 1); c != nil {
				p.Limit = c.Limit
			}
		}
		if reportRTT != nil {
			if there := a.at(target, v, part, *reportRTT); there != nil {
				s := there.ratioSpan()
				p.AtReportSetting, ev.Projected = &s, &s
				p.BaseMs.Projected = &Span{Value: there.offMs, Low: there.offMs, High: there.offMs}
				p.AddedMs.Projected = diffSpan(there)
			}
		}
		ev.Base, ev.Added = p.BaseMs, p.AddedMs
		p.judge(l, ev)
		out = append(out, p)
	}
	return out
}

// topologyRan: every part the topology is to judge was measured there.
func topologyRan(a *anatomy, tp *suite.Topology, variant string) bool {
	for _, part := range tp.Parts {
		if a.at(tp.Target, variant, part, 0) == nil {
			return false
		}
	}
	return len(tp.Parts) > 0
}

func diffSpan(c *partCell) *Span {
	if c.added == nil {
		return nil
	}
	return &Span{Value: c.added.Mean, Low: c.added.Low, High: c.added.High}
}

// publishedTable shows each published number: the comparison first, then
// the facts and the label.
func publishedTable(l *locale.Lang, ps []Published) Table {
	t := Table{Head: []string{l.T("published.col.figure"), l.T("published.col.published"), l.T("published.col.encbench"), l.T("published.col.comparison"),
		l.T("published.col.at_setting"), l.T("published.col.base"), l.T("published.col.added"), l.T("published.col.limit"), l.T("published.col.label")}}
	for _, p := range ps {
		digits := "%.1f"
		if p.Unit == "ratio" {
			digits = "%.2f"
		}
		span := func(s *Span) string {
			if s == nil {
				return l.T("na")
			}
			return l.T("ci.range", l.F(digits, s.Value), l.F(digits, s.Low), l.F(digits, s.High))
		}
		pub := l.F(digits, p.Published)
		if p.Unit == "bound_pct" {
			pub = l.T("seeds.at_most", l.F("%g", p.Published))
		}
		comparison := l.T("published.comparison." + string(p.Comparison))
		if p.By != nil && (p.Comparison == CompHigher || p.Comparison == CompLower) {
			comparison = l.T("published.by", comparison, l.F(digits, abs(*p.By)), l.T("published.unit."+p.Unit))
		}
		label := l.T("na")
		if p.Label != "" {
			label = l.T("published.label."+string(p.Label)) + ": " + p.Reason
		} else if p.Comparison == CompNotMeasured {
			label = p.Reason
		}
		limit := l.T("na")
		if p.Limit != "" {
			limit = l.T("limit.short." + p.Limit)
		}
		t.Rows = append(t.Rows, []Text{{S: p.Figure}, {S: pub, Strong: true}, {S: span(p.Measured) + " (" + p.Engine + " " + p.Variant + ")"},
			{S: comparison, Strong: true}, {S: span(p.AtReportSetting)}, {S: timesText(l, p.BaseMs)}, {S: timesText(l, p.AddedMs)}, {S: limit}, {S: label}})
	}
	return t
}

// timesText is a time per transaction three ways: the report's /
// encbench's / encbench's at the report's setting.
func timesText(l *locale.Lang, x Times) string {
	one := func(s *Span) string {
		if s == nil {
			return l.T("na")
		}
		return l.F("%.3f", s.Value)
	}
	rep := l.T("na")
	if x.Report != nil {
		rep = l.F("%.3f", *x.Report)
	}
	return fmt.Sprintf("%s / %s / %s", rep, one(x.Measured), one(x.Projected))
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}

// PublishedCount counts a report's published numbers by comparison and
// their disagreements by label.
type PublishedCount struct {
	Numbers    int                `json:"numbers"`
	Comparison map[Comparison]int `json:"comparison"`
	Label      map[Label]int      `json:"label"`
}

func countPublished(ps []Published) PublishedCount {
	c := PublishedCount{Numbers: len(ps), Comparison: map[Comparison]int{}, Label: map[Label]int{}}
	for _, p := range ps {
		c.Comparison[p.Comparison]++
		if p.Label != "" {
			c.Label[p.Label]++
		}
	}
	return c
}

// countText says a count in words.
func countText(l *locale.Lang, c PublishedCount) string {
	k := c.Comparison
	return l.T("published.count", c.Numbers, k[CompAgrees], k[CompHigher], k[CompLower], k[CompWithinBound], k[CompAboveBound], k[CompNotMeasured],
		c.Label[LabelSetting], c.Label[LabelLayer], c.Label[LabelUnaccounted], c.Label[LabelDifferent])
}
