package suiterun

import (
	"time"

	"github.com/encbench/encbench/internal/runner"
	"github.com/encbench/encbench/internal/suite"
)

// A suite that leaves the turn's length out gets one per group, chosen
// from the group's first warm-up: long enough that a turn holds
// suite.AutoTxnsPerTurn transactions of every worker of the slowest variant (so
// the work in flight at a turn's edges, which the runner apportions but
// cannot make free of the ramp, is a small share of it), and short enough
// that a block holds many rounds (autoMinRounds): the machine's drift
// within a block then falls on every variant alike. bench/turncheck
// measured the loss at turns of 2 to 200 transactions per worker on the
// same servers: the same loss, with intervals three to eight times
// narrower at the short turns than at 4 rounds per block.
const (
	autoProbeTurn = 100 * time.Millisecond
	autoMinTurn   = 50 * time.Millisecond
	autoMinRounds = 10
)

// autoTurn is a group's chosen turn and the warm-up latency it came from.
type autoTurn struct {
	turn time.Duration
	// txn is the slowest variant's time per transaction per worker.
	txn time.Duration
}

// chooseTurn picks the turn from each cell's warm-up: its workers' time
// per transaction is the window times the threads over the work done.
func chooseTurn(warm []runner.Turn, cells []suite.Cell, cellTime time.Duration) *autoTurn {
	var slowest time.Duration
	for i, w := range warm {
		work := max(w.Work, 1) // none finished: at least the whole window
		per := time.Duration(float64(w.Window) * float64(cells[i].Threads) / work)
		slowest = max(slowest, per)
	}
	turn := suite.AutoTxnsPerTurn * slowest
	longest := max(autoMinTurn, cellTime/autoMinRounds)
	turn = min(max(turn, autoMinTurn), longest).Round(10 * time.Millisecond)
	return &autoTurn{turn: turn, txn: slowest}
}
