package report

import (
	"bytes"
	"encoding/json"
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

// SeedSection is one published report beside encbench's figures: its
// published numbers judged on the stand-in (Published, counted), and the
// other targets and networks as context.
type SeedSection struct {
	Suite, Report, Title, Source, Setting, Link, Missing, Count string
	// StandIn says which engine stands for the report's system, and why;
	// Projection says how encbench's figures reach the report's setting.
	StandIn, Projection string
	Published           []Published
	Counts              PublishedCount
	PublishedTable      Table
	Context             Table
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
	// Total counts every section's published numbers; Headline says it.
	Total    PublishedCount
	Headline string
	Sections []SeedSection
}

// PublishedFile is a seeds run's published numbers for programs.
const PublishedFile = "published.json"

// seedsAnalysis is the seeds run's published.json: every published number
// judged on its stand-in, and the counts per report and in all.
type seedsAnalysis struct {
	Published []Published               `json:"published"`
	Counts    map[string]PublishedCount `json:"counts"`
	Total     PublishedCount            `json:"total"`
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
	a := seedsAnalysis{Published: []Published{}, Counts: map[string]PublishedCount{}, Total: m.Total}
	for _, sec := range m.Sections {
		a.Published = append(a.Published, sec.Published...)
		a.Counts[sec.Report] = sec.Counts
	}
	js, err := json.MarshalIndent(a, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("encoding the seeds analysis: %w", err)
	}
	analysisPath := filepath.Join(dir, PublishedFile)
	if err := fsx.WriteFile(analysisPath, append(js, '\n'), 0o644); err != nil {
		return nil, err
	}
	return []string{htmlPath, mdPath, analysisPath}, nil
}

// BuildSeeds reads each seed suite's results under dir.
func BuildSeeds(dir string, l *locale.Lang) *SeedsModel {
	m := &SeedsModel{L: l, Title: l.T("seeds.title"), Intro: l.T("seeds.intro4"),
		Generated: l.T("report.generated", time.Now().UTC().Format("2006-01-02 15:04 UTC"), version.String())}
	for _, name := range suite.SeedSuites() {
		m.Sections = append(m.Sections, seedSection(dir, name, l))
	}
	var all []Published
	for _, sec := range m.Sections {
		all = append(all, sec.Published...)
	}
	m.Total = countPublished(all)
	m.Headline = countText(l, m.Total)
	return m
}

func seedSection(dir, name string, l *locale.Lang) SeedSection {
	sec := SeedSection{Suite: name}
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
		if st != nil && st.Reference != nil {
			// Its numbers still count, as not measured.
			sec.Published, _, _ = judgePublished(l, st.Reference, &Data{}, nil, Order{})
			sec.Counts = countPublished(sec.Published)
		}
		return sec
	}
	htmlPath, _, _ := Files(sub, l.Code)
	if _, err := os.Stat(htmlPath); err == nil {
		sec.Link = filepath.Join(name, filepath.Base(htmlPath))
	}
	ref := recordedReference(st.Reference, d)
	if ref == nil {
		sec.Missing = l.T("seeds.no_reference")
		return sec
	}
	order := d.Order()
	cells := Aggregate(d.Results, d.Baseline(), &order)
	var target string
	sec.Published, sec.Context, target = judgePublished(l, ref, d, cells, order)
	if ref.StandIn != nil {
		sec.StandIn = l.T("published.standin", ref.StandIn.Engine, orVariant(l, ref.StandIn.Variant), ref.StandIn.Why)
		if target == "" {
			sec.StandIn += " " + l.T("published.standin.missing", ref.StandIn.Engine)
		}
		if tp := ref.Topology; tp != nil && slices.ContainsFunc(sec.Published, func(p Published) bool { return p.Engine == tp.Target }) {
			sec.StandIn += " " + l.T("published.topology", strings.Join(tp.Parts, ", "), tp.Target, tp.Why)
		}
	}
	sec.Counts = countPublished(sec.Published)
	sec.Count = countText(l, sec.Counts)
	sec.PublishedTable = publishedTable(l, sec.Published)
	if env := ref.Environment; env != nil {
		sec.Setting += " " + l.T("seeds.environment", env.Said)
		sec.Projection = projectionText(l, ref, env)
	}
	return sec
}

// judgePublished judges each number the reference published on its
// stand-in (not measured, where the stand-in did not run), and sets every
// target's figures beside them as context; it names the stand-in's target
// ("": it did not run).
func judgePublished(l *locale.Lang, ref *suite.Reference, d *Data, cells []*Row, order Order) ([]Published, Table, string) {
	e := newExplainer(l, ref, cells, d.Baseline())
	target := standInTarget(cells, ref)
	var ps []Published
	var context Table
	switch {
	case len(ref.Parts) > 0:
		a := anatomyOf(ref, d.Results, d.Baseline(), order)
		context = partsContext(l, ref, a, order)
		if ref.StandIn != nil {
			ps = publishedParts(l, ref, a, cells, target)
		}
	case len(ref.Bounds) > 0:
		context = boundContext(l, ref, e, order)
		if ref.StandIn != nil {
			ps = e.publishedBounds(ref, target, order)
		}
	default:
		context = lossContext(l, ref, e, order, d.Baseline())
		if ref.StandIn != nil {
			ps = e.publishedLosses(ref, target, d.Baseline())
		}
	}
	return ps, context, target
}

// recordedReference is the reference the suite ran with (its record's),
// with what later versions of the built-in suite added to it (the
// stand-in, the parts measured differently) when the record lacks them,
// so that an earlier run's results are judged by the current rules.
func recordedReference(builtin *suite.Reference, d *Data) *suite.Reference {
	ref := builtin
	if d.Record != nil && d.Record.Plan != nil && d.Record.Suite.Reference != nil {
		r := *d.Record.Suite.Reference
		if builtin != nil {
			if r.StandIn == nil {
				r.StandIn = builtin.StandIn
			}
			if r.Different == nil {
				r.Different = builtin.Different
			}
			if r.Topology == nil {
				r.Topology = builtin.Topology
			}
		}
		ref = &r
	}
	return ref
}

func orVariant(l *locale.Lang, v string) string {
	if v == "" {
		return l.T("published.standin.every_variant")
	}
	return v
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

// lossContext sets each published loss (R3, R4) beside encbench's loss
// and interval on every target, the time the report's layer added to a
// transaction beside encbench's, and encbench's projection to the
// report's setting, with where the published loss lies: context for the
// published numbers, which are judged once, on the stand-in.
func lossContext(l *locale.Lang, ref *suite.Reference, e *explainer, order Order, baseline string) Table {
	t := Table{Head: []string{l.T("col.workload"), l.T("col.variant"), l.T("col.threads"), l.T("ref.published"), l.T("seeds.col.implied")}}
	for _, tg := range order.Targets {
		t.Head = append(t.Head, l.T("ref.encbench", tg), l.T("seeds.col.projected", tg), l.T("seeds.col.cost", tg), l.T("seeds.col.comparison"))
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
				impliedText := l.T("seeds.implied.none")
				if implied, ok := e.implied(w, v, baseline, th); ok {
					impliedText = l.F("%+.3f", implied)
				}
				row := []Text{{S: w}, {S: v}, {S: fmt.Sprint(th)}, {S: l.F("%.2f", pub), Strong: true}, {S: impliedText}}
				for _, tg := range order.Targets {
					c := findRow(e.rows, tg, w, v, th)
					if c == nil || c.Loss == nil {
						row = append(row, Text{S: "-"}, Text{S: "-"}, Text{S: "-"}, Text{S: l.T("published.comparison.not_measured")})
						continue
					}
					row = append(row, Text{S: lossCI(l, *c.Loss)}, Text{S: e.projectedText(e.projection(tg, w, v, th))}, Text{S: e.costText(c)},
						Text{S: l.T("published.comparison." + string(compare(pub, lossSpan(*c.Loss))))})
				}
				t.Rows = append(t.Rows, row)
			}
		}
	}
	return t
}

// boundThreads is the suite's lowest or highest thread count (0: none).
func boundThreads(rows []*Row, b suite.Bound) int {
	var threads []int
	for _, c := range rows {
		threads = append(threads, c.Threads)
	}
	if len(threads) == 0 {
		return 0
	}
	if b.Threads == "highest" {
		return slices.Max(threads)
	}
	return slices.Min(threads)
}

// boundContext checks losses a report states as bounds (R1: "up to 20%
// at low concurrency", "under 5% at high concurrency") on every workload
// and target at the suite's lowest and highest thread counts. A bound is
// met unless encbench's whole interval lies above it.
func boundContext(l *locale.Lang, ref *suite.Reference, e *explainer, order Order) Table {
	t := Table{Head: []string{l.T("col.workload"), l.T("col.variant"), l.T("col.threads"), l.T("ref.published")}}
	for _, tg := range order.Targets {
		t.Head = append(t.Head, l.T("ref.encbench", tg), l.T("seeds.col.projected", tg), l.T("seeds.col.cost", tg), l.T("seeds.col.comparison"))
	}
	for _, b := range ref.Bounds {
		th := boundThreads(e.rows, b)
		if th == 0 {
			continue
		}
		for _, w := range order.Workloads {
			for _, v := range order.Variants {
				if v == order.Variants[0] || v == "aa" {
					continue
				}
				row := []Text{{S: w}, {S: v}, {S: fmt.Sprint(th)}, {S: l.T("seeds.at_most", l.F("%g", b.AtMost)), Strong: true}}
				any := false
				for _, tg := range order.Targets {
					c := findRow(e.rows, tg, w, v, th)
					if c == nil || c.Loss == nil {
						row = append(row, Text{S: "-"}, Text{S: "-"}, Text{S: "-"}, Text{S: l.T("published.comparison.not_measured")})
						continue
					}
					any = true
					row = append(row, Text{S: lossCI(l, *c.Loss)}, Text{S: e.projectedText(e.projection(tg, w, v, th))}, Text{S: e.costText(c)},
						Text{S: l.T("published.comparison." + string(compareBound(b.AtMost, lossSpan(*c.Loss))))})
				}
				if any {
					t.Rows = append(t.Rows, row)
				}
			}
		}
	}
	return t
}

// lossSpan is a loss with its interval.
func lossSpan(x stats.Loss) Span { return Span{Value: x.Pct, Low: x.Low, High: x.High} }

// anatomy is a connect suite's parts, variant against baseline, per
// target, workload (label), part and variant, and again by where they
// were measured: the variant, the part, whether the reused query ran in a
// phase of its own, and the added round trip.
type anatomy struct {
	cells     map[anatomyKey]*partCell
	atNetwork map[anatomyWhere]*partCell
	// reusedAt are the round trips at which the reused query ran in a
	// phase of its own (--connect-phase reused), as R2 timed it.
	reusedAt map[float64]bool
}

type anatomyKey struct{ target, workload, part, variant string }

type anatomyWhere struct {
	target, variant, part string
	reusedOnly            bool
	rtt                   float64
}

// anatomyParts are R2's parts in its order.
var anatomyParts = []string{"connect", "first_query", "connect_first_query", "reused_query"}

// anatomyOf compares every part the reference publishes, for each of its
// variants against the baseline. The reused query is compared where it
// ran in a phase of its own when the suite has one at the same delay.
func anatomyOf(ref *suite.Reference, rs []*result.Result, baseline string, order Order) *anatomy {
	type key struct{ target, workload, variant string }
	byKey := map[key][]*result.Result{}
	a := &anatomy{cells: map[anatomyKey]*partCell{}, atNetwork: map[anatomyWhere]*partCell{}, reusedAt: map[float64]bool{}}
	for _, r := range rs {
		if r.Workload.Name == ref.Workload {
			k := key{targetOf(r), workloadOf(r), r.Variant.Name}
			byKey[k] = append(byKey[k], r)
		}
		if reusedOnly(r) {
			a.reusedAt[rttOf(r)] = true
		}
	}
	for _, tg := range order.Targets {
		for _, w := range order.Workloads {
			base := byKey[key{tg, w, baseline}]
			if len(base) == 0 {
				continue
			}
			only, rtt := reusedOnly(base[0]), rttOf(base[0])
			for _, part := range anatomyParts {
				if _, ok := ref.Parts[part]; !ok || only != (part == "reused_query") && (only || a.reusedAt[rtt]) {
					continue
				}
				for _, v := range ref.PartsVariants {
					if vr := byKey[key{tg, w, v}]; len(vr) > 0 {
						c := comparePart(base, vr, part)
						c.workload = w
						a.cells[anatomyKey{tg, w, part, v}] = c
						a.atNetwork[anatomyWhere{tg, v, part, only, rtt}] = c
					}
				}
			}
		}
	}
	return a
}

// at is a part measured at a round trip (nil: not measured there).
func (a *anatomy) at(target, variant, part string, rtt float64) *partCell {
	c := a.atNetwork[anatomyWhere{target, variant, part, part == "reused_query" && a.reusedAt[rtt], rtt}]
	if c == nil || c.err != nil {
		return nil
	}
	return c
}

// partsContext sets R2's connection anatomy (ms with TLS off and on, and
// their ratio) beside encbench's for every target, TLS variant and
// emulated network of the suite's connect workloads, as context: the
// ratio's interval comes from the repetitions' paired ratios, and the
// comparison places the published ratio against it. The published
// numbers themselves are judged once, on the stand-in (publishedParts).
func partsContext(l *locale.Lang, ref *suite.Reference, a *anatomy, order Order) Table {
	t := Table{Head: []string{l.T("col.target"), l.T("col.workload"), l.T("parts.part"), l.T("seeds.col.published_ms"), l.T("seeds.col.published_ratio"),
		l.T("col.variant"), l.T("seeds.col.encbench_ms"), l.T("seeds.col.encbench_ratio"), l.T("seeds.col.published_added"),
		l.T("seeds.col.encbench_added"), l.T("seeds.col.comparison")}}
	for _, tg := range order.Targets {
		for _, w := range order.Workloads {
			for _, part := range anatomyParts {
				pub := ref.Parts[part]
				for _, v := range ref.PartsVariants {
					c, ok := a.cells[anatomyKey{tg, w, part, v}]
					if !ok {
						continue
					}
					pubRatio, pubAdded := pub["on"]/pub["off"], pub["on"]-pub["off"]
					row := []Text{{S: tg}, {S: w}, {S: part}, {S: l.F("%.2f", pub["off"]) + " / " + l.F("%.2f", pub["on"])},
						{S: l.F("%.2f", pubRatio), Strong: true}, {S: v}}
					if c.err != nil {
						row = append(row, Text{S: "-"}, Text{S: "-"}, Text{S: l.F("%+.3f", pubAdded)}, Text{S: "-"}, Text{S: l.T("published.comparison.not_measured")})
						t.Rows = append(t.Rows, row)
						continue
					}
					row = append(row, Text{S: l.F("%.3f", c.offMs) + " / " + l.F("%.3f", c.onMs)},
						Text{S: l.T("ci.range", l.F("%.2f", c.ratio), l.F("%.2f", c.ratioLow), l.F("%.2f", c.ratioHigh))},
						Text{S: l.F("%+.3f", pubAdded)}, Text{S: addedText(l, c)},
						Text{S: l.T("published.comparison." + string(compare(pubRatio, c.ratioSpan())))})
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
	// workload is the suite's workload (label) the part was measured in.
	workload                   string
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

// ratioSpan is the part's ratio variant/baseline with its interval.
func (c *partCell) ratioSpan() Span { return Span{Value: c.ratio, Low: c.ratioLow, High: c.ratioHigh} }

// addedText is encbench's added time for a part.
func addedText(l *locale.Lang, c *partCell) string {
	if c.added == nil {
		return l.T("na")
	}
	return l.T("ci.range", l.F("%+.3f", c.added.Mean), l.F("%+.3f", c.added.Low), l.F("%+.3f", c.added.High))
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
	fmt.Fprintf(&b, "# %s\n\n%s\n\n%s\n\n**%s**\n\n", m.Title, m.Generated, m.Intro, m.Headline)
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
		for _, para := range []string{s.StandIn, s.Projection, s.Count} {
			if para != "" {
				fmt.Fprintf(&b, "%s\n\n", para)
			}
		}
		if len(s.PublishedTable.Rows) > 0 {
			mdTable(&b, s.PublishedTable)
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "%s\n\n", l.T("published.context"))
		mdTable(&b, s.Context)
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
<p><strong>{{.Headline}}</strong></p>
{{range .Sections}}
<h2>{{.Title}}</h2>
{{if .Source}}<p class="note">{{$.L.T "seeds.source"}}: {{.Source}}</p>{{end}}
<p>{{.Setting}}</p>
{{if .Method}}<p>{{$.L.T "seeds.method.title"}}</p>
<ul>{{range .Method}}<li>{{.}}</li>{{end}}</ul>{{end}}
{{if .Missing}}<p><strong>{{.Missing}}</strong></p>{{else}}
{{if .StandIn}}<p>{{.StandIn}}</p>{{end}}
{{if .Projection}}<p>{{.Projection}}</p>{{end}}
<p><strong>{{.Count}}</strong></p>
{{if .PublishedTable.Rows}}{{template "table" .PublishedTable}}{{end}}
<p>{{$.L.T "published.context"}}</p>
{{template "table" .Context}}
{{if .Link}}<p><a href="{{.Link}}">{{$.L.T "seeds.full" .Link}}</a></p>{{end}}
{{end}}
{{end}}
</body></html>
{{define "table"}}<table><thead><tr>{{range .Head}}<th>{{.}}</th>{{end}}</tr></thead><tbody>
{{range .Rows}}<tr>{{range .}}<td>{{if .Strong}}<strong>{{.S}}</strong>{{else}}{{.S}}{{end}}</td>{{end}}</tr>
{{end}}</tbody></table>{{end}}`))
