package suiterun

import (
	"github.com/encbench/encbench/internal/result"
	"github.com/encbench/encbench/internal/suite"
)

// ledger is what the suite measured so far: complete results, and the
// cells that finished, failed or were run again.
type ledger struct {
	Dir suite.Dir
	// Finished and Failed count cells; Reruns the attempts discarded as
	// disturbed.
	Finished, Failed, Reruns int
	// failures are this execution's failed cells by variant, with the
	// first cause, for plan.json and the report.
	failures map[string]suite.Failure
	// results are complete cell results by cell ID (resultOf).
	results map[string]*result.Result
}

// failed counts a failed cell and keeps its variant's first cause.
func (x *ledger) failed(c suite.Cell, err error) {
	x.Failed++
	if x.failures == nil {
		x.failures = map[string]suite.Failure{}
	}
	f := x.failures[c.Variant]
	f.Cells++
	if f.Cause == "" {
		f.Cause = "partial result (the run was cut short)"
		if err != nil {
			f.Cause = firstLine(err)
		}
	}
	x.failures[c.Variant] = f
}

func (x *ledger) cellPath(c suite.Cell) string {
	return x.Dir.Cell(c.ID)
}

// done says whether a cell has a complete result already.
func (x *ledger) done(c suite.Cell) bool { return x.resultOf(c) != nil }

// resultOf is a cell's complete result, or nil: read from the suite
// directory once, then kept, so the precision rule does not re-read every
// finished cell after each block.
func (x *ledger) resultOf(c suite.Cell) *result.Result {
	if r, ok := x.results[c.ID]; ok {
		return r
	}
	r, err := result.ReadFile(x.cellPath(c))
	if err != nil || r.Partial {
		return nil
	}
	x.keep(c, r)
	return r
}

func (x *ledger) keep(c suite.Cell, r *result.Result) {
	if x.results == nil {
		x.results = map[string]*result.Result{}
	}
	x.results[c.ID] = r
}
