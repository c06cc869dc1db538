package suiterun

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/encbench/encbench/internal/result"
	"github.com/encbench/encbench/internal/suite"
)

func withCPU(foreign, steal float64) *result.Result {
	return &result.Result{CPU: result.CPU{ForeignUtilPct: &foreign, StealPct: &steal}, Variant: result.Variant{Name: "tls"}}
}

// withTurns is a quiet run whose intervals ran at these TPS.
func withTurns(variant string, tps ...float64) *result.Result {
	r := withCPU(0, 0)
	r.Variant.Name = variant
	for i, x := range tps {
		r.Intervals = append(r.Intervals, result.Interval{TS: float64(i + 1), TPS: x})
	}
	return r
}

func TestRerunRule(t *testing.T) {
	rule := suite.Disturbance{ForeignPct: 10, StealPct: 5, StallPct: 10, Reruns: 2}
	// Disturbed, disturbed, quiet: the third run is kept, two discarded.
	runs := []*result.Result{withCPU(30, 0), withCPU(0, 9), withCPU(2, 1)}
	var seen [][]string
	res, reruns, err := rule.RepeatOne(func(discarded []string) (*result.Result, error) {
		seen = append(seen, discarded)
		return runs[len(seen)-1], nil
	})
	if err != nil || res != runs[2] || reruns != 2 {
		t.Fatalf("kept %v after %d reruns (err %v), want the third run after 2", res, reruns, err)
	}
	if len(seen[2]) != 2 || !strings.HasPrefix(seen[2][0], "tls: foreign CPU: 30.0%") || !strings.HasPrefix(seen[2][1], "tls: steal: 9.0%") {
		t.Fatalf("the last run was not told why the others were discarded: %q", seen[2])
	}
	// Disturbed every time: at most Reruns more runs, the last one kept.
	n := 0
	res, reruns, _ = rule.RepeatOne(func([]string) (*result.Result, error) { n++; return withCPU(50, 0), nil })
	if n != 3 || reruns != 2 || res == nil {
		t.Fatalf("always disturbed: %d runs, %d reruns; want 3 runs, 2 reruns", n, reruns)
	}
	// Quiet at once, or failing: one run.
	n = 0
	if _, reruns, _ = rule.RepeatOne(func([]string) (*result.Result, error) { n++; return withCPU(10, 5), nil }); n != 1 || reruns != 0 {
		t.Fatalf("a run at the limits ran %d times", n)
	}
	n = 0
	if _, _, err = rule.RepeatOne(func([]string) (*result.Result, error) { n++; return withCPU(50, 0), errors.New("boom") }); n != 1 || err == nil {
		t.Fatalf("a failed run was retried (%d runs) or its error lost (%v)", n, err)
	}
	// No CPU figures (a remote server): nothing to judge, not disturbed.
	if why := rule.Why(&result.Result{}); why != "" {
		t.Fatalf("a run without CPU figures was judged disturbed: %s", why)
	}
}

func TestStallRule(t *testing.T) {
	rule := suite.Disturbance{ForeignPct: 10, StealPct: 5, StallPct: 10, Reruns: 2}
	for _, c := range []struct {
		tps   []float64
		stall bool
	}{
		{[]float64{400, 410, 5, 390}, true},      // a standstill
		{[]float64{400, 410, 38, 390}, true},     // just under a tenth of the median (390)
		{[]float64{400, 410, 40, 390}, false},    // just over it
		{[]float64{400, 410, 150, 390}, false},   // a dip, not a stall
		{[]float64{400, 0}, false},               // two intervals: no median to judge by
		{[]float64{0, 0, 0, 0}, false},           // nothing ran at all: a failure, not a stall
		{[]float64{3000, 2900, 211, 3100}, true}, // seen: mariadb-tls write_only 8 threads
	} {
		why := rule.Why(withTurns("tls", c.tps...))
		if (why != "") != c.stall {
			t.Errorf("turns %v: disturbed %q, want stall %v", c.tps, why, c.stall)
		}
		if v, cause := result.DiscardOf(why); c.stall && (v != "tls" || cause != result.CauseStall) {
			t.Errorf("turns %v: reason %q reads back as variant %q cause %q", c.tps, why, v, cause)
		}
	}
	// A block runs again whole when one cell stalled, and every attempt
	// after is told which variant stalled.
	quiet := []*result.Result{withTurns("plain", 400, 400, 400), withTurns("tls", 300, 300, 300)}
	stalled := []*result.Result{withTurns("plain", 400, 400, 400), withTurns("tls", 300, 3, 300)}
	var seen [][]string
	rs, reruns, err := rule.Repeat(func(discarded []string) ([]*result.Result, error) {
		seen = append(seen, discarded)
		if len(seen) == 1 {
			return stalled, nil
		}
		return quiet, nil
	})
	if err != nil || reruns != 1 || rs[1] != quiet[1] || len(seen[1]) != 1 || !strings.HasPrefix(seen[1][0], "tls: stall: interval 2") {
		t.Fatalf("stalled block: kept %v after %d reruns, told %q (err %v)", rs, reruns, seen, err)
	}
}

func precisionPlan(t *testing.T) *suite.Plan {
	t.Helper()
	s, err := suite.Parse([]byte(`name: p
targets: [{engine: postgres}, {engine: mariadb}]
variants: [plain, tls, aa]
workloads: [{name: oltp_point_select}]
threads: [1, 8]
time: 1
repetitions: 3
precision: 5
max_repetitions: 8
`))
	if err != nil {
		t.Fatal(err)
	}
	p, err := suite.Expand(*s, suite.NoOverrides(), nil)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestPrecisionRuleAddsBlocksWhereTheTargetIsNotReached(t *testing.T) {
	p := precisionPlan(t)
	pg1 := suite.Group{Target: "postgres", Workload: "oltp_point_select", Threads: 1}
	pg8 := suite.Group{Target: "postgres", Workload: "oltp_point_select", Threads: 8}
	my1 := suite.Group{Target: "mariadb", Workload: "oltp_point_select", Threads: 1}
	my8 := suite.Group{Target: "mariadb", Workload: "oltp_point_select", Threads: 8}
	// pg8 is at the target; the others want blocks, widest first: my1's
	// tls at 20, pg1's tls at 9 (its aa is at the target), my8's aa at 5.5.
	widths := map[suite.Group]map[string]float64{
		pg1: {"tls": 9, "aa": 4}, pg8: {"tls": 5, "aa": 5}, my1: {"tls": 20, "aa": 3}, my8: {"tls": 2, "aa": 5.5},
	}
	got := wanting(p, widths)
	if len(got) != 3 || got[0].group != my1 || got[1].group != pg1 || got[2].group != my8 ||
		got[0].width != 20 || !slices.Equal(got[1].variants, []string{"tls"}) || !slices.Equal(got[2].variants, []string{"aa"}) {
		t.Fatalf("groups wanting blocks: %+v, want my1 tls (20), pg1 tls (9), my8 aa (5.5)", got)
	}
	// The widest gets the block; when its block does not fit the budget
	// (here: blocks of more than two cells), the next widest that fits.
	if w, ok := pick(got, func(want) bool { return true }); !ok || w.group != my1 {
		t.Fatalf("picked %+v, want my1", w)
	}
	if w, ok := pick(got, func(w want) bool { return 1+len(w.variants) <= 2 }); !ok || w.group != my1 {
		t.Fatalf("picked %+v for two-cell blocks, want my1 (plain and tls)", w)
	}
	if _, ok := pick(got, func(want) bool { return false }); ok {
		t.Fatal("picked a group although no block fits")
	}
	// Equal widths: the group with fewer blocks first.
	p.NextBlock(pg1)
	if got := wanting(p, map[suite.Group]map[string]float64{pg1: {"tls": 6}, my1: {"tls": 6}}); len(got) != 2 || got[0].group != my1 {
		t.Fatalf("equal widths: %+v, want my1 (3 blocks) before pg1 (4)", got)
	}
	// A block runs the baseline and the variants still too wide.
	if b := p.NextBlock(my8, "aa"); len(b) != 2 || slices.ContainsFunc(b, func(c suite.Cell) bool { return c.Variant == "tls" }) {
		t.Fatalf("a block for my8's aa: %+v, want plain and aa only", b)
	}
	if p.VariantBlocks(my8, "aa") != 4 || p.VariantBlocks(my8, "tls") != 3 {
		t.Fatalf("my8 blocks: aa %d, tls %d; want 4 and 3", p.VariantBlocks(my8, "aa"), p.VariantBlocks(my8, "tls"))
	}
	before := len(p.Cells)
	block := p.NextBlock(pg1)
	if len(block) != 3 || len(p.Cells) != before+3 || p.Repetitions(pg1) != 5 {
		t.Fatalf("a block of %v added %d cells (repetitions now %d), want its 3 variants as repetition 5", pg1, len(block), p.Repetitions(pg1))
	}
	for _, c := range block {
		if c.Group() != pg1 || c.Repetition != 5 {
			t.Fatalf("block cell %+v is not %v repetition 5", c, pg1)
		}
	}
	for p.Repetitions(pg1) < 8 {
		p.NextBlock(pg1)
	}
	if got := wanting(p, map[suite.Group]map[string]float64{pg1: {"tls": 5.1}}); len(got) != 0 {
		t.Fatalf("a group at max_repetitions still wants blocks: %v", got)
	}
	// A resumed plan keeps the added blocks.
	q := precisionPlan(t)
	q.Keep(p.Cells)
	if len(q.Cells) != len(p.Cells) || q.Extra != 6 || q.Repetitions(pg1) != 8 {
		t.Fatalf("resumed plan has %d cells and %d extra blocks, want %d and 6", len(q.Cells), q.Extra, len(p.Cells))
	}
}

func TestBudgetRule(t *testing.T) {
	for _, c := range []struct {
		elapsed, per, budget time.Duration
		n                    int
		want                 bool
	}{
		{elapsed: 9 * time.Minute, n: 3, per: 20 * time.Second, budget: 10 * time.Minute, want: true},
		{elapsed: 9*time.Minute + 1, n: 3, per: 20 * time.Second, budget: 10 * time.Minute, want: false},
		{elapsed: 11 * time.Minute, n: 1, per: time.Second, budget: 10 * time.Minute, want: false},
		{elapsed: time.Hour, n: 9, per: time.Minute, budget: 0, want: true},
	} {
		if got := fits(c.elapsed, c.n, c.per, c.budget); got != c.want {
			t.Errorf("%v elapsed, %d cells of %v, budget %v: fits %v, want %v", c.elapsed, c.n, c.per, c.budget, got, c.want)
		}
	}
}

// The reads phase may not spend on precision the time the writes phase
// needs for its own blocks; the time beyond those is shared by groups.
func TestPhaseShareSetsTheLaterPhasesAside(t *testing.T) {
	const s = time.Second
	for _, c := range []struct {
		name                  string
		budget, elapsed, per  time.Duration
		laterCells, now, rest int
		want                  time.Duration
	}{
		// 10 min budget, 3 min gone, writes need 120 cells of 2 s = 4 min:
		// 3 min spare, half of it for the reads' 8 of 16 groups.
		{"shared", 600 * s, 180 * s, 2 * s, 120, 8, 8, 270 * s},
		{"by groups", 600 * s, 180 * s, 2 * s, 120, 2, 4, 240 * s},
		{"nothing spare", 600 * s, 400 * s, 2 * s, 120, 8, 8, 400 * s},
		{"last phase", 600 * s, 400 * s, 2 * s, 0, 8, 0, 600 * s},
		{"no budget", 0, 400 * s, 2 * s, 120, 8, 8, 0},
	} {
		got := phaseShare(c.budget, c.elapsed, c.laterCells, c.per, c.now, c.rest)
		if got != c.want {
			t.Errorf("%s: limit %v, want %v", c.name, got, c.want)
		}
		if c.budget > 0 && fits(c.elapsed, 1, c.per, got) && got < c.elapsed+c.per {
			t.Errorf("%s: a block fits past the limit", c.name)
		}
	}
}

// TestAnatomyRatiosCountForPrecision: a connection anatomy's parts are
// held to the target as each part's time against the baseline's, paired
// by block (drift that moves both in a block cancels); parts without
// roles (TPC-C's transaction types) are not.
func TestAnatomyRatiosCountForPrecision(t *testing.T) {
	runs := func(means ...float64) *partRuns {
		pr := &partRuns{means: means}
		for i := range means {
			pr.reps = append(pr.reps, i+1)
		}
		return pr
	}
	// The machine drifts by 20% from block to block; tls takes 1.5x plain
	// in every block, give or take half a percent.
	base := map[string]*partRuns{"connect": runs(10, 12, 8, 11, 9)}
	steady := map[string]*partRuns{"connect": runs(15, 18.1, 11.95, 16.5, 13.55)}
	if w := partsWidth(base, steady); w <= 0 || w > 3 {
		t.Errorf("a steady ratio under drift: width %.2f points, want under 3", w)
	}
	base["reused_query"] = runs(0.3, 0.3, 0.3)
	steady["reused_query"] = runs(0.3, 0.5, 0.4)
	if w := partsWidth(base, steady); w < 20 {
		t.Errorf("the widest part decides: width %.2f, want reused_query's (over 20)", w)
	}
	// A 5.5x connect known to ±1.6% of itself meets a 3% target, though
	// ±9 points of plain's time.
	fast := map[string]*partRuns{"connect": runs(1, 1.2, 0.8, 1.1, 0.9)}
	tls := map[string]*partRuns{"connect": runs(5.5, 6.7, 4.35, 6.05, 4.95)}
	if w := partsWidth(fast, tls); w <= 0 || w > 3 {
		t.Errorf("a 5.5x ratio: width %.2f%% of itself, want under 3", w)
	}
	if w := partsWidth(map[string]*partRuns{"connect": runs(10)}, map[string]*partRuns{"connect": runs(15)}); w != 0 {
		t.Errorf("one block: width %v, want 0", w)
	}
	conn := &result.Result{}
	conn.Workload.Parts = []result.Part{{Name: "connect", Role: "connect"}, {Name: "first_query"}}
	tpcc := &result.Result{}
	tpcc.Workload.Parts = []result.Part{{Name: "new_order"}, {Name: "payment"}}
	if !anatomy(conn) || anatomy(tpcc) {
		t.Errorf("anatomy: connect %v, tpcc %v; want true, false", anatomy(conn), anatomy(tpcc))
	}
}
