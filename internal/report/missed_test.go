package report

import (
	"strings"
	"testing"
	"time"

	"github.com/encbench/encbench/internal/locale"
	"github.com/encbench/encbench/internal/result"
)

// TestMissedTableSaysWhy: a loss wider than the target is listed with its
// half-width, blocks and spread, and the reason: stalls that came with
// the variant first, else the blocks' limit or the budget; a loss within
// the target is not listed.
func TestMissedTableSaysWhy(t *testing.T) {
	l, err := locale.Get("en")
	if err != nil {
		t.Fatal(err)
	}
	mk := func(v string, rep int, tps float64, discarded ...string) *result.Result {
		r := &result.Result{Repetition: rep, Threads: 8, TPS: tps, Target: "mysql://127.0.0.1:3306/sbtest"}
		r.Engine.Kind = "mariadb"
		r.Workload.Name = "oltp_read_write"
		r.Variant.Name = v
		r.Suite = &result.SuiteRef{Name: "s", Discarded: discarded}
		return r
	}
	var rs []*result.Result
	// tls moves by several points from block to block; aa by a tenth of one.
	for rep, tls := range []float64{80, 90, 70, 88, 75} {
		var stalled []string
		if rep == 2 {
			stalled = []string{result.Discard("tls", result.CauseStall, "a turn at 4% of the median")}
		}
		rs = append(rs, mk("plain", rep+1, 100, stalled...), mk("tls", rep+1, tls, stalled...), mk("aa", rep+1, 100-0.1*float64(rep%2), stalled...))
	}
	order := Order{Targets: []string{targetOf(rs[0])}, Workloads: []string{"oltp_read_write"}, Variants: []string{"plain", "tls", "aa"}}
	cells := Aggregate(rs, "plain", &order)
	rule := missedRule{precision: 3, most: 30, spent: true, stallPct: 25}
	tb := missedTable(l, cells, "plain", rule)
	if len(tb.Rows) != 1 {
		t.Fatalf("rows %v: want tls only", tb.Rows)
	}
	row := tb.Rows[0]
	if row[3].S != "tls" || !strings.HasPrefix(row[4].S, "±") || row[5].S != "5" || row[6].S == "-" {
		t.Errorf("row %v: want tls, its half-width, 5 blocks and a spread", row)
	}
	if !strings.Contains(row[7].S, "stalled in 1 of this variant's runs against 0") {
		t.Errorf("why %q: want the stall that came with tls", row[7].S)
	}
	// Without the stall: the budget, then the blocks' limit.
	for _, r := range rs {
		r.Suite.Discarded = nil
	}
	cells = Aggregate(rs, "plain", &order)
	if why := missedTable(l, cells, "plain", rule).Rows[0][7].S; !strings.Contains(why, "the budget ended") {
		t.Errorf("why %q: want the budget", why)
	}
	rule.spent, rule.most = false, 5
	if why := missedTable(l, cells, "plain", rule).Rows[0][7].S; !strings.Contains(why, "the most blocks a cell may get (5)") {
		t.Errorf("why %q: want the blocks' limit", why)
	}
	if got := missedTable(l, cells, "plain", missedRule{}); len(got.Rows) != 0 {
		t.Errorf("no precision target, yet rows %v", got.Rows)
	}
}

// TestDisturbanceIsNamedOnlyWhenItTookTheBudget: runs discarded as
// disturbed are named as what ended the blocks, in the why column and the
// summary, when they took 5% of the budget or more; not when they took
// less, and not when none was disturbed.
func TestDisturbanceIsNamedOnlyWhenItTookTheBudget(t *testing.T) {
	l := english(t)
	mk := func(rep int, discarded int) *result.Result {
		r := &result.Result{Repetition: rep, DurationS: 2}
		r.Suite = &result.SuiteRef{}
		for i := 0; i < discarded; i++ {
			r.Suite.Discarded = append(r.Suite.Discarded, result.Discard("tls", result.CauseForeign, "foreign CPU 30%"))
		}
		return r
	}
	for _, tc := range []struct {
		name      string
		discarded int
		budget    time.Duration
		named     bool
	}{
		// 30 discarded attempts of 2 s: 60 s.
		{"a tenth of the budget", 30, 10 * time.Minute, true},
		{"under 5% of the budget", 30, time.Hour, false},
		{"nothing disturbed", 0, 10 * time.Minute, false},
		{"no budget", 30, 0, false},
	} {
		var rs []*result.Result
		for rep := 1; rep <= 3; rep++ {
			rs = append(rs, mk(rep, tc.discarded/3))
		}
		d := disturbanceOf(rs, tc.budget)
		if d.named() != tc.named {
			t.Errorf("%s: named %v (%.1f%% of the budget), want %v", tc.name, d.named(), d.sharePc, tc.named)
		}
		why := missedWhy(l, missedRule{precision: 3, most: 30, spent: true, disturbed: d}, 5, 12, 0, 0)
		if strings.Contains(why, "disturbed") != tc.named {
			t.Errorf("%s: why %q", tc.name, why)
		}
		if tc.named && (!strings.Contains(d.text(l), "foreign CPU 30") || !strings.Contains(d.text(l), "10%")) {
			t.Errorf("%s: summary %q, want the causes and the share", tc.name, d.text(l))
		}
	}
}
