package report

import (
	"strings"
	"testing"

	"github.com/encbench/encbench/internal/quiet"
	"github.com/encbench/encbench/internal/result"
	"github.com/encbench/encbench/internal/suite"
)

// cellRun is a result of variant in a block whose earlier attempts were
// discarded for the given reasons, its own turns at these TPS.
func cellRun(variant string, discarded []string, tps ...float64) *result.Result {
	r := &result.Result{Variant: result.Variant{Name: variant}, Suite: &result.SuiteRef{Discarded: discarded}}
	for i, x := range tps {
		r.Intervals = append(r.Intervals, result.Interval{TS: float64(i + 1), TPS: x})
	}
	return r
}

func TestRerunTextCountsCausesAndStallsByVariant(t *testing.T) {
	l := english(t)
	stall := result.Discard("tde", result.CauseStall, "interval 2 ran at 3 TPS")
	foreign := result.Discard("plain", result.CauseForeign, "30.0% of the machine")
	block := []string{stall, foreign}
	rs := []*result.Result{
		// One block discarded twice, its reasons on both of its cells.
		cellRun("plain", block, 400, 400, 400),
		cellRun("tde", block, 300, 300, 300),
		// A tde run kept with a stall: its reruns ran out.
		cellRun("tde", nil, 300, 2, 300),
		cellRun("plain", nil, 400, 400, 400),
	}
	got := rerunText(l, rs, 10)
	for _, want := range []string{
		"4 runs of 2 cells were disturbed",
		"foreign CPU 2, steal 0, stall 2",
		"Stalled runs by variant: tde 2.",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("rerun text lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "plain 1") {
		t.Errorf("a block's stall was charged to a variant that did not stall:\n%s", got)
	}
	if got := rerunText(l, rs[3:], 10); strings.Contains(got, "Stalled") || !strings.Contains(got, "No run was disturbed") {
		t.Errorf("quiet runs: %s", got)
	}
}

func TestNoiseTextNamesEachCPU(t *testing.T) {
	l := english(t)
	if s := noiseText(l, nil); s != "" {
		t.Fatalf("no check, but: %s", s)
	}
	n := &suite.MachineNoise{WindowMs: 250, Seconds: 5, CPUs: []quiet.CPUNoise{{CPU: 0, Windows: 12, SDPct: 9.04, SlowestPct: 65, MemorySDPct: 14.8, MemorySlowestPct: 70}, {CPU: 1, Windows: 12, SDPct: 4.1, SlowestPct: 83, MemorySDPct: 10.8, MemorySlowestPct: 80}}}
	s := noiseText(l, n)
	for _, want := range []string{"per 250ms window for 5 s", "CPU 0: arithmetic varied by 9.0%", "slowest window at 65% of the median", "memory walk by 14.8%", "CPU 1: arithmetic varied by 4.1%"} {
		if !strings.Contains(s, want) {
			t.Errorf("noise text lacks %q:\n%s", want, s)
		}
	}
}
