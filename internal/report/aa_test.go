package report

import (
	"testing"

	result "github.com/encbench/encbench/internal/resultdoc"
)

// The A/A check counts as on the baseline's server only when every A/A
// cell ran on the same server process as its baseline cell.
func TestSharesServer(t *testing.T) {
	cellOn := func(variant, workload string, pid int) *Cell {
		r := &result.Result{CPU: result.CPU{ServerPID: pid}}
		return &Cell{Key: Key{Target: "pg", Workload: workload, Threads: 8, Variant: variant}, Results: []*result.Result{r}}
	}
	base := []*Cell{cellOn("plain", "a", 10), cellOn("plain", "b", 10)}
	shared := []*Cell{cellOn("aa", "a", 10), cellOn("aa", "b", 10)}
	if !sharesServer(shared, append(base, shared...), "plain") {
		t.Error("A/A on the baseline's server process not seen as shared")
	}
	own := []*Cell{cellOn("aa", "a", 10), cellOn("aa", "b", 11)}
	if sharesServer(own, append(base, own...), "plain") {
		t.Error("A/A with a server of its own in one cell seen as shared")
	}
	unknown := []*Cell{cellOn("aa", "a", 0), cellOn("aa", "b", 0)}
	if sharesServer(unknown, append(base, unknown...), "plain") {
		t.Error("A/A without a known server pid seen as shared")
	}
}
