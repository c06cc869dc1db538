package cli

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

// With a precision target the eta spans what blocks may still be added,
// up to the budget's end.
func TestEtaCoversPrecisionBlocks(t *testing.T) {
	pr := newProgress(&bytes.Buffer{}, 10, 0)
	pr.measured = []time.Duration{time.Minute}
	pr.done = 5
	pr.cellT0 = time.Now()
	if got := pr.eta(); got != elapsedString(5*time.Minute) {
		t.Errorf("without a bound: eta %s", got)
	}
	pr.Bound(30, time.Time{})
	if got, want := pr.eta(), elapsedString(5*time.Minute)+" (up to "+elapsedString(25*time.Minute); !strings.HasPrefix(got, want) {
		t.Errorf("up to 30 cells: eta %s, want %s...", got, want)
	}
	pr.Bound(30, time.Now().Add(10*time.Minute))
	if got := pr.eta(); !strings.Contains(got, "(up to 00:09:5") && !strings.Contains(got, "(up to 00:10:00") {
		t.Errorf("budget ending in 10 minutes: eta %s", got)
	}
}
