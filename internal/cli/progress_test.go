package cli

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/encbench/encbench/internal/suite"
)

// With a precision target the eta spans what blocks may still be added,
// up to the budget's end and the block under way.
func TestEtaCoversPrecisionBlocks(t *testing.T) {
	pr := newProgress(&bytes.Buffer{}, 10, 0)
	pr.measured = []time.Duration{time.Minute}
	pr.done = 5
	pr.cellT0 = time.Now()
	if got := pr.eta(); got != elapsedString(5*time.Minute) {
		t.Errorf("without a bound: eta %s", got)
	}
	pr.Bound(30, 2, time.Time{})
	if got, want := pr.eta(), elapsedString(5*time.Minute)+" (up to "+elapsedString(25*time.Minute); !strings.HasPrefix(got, want) {
		t.Errorf("up to 30 cells: eta %s, want %s...", got, want)
	}
	pr.Bound(30, 2, time.Now().Add(10*time.Minute))
	if got := pr.eta(); !strings.Contains(got, "(up to 00:11:5") && !strings.Contains(got, "(up to 00:12:00") {
		t.Errorf("budget ending in 10 minutes: eta %s", got)
	}
}

// TestEtaNeverPassesTheBudget: cells that ran slow at first (set-up, a
// first turn) would put the end far past the budget; the eta says no more
// than the time left in the budget plus the block under way.
func TestEtaNeverPassesTheBudget(t *testing.T) {
	pr := newProgress(&bytes.Buffer{}, 280, 0)
	pr.measured = []time.Duration{20 * time.Second}
	pr.done = 10
	pr.cellT0 = time.Now()
	pr.Bound(280, 7, time.Now().Add(7*time.Minute))
	// 270 cells at 20 s would be 1.5 hours; the budget ends in 7 minutes
	// and a block is 7 cells of 20 s.
	if got, most := pr.eta(), elapsedString(7*time.Minute+7*20*time.Second); got > most {
		t.Errorf("eta %s, want at most %s", got, most)
	}
	pr.Bound(280, 7, time.Now().Add(-time.Minute))
	if got, most := pr.eta(), elapsedString(7*20*time.Second); got > most {
		t.Errorf("past the deadline: eta %s, want at most the block's %s", got, most)
	}
}

// TestEtaCountsABlocksCellsOnce: an interleaved block starts once and
// ends its cells together; the cells' times add up to the block's, so the
// ETA is the cells left at a block's time per cell, not a block's time for
// each (it read 45 minutes three minutes into a 10m30s suite).
func TestEtaCountsABlocksCellsOnce(t *testing.T) {
	pr := newProgress(&bytes.Buffer{}, 14, 0)
	c := suite.Cell{ID: "x", Setup: "s", Workload: "w", Threads: 1, Repetition: 1}
	pr.CellStart(c)
	pr.cellT0 = time.Now().Add(-7 * time.Second)
	for range 7 {
		pr.CellDone(c, nil, nil)
	}
	var sum time.Duration
	for _, d := range pr.measured {
		sum += d
	}
	if sum < 7*time.Second || sum > 8*time.Second {
		t.Fatalf("7 cells of a 7 s block measured %v in all, want about 7 s", sum)
	}
	if got, most := pr.eta(), elapsedString(8*time.Second); got > most {
		t.Errorf("7 cells left at about 1 s each: eta %s, want at most %s", got, most)
	}
}
