package orchestrator

import (
	"math"
	"testing"

	"github.com/encbench/encbench/internal/result"
)

// TestRatesInTurnsAgreeWithTPS: in turns, a rate is over the time its TPS
// is over (the open gates), not the elapsed time with the drains; so a
// workload whose events are all of the rated kind has a rate of TPS.
func TestRatesInTurnsAgreeWithTPS(t *testing.T) {
	r := &result.Result{DurationS: 10.5, TurnsS: 10, TPS: 95}
	r.Totals.Transactions = 1000
	if got, want := rateSeconds(r), 1000/95.0; math.Abs(got-want) > 1e-9 {
		t.Errorf("turns: rate seconds %v, want %v (transactions / TPS)", got, want)
	}
	if got := rateSeconds(&result.Result{DurationS: 10.5, TPS: 95}); got != 10.5 {
		t.Errorf("a continuous run: rate seconds %v, want its duration", got)
	}
}
