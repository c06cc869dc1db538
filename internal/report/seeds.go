package report

import (
	"bytes"
	"errors"
	"fmt"
	"html/template"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/encbench/encbench/internal/errs"
	"github.com/encbench/encbench/internal/fsx"
	"github.com/encbench/encbench/internal/locale"
	"github.com/encbench/encbench/internal/result"
	"github.com/encbench/encbench/internal/stats"
	"github.com/encbench/encbench/internal/suite"
	"github.com/encbench/encbench/internal/version"
)

// Verdict says where a published figure lies against encbench's 95%
// interval for the same cell.
type Verdict string

const (
	Agrees Verdict = "agrees" // inside the interval
	Lower  Verdict = "lower"  // encbench's interval lies below it
	Higher Verdict = "higher" // encbench's interval lies above it
)

// verdictOf places a published figure against [low, high].
func verdictOf(published, low, high float64) Verdict {
	switch {
	case high < published:
		return Lower
	case low > published:
		return Higher
	}
	return Agrees
}

// SeedSection is one published report beside encbench's figures.
type SeedSection struct {
	Suite, Report, Title, Source, Setting, Link, Missing, Count string
	Table                                                       Table
	Verdicts                                                    map[Verdict]int
	// Method lists where the suite's method departs from the report's,
	// one line each (seeds.method.SUITE.N).
	Method []string
}

// SeedsModel is the seeds report: a section per published report.
type SeedsModel struct {
	L         *locale.Lang
	Title     string
	Generated string
	Intro     string
	Sections  []SeedSection
}

// WriteSeeds writes the seeds report of a seeds run's directory (one
// suite directory per seed suite) as HTML and Markdown.
func WriteSeeds(dir string, o Options) ([]string, error) {
	if o.Lang == "" {
		o.Lang = locale.Default
	}
	l, err := locale.Get(o.Lang)
	if err != nil {
		return nil, errs.Usage("%w", err)
	}
	m := BuildSeeds(dir, l)
	htmlPath, mdPath, _ := Files(dir, o.Lang)
	var h bytes.Buffer
	if err := seedsHTML.Execute(&h, m); err != nil {
		return nil, fmt.Errorf("rendering the seeds report: %w", err)
	}
	if err := fsx.WriteFile(htmlPath, h.Bytes(), 0o644); err != nil {
		return nil, err
	}
	if err := fsx.WriteFile(mdPath, []byte(SeedsMarkdown(m)), 0o644); err != nil {
		return nil, err
	}
	return []string{htmlPath, mdPath}, nil
}

// BuildSeeds reads each seed suite's results under dir.
func BuildSeeds(dir string, l *locale.Lang) *SeedsModel {
	m := &SeedsModel{L: l, Title: l.T("seeds.title"), Intro: l.T("seeds.intro4"),
		Generated: l.T("report.generated", time.Now().UTC().Format("2006-01-02 15:04 UTC"), version.String())}
	for _, name := range suite.SeedSuites() {
		m.Sections = append(m.Sections, seedSection(dir, name, l))
	}
	return m
}

func seedSection(dir, name string, l *locale.Lang) SeedSection {
	sec := SeedSection{Suite: name, Verdicts: map[Verdict]int{}}
	st, _, err := suite.Load(name)
	if err == nil && st.Reference != nil {
		sec.Report = st.Reference.Report
		sec.Source = st.Reference.Source
	}
	sec.Title = l.T("seeds.section", sec.Report, name)
	sec.Method = methodLines(l, name)
	sec.Setting = l.T("seeds.setting." + name)
	sub := filepath.Join(dir, name)
	d, err := Load(sub)
	if err == nil && len(d.Results) == 0 {
		err = errors.New(l.T("seeds.no_results"))
	}
	if err != nil {
		sec.Missing = l.T("seeds.missing", firstLineOf(err))
		return sec
	}
	htmlPath, _, _ := Files(sub, l.Code)
	if _, err := os.Stat(htmlPath); err == nil {
		sec.Link = filepath.Join(name, filepath.Base(htmlPath))
	}
	ref := st.Reference
	if d.Record != nil && d.Record.Plan != nil && d.Record.Suite.Reference != nil {
		ref = d.Record.Suite.Reference
	}
	order := d.Order()
	cells := Aggregate(d.Results, d.Baseline(), &order)
	switch {
	case ref == nil:
		sec.Missing = l.T("seeds.no_reference")
	case len(ref.Parts) > 0:
		sec.Table = partsVerdicts(l, ref, d.Results, d.Baseline(), order, sec.Verdicts)
	case len(ref.Bounds) > 0:
		sec.Table = boundVerdicts(l, ref, cells, order, d.Baseline(), sec.Verdicts)
	default:
		sec.Table = lossVerdicts(l, ref, cells, order, d.Baseline(), sec.Verdicts)
	}
	sec.Count = countText(l, sec.Verdicts)
	if env := ref.Environment; env != nil {
		sec.Setting += " " + l.T("seeds.environment", env.Said)
	}
	return sec
}

// methodLines are the catalogue's seeds.method.SUITE.1, .2, ... for as
// long as they go.
func methodLines(l *locale.Lang, suiteName string) []string {
	var out []string
	for i := 1; ; i++ {
		id := fmt.Sprintf("seeds.method.%s.%d", suiteName, i)
		s := l.T(id)
		if s == id {
			return out
		}
		out = append(out, s)
	}
}

func firstLineOf(err error) string {
	s, _, _ := strings.Cut(err.Error(), "\n")
	return s
}

// lossVerdicts sets each published loss (R3, R4) beside encbench's loss
// and interval on every target, the time the report's layer added to a
// transaction beside encbench's, encbench's projection to the report's
// setting, and one of the four verdicts.
func lossVerdicts(l *locale.Lang, ref *suite.Reference, rows []*Row, order Order, baseline string, count map[Verdict]int) Table {
	e := newExplainer(l, ref, rows, baseline)
	t := Table{Head: []string{l.T("col.workload"), l.T("col.variant"), l.T("col.threads"), l.T("ref.published"), l.T("seeds.col.implied")}}
	for _, tg := range order.Targets {
		t.Head = append(t.Head, l.T("ref.encbench", tg), l.T("seeds.col.projected", tg), l.T("seeds.col.cost", tg), l.T("seeds.col.verdict"))
	}
	losses := ref.Losses()
	for _, w := range slices.Sorted(maps.Keys(losses)) {
		for _, v := range order.Variants {
			byThreads, ok := losses[w][v]
			if !ok {
				continue
			}
			for _, th := range slices.Sorted(maps.Keys(byThreads)) {
				pub := byThreads[th]
				implied, hasImplied := e.implied(w, v, baseline, th)
				impliedText := l.T("seeds.implied.none")
				if hasImplied {
					impliedText = l.F("%+.3f", implied)
				}
				row := []Text{{S: w}, {S: v}, {S: fmt.Sprint(th)}, {S: l.F("%.2f", pub), Strong: true}, {S: impliedText}}
				for _, tg := range order.Targets {
					c := findRow(rows, tg, w, v, th)
					if c == nil || c.Loss == nil {
						row = append(row, Text{S: "-"}, Text{S: "-"}, Text{S: "-"}, Text{S: l.T("seeds.verdict.none")})
						continue
					}
					p := e.projection(tg, w, v, th)
					verdict := e.verdict(pub, c, p, implied, hasImplied)
					row = append(row, Text{S: lossCI(l, *c.Loss)}, Text{S: e.projectedText(p)}, Text{S: e.costText(c)},
						verdictCell(l, verdict, verdictOf(pub, c.Loss.Low, c.Loss.High), count))
				}
				t.Rows = append(t.Rows, row)
			}
		}
	}
	return t
}

// boundVerdicts checks losses a report states as bounds (R1: "up to 20%
// at low concurrency", "under 5% at high concurrency") on every workload
// at the suite's lowest and highest thread counts. A bound is met unless
// encbench's whole interval lies above it.
func boundVerdicts(l *locale.Lang, ref *suite.Reference, rows []*Row, order Order, baseline string, count map[Verdict]int) Table {
	e := newExplainer(l, ref, rows, baseline)
	t := Table{Head: []string{l.T("col.workload"), l.T("col.variant"), l.T("col.threads"), l.T("ref.published")}}
	for _, tg := range order.Targets {
		t.Head = append(t.Head, l.T("ref.encbench", tg), l.T("seeds.col.projected", tg), l.T("seeds.col.cost", tg), l.T("seeds.col.verdict"))
	}
	var threads []int
	for _, c := range rows {
		if !slices.Contains(threads, c.Threads) {
			threads = append(threads, c.Threads)
		}
	}
	if len(threads) == 0 {
		return t
	}
	slices.Sort(threads)
	for _, b := range ref.Bounds {
		th := threads[0]
		if b.Threads == "highest" {
			th = threads[len(threads)-1]
		}
		for _, w := range order.Workloads {
			for _, v := range order.Variants {
				if v == order.Variants[0] || v == "aa" {
					continue
				}
				row := []Text{{S: w}, {S: v}, {S: fmt.Sprint(th)}, {S: l.T("seeds.at_most", l.F("%g", b.AtMost)), Strong: true}}
				any := false
				for _, tg := range order.Targets {
					c := findRow(rows, tg, w, v, th)
					if c == nil || c.Loss == nil {
						row = append(row, Text{S: "-"}, Text{S: "-"}, Text{S: "-"}, Text{S: l.T("seeds.verdict.none")})
						continue
					}
					any = true
					// A bound is met unless the whole interval lies above
					// it; the report gives no throughputs, so a miss is
					// explained by the projection or not at all.
					p := e.projection(tg, w, v, th)
					verdict, place := Agrees, Agrees
					if c.Loss.Low > b.AtMost {
						verdict, place = Unexplained, Higher
						if p != nil && p.LossPct != nil && p.LossPct.Low <= b.AtMost {
							verdict = Explained
						}
					}
					row = append(row, Text{S: lossCI(l, *c.Loss)}, Text{S: e.projectedText(p)}, Text{S: e.costText(c)}, verdictCell(l, verdict, place, count))
				}
				if any {
					t.Rows = append(t.Rows, row)
				}
			}
		}
	}
	return t
}

// partsVerdicts sets R2's connection anatomy (ms with TLS off and on, and
// their ratio) beside encbench's for each TLS variant and each emulated
// network of the suite's connect workloads: the ratio's interval comes
// from the repetitions' paired ratios, and the first verdict compares
// ratios, since absolute times depend on the network and machine. R2
// gives times, not throughputs, so what projects a part to the report's
// setting is encbench's own measurement through the emulated network at
// the round trip the report's environment assumes: a figure outside the
// interval here but inside that one is explained by the network. The
// time the report's layer added to a part (on minus off) is set beside
// encbench's at that round trip (or here, when the suite has no such
// network); more than twice or less than half of it differs in the layer.
func partsVerdicts(l *locale.Lang, ref *suite.Reference, rs []*result.Result, baseline string, order Order, count map[Verdict]int) Table {
	t := Table{Head: []string{l.T("col.target"), l.T("col.workload"), l.T("parts.part"), l.T("seeds.col.published_ms"), l.T("seeds.col.published_ratio"),
		l.T("col.variant"), l.T("seeds.col.encbench_ms"), l.T("seeds.col.encbench_ratio"), l.T("seeds.col.published_added"),
		l.T("seeds.col.encbench_added"), l.T("seeds.col.verdict")}}
	type key struct{ target, workload, variant string }
	byKey := map[key][]*result.Result{}
	for _, r := range rs {
		if r.Workload.Name == ref.Workload {
			k := key{targetOf(r), workloadOf(r), r.Variant.Name}
			byKey[k] = append(byKey[k], r)
		}
	}
	parts := []string{"connect", "first_query", "connect_first_query", "reused_query"}
	// The reused query is compared where it ran in a phase of its own
	// (--connect-phase reused), as R2 timed it, when the suite has one at
	// the same network delay.
	reusedAt := map[float64]bool{}
	for _, r := range rs {
		if reusedOnly(r) {
			reusedAt[rttOf(r)] = true
		}
	}
	// First every comparison's figures, so that a row measured on one
	// network can be judged by the same part at the report's.
	type where struct {
		target, variant, part string
		reusedOnly            bool
		rtt                   float64
	}
	type rowKey struct{ target, workload, part, variant string }
	cells := map[rowKey]*partCell{}
	atNetwork := map[where]*partCell{}
	for _, tg := range order.Targets {
		for _, w := range order.Workloads {
			base := byKey[key{tg, w, baseline}]
			if len(base) == 0 {
				continue
			}
			only, rtt := reusedOnly(base[0]), rttOf(base[0])
			for _, part := range parts {
				if _, ok := ref.Parts[part]; !ok || only != (part == "reused_query") && (only || reusedAt[rtt]) {
					continue
				}
				for _, v := range ref.PartsVariants {
					vr := byKey[key{tg, w, v}]
					if len(vr) == 0 {
						continue
					}
					c := comparePart(base, vr, part)
					cells[rowKey{tg, w, part, v}] = c
					atNetwork[where{tg, v, part, only, rtt}] = c
				}
			}
		}
	}
	var reportRTT *float64
	if env := ref.Environment; env != nil {
		reportRTT = &env.RTTMs
	}
	for _, tg := range order.Targets {
		for _, w := range order.Workloads {
			for _, part := range parts {
				pub := ref.Parts[part]
				for _, v := range ref.PartsVariants {
					c, ok := cells[rowKey{tg, w, part, v}]
					if !ok {
						continue
					}
					pubRatio, pubAdded := pub["on"]/pub["off"], pub["on"]-pub["off"]
					row := []Text{{S: tg}, {S: w}, {S: part}, {S: l.F("%.2f", pub["off"]) + " / " + l.F("%.2f", pub["on"])},
						{S: l.F("%.2f", pubRatio), Strong: true}, {S: v}}
					if c.err != nil {
						row = append(row, Text{S: "-"}, Text{S: "-"}, Text{S: l.F("%+.3f", pubAdded)}, Text{S: "-"}, Text{S: l.T("seeds.verdict.none")})
						t.Rows = append(t.Rows, row)
						continue
					}
					var there *partCell
					if reportRTT != nil {
						there = atNetwork[where{tg, v, part, part == "reused_query" && reusedAt[*reportRTT], *reportRTT}]
					}
					place := verdictOf(pubRatio, c.ratioLow, c.ratioHigh)
					row = append(row, Text{S: l.F("%.3f", c.offMs) + " / " + l.F("%.3f", c.onMs)},
						Text{S: l.T("ci.range", l.F("%.2f", c.ratio), l.F("%.2f", c.ratioLow), l.F("%.2f", c.ratioHigh))},
						Text{S: l.F("%+.3f", pubAdded)}, Text{S: addedText(l, c, there)},
						verdictCell(l, partVerdict(pubRatio, pubAdded, c, there), place, count))
					t.Rows = append(t.Rows, row)
				}
			}
		}
	}
	return t
}

// partCell is one part of encbench's anatomy, variant against baseline:
// mean times, the ratio variant/baseline and the added time, with 95%
// intervals over the repetitions.
type partCell struct {
	offMs, onMs                float64
	ratio, ratioLow, ratioHigh float64
	added                      *stats.Diff
	err                        error
}

func comparePart(base, variant []*result.Result, part string) *partCell {
	bReps, bMeans := partMeans(base, part)
	vReps, vMeans := partMeans(variant, part)
	loss, err := stats.LossByRepetition(bReps, bMeans, vReps, vMeans)
	if err != nil {
		return &partCell{err: err}
	}
	// loss = 1 - on/off, so the ratio on/off is 1 - loss.
	c := &partCell{offMs: mean(bMeans), onMs: mean(vMeans), ratio: 1 - loss.Pct/100, ratioLow: 1 - loss.High/100, ratioHigh: 1 - loss.Low/100}
	if d, err := stats.DiffByRepetition(bReps, bMeans, vReps, vMeans); err == nil {
		c.added = &d
	}
	return c
}

// partVerdict: the published ratio inside this row's interval agrees;
// inside the interval at the report's round trip (there), it is explained
// by the network; a published added time more than twice or less than
// half of encbench's (at the report's round trip when measured, else
// here) differs in the layer.
func partVerdict(pubRatio, pubAdded float64, here, there *partCell) Verdict {
	switch {
	case verdictOf(pubRatio, here.ratioLow, here.ratioHigh) == Agrees:
		return Agrees
	case there != nil && there != here && there.err == nil && verdictOf(pubRatio, there.ratioLow, there.ratioHigh) == Agrees:
		return Explained
	}
	ref := here
	if there != nil && there.err == nil {
		ref = there
	}
	if a := ref.added; a != nil && (pubAdded > layerFactor*max(a.High, 0) || pubAdded < max(a.Low, 0)/layerFactor) {
		return InLayer
	}
	return Unexplained
}

// addedText is encbench's added time for a part here, and at the
// report's round trip when that is another row.
func addedText(l *locale.Lang, here, there *partCell) string {
	text := func(c *partCell) string {
		if c.added == nil {
			return l.T("na")
		}
		return l.T("ci.range", l.F("%+.3f", c.added.Mean), l.F("%+.3f", c.added.Low), l.F("%+.3f", c.added.High))
	}
	if there == nil || there == here || there.err != nil {
		return text(here)
	}
	return l.T("seeds.added_here_there", text(here), text(there))
}

// reusedOnly says r ran only the reused query (--connect-phase reused).
func reusedOnly(r *result.Result) bool { return r.Workload.Params["connect_phase"] == "reused" }

// rttOf is the delay r's connections crossed, in ms (0: none added).
func rttOf(r *result.Result) float64 {
	if r.Network == nil {
		return 0
	}
	return r.Network.RTTMs
}

// partMeans are the results' repetitions and their mean time of a part.
func partMeans(rs []*result.Result, part string) (reps []int, means []float64) {
	for _, r := range rs {
		if it, ok := r.Parts[part]; ok && it.N > 0 {
			reps = append(reps, r.Repetition)
			means = append(means, it.Mean)
		}
	}
	return reps, means
}

func mean(xs []float64) float64 {
	s, err := stats.Summarize(xs)
	if err != nil {
		return 0
	}
	return s.Mean
}

func lossCI(l *locale.Lang, x stats.Loss) string {
	return l.T("ci.range", l.F("%.1f", x.Pct), l.F("%.1f", x.Low), l.F("%.1f", x.High))
}

func findRow(rows []*Row, target, workload, variant string, threads int) *Row {
	for _, c := range rows {
		if c.Target == target && c.Workload == workload && c.Variant == variant && c.Threads == threads {
			return c
		}
	}
	return nil
}

// SeedsMarkdown renders the seeds report as Markdown.
func SeedsMarkdown(m *SeedsModel) string {
	l := m.L
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n\n%s\n\n%s\n\n", m.Title, m.Generated, m.Intro)
	for _, s := range m.Sections {
		fmt.Fprintf(&b, "## %s\n\n", s.Title)
		if s.Source != "" {
			fmt.Fprintf(&b, "%s: %s\n\n", l.T("seeds.source"), s.Source)
		}
		fmt.Fprintf(&b, "%s\n\n", s.Setting)
		if len(s.Method) > 0 {
			fmt.Fprintf(&b, "%s\n\n", l.T("seeds.method.title"))
			for _, m := range s.Method {
				fmt.Fprintf(&b, "- %s\n", m)
			}
			b.WriteString("\n")
		}
		if s.Missing != "" {
			fmt.Fprintf(&b, "%s\n\n", s.Missing)
			continue
		}
		fmt.Fprintf(&b, "%s\n\n", s.Count)
		mdTable(&b, s.Table)
		if s.Link != "" {
			fmt.Fprintf(&b, "\n%s\n", l.T("seeds.full", s.Link))
		}
		b.WriteString("\n")
	}
	return b.String()
}

var seedsHTML = template.Must(template.New("seeds").Parse(`<!DOCTYPE html>
<html lang="{{.L.Code}}"><head><meta charset="utf-8"><title>{{.Title}}</title>
<style>
body{font-family:system-ui,sans-serif;max-width:78rem;margin:2rem auto;padding:0 1rem;color:#222}
table{border-collapse:collapse;margin:1rem 0;font-size:.9rem}
th,td{border:1px solid #ccc;padding:.3rem .5rem;text-align:left}
th{background:#f3f3f3}
.note{color:#555}
</style></head><body>
<h1>{{.Title}}</h1>
<p class="note">{{.Generated}}</p>
<p>{{.Intro}}</p>
{{range .Sections}}
<h2>{{.Title}}</h2>
{{if .Source}}<p class="note">{{$.L.T "seeds.source"}}: {{.Source}}</p>{{end}}
<p>{{.Setting}}</p>
{{if .Method}}<p>{{$.L.T "seeds.method.title"}}</p>
<ul>{{range .Method}}<li>{{.}}</li>{{end}}</ul>{{end}}
{{if .Missing}}<p><strong>{{.Missing}}</strong></p>{{else}}
<p>{{.Count}}</p>
<table><thead><tr>{{range .Table.Head}}<th>{{.}}</th>{{end}}</tr></thead><tbody>
{{range .Table.Rows}}<tr>{{range .}}<td>{{if .Strong}}<strong>{{.S}}</strong>{{else}}{{.S}}{{end}}</td>{{end}}</tr>
{{end}}</tbody></table>
{{if .Link}}<p><a href="{{.Link}}">{{$.L.T "seeds.full" .Link}}</a></p>{{end}}
{{end}}
{{end}}
</body></html>
`))
