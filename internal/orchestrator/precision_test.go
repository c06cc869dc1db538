package orchestrator

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	result "github.com/encbench/encbench/internal/resultdoc"
	"github.com/encbench/encbench/internal/suite"
)

func withCPU(foreign, steal float64) *result.Result {
	return &result.Result{CPU: result.CPU{ForeignUtilPct: &foreign, StealPct: &steal}}
}

func TestRerunRule(t *testing.T) {
	rule := suite.Disturbance{ForeignPct: 10, StealPct: 5, Reruns: 2}
	// Disturbed, disturbed, quiet: the third run is kept, two discarded.
	runs := []*result.Result{withCPU(30, 0), withCPU(0, 9), withCPU(2, 1)}
	var seen [][]string
	res, reruns, err := untilUndisturbed(rule, func(discarded []string) (*result.Result, error) {
		seen = append(seen, discarded)
		return runs[len(seen)-1], nil
	})
	if err != nil || res != runs[2] || reruns != 2 {
		t.Fatalf("kept %v after %d reruns (err %v), want the third run after 2", res, reruns, err)
	}
	if len(seen[2]) != 2 || !strings.Contains(seen[2][0], "foreign CPU 30.0%") || !strings.Contains(seen[2][1], "steal 9.0%") {
		t.Fatalf("the last run was not told why the others were discarded: %q", seen[2])
	}
	// Disturbed every time: at most Reruns more runs, the last one kept.
	n := 0
	res, reruns, _ = untilUndisturbed(rule, func([]string) (*result.Result, error) { n++; return withCPU(50, 0), nil })
	if n != 3 || reruns != 2 || res == nil {
		t.Fatalf("always disturbed: %d runs, %d reruns; want 3 runs, 2 reruns", n, reruns)
	}
	// Quiet at once, or failing: one run.
	n = 0
	if _, reruns, _ = untilUndisturbed(rule, func([]string) (*result.Result, error) { n++; return withCPU(10, 5), nil }); n != 1 || reruns != 0 {
		t.Fatalf("a run at the limits ran %d times", n)
	}
	n = 0
	if _, _, err = untilUndisturbed(rule, func([]string) (*result.Result, error) { n++; return withCPU(50, 0), errors.New("boom") }); n != 1 || err == nil {
		t.Fatalf("a failed run was retried (%d runs) or its error lost (%v)", n, err)
	}
	// No CPU figures (a remote server): nothing to judge, not disturbed.
	if why := disturbed(&result.Result{}, rule); why != "" {
		t.Fatalf("a run without CPU figures was judged disturbed: %s", why)
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
	// From 3 blocks (t = 4.303): pg1's tls at 9 needs 5 blocks (its aa is
	// at the target), my8's aa at 5.5 needs 4; my1's tls at 20 would need
	// more than 8; pg8 is at the target.
	widths := map[suite.Group]map[string]float64{
		pg1: {"tls": 9, "aa": 4}, pg8: {"tls": 5, "aa": 5}, my1: {"tls": 20, "aa": 3}, my8: {"tls": 2, "aa": 5.5},
	}
	got := wanting(p, widths)
	if len(got) != 3 || got[0].group != my8 || got[1].group != pg1 || got[2].group != my1 || got[2].reachable || !got[0].reachable || !got[1].reachable ||
		got[0].need != 1 || got[1].need != 2 || !slices.Equal(got[1].variants, []string{"tls"}) || !slices.Equal(got[0].variants, []string{"aa"}) {
		t.Fatalf("groups wanting blocks: %+v, want my8 aa (1 to go), pg1 tls (2), then my1 tls (out of reach)", got)
	}
	minute := func(want) time.Duration { return time.Minute }
	if s := serve(got, minute, 90*time.Second); len(s) != 1 || s[0].group != my8 {
		t.Fatalf("with 90 s left only my8 can still reach the target, got %+v", s)
	}
	if s := serve(got, minute, 0); len(s) != 2 {
		t.Fatalf("without a budget both reachable groups are served, got %+v", s)
	}
	if s := serve(got[2:], minute, time.Hour); len(s) != 1 || s[0].group != my1 {
		t.Fatalf("when no group can reach the target, the others still get blocks, got %+v", s)
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
	if len(block) != 3 || len(p.Cells) != before+3 || p.Repetitions(pg1) != 4 {
		t.Fatalf("a block of %v added %d cells (repetitions now %d), want its 3 variants as repetition 4", pg1, len(block), p.Repetitions(pg1))
	}
	for _, c := range block {
		if c.Group() != pg1 || c.Repetition != 4 {
			t.Fatalf("block cell %+v is not %v repetition 4", c, pg1)
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
