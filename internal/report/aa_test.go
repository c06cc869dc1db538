package report

import (
	"strings"
	"testing"

	"github.com/encbench/encbench/internal/locale"
	"github.com/encbench/encbench/internal/result"
	"github.com/encbench/encbench/internal/stats"
)

// The A/A check counts as on the baseline's server only when every A/A
// cell ran on the same server process as its baseline cell.
func TestSharesServer(t *testing.T) {
	cellOn := func(variant, workload string, pid int) *Row {
		r := &result.Result{CPU: result.CPU{ServerPID: pid}}
		return &Row{Key: Key{Target: "pg", Workload: workload, Threads: 8, Variant: variant}, Results: []*result.Result{r}}
	}
	base := []*Row{cellOn("plain", "a", 10), cellOn("plain", "b", 10)}
	shared := []*Row{cellOn("aa", "a", 10), cellOn("aa", "b", 10)}
	if !sharesServer(shared, append(base, shared...), "plain") {
		t.Error("A/A on the baseline's server process not seen as shared")
	}
	own := []*Row{cellOn("aa", "a", 10), cellOn("aa", "b", 11)}
	if sharesServer(own, append(base, own...), "plain") {
		t.Error("A/A with a server of its own in one cell seen as shared")
	}
	unknown := []*Row{cellOn("aa", "a", 0), cellOn("aa", "b", 0)}
	if sharesServer(unknown, append(base, unknown...), "plain") {
		t.Error("A/A without a known server pid, beside a baseline with one, seen as shared")
	}
	// A DSN target without server_pid: the same address is the same server.
	byDSN := func(variant, workload, dsn string) *Row {
		r := &result.Result{Target: dsn}
		return &Row{Key: Key{Target: "pg", Workload: workload, Threads: 8, Variant: variant}, Results: []*result.Result{r}}
	}
	dsnBase := []*Row{byDSN("plain", "a", "postgres://bench@10.0.0.5:5432/app"), byDSN("plain", "b", "postgres://bench@10.0.0.5:5432/app")}
	dsnAA := []*Row{byDSN("aa", "a", "postgres://bench@10.0.0.5:5432/app"), byDSN("aa", "b", "postgres://bench@10.0.0.5:5432/app?sslmode=disable")}
	if !sharesServer(dsnAA, append(dsnBase, dsnAA...), "plain") {
		t.Error("A/A on the baseline's DSN not seen as the same server")
	}
	other := []*Row{byDSN("aa", "a", "postgres://bench@10.0.0.6:5432/app"), byDSN("aa", "b", "postgres://bench@10.0.0.5:5432/app")}
	if sharesServer(other, append(dsnBase, other...), "plain") {
		t.Error("A/A on a second DSN seen as the baseline's server")
	}
}

// An A/A interval that misses 0 is weighed against all A/A intervals at
// once: one miss among 16 that Bonferroni explains is chance; a
// difference beyond it is called out.
func TestAAZeroTextWeighsMissesTogether(t *testing.T) {
	l, err := locale.Get("en")
	if err != nil {
		t.Fatal(err)
	}
	cell := func(workload string, ratios ...float64) *Row {
		c := &Row{Key: Key{Target: "pg", Workload: workload, Threads: 8, Variant: "aa"}}
		for i, r := range ratios {
			b := 1000 + 10*float64(i)
			c.pairBase, c.pairTPS = append(c.pairBase, b), append(c.pairTPS, b*r)
		}
		loss, err := stats.PairedLossPct(c.pairBase, c.pairTPS)
		if err != nil {
			t.Fatal(err)
		}
		c.Loss = &loss
		return c
	}
	var rows []*Row
	for range 15 {
		rows = append(rows, cell("calm", 1.01, 0.99, 1.00, 1.02, 0.98))
	}
	if got := aaZeroText(l, append(rows, cell("calm", 1.0, 1.01, 0.99, 1.0, 1.0)), 16); got != "Every A/A interval contains 0." {
		t.Errorf("no miss: %q", got)
	}
	// Just beyond 0 at 95%, well inside it at 1 - 0.05/16.
	chance := cell("lucky", 0.97, 0.99, 0.96, 1.00, 0.98)
	if !chance.Loss.Significant {
		t.Fatalf("test data: %+v should exclude 0 at 95%%", chance.Loss)
	}
	got := aaZeroText(l, append(rows, chance), 16)
	if !strings.Contains(got, "A/A intervals that exclude 0: 1 of 16 (lucky at 8 threads on pg)") || !strings.Contains(got, "0.8 would by chance alone") || !strings.Contains(got, "none is beyond chance") {
		t.Errorf("a miss chance explains: %q", got)
	}
	real := cell("biased", 0.90, 0.91, 0.90, 0.89, 0.90)
	got = aaZeroText(l, append(rows, real), 16)
	if !strings.Contains(got, "0 stays outside the interval of biased at 8 threads on pg") {
		t.Errorf("a miss beyond chance: %q", got)
	}
}
