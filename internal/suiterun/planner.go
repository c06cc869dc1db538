package suiterun

import (
	"slices"
	"time"

	"github.com/encbench/encbench/internal/result"
	"github.com/encbench/encbench/internal/suite"
)

// planner decides what a suite runs next from the plan, the results so
// far, the budget and the clock; it does no I/O and runs nothing (the
// measurer does, and the loop in Execute goes between the two). Each
// phase (reads, then writes) runs its pending cells, then blocks for the
// precision target, then its offered-load blocks, before the next phase
// starts, so no read runs after a write.
type planner struct {
	plan *suite.Plan
	// pending are the cells not finished when the suite (re)started.
	pending []suite.Cell
	phases  []bool
	phase   int
	stage   stage
	// limit is the phase's share of the budget, set once its pending
	// cells have run (0: no budget); loads are the groups whose offered
	// load the phase has still to plan, with their saturation TPS.
	limit      time.Duration
	loads      []suite.Group
	saturation map[suite.Group]float64
	// spent says the budget stopped blocks the plan, the precision
	// target or the offered load wanted.
	spent bool
	// queue is the phase's pending blocks not started yet (nil: not
	// queued yet).
	queue [][]suite.Cell
}

type stage int

const (
	stagePending stage = iota
	stagePrecision
	stageLoad
)

// measured is what the planner reads of the suite so far.
type measured struct {
	elapsed time.Duration
	// perCell is a cell's mean wall time so far.
	perCell  time.Duration
	resultOf func(suite.Cell) *result.Result
}

// step is what to run next. Grown cells were added to the plan by this
// step, so the plan must be stored before they run (a suite killed in
// them resumes them). Done: nothing more to run.
type step struct {
	cells []suite.Cell
	grown bool
	done  bool
}

func newPlanner(plan *suite.Plan, pending []suite.Cell) *planner {
	return &planner{plan: plan, pending: pending, phases: plan.Phases()}
}

// wantsMore lists the groups the precision rule would give blocks now.
func (p *planner) wantsMore(m measured) []want {
	if p.plan.Suite.Precision <= 0 {
		return nil
	}
	return wanting(p.plan, halfWidths(p.plan, m.resultOf))
}

// next is the step after the ones before it have run.
func (p *planner) next(m measured) step {
	for p.phase < len(p.phases) {
		writes := p.phases[p.phase]
		inPhase := func(g suite.Group) bool { return p.plan.Writes(g) == writes }
		switch p.stage {
		case stagePending:
			if s, ok := p.pendingBlock(m, inPhase); ok {
				return s
			}
			p.stage = stagePrecision
			p.limit = -1
			p.queue = nil
		case stagePrecision:
			if p.limit < 0 {
				p.limit = p.phaseLimit(m, inPhase)
			}
			if s, ok := p.precisionBlock(m, inPhase); ok {
				return s
			}
			p.stage = stageLoad
			p.startLoads(m, inPhase)
		case stageLoad:
			if s, ok := p.loadBlock(m); ok {
				return s
			}
			p.phase++
			p.stage = stagePending
		}
	}
	return step{done: true}
}

// pendingBlock is the phase's next pending block, if it ends within the
// budget (the plan's cells run first, before any block the precision
// target adds). A block past the smallest plan (SmallestBlocks of every
// cell) also leaves room for the later phases' smallest plans. Once a
// block does not fit, the phase's pending blocks stop (the budget is
// spent); a resumed suite runs them.
func (p *planner) pendingBlock(m measured, inPhase func(suite.Group) bool) (step, bool) {
	if p.queue == nil {
		p.queue = suite.Blocks(slices.DeleteFunc(slices.Clone(p.pending), func(c suite.Cell) bool { return !inPhase(c.Group()) }))
	}
	if len(p.queue) == 0 {
		return step{}, false
	}
	block := p.queue[0]
	smallest := p.plan.Suite.SmallestBlocks()
	n := len(block)
	if block[0].Repetition > smallest {
		for _, c := range p.pending {
			if c.Repetition <= smallest && slices.Contains(p.phases[p.phase+1:], p.plan.Writes(c.Group())) {
				n++
			}
		}
	}
	if !fits(m.elapsed, n, m.perCell, p.plan.Suite.BudgetDuration()) {
		p.spent = true
		p.queue = p.queue[:0]
		return step{}, false
	}
	p.queue = p.queue[1:]
	return step{cells: block}, true
}

// phaseLimit is the phase's share of the budget (phaseShare), measured
// when its pending cells have run.
func (p *planner) phaseLimit(m measured, inPhase func(suite.Group) bool) time.Duration {
	later := func(g suite.Group) bool { return slices.Contains(p.phases[p.phase+1:], p.plan.Writes(g)) }
	laterCells := 0
	for _, c := range p.pending {
		if later(c.Group()) {
			laterCells++
		}
	}
	groupsNow, groupsLater := 0, 0
	for _, g := range p.plan.Groups() {
		switch {
		case g.LoadPct > 0:
		case inPhase(g):
			groupsNow++
		case later(g):
			groupsLater++
		}
	}
	return phaseShare(p.plan.Suite.BudgetDuration(), m.elapsed, laterCells, m.perCell, groupsNow, groupsLater)
}

// precisionBlock is the next block for the precision target: for the
// widest group of the phase that wants one and whose block ends within
// the phase's limit. None: every such group reached the target or its
// most blocks, or no block fits (the budget is spent).
func (p *planner) precisionBlock(m measured, inPhase func(suite.Group) bool) (step, bool) {
	ws := slices.DeleteFunc(p.wantsMore(m), func(w want) bool { return !inPhase(w.group) })
	if len(ws) == 0 {
		return step{}, false
	}
	w, ok := pick(ws, func(w want) bool { return fits(m.elapsed, 1+len(w.variants), m.perCell, p.limit) })
	if !ok {
		p.spent = true
		return step{}, false
	}
	return step{cells: p.plan.NextBlock(w.group, w.variants...), grown: true}, true
}

// startLoads lists the phase's groups that get offered-load blocks: every
// closed-loop group without them yet (a resumed suite may have them), at
// shares of its baseline's mean saturation TPS so far.
func (p *planner) startLoads(m measured, inPhase func(suite.Group) bool) {
	p.loads = nil
	if len(p.plan.Suite.OfferedLoad) == 0 {
		return
	}
	p.saturation = baselineTPS(p.plan, m.resultOf)
	for _, g := range p.plan.Groups() {
		if g.LoadPct == 0 && !p.plan.HasLoad(g) && inPhase(g) {
			p.loads = append(p.loads, g)
		}
	}
}

// loadBlock is the next group's offered-load blocks, the same rates for
// every variant; a group whose blocks do not fit in the budget is left
// out (the budget is spent).
func (p *planner) loadBlock(m measured) (step, bool) {
	st := p.plan.Suite
	for len(p.loads) > 0 {
		g := p.loads[0]
		p.loads = p.loads[1:]
		n := p.plan.BlockSize(g) * len(st.OfferedLoad) * st.Repetitions
		if !fits(m.elapsed, n, m.perCell, p.limit) {
			p.spent = true
			continue
		}
		if cells := p.plan.LoadBlocks(g, p.saturation[g]); len(cells) > 0 {
			return step{cells: cells, grown: true}, true
		}
	}
	return step{}, false
}
