package report

import (
	"strings"
	"testing"

	"github.com/encbench/encbench/internal/locale"
	"github.com/encbench/encbench/internal/result"
)

// TestRateTablesPairTpmC: a TPC-C section gets a tpmC loss table, paired
// by repetition like the TPS loss, and a section whose results carry no
// rate gets none.
func TestRateTablesPairTpmC(t *testing.T) {
	l, err := locale.Get("en")
	if err != nil {
		t.Fatal(err)
	}
	mk := func(v string, rep int, tps, tpmC float64) *result.Result {
		r := &result.Result{Repetition: rep, Threads: 8, TPS: tps, Target: "postgres://127.0.0.1:5432/sbtest"}
		r.Engine.Kind = "postgres"
		r.Workload.Name = "tpcc"
		r.Variant.Name = v
		if tpmC > 0 {
			r.Rates = map[string]float64{"tpmC": tpmC}
		}
		return r
	}
	var rs, plainRs []*result.Result
	// The repetitions drift together: paired, colenc20 loses 10% of tpmC
	// in each.
	for rep, drift := range []float64{0.9, 1.0, 1.1, 1.05} {
		wobble := 1 + 0.001*float64(rep%2)
		rs = append(rs, mk("plain", rep+1, 100*drift, 2700*drift), mk("colenc20", rep+1, 90*drift, 2430*drift*wobble))
		plainRs = append(plainRs, mk("plain", rep+1, 100*drift, 0), mk("colenc20", rep+1, 90*drift, 0))
	}
	order := Order{Targets: []string{targetOf(rs[0])}, Workloads: []string{"tpcc"}, Variants: []string{"plain", "colenc20"}}
	cells := Aggregate(rs, "plain", &order)
	tables := rateTables(l, cells, order, "plain")
	if len(tables) != 1 || tables[0].Rate != "tpmC" {
		t.Fatalf("rate tables %+v, want one for tpmC", tables)
	}
	rows := tables[0].Table.Rows
	if len(rows) != 1 || len(rows[0]) != 4 {
		t.Fatalf("rows %v: want one row of target, threads, base, colenc20", rows)
	}
	if got := rows[0][3]; !(strings.HasPrefix(got.S, "9.9 (") || strings.HasPrefix(got.S, "10.0 (")) || !got.Strong {
		t.Errorf("colenc20's tpmC loss %+v: want 10 with a narrow interval, significant", got)
	}
	if !strings.Contains(tables[0].Title, "tpmC loss against plain") {
		t.Errorf("title %q", tables[0].Title)
	}
	if got := rateTables(l, Aggregate(plainRs, "plain", &order), order, "plain"); len(got) != 0 {
		t.Errorf("results without rates got rate tables: %+v", got)
	}
}
