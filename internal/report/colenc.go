package report

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/encbench/encbench/internal/encryption/colenc"
	"github.com/encbench/encbench/internal/locale"
	"github.com/encbench/encbench/internal/result"
	"github.com/encbench/encbench/internal/suite"
)

// colencTable lists, per column encryption variant (and engine, where
// the engines encrypt differently), every encrypted column with its scheme,
// the share of columns, where predicates ran and what the run read back raw
// from the server.
func colencTable(l *locale.Lang, rs []*result.Result) Table {
	t := Table{Head: []string{l.T("col.variant"), l.T("colenc.encrypted"), l.T("colenc.share"), l.T("colenc.checked"), l.T("colenc.columns"), l.T("colenc.predicates")}}
	type level struct {
		variant           string
		proof             *result.ColencProof
		engines           []string
		predicates        []string
		checked, verified int
	}
	var levels []*level
	find := func(variant string, p *result.ColencProof) *level {
		for _, l := range levels {
			if l.variant == variant && slices.Equal(l.proof.Columns, p.Columns) {
				return l
			}
		}
		l := &level{variant: variant, proof: p}
		levels = append(levels, l)
		return l
	}
	for _, r := range rs {
		p := r.Variant.Verified.Colenc
		if p == nil || p.Level == 0 {
			continue
		}
		l := find(r.Variant.Name, p)
		if t := targetOf(r); !slices.Contains(l.engines, t) {
			l.engines = append(l.engines, t)
		}
		if pr := p.Predicate; pr != "" && !slices.Contains(l.predicates, r.Workload.Name+" "+pr) {
			l.predicates = append(l.predicates, r.Workload.Name+" "+pr)
		}
		l.checked += p.Checked
		l.verified += p.Ciphertext
	}
	split := map[string]int{}
	for _, l := range levels {
		split[l.variant]++
	}
	sort.SliceStable(levels, func(i, j int) bool {
		if levels[i].proof.Level != levels[j].proof.Level {
			return levels[i].proof.Level < levels[j].proof.Level
		}
		return levels[i].variant < levels[j].variant
	})
	for _, lv := range levels {
		p := lv.proof
		name := lv.variant
		if split[lv.variant] > 1 {
			name = l.T("colenc.variant_on", lv.variant, strings.Join(lv.engines, ", "))
		}
		var groups []string
		var table string
		var cols []string
		flush := func() {
			if table != "" {
				groups = append(groups, table+": "+strings.Join(cols, ", "))
			}
		}
		for _, c := range p.Columns {
			if c.Table != table {
				flush()
				table, cols = c.Table, nil
			}
			cols = append(cols, fmt.Sprintf("%s (%s)", c.Column, c.Scheme))
		}
		flush()
		sort.Strings(lv.predicates)
		t.Rows = append(t.Rows, []Text{{S: name}, {S: l.T("n_of_m", p.BusinessEncrypted(), p.BusinessColumns), Strong: true},
			{S: l.T("pct", p.SharePct)},
			{S: l.T("colenc.checked.value", lv.verified, lv.checked)},
			{S: strings.Join(groups, "; ")}, {S: strings.Join(lv.predicates, "; ")}})
	}
	return t
}

// schemesUsed lists the schemes of the runs' encrypted columns.
func schemesUsed(rs []*result.Result) []colenc.Scheme {
	var out []colenc.Scheme
	for _, r := range rs {
		if p := r.Variant.Verified.Colenc; p != nil {
			for _, c := range p.Columns {
				if s := colenc.Scheme(c.Scheme); !slices.Contains(out, s) {
					out = append(out, s)
				}
			}
		}
	}
	return out
}

// leakageTable states what each scheme the runs used lets the server learn.
func leakageTable(l *locale.Lang, used []colenc.Scheme) Table {
	t := Table{Head: []string{l.T("leak.scheme"), l.T("leak.primitive"), l.T("leak.reveals"), l.T("leak.enables")}}
	for _, x := range colenc.Schemes {
		if s := string(x); slices.Contains(used, x) {
			t.Rows = append(t.Rows, []Text{{S: s, Strong: true}, {S: l.T(locale.LeakID(s, "primitive"))},
				{S: l.T(locale.LeakID(s, "reveals"))}, {S: l.T(locale.LeakID(s, "enables"))}})
		}
	}
	return t
}

// referenceTable sets a suite's published losses beside encbench's own,
// per workload, variant and thread count, with encbench's 95% interval per
// target.
func referenceTable(l *locale.Lang, ref *suite.Reference, rows []*Row, order Order) Table {
	t := Table{Head: []string{l.T("col.workload"), l.T("col.variant"), l.T("col.threads"), l.T("ref.published")}}
	for _, tg := range order.Targets {
		t.Head = append(t.Head, l.T("ref.encbench", tg))
	}
	losses := ref.Losses()
	workloads := slices.Sorted(maps.Keys(losses))
	for _, w := range workloads {
		for _, v := range order.Variants {
			byThreads, ok := losses[w][v]
			if !ok || !slices.ContainsFunc(rows, func(c *Row) bool { return c.Workload == w && c.Variant == v }) {
				continue // a suite cut down to some workloads shows only those
			}
			for _, th := range slices.Sorted(maps.Keys(byThreads)) {
				row := []Text{{S: w}, {S: v}, {S: strconv.Itoa(th)}, {S: l.F("%.2f", byThreads[th]), Strong: true}}
				for _, tg := range order.Targets {
					cell := Text{S: "-"}
					for _, c := range rows {
						if c.Target == tg && c.Variant == v && c.Threads == th && c.Workload == w && c.Loss != nil {
							cell = Text{S: lossCI(l, *c.Loss)}
						}
					}
					row = append(row, cell)
				}
				t.Rows = append(t.Rows, row)
			}
		}
	}
	return t
}

// storageTable sets each column encryption variant's data and index size
// beside plaintext's on the same engine and tables, as the server reported
// them before the variant's first run.
func storageTable(l *locale.Lang, rs []*result.Result) Table {
	t := Table{Head: []string{l.T("col.engine"), l.T("col.variant"), l.T("storage.tables"), l.T("storage.rows"), l.T("storage.data"), l.T("storage.per_row"),
		l.T("storage.data_x"), l.T("storage.index"), l.T("storage.index_x")}}
	type size struct {
		engine, variant, tables string
		level                   int
		rows, data, index       int64
	}
	var sizes []*size
	seen := map[string]bool{}
	for _, r := range rs {
		p := r.Variant.Verified.Colenc
		if p == nil || len(p.Storage) == 0 {
			continue
		}
		// The target's name: a MariaDB target is not labelled mysql.
		s := &size{engine: targetOf(r), variant: r.Variant.Name, level: p.Level}
		var names []string
		for _, ts := range p.Storage {
			names = append(names, ts.Table)
			s.rows += ts.Rows
			s.data += ts.TableBytes
			s.index += ts.IndexBytes
		}
		s.tables = strings.Join(names, ", ")
		if key := s.engine + "\x00" + s.variant + "\x00" + s.tables; !seen[key] {
			seen[key] = true
			sizes = append(sizes, s)
		}
	}
	ratio := func(x, base int64) string {
		if base <= 0 {
			return "-"
		}
		return l.F("%.2f", float64(x)/float64(base))
	}
	mib := func(b int64) string { return l.F("%.1f", float64(b)/(1<<20)) }
	for _, s := range sizes {
		var plain *size
		for _, o := range sizes {
			if o.engine == s.engine && o.tables == s.tables && o.level == 0 {
				plain = o
			}
		}
		perRow := "-"
		if s.rows > 0 {
			perRow = l.F("%d", s.data/s.rows)
		}
		row := []Text{{S: s.engine}, {S: s.variant}, {S: s.tables}, {S: l.F("%d", s.rows)}, {S: mib(s.data)}, {S: perRow, Strong: true}, {S: "-"}, {S: mib(s.index)}, {S: "-"}}
		if plain != nil && plain != s {
			row[6], row[8] = Text{S: ratio(s.data, plain.data), Strong: true}, Text{S: ratio(s.index, plain.index), Strong: true}
		}
		t.Rows = append(t.Rows, row)
	}
	return t
}
