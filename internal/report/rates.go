package report

import (
	"maps"
	"slices"

	"github.com/encbench/encbench/internal/locale"
	"github.com/encbench/encbench/internal/stats"
)

// RateTable is the loss in one of a workload's own rates (TPC-C's tpmC):
// a row per target and thread count, the baseline's rate and each
// variant's loss, paired by repetition like the TPS loss.
type RateTable struct {
	Rate  string
	Title string
	Table Table
}

// rateTables has a table for each rate that every closed-loop result of
// the section carries.
func rateTables(l *locale.Lang, rows []*Row, order Order, baseline string) []RateTable {
	var closed []*Row
	for _, c := range rows {
		if c.Rate == 0 && len(c.Results) > 0 {
			closed = append(closed, c)
		}
	}
	var out []RateTable
	for _, name := range commonRates(closed) {
		rt := RateTable{Rate: name, Title: l.T("rates.title", name, baseline)}
		rt.Table = rateTable(l, closed, order, baseline, name)
		if len(rt.Table.Rows) > 0 {
			out = append(out, rt)
		}
	}
	return out
}

// commonRates are the rate names every result of the rows has.
func commonRates(rows []*Row) []string {
	var names []string
	for i, c := range rows {
		for j, r := range c.Results {
			has := slices.Sorted(maps.Keys(r.Rates))
			if i == 0 && j == 0 {
				names = has
				continue
			}
			names = slices.DeleteFunc(names, func(n string) bool { return !slices.Contains(has, n) })
		}
	}
	return names
}

func rateTable(l *locale.Lang, rows []*Row, order Order, baseline, name string) Table {
	var variants []string
	for _, v := range order.Variants {
		if v != baseline && slices.ContainsFunc(rows, func(c *Row) bool { return c.Variant == v }) {
			variants = append(variants, v)
		}
	}
	t := Table{Head: []string{l.T("col.target"), l.T("col.threads"), l.T("rates.base", name, baseline)}}
	for _, v := range variants {
		t.Head = append(t.Head, l.T("rates.loss", v))
	}
	for _, b := range rows {
		if b.Variant != baseline {
			continue
		}
		base := rateValues(b, name)
		s, _ := stats.Summarize(base)
		row := []Text{{S: b.Target}, {S: l.F("%d", b.Threads)}, {S: l.F("%.1f", s.Mean)}}
		for _, v := range variants {
			i := slices.IndexFunc(rows, func(c *Row) bool {
				return c.Variant == v && c.Target == b.Target && c.Threads == b.Threads
			})
			cell := Text{S: "-"}
			if i >= 0 {
				c := rows[i]
				if loss, err := stats.LossByRepetition(repetitions(b), base, repetitions(c), rateValues(c, name)); err == nil {
					cell = Text{S: lossCI(l, loss), Strong: loss.Low > 0 || loss.High < 0}
				}
			}
			row = append(row, cell)
		}
		t.Rows = append(t.Rows, row)
	}
	return t
}

func rateValues(c *Row, name string) []float64 {
	out := make([]float64, len(c.Results))
	for i, r := range c.Results {
		out[i] = r.Rates[name]
	}
	return out
}
