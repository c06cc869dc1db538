package suiterun

import (
	"testing"
	"time"

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
	first := pl.next(m)
	if first.done || first.grown || len(first.cells) != 36 {
		t.Fatalf("first step: %d cells (grown %v, done %v), want the 36 pending", len(first.cells), first.grown, first.done)
	}
	table.run(first.cells)
	blocks := 0
	for {
		st := pl.next(m)
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
	table.run(pl.next(m).cells)
	if st := pl.next(measured{elapsed: 2 * time.Minute, perCell: time.Second, resultOf: table.resultOf}); !st.done || !pl.spent {
		t.Fatalf("past the budget: %+v, spent %v; want done with the budget spent", st, pl.spent)
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
	table.run(pl.next(m).cells)
	groups := map[suite.Group]bool{}
	for {
		st := pl.next(m)
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
