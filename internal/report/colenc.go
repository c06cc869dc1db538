package report

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/encbench/encbench/internal/encryption/colenc"
	result "github.com/encbench/encbench/internal/resultdoc"
	"github.com/encbench/encbench/internal/suite"
)

// colencTable lists, per column encryption variant (and engine, where
// the engines encrypt differently), every encrypted column with its scheme,
// the share of columns, where predicates ran and what the run read back raw
// from the server.
func colencTable(rs []*result.Result) Table {
	t := Table{Head: []string{"variant", "encrypted columns", "share of columns", "checked on the server", "columns (scheme)", "predicates"}}
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
		if !slices.Contains(l.engines, r.Engine.Kind) {
			l.engines = append(l.engines, r.Engine.Kind)
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
	for _, l := range levels {
		p := l.proof
		name := l.variant
		if split[l.variant] > 1 {
			name += " on " + strings.Join(l.engines, ", ")
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
		sort.Strings(l.predicates)
		t.Rows = append(t.Rows, []Text{{S: name}, {S: fmt.Sprintf("%d of %d", len(p.Columns), p.BusinessColumns), Strong: true},
			{S: fmt.Sprintf("%.1f%%", p.SharePct)},
			{S: fmt.Sprintf("before each run, stored values read raw: %d of %d in encrypted columns, each decrypted as a ciphertext of its column and row; the rest read as plaintext", l.verified, l.checked)},
			{S: strings.Join(groups, "; ")}, {S: strings.Join(l.predicates, "; ")}})
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
func leakageTable(used []colenc.Scheme) Table {
	t := Table{Head: []string{"scheme", "primitive", "the server learns", "what works on ciphertext"}}
	for _, l := range colenc.Leakage {
		if slices.Contains(used, l.Scheme) {
			t.Rows = append(t.Rows, []Text{{S: string(l.Scheme), Strong: true}, {S: l.Primitive}, {S: l.Reveals}, {S: l.Enables}})
		}
	}
	return t
}

// referenceTable sets a suite's published losses beside encbench's own,
// per workload, variant and thread count, with encbench's 95% interval per
// target.
func referenceTable(ref *suite.Reference, cells []*Cell, order Order) Table {
	t := Table{Head: []string{"workload", "variant", "threads", "published loss %"}}
	for _, tg := range order.Targets {
		t.Head = append(t.Head, "encbench "+tg+" loss % (95% CI)")
	}
	losses := ref.Losses()
	workloads := slices.Sorted(maps.Keys(losses))
	for _, w := range workloads {
		for _, v := range order.Variants {
			byThreads, ok := losses[w][v]
			if !ok || !slices.ContainsFunc(cells, func(c *Cell) bool { return c.Workload == w && c.Variant == v }) {
				continue // a suite cut down to some workloads shows only those
			}
			for _, th := range slices.Sorted(maps.Keys(byThreads)) {
				row := []Text{{S: w}, {S: v}, {S: strconv.Itoa(th)}, {S: fmt.Sprintf("%.2f", byThreads[th]), Strong: true}}
				for _, tg := range order.Targets {
					cell := Text{S: "-"}
					for _, c := range cells {
						if c.Target == tg && c.Variant == v && c.Threads == th && c.Workload == w && c.Loss != nil {
							cell = Text{S: fmt.Sprintf("%.1f (%.1f to %.1f)", c.Loss.Pct, c.Loss.Low, c.Loss.High)}
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
