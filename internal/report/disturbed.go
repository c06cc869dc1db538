package report

import (
	"time"

	"github.com/encbench/encbench/internal/locale"
	"github.com/encbench/encbench/internal/result"
)

// disturbedShare is the share of the budget, in percent, that runs
// discarded as disturbed must have taken before the report names the
// disturbance as what ended the blocks: below it, the reruns cost less
// than the spread of a block's time.
const disturbedShare = 5.0

// disturbance is what the runs discarded as disturbed cost a suite: how
// many, by cause, and about how long they took (each discarded attempt
// of a cell as long as the attempt kept).
type disturbance struct {
	runs    int
	causes  map[string]int
	spent   time.Duration
	budget  time.Duration
	sharePc float64
}

func disturbanceOf(rs []*result.Result, budget time.Duration) disturbance {
	d := disturbance{causes: map[string]int{}, budget: budget}
	for _, r := range rs {
		if r.Suite == nil {
			continue
		}
		for _, why := range r.Suite.Discarded {
			_, cause := result.DiscardOf(why)
			d.runs++
			d.causes[cause]++
			d.spent += time.Duration(r.DurationS * float64(time.Second))
		}
	}
	if budget > 0 {
		d.sharePc = 100 * d.spent.Seconds() / budget.Seconds()
	}
	return d
}

// named says the disturbance took enough of the budget to be named as
// what ended the blocks.
func (d disturbance) named() bool { return d.runs > 0 && d.budget > 0 && d.sharePc >= disturbedShare }

// text is the disturbance in one sentence, with what to do.
func (d disturbance) text(l *locale.Lang) string {
	return l.T("disturbed.summary", d.runs, d.causes[result.CauseForeign], d.causes[result.CauseSteal], d.causes[result.CauseStall],
		d.spent.Round(time.Second).String(), l.F("%.0f", d.sharePc), d.budget.String())
}
