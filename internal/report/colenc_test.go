package report

import (
	"testing"

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
	ran := &Cell{Key: Key{Target: "postgres", Variant: "enc-all", Workload: "enc_range_sum", Threads: 8},
		Loss: &stats.Loss{Pct: 48, Low: 44, High: 52}}
	tb := referenceTable(ref, []*Cell{ran}, Order{Targets: []string{"postgres"}, Variants: []string{"plain", "enc-all"}})
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
