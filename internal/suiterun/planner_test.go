package suiterun

import (
	"strings"
	"testing"
	"time"

	"github.com/encbench/encbench/internal/errs"

	"github.com/encbench/encbench/internal/result"
	"github.com/encbench/encbench/internal/suite"
)

// tableOfResults stands in for the measurer: every cell it "runs" gets a
// result whose TPS the test chooses, so the planner is tested on tables of
// results without a server.
type tableOfResults struct {
	tps     func(c suite.Cell) float64
	results map[string]*result.Result
}

func (r *tableOfResults) run(cells []suite.Cell) {
	for _, c := range cells {
		r.results[c.ID] = &result.Result{TPS: r.tps(c), Repetition: c.Repetition}
	}
}

func (r *tableOfResults) resultOf(c suite.Cell) *result.Result { return r.results[c.ID] }

// runPending runs the plan's pending blocks, one step each, and returns
// how many cells they held and the first step after them.
func runPending(t *testing.T, pl *planner, m func() measured, table *tableOfResults) (int, step) {
	t.Helper()
	n := 0
	for {
		st := pl.next(m())
		if st.done || st.grown {
			return n, st
		}
		if len(suite.Blocks(st.cells)) != 1 {
			t.Fatalf("a pending step of %d blocks, want one", len(suite.Blocks(st.cells)))
		}
		n += len(st.cells)
		table.run(st.cells)
	}
}

// TestPlannerRunsPendingThenNarrowsTheWidestThenStops: the pending cells
// first, then blocks of the one group whose interval is too wide (its
// baseline and that variant only) until it has its most blocks, then done;
// the budget spent, it stops and says so.
func TestPlannerRunsPendingThenNarrowsTheWidestThenStops(t *testing.T) {
	plan := precisionPlan(t)
	wide := suite.Group{Target: "postgres", Workload: "oltp_point_select", Threads: 1}
	table := &tableOfResults{results: map[string]*result.Result{}, tps: func(c suite.Cell) float64 {
		switch {
		case c.Variant == "plain" || c.Variant == "aa":
			return 1000
		case c.Group() == wide:
			return 900 + float64(c.Repetition%2*2-1)*150 // ±15%: never narrows
		}
		return 900
	}}
	pl := newPlanner(plan, plan.Cells)
	m := measured{perCell: time.Second, resultOf: table.resultOf}
	ran, st := runPending(t, pl, func() measured { return m }, table)
	if ran != 36 {
		t.Fatalf("pending steps ran %d cells, want the 36 pending", ran)
	}
	blocks := 0
	for ; ; st = pl.next(m) {
		if st.done {
			break
		}
		if !st.grown || len(st.cells) != 2 {
			t.Fatalf("block %d: %+v, want two grown cells", blocks+1, st.cells)
		}
		for _, c := range st.cells {
			if c.Group() != wide || (c.Variant != "plain" && c.Variant != "tls") {
				t.Fatalf("block %d runs %s %s, want %v's plain and tls", blocks+1, c.Group(), c.Variant, wide)
			}
		}
		table.run(st.cells)
		if blocks++; blocks > 10 {
			t.Fatal("the planner does not stop")
		}
	}
	if _, most := plan.Suite.BlockBounds(); plan.VariantBlocks(wide, "tls") != most || blocks != most-3 || pl.spent {
		t.Fatalf("%d blocks added, tls has %d, spent %v; want %d more to its most", blocks, plan.VariantBlocks(wide, "tls"), pl.spent, most-3)
	}

	plan = precisionPlan(t)
	plan.Suite.Budget = "1m"
	table.results = map[string]*result.Result{}
	pl = newPlanner(plan, plan.Cells)
	runPending(t, pl, func() measured { return m }, table)
	if st := pl.next(measured{elapsed: 2 * time.Minute, perCell: time.Second, resultOf: table.resultOf}); !st.done || !pl.spent {
		t.Fatalf("past the budget: %+v, spent %v; want done with the budget spent", st, pl.spent)
	}
}

// TestPlannerKeepsThePendingBlocksWithinTheBudget: the plan's own blocks
// start only if they end within the budget at the mean cell time so far;
// those past the smallest plan also leave room for the later phases'
// smallest plans, so a suite's reads do not spend its writes' budget.
func TestPlannerKeepsThePendingBlocksWithinTheBudget(t *testing.T) {
	plan := precisionPlan(t)
	table := &tableOfResults{results: map[string]*result.Result{}, tps: func(suite.Cell) float64 { return 1000 }}
	// 36 cells, 3 repetitions: 12 a repetition in 2 blocks of 6. With
	// 10 s a cell and 150 s of budget, two blocks fit and a third does not.
	plan.Suite.Budget = "150s"
	pl := newPlanner(plan, plan.Cells)
	var cells []suite.Cell
	for {
		st := pl.next(measured{elapsed: time.Duration(len(cells)) * 10 * time.Second, perCell: 10 * time.Second, resultOf: table.resultOf})
		if st.done || st.grown {
			break
		}
		cells = append(cells, st.cells...)
		table.run(st.cells)
	}
	if len(cells) > 15 || len(cells) == 0 || !pl.spent {
		t.Fatalf("ran %d cells of 10 s in a 150 s budget (spent %v), want some and at most 15", len(cells), pl.spent)
	}
	for _, c := range cells {
		if c.Repetition > plan.Suite.SmallestBlocks() {
			t.Errorf("%s ran past the smallest plan while its cells did not all fit", c.ID)
		}
	}
}

// TestPlannerOffersLoadAfterPrecision: with offered loads, each group
// gets its load blocks at shares of its baseline's TPS once, after its
// precision blocks; a resumed plan that has them gets none again.
func TestPlannerOffersLoadAfterPrecision(t *testing.T) {
	plan := precisionPlan(t)
	plan.Suite.OfferedLoad = []int{50}
	table := &tableOfResults{results: map[string]*result.Result{}, tps: func(c suite.Cell) float64 {
		if c.Variant == "tls" {
			return 900
		}
		return 1000
	}}
	pl := newPlanner(plan, plan.Cells)
	m := measured{perCell: time.Second, resultOf: table.resultOf}
	_, st := runPending(t, pl, func() measured { return m }, table)
	groups := map[suite.Group]bool{}
	for ; ; st = pl.next(m) {
		if st.done {
			break
		}
		for _, c := range st.cells {
			if c.LoadPct != 50 || c.Rate <= 0 {
				t.Fatalf("a load block cell %s at %d%% rate %v, want 50%% of the baseline", c.ID, c.LoadPct, c.Rate)
			}
			groups[suite.Group{Target: c.Target, Workload: c.Workload, Threads: c.Threads}] = true
		}
		table.run(st.cells)
	}
	if len(groups) != 4 {
		t.Fatalf("load blocks for %d groups, want all 4", len(groups))
	}
	again := newPlanner(plan, nil)
	again.next(m)
	if st := again.next(m); !st.done {
		t.Fatalf("a plan with its load blocks got more: %d cells", len(st.cells))
	}
}

// TestSuiteWhoseSmallestPlanCannotFitIsRefused: the quick suite's
// smallest plan (two blocks of its 56 cells of 1 s) cannot end within
// 100 s, so it is refused before anything starts, as a usage error that
// names the time it needs; with 5 minutes it is not.
func TestSuiteWhoseSmallestPlanCannotFitIsRefused(t *testing.T) {
	s, _, err := suite.Load("quick")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		budget string
		refuse bool
	}{{"100s", true}, {"5m", false}} {
		ov := suite.NoOverrides()
		ov.Budget = tc.budget
		plan, err := suite.Expand(*s, ov, nil)
		if err != nil {
			t.Fatal(err)
		}
		x := &Executor{Plan: plan, Dir: suite.Dir(t.TempDir())}
		x.parts()
		err = x.checkBudget()
		if (err != nil) != tc.refuse {
			t.Fatalf("budget %s: %v, want refused %v", tc.budget, err, tc.refuse)
		}
		if err == nil {
			continue
		}
		if errs.ExitCode(err) != 2 || !strings.Contains(err.Error(), "takes at least") || !strings.Contains(err.Error(), "--budget") {
			t.Errorf("budget %s: exit %d, %q; want a usage error naming the time and a budget", tc.budget, errs.ExitCode(err), err)
		}
	}
}
