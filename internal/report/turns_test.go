package report

import (
	"testing"

	"github.com/encbench/encbench/internal/locale"
	"github.com/encbench/encbench/internal/result"
)

// TestTurnRangesShowEveryGroupsTurn: where groups chose their own auto
// turns, the design sentence gives the range of turns and rounds, not the
// first group's alone.
func TestTurnRangesShowEveryGroupsTurn(t *testing.T) {
	l, err := locale.Get("en")
	if err != nil {
		t.Fatal(err)
	}
	mk := func(turnMs float64, rounds int) *result.Result {
		return &result.Result{Suite: &result.SuiteRef{Interleaved: &result.Interleaving{TurnMs: turnMs, Rounds: rounds, TurnAuto: true}}}
	}
	turns, rounds := turnRanges(l, []*result.Result{mk(50, 40), mk(200, 10), mk(130, 15), {}})
	if turns != "50 to 200" || rounds != "10 to 40" {
		t.Errorf("auto turns of several groups: turns %q, rounds %q", turns, rounds)
	}
	turns, rounds = turnRanges(l, []*result.Result{mk(100, 10), mk(100, 10)})
	if turns != "100" || rounds != "10" {
		t.Errorf("one turn: turns %q, rounds %q", turns, rounds)
	}
}
