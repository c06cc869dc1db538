package report

import (
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/encbench/encbench/internal/locale"
	"github.com/encbench/encbench/internal/stats"
	variantpkg "github.com/encbench/encbench/internal/variant"
)

// Overview is the report's first page: the question, one answer per
// encryption layer with its interval, the machine and the dates, and the
// published figures where the suite has them.
type Overview struct {
	Question string
	Answers  []string
	// Floor is the A/A sentence, when the suite ran an A/A variant.
	Floor string
	// Disturbed says that runs disturbed by other work took a share of
	// the budget that the intervals lacked, and what to do.
	Disturbed string
	Machine   string
	Dates     string
}

// overviewOf answers per layer (variant) over every target: the largest
// significant loss with its interval, and how many cells show one.
func overviewOf(l *locale.Lang, d *Data, rows []*Row, m *Model) Overview {
	var layers []string
	for _, v := range m.Order.Variants {
		if v != m.Baseline && v != variantpkg.AAName && slices.ContainsFunc(rows, func(c *Row) bool { return c.Variant == v }) {
			layers = append(layers, v)
		}
	}
	var engines []string
	for _, t := range m.Order.Targets {
		for _, c := range rows {
			if c.Target == t {
				if e := shortVersion(c.EngineVersion); !slices.Contains(engines, e) {
					engines = append(engines, e)
				}
				break
			}
		}
	}
	workloads, on := strings.Join(m.Order.Workloads, l.T("list.sep")), strings.Join(engines, l.T("list.sep"))
	o := Overview{
		Question: l.T("overview.question", strings.Join(layers, l.T("list.sep")), m.Baseline, workloads, on),
		Machine:  machineLine(l, d),
		Dates:    datesLine(l, d),
	}
	if len(layers) == 0 {
		o.Question = l.T("overview.question.baseline", m.Baseline, workloads, on)
	}
	floor := floorOf(rows)
	for _, v := range layers {
		o.Answers = append(o.Answers, layerAnswer(l, v, rows, floor))
	}
	if d.Record != nil {
		for _, v := range slices.Sorted(maps.Keys(d.Record.Failed)) {
			f := d.Record.Failed[v]
			o.Answers = append(o.Answers, l.T("overview.failed", v, l.T("cells.n", f.Cells), f.Cause))
		}
	}
	var widest float64
	aa := 0
	for _, c := range rows {
		if c.Variant == variantpkg.AAName && c.Loss != nil {
			aa++
			widest = math.Max(widest, math.Max(math.Abs(c.Loss.Low), math.Abs(c.Loss.High)))
		}
	}
	if aa > 0 {
		o.Floor = l.T("overview.floor", widest, l.T("cells.n", aa)) + " " + aaZeroText(l, rows, aa)
	}
	return o
}

// layerAnswer is one sentence: where the layer costs most, with its
// interval, and in how many cells the loss is significant.
func layerAnswer(l *locale.Lang, v string, rows []*Row, floor func(*Row) float64) string {
	var top *Row
	sig, gains, compared := 0, 0, 0
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, c := range rows {
		if c.Variant != v || c.Loss == nil {
			continue
		}
		compared++
		lo, hi = math.Min(lo, c.Loss.Pct), math.Max(hi, c.Loss.Pct)
		if c.Loss.Significant && c.Loss.High < 0 {
			gains++
		}
		if !c.Loss.Significant || c.Loss.Pct <= 0 || c.Loss.Pct <= floor(c) {
			continue
		}
		sig++
		if top == nil || c.Loss.Pct > top.Loss.Pct {
			top = c
		}
	}
	switch {
	case compared == 0:
		return l.T("overview.answer.none", v)
	case top == nil && gains > 0:
		// A variant faster than its baseline beyond the interval is a
		// finding to name, not "no loss".
		return l.T("overview.answer.gain", v, l.T("cells.n", compared), gains, lo, hi)
	case top == nil:
		return l.T("overview.answer.ns", v, l.T("cells.n", compared), lo, hi)
	}
	x := top.Loss
	return l.T("overview.answer", v, x.Pct, x.Low, x.High, top.Target, where(l, top), sig, l.T("cells.n", compared), lo, hi)
}

// shortVersion is a server's name and version without its build details:
// "PostgreSQL 15.20 (Debian 15.20-0+deb12u1)" is PostgreSQL 15.20 and
// "MariaDB 10.11.19-MariaDB-0+deb12u1" MariaDB 10.11.19.
func shortVersion(v string) string {
	v, _, _ = strings.Cut(v, " (")
	if name, rest, ok := strings.Cut(v, " "); ok {
		num, _, _ := strings.Cut(rest, "-")
		return name + " " + num
	}
	return v
}

func machineLine(l *locale.Lang, d *Data) string {
	e := d.Results[0].Environment
	return l.T("overview.machine", e.CPUModel, e.Cores, float64(e.MemoryMB)/1024, e.OS)
}

func datesLine(l *locale.Lang, d *Data) string {
	first, last := d.Results[0].StartedAt, d.Results[0].StartedAt
	for _, r := range d.Results {
		first, last = min(first, r.StartedAt), max(last, r.StartedAt)
	}
	day := func(s string) string { return strings.SplitN(s, "T", 2)[0] }
	if day(first) == day(last) {
		return l.T("overview.date", day(first))
	}
	return l.T("overview.dates", day(first), day(last))
}

// aaZeroText says whether the A/A intervals contain 0. At 95% each, one
// in twenty misses by chance, so a miss is weighed against all n of them
// at once (Bonferroni: each at 1 - 0.05/n): only a difference beyond that
// says two runs of one configuration really differed.
func aaZeroText(l *locale.Lang, rows []*Row, n int) string {
	var missed, beyond []*Row
	level := 1 - (1-stats.Confidence)/float64(n)
	for _, c := range rows {
		if c.Variant != variantpkg.AAName || c.Loss == nil || !c.Loss.Significant {
			continue
		}
		missed = append(missed, c)
		if c.pairBase == nil {
			beyond = append(beyond, c)
			continue
		}
		if all, err := stats.PairedLossPctAt(c.pairBase, c.pairTPS, level); err != nil || all.Significant {
			beyond = append(beyond, c)
		}
	}
	switch {
	case len(missed) == 0:
		return l.T("overview.floor.zero")
	case len(beyond) == 0:
		return l.T("overview.floor.chance", len(missed), n, listWithTargets(l, missed), float64(n)*(1-stats.Confidence), n)
	default:
		return l.T("overview.floor.beyond", len(missed), n, listWithTargets(l, missed), listWithTargets(l, beyond), n)
	}
}

func listWithTargets(l *locale.Lang, cs []*Row) string {
	parts := make([]string, len(cs))
	for i, c := range cs {
		parts[i] = l.T("where.target", c.Workload, threadsText(l, c.Threads), c.Target)
	}
	return strings.Join(parts, l.T("list.sep"))
}
