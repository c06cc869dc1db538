package quiet

import (
	"context"
	"math"
	"testing"
	"time"
)

func TestNoiseSummary(t *testing.T) {
	// Three windows at 100 and one at 50: the log's sd is ln 2 / 2.
	sd, slowest, err := summarize([]float64{100, 100, 50, 100})
	if err != nil {
		t.Fatal(err)
	}
	if want := 100 * math.Ln2 / 2; math.Abs(sd-want) > 1e-9 || slowest != 50 {
		t.Fatalf("sd %.3f%%, slowest %.0f%%; want %.3f%% and 50%%", sd, slowest, want)
	}
	// A window without one unit of work still has a finite spread.
	if sd, slowest, err := summarize([]float64{100, 0, 100}); err != nil || math.IsInf(sd, 0) || slowest != 0 {
		t.Fatalf("a window that stood still: sd %v, slowest %v, %v", sd, slowest, err)
	}
}

func TestWalkIsOneCycle(t *testing.T) {
	next := newWalk(7)
	seen, p := 0, int32(0)
	for {
		p = next[p]
		seen++
		if p == 0 || seen > len(next) {
			break
		}
	}
	if seen != len(next) {
		t.Fatalf("the walk returns after %d of %d entries", seen, len(next))
	}
}

func TestNoiseSpinsOnEachCPU(t *testing.T) {
	cpus, err := AllowedCPUs()
	if err != nil || len(cpus) == 0 || len(cpus) > MaxNoiseCPUs {
		t.Fatalf("allowed CPUs %v, %v", cpus, err)
	}
	got, err := Noise(context.Background(), cpus, 50*time.Millisecond, 400*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	// Under other load (go test runs packages side by side) a window can
	// pass without one unit of work: its slowest is then 0%.
	for i, n := range got {
		if n.CPU != cpus[i] || n.Windows != 4 || n.SDPct < 0 || n.SlowestPct < 0 || n.SlowestPct > 100 ||
			n.MemorySDPct < 0 || n.MemorySlowestPct < 0 || n.MemorySlowestPct > 100 {
			t.Errorf("CPU %d: %+v", cpus[i], n)
		}
	}
	if _, err := Noise(context.Background(), cpus, time.Second, 3*time.Second); err == nil {
		t.Error("a check shorter than two windows of each kind was accepted")
	}
}
