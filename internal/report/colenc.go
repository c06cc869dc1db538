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

// colencTable lists, per column encryption level, every encrypted column
// with its scheme, the share of business columns, and what the run read
// back raw from the server.
func colencTable(rs []*result.Result) Table {
	t := Table{Head: []string{"variant", "encrypted columns", "share of business columns", "checked on the server", "columns (scheme)"}}
	type level struct {
		proof             *result.ColencProof
		checked, verified int
	}
	byVariant := map[string]*level{}
	for _, r := range rs {
		p := r.Variant.Verified.Colenc
		if p == nil || p.Level == 0 {
			continue
		}
		l := byVariant[r.Variant.Name]
		if l == nil {
			l = &level{proof: p}
			byVariant[r.Variant.Name] = l
		}
		l.checked += p.Checked
		l.verified += p.Ciphertext
	}
	names := make([]string, 0, len(byVariant))
	for n := range byVariant {
		names = append(names, n)
	}
	sort.Slice(names, func(i, j int) bool { return byVariant[names[i]].proof.Level < byVariant[names[j]].proof.Level })
	for _, n := range names {
		l := byVariant[n]
		p := l.proof
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
		t.Rows = append(t.Rows, []Text{{S: n}, {S: fmt.Sprintf("%d of %d", len(p.Columns), p.BusinessColumns), Strong: true},
			{S: fmt.Sprintf("%.1f%%", p.SharePct)},
			{S: fmt.Sprintf("before each run, values of every business column read raw: %d of %d, all in encrypted columns, decrypted as ciphertexts of their column and row; the rest read as plaintext", l.verified, l.checked)},
			{S: strings.Join(groups, "; ")}})
	}
	return t
}

// leakageTable states what each scheme lets the server learn.
func leakageTable() Table {
	t := Table{Head: []string{"scheme", "primitive", "the server learns", "what works on ciphertext"}}
	for _, l := range colenc.Leakage {
		t.Rows = append(t.Rows, []Text{{S: string(l.Scheme), Strong: true}, {S: l.Primitive}, {S: l.Reveals}, {S: l.Enables}})
	}
	return t
}

// referenceTable sets a suite's published losses beside encbench's own,
// per variant and thread count, with encbench's 95% interval per target.
func referenceTable(ref *suite.Reference, cells []*Cell, order Order) Table {
	t := Table{Head: []string{"variant", "threads", "published loss %"}}
	for _, tg := range order.Targets {
		t.Head = append(t.Head, "encbench "+tg+" loss % (95% CI)")
	}
	for _, v := range order.Variants {
		byThreads, ok := ref.Loss[v]
		if !ok {
			continue
		}
		ths := slices.Sorted(maps.Keys(byThreads))
		for _, th := range ths {
			row := []Text{{S: v}, {S: strconv.Itoa(th)}, {S: fmt.Sprintf("%.2f", byThreads[th]), Strong: true}}
			for _, tg := range order.Targets {
				cell := Text{S: "-"}
				for _, c := range cells {
					if c.Target == tg && c.Variant == v && c.Threads == th && c.Workload == ref.Workload && c.Loss != nil {
						cell = Text{S: fmt.Sprintf("%.1f (%.1f to %.1f)", c.Loss.Pct, c.Loss.Low, c.Loss.High)}
					}
				}
				row = append(row, cell)
			}
			t.Rows = append(t.Rows, row)
		}
	}
	return t
}
