package report

import (
	"testing"

	"github.com/encbench/encbench/internal/result"
	"github.com/encbench/encbench/internal/stats"
	"github.com/encbench/encbench/internal/suite"
)

// Published losses appear only for workload and variant pairs the suite
// ran; a pair that ran at other thread counts shows "-" there.
func TestReferenceTableShowsWhatRan(t *testing.T) {
	ref := &suite.Reference{ByWorkload: map[string]map[string]map[int]float64{
		"enc_range_sum":    {"enc-all": {8: 80.9, 32: 84.0}},
		"enc_point_select": {"enc-all": {8: 61.0}},
	}}
	ran := &Row{Key: Key{Target: "postgres", Variant: "enc-all", Workload: "enc_range_sum", Threads: 8},
		Loss: &stats.Loss{Pct: 48, Low: 44, High: 52}}
	tb := referenceTable(english(t), ref, []*Row{ran}, Order{Targets: []string{"postgres"}, Variants: []string{"plain", "enc-all"}})
	if len(tb.Rows) != 2 {
		t.Fatalf("%d rows, want enc_range_sum at 8 and 32 threads only: %v", len(tb.Rows), tb.Rows)
	}
	if got := tb.Rows[0][4].S; got != "48.0 (44.0 to 52.0)" {
		t.Errorf("8 threads: %q", got)
	}
	if got := tb.Rows[1][4].S; got != "-" {
		t.Errorf("32 threads, not run: %q", got)
	}
}

// The storage table sets each variant beside plaintext on the same engine
// and tables, once per variant, however many runs it had.
func TestStorageTableComparesWithPlaintext(t *testing.T) {
	run := func(engine, variant string, level int, data, index int64) *result.Result {
		r := &result.Result{}
		r.Engine.Kind, r.Variant.Name = engine, variant
		r.Variant.Verified.Colenc = &result.ColencProof{Level: level, Storage: []result.TableStorage{
			{Table: "sbtest1", Rows: 1000, TableBytes: data, IndexBytes: index}}}
		return r
	}
	tb := storageTable(english(t), []*result.Result{
		run("postgres", "plain", 0, 200_000, 50_000), run("postgres", "enc-all", 100, 600_000, 400_000),
		run("postgres", "enc-all", 100, 700_000, 400_000), run("mariadb", "enc-all", 100, 300_000, 10_000),
	})
	if len(tb.Rows) != 3 {
		t.Fatalf("%d rows, want plain and enc-all on postgres and enc-all on mariadb: %v", len(tb.Rows), tb.Rows)
	}
	enc := tb.Rows[1]
	if enc[5].S != "600" || enc[6].S != "3.00" || enc[8].S != "8.00" {
		t.Errorf("postgres enc-all: bytes per row %s, data x %s, index x %s; want 600, 3.00, 8.00", enc[5].S, enc[6].S, enc[8].S)
	}
	if tb.Rows[2][6].S != "-" {
		t.Errorf("mariadb has no plaintext run to compare with: %q", tb.Rows[2][6].S)
	}
}
