package report

import (
	"slices"
	"strings"

	"github.com/encbench/encbench/internal/locale"
	"github.com/encbench/encbench/internal/result"
	"github.com/encbench/encbench/internal/stats"
)

// PartsTable is the R2-style table of one target and thread count: the
// mean time of each event part per variant, and its ratio to the baseline.
type PartsTable struct {
	Title   string
	Target  string
	Threads int
	Parts   []string
	Labels  map[string]string
	// Roles map a part role (connect, handshake, steady, ...) to its part.
	Roles    map[string]string
	Variants []string
	// Means[variant][part] in ms, from the means of each repetition.
	Means map[string]map[string]stats.Summary
	// Ratios[variant][part] is the variant's time over the baseline's,
	// from the repetitions' paired ratios, with its 95% interval; absent
	// when fewer than two repetitions pair up.
	Ratios map[string]map[string]Ratio
	Notes  map[string]map[string]int64
	// Precision is the suite's target for a ratio's half-width, in percent
	// of the baseline's time (0: none).
	Precision float64
	Table     Table
}

// declared are the event parts the results' workloads declare, in their
// order; parts a result timed but did not declare follow in name order.
func declared(rs []*result.Result) []result.Part {
	var out []result.Part
	has := func(n string) bool {
		return slices.ContainsFunc(out, func(p result.Part) bool { return p.Name == n })
	}
	for _, r := range rs {
		for _, p := range r.Workload.Parts {
			if !has(p.Name) {
				out = append(out, p)
			}
		}
	}
	var extra []string
	for _, r := range rs {
		for n := range r.Parts {
			if !has(n) && !slices.Contains(extra, n) {
				extra = append(extra, n)
			}
		}
	}
	slices.Sort(extra)
	for _, n := range extra {
		out = append(out, result.Part{Name: n, Label: n})
	}
	return out
}

// partsOf names the parts the results timed, in declared order.
func partsOf(rs []*result.Result) []string {
	var names []string
	for _, p := range declared(rs) {
		for _, r := range rs {
			if _, ok := r.Parts[p.Name]; ok {
				names = append(names, p.Name)
				break
			}
		}
	}
	return names
}

// partRoles maps a role (workload.Role*) to the part that plays it.
func partRoles(rs []*result.Result) map[string]string {
	out := map[string]string{}
	for _, p := range declared(rs) {
		if p.Role != "" {
			out[p.Role] = p.Name
		}
	}
	return out
}

// partsTables builds one table per target and thread count of a section
// whose results time parts of their events.
func partsTables(l *locale.Lang, rows []*Row, order Order, baseline string, precision float64) []PartsTable {
	var out []PartsTable
	type tt struct {
		target  string
		threads int
	}
	var keys []tt
	for _, c := range rows {
		k := tt{c.Target, c.Threads}
		if !slices.Contains(keys, k) && len(partsOf(c.Results)) > 0 {
			keys = append(keys, k)
		}
	}
	for _, k := range keys {
		pt := PartsTable{Target: k.target, Threads: k.threads, Precision: precision, Means: map[string]map[string]stats.Summary{}, Notes: map[string]map[string]int64{}}
		var rs []*result.Result
		byVariant := map[string]*Row{}
		for _, v := range order.Variants {
			for _, c := range rows {
				if c.Target != k.target || c.Threads != k.threads || c.Variant != v {
					continue
				}
				byVariant[v] = c
				pt.Variants = append(pt.Variants, v)
				rs = append(rs, c.Results...)
				pt.Means[v] = map[string]stats.Summary{}
				pt.Notes[v] = map[string]int64{}
				for _, r := range c.Results {
					for n, x := range r.Notes {
						pt.Notes[v][n] += x
					}
				}
				for _, part := range partsOf(c.Results) {
					var xs []float64
					for _, r := range c.Results {
						if it, ok := r.Parts[part]; ok {
							xs = append(xs, it.Mean)
						}
					}
					s, _ := stats.Summarize(xs)
					pt.Means[v][part] = s
				}
			}
		}
		pt.Ratios = partRatios(byVariant, baseline, pt.Variants)
		pt.Parts = partsOf(rs)
		pt.Roles = partRoles(rs)
		pt.Labels = map[string]string{}
		for _, p := range declared(rs) {
			pt.Labels[p.Name] = p.Label
		}
		pt.Title = l.T("parts.title", k.target, threadsText(l, k.threads))
		pt.Table = pt.table(l, baseline)
		out = append(out, pt)
	}
	return out
}

func (pt PartsTable) table(l *locale.Lang, baseline string) Table {
	t := Table{Head: []string{l.T("parts.part")}}
	for _, v := range pt.Variants {
		t.Head = append(t.Head, l.T("unit.ms.of", v))
		if v != baseline {
			t.Head = append(t.Head, v+" / "+baseline)
		}
	}
	for _, part := range pt.Parts {
		label := part
		if l := pt.Labels[part]; l != "" {
			label = l
		}
		row := []Text{{S: label}}
		for _, v := range pt.Variants {
			m, ok := pt.Means[v][part]
			cell := Text{S: "-"}
			if ok {
				cell = Text{S: l.F("%.4f", m.Mean)}
				if m.N >= 2 && m.Mean > 0 {
					cell.S = l.T("parts.mean_ci", m.Mean, 100*(m.High-m.Low)/2/m.Mean)
				}
			}
			row = append(row, cell)
			if v == baseline {
				continue
			}
			ratio := Text{S: "-"}
			if r, okr := pt.Ratios[v][part]; okr {
				ratio = Text{S: l.T("ci.range", l.T("times", r.Ratio), l.F("%.2f", r.Low), l.F("%.2f", r.High)), Strong: r.Low >= 1.5}
				// The precision rule holds the ratio, paired by block, to
				// the target in percent of the ratio itself.
				if pt.Precision > 0 && r.Ratio > 0 && 100*max(r.Ratio-r.Low, r.High-r.Ratio)/r.Ratio > pt.Precision {
					ratio.S += " *"
				}
			} else if b, okb := pt.Means[baseline][part]; ok && okb && b.Mean > 0 {
				ratio = Text{S: l.T("times", m.Mean/b.Mean), Strong: m.Mean/b.Mean >= 1.5}
			}
			row = append(row, ratio)
		}
		t.Rows = append(t.Rows, row)
	}
	if h := pt.Roles["handshake"]; h != "" && slices.Contains(pt.Parts, h) {
		row := []Text{{S: l.T("parts.tls_row")}}
		for _, v := range pt.Variants {
			n := pt.Notes[v]
			s := "-"
			if n["tls_handshakes"] > 0 {
				s = l.F("%d / %d / %d / %s / %s", n["tls_handshakes"], n["tls_resumed"], n["tls_hello_retry"],
					noted(n, "tls_version "), noted(n, "tls_group "))
			}
			row = append(row, Text{S: s})
			if v != baseline {
				row = append(row, Text{S: ""})
			}
		}
		t.Rows = append(t.Rows, row)
	}
	return t
}

// partsConclusions say where TLS costs: in the handshake or in every query.
func partsConclusions(l *locale.Lang, tables []PartsTable, baseline string, rows []*Row) []string {
	var out []string
	for _, pt := range tables {
		// A section's cells share its workload: name it, as one target
		// may time connections on several (connect, connect_rtt2ms).
		where := pt.Target
		if len(rows) > 0 {
			where += " " + rows[0].Workload
		}
		b := pt.Means[baseline]
		conn, steadyPart := pt.Roles["connect"], pt.Roles["steady"]
		hs, cfPart := pt.Roles["handshake"], pt.Roles["connect_first_query"]
		if b == nil || conn == "" || steadyPart == "" || !slices.Contains(pt.Parts, steadyPart) {
			continue
		}
		for _, v := range pt.Variants {
			if v == baseline {
				continue
			}
			m := pt.Means[v]
			con, rq := m[conn], m[steadyPart]
			if con.N == 0 || b[conn].Mean <= 0 || b[steadyPart].Mean <= 0 {
				continue
			}
			// The ratios are the table's, paired by block, where it has
			// them, so the sentence and the table say the same.
			ratio := func(part string) float64 {
				if r, ok := pt.Ratios[v][part]; ok && r.Ratio > 0 {
					return r.Ratio
				}
				return m[part].Mean / b[part].Mean
			}
			// One sentence of clauses, each a catalogue template.
			clauses := []string{l.T("parts.connect", where, v, baseline, threadsText(l, pt.Threads), ratio(conn), b[conn].Mean, con.Mean)}
			if h, ok := m[hs]; ok && hs != "" && con.Mean > 0 {
				clauses = append(clauses, l.T("parts.handshake_share", 100*h.Mean/con.Mean))
			}
			if _, ok := m[cfPart]; ok && cfPart != "" && b[cfPart].Mean > 0 {
				clauses = append(clauses, l.T("parts.connect_first", ratio(cfPart)))
			}
			steadyID := "parts.steady"
			if r, ok := pt.Ratios[v][steadyPart]; ok {
				if r.Low <= 1 && r.High >= 1 {
					steadyID = "parts.steady.ns"
				}
			} else if x, err := stats.LossPct(itemMeans(rows, pt, baseline, steadyPart), itemMeans(rows, pt, v, steadyPart)); err == nil && !x.Significant {
				steadyID = "parts.steady.ns"
			}
			clauses = append(clauses, l.T(steadyID, ratio(steadyPart), b[steadyPart].Mean, rq.Mean))
			s := []string{l.T("parts.sentence", strings.Join(clauses, l.T("clause.sep")))}
			if ratio(conn) >= 1.5 && ratio(steadyPart) < 1.25 {
				s = append(s, l.T("parts.pool"))
			}
			if n := pt.Notes[v]; n["tls_handshakes"] > 0 {
				s = append(s, l.T("parts.resumed", n["tls_resumed"], n["tls_handshakes"]))
				if n["tls_hello_retry"] > 0 {
					s = append(s, l.T("parts.hello_retry", n["tls_hello_retry"], n["tls_handshakes"], noted(n, "tls_group ")))
				}
			}
			out = append(out, strings.Join(s, l.T("sentence.sep")))
		}
	}
	return out
}

// noted lists the names a workload counted under prefix ("tls_version
// TLS 1.3" gives "TLS 1.3"), sorted.
func noted(n map[string]int64, prefix string) string {
	var out []string
	for k := range n {
		if name, ok := strings.CutPrefix(k, prefix); ok {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return strings.Join(out, ",")
}

// itemMeans are one part's per-repetition means of a cell, for intervals.
func itemMeans(rows []*Row, pt PartsTable, variant, part string) []float64 {
	var out []float64
	for _, c := range rows {
		if c.Target != pt.Target || c.Threads != pt.Threads || c.Variant != variant {
			continue
		}
		for _, r := range c.Results {
			if it, ok := r.Parts[part]; ok {
				// Latency up is a loss of speed: compare rates, not times.
				out = append(out, 1/it.Mean)
			}
		}
	}
	return out
}

// Ratio is a variant's time for a part over the baseline's, with its 95%
// interval.
type Ratio struct{ Ratio, Low, High float64 }

// partRatios pairs each variant's repetitions (rows: the table's row per
// variant) with the baseline's: the time ratio of a part is 1 - the
// paired "loss" of its mean times.
func partRatios(rows map[string]*Row, baseline string, variants []string) map[string]map[string]Ratio {
	out := map[string]map[string]Ratio{}
	base := rows[baseline]
	if base == nil {
		return out
	}
	for _, v := range variants {
		c := rows[v]
		if v == baseline || c == nil {
			continue
		}
		out[v] = map[string]Ratio{}
		for _, part := range partsOf(c.Results) {
			bReps, bMeans := partMeans(base.Results, part)
			vReps, vMeans := partMeans(c.Results, part)
			loss, err := stats.LossByRepetition(bReps, bMeans, vReps, vMeans)
			if err != nil {
				continue
			}
			out[v][part] = Ratio{Ratio: 1 - loss.Pct/100, Low: 1 - loss.High/100, High: 1 - loss.Low/100}
		}
	}
	return out
}
