package suiterun

import (
	"testing"
	"time"

	"github.com/encbench/encbench/internal/runner"
	"github.com/encbench/encbench/internal/suite"
)

// TestChooseTurnFromTheSlowestVariant checks the auto turn: AutoTxnsPerTurn
// transactions per worker of the slowest variant, at least autoMinTurn,
// and short enough for autoMinRounds rounds in a cell.
func TestChooseTurnFromTheSlowestVariant(t *testing.T) {
	cells := []suite.Cell{{Threads: 8}, {Threads: 8}}
	// warm is a warm-up turn of 1 s per cell in which each of its 8
	// workers took per for a transaction.
	warm := func(per ...time.Duration) []runner.Turn {
		ts := make([]runner.Turn, len(per))
		for i, p := range per {
			ts[i] = runner.Turn{Window: time.Second, Work: 8 * float64(time.Second) / float64(p)}
		}
		return ts
	}
	for _, c := range []struct {
		name     string
		per      []time.Duration
		cell     time.Duration
		turn     time.Duration
		txnAbout time.Duration
	}{
		{"point selects: the least turn", []time.Duration{200 * time.Microsecond, 300 * time.Microsecond}, 10 * time.Second, autoMinTurn, 300 * time.Microsecond},
		{"read_write: the slowest variant's transactions", []time.Duration{10 * time.Millisecond, 12 * time.Millisecond}, 10 * time.Second, suite.AutoTxnsPerTurn * 12 * time.Millisecond, 12 * time.Millisecond},
		{"TPC-C in a short cell: rounds first", []time.Duration{80 * time.Millisecond, 100 * time.Millisecond}, 3 * time.Second, 3 * time.Second / autoMinRounds, 100 * time.Millisecond},
		{"nothing finished: the window", []time.Duration{0, 0}, 10 * time.Second, 10 * time.Second / autoMinRounds, 8 * time.Second},
	} {
		per := c.per
		ws := warm(per...)
		for i, p := range per {
			if p == 0 {
				ws[i].Work = 0
			}
		}
		got := chooseTurn(ws, cells, c.cell)
		if got.turn != c.turn.Round(10*time.Millisecond) {
			t.Errorf("%s: turn %v, want %v", c.name, got.turn, c.turn)
		}
		if d := got.txn - c.txnAbout; d < -time.Microsecond || d > time.Microsecond {
			t.Errorf("%s: time per transaction %v, want %v", c.name, got.txn, c.txnAbout)
		}
		if rounds := c.cell / got.turn; rounds < autoMinRounds {
			t.Errorf("%s: %d rounds in a cell, want at least %d", c.name, rounds, autoMinRounds)
		}
	}
}
