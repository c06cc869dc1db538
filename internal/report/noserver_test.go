package report

import (
	"slices"
	"strings"
	"testing"

	"github.com/encbench/encbench/internal/locale"
	"github.com/encbench/encbench/internal/result"
	"github.com/encbench/encbench/internal/stats"
	"github.com/encbench/encbench/internal/suite"
)

// A DSN target without server_pid has no server CPU: the table drops its
// columns, no cost is priced from encbench's CPU alone, and the method
// says once that it was not measured.
func TestServerCPUNotMeasuredIsLeftOut(t *testing.T) {
	l, err := locale.Get("en")
	if err != nil {
		t.Fatal(err)
	}
	base := &Row{Key: Key{Target: "db", Workload: "w", Threads: 8, Variant: "plain"}, Baseline: true}
	tls := &Row{Key: Key{Target: "db", Workload: "w", Threads: 8, Variant: "tls"},
		ClientUsAdded: &stats.Diff{Mean: 3.7, Low: 3.1, High: 4.3, Significant: true},
		Loss:          &stats.Loss{Pct: 26.8, Low: 25, High: 28.6, Significant: true}}
	rows := []*Row{base, tls}
	tab := resultTable(l, rows, 0)
	if slices.Contains(tab.Head, l.T("col.server_us")) || slices.Contains(tab.Head, l.T("col.server_added")) || len(tab.Rows[0]) != len(tab.Head) {
		t.Errorf("table without server CPU: %q", tab.Head)
	}
	if s := cpuChange(l, []*Row{tls}); s != "" {
		t.Errorf("a cost priced without the server's CPU: %s", s)
	}
	tls.ServerUsAdded = &stats.Diff{Mean: 9, Low: 8, High: 10, Significant: true}
	if s := cpuChange(l, []*Row{tls}); !strings.Contains(s, "server CPU") {
		t.Errorf("with the server's CPU: %q", s)
	}
	srv := stats.Summary{Mean: 0.03}
	tls.ServerMsPerTxn = &srv
	if tab := resultTable(l, rows, 0); !slices.Contains(tab.Head, l.T("col.server_us")) {
		t.Errorf("table with server CPU: %q", tab.Head)
	}
}

// A variant whose cells all failed is listed with its cause, and the
// headline does not name an empty set of layers.
func TestFailedVariantsAreListed(t *testing.T) {
	l, _ := locale.Get("en")
	r := &result.Result{Engine: result.Engine{Version: "MariaDB 10.11.19"}, StartedAt: "2026-11-26T10:00:00Z"}
	base := &Row{Key: Key{Target: "db", Workload: "oltp_point_select", Threads: 8, Variant: "plain"}, Baseline: true, EngineVersion: "MariaDB 10.11.19", Results: []*result.Result{r}}
	d := &Data{Results: []*result.Result{r}, Record: &suite.Record{Failed: map[string]suite.Failure{
		"tls": {Cells: 6, Cause: "line 12: variant tls needs tls_ca (the server's CA certificate)"}}}}
	m := &Model{Baseline: "plain", Order: Order{Targets: []string{"db"}, Workloads: []string{"oltp_point_select"}, Variants: []string{"plain", "tls"}}}
	o := overviewOf(l, d, []*Row{base}, m)
	if strings.Contains(o.Question, "What do  cost") || !strings.Contains(o.Question, "What does plain deliver") {
		t.Errorf("headline: %s", o.Question)
	}
	if got := strings.Join(o.Answers, "\n"); !strings.Contains(got, "tls failed in 6 cells, so it is not compared: line 12: variant tls needs tls_ca") {
		t.Errorf("answers: %s", got)
	}
}
