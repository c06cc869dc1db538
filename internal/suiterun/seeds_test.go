package suiterun

import (
	"testing"
	"time"

	"github.com/encbench/encbench/internal/suite"
)

// TestSeedsBudgetGivesEachSuiteItsOwn: the built-in seed suites' budgets
// add up to the seeds run's, so each runs at its own default there, and
// time one leaves goes to those after it in proportion.
func TestSeedsBudgetGivesEachSuiteItsOwn(t *testing.T) {
	var own []time.Duration
	var sum time.Duration
	for _, name := range suite.SeedSuites() {
		s, _, err := suite.Load(name)
		if err != nil {
			t.Fatal(err)
		}
		own = append(own, s.BudgetDuration())
		sum += s.BudgetDuration()
	}
	if sum != DefaultSeedsBudget {
		t.Fatalf("the seed suites' budgets add up to %v, the seeds run has %v: one of them would not run at its default", sum, DefaultSeedsBudget)
	}
	left := DefaultSeedsBudget
	for i := range own {
		share := seedShare(left, own[i:])
		if share != own[i] {
			t.Errorf("%s: share %v of %v left, want its own %v", suite.SeedSuites()[i], share, left, own[i])
		}
		left -= share
	}
	// A suite that finished early leaves its time to the rest: with 115
	// minutes left for budgets of 40, 25 and 40, the next gets 40/105.
	got := seedShare(115*time.Minute, []time.Duration{40 * time.Minute, 25 * time.Minute, 40 * time.Minute})
	if want := (115 * time.Minute * 40 / 105).Round(time.Second); got != want {
		t.Errorf("share after an early finish: %v, want %v", got, want)
	}
	if got := seedShare(0, own); got != 0 {
		t.Errorf("no time left: share %v", got)
	}
}
