package report

import (
	"strings"
	"testing"

	"github.com/encbench/encbench/internal/locale"
	"github.com/encbench/encbench/internal/suite"
)

// The method says where reads ran against writes, only when a suite has
// both, naming each side's workloads.
func TestOrderText(t *testing.T) {
	l, err := locale.Get("en")
	if err != nil {
		t.Fatal(err)
	}
	st := suite.Suite{Workloads: []suite.Workload{
		{Name: "enc_range_sum", ReadOnly: true}, {Name: "enc_write_mix"}, {Name: "enc_range_sum", Label: "sum2", ReadOnly: true},
	}}
	got := orderText(l, st)
	if !strings.Contains(got, "read-only workloads (enc_range_sum, sum2)") || !strings.Contains(got, "writes (enc_write_mix)") {
		t.Errorf("reads-first text: %s", got)
	}
	st.Order = suite.OrderAsListed
	if got := orderText(l, st); !strings.Contains(got, "steady state") || !strings.Contains(got, "(enc_write_mix)") {
		t.Errorf("as-listed text: %s", got)
	}
	st.Workloads = st.Workloads[:1]
	if got := orderText(l, st); got != "" {
		t.Errorf("a suite of reads only got an order text: %s", got)
	}
}

// The budget's phase share is told only where reads ran as a phase of
// their own before writes.
func TestPhaseShareOnlyWhenPhased(t *testing.T) {
	st := suite.Suite{Workloads: []suite.Workload{{Name: "oltp_read_only", ReadOnly: true}, {Name: "oltp_write_only"}}}
	if !phasedReadsAndWrites(st) {
		t.Error("reads before writes: not phased")
	}
	st.Order = suite.OrderAsListed
	if phasedReadsAndWrites(st) {
		t.Error("as listed: phased")
	}
	st.Order, st.Workloads = "", st.Workloads[1:]
	if phasedReadsAndWrites(st) {
		t.Error("writes only: phased")
	}
}
