package quiet

import (
	"context"
	"math"
	"testing"
	"time"
)

func TestNoiseSummary(t *testing.T) {
	// Three windows at 100 and one at 50: the log's sd is ln 2 / 2.
	n, err := summarize(3, []float64{100, 100, 50, 100})
	if err != nil {
		t.Fatal(err)
	}
	if want := 100 * math.Ln2 / 2; n.CPU != 3 || n.Windows != 4 || math.Abs(n.SDPct-want) > 1e-9 || n.SlowestPct != 50 {
		t.Fatalf("summary %+v, want CPU 3, 4 windows, sd %.3f%%, slowest 50%%", n, want)
	}
	// A window without one unit of work still has a finite spread.
	if n, err := summarize(0, []float64{100, 0, 100}); err != nil || math.IsInf(n.SDPct, 0) || n.SlowestPct != 0 {
		t.Fatalf("a window that stood still: %+v, %v", n, err)
	}
}

func TestNoiseSpinsOnEachCPU(t *testing.T) {
	cpus, err := AllowedCPUs()
	if err != nil || len(cpus) == 0 || len(cpus) > MaxNoiseCPUs {
		t.Fatalf("allowed CPUs %v, %v", cpus, err)
	}
	got, err := Noise(context.Background(), cpus, 50*time.Millisecond, 300*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	for i, n := range got {
		if n.CPU != cpus[i] || n.Windows != 6 || n.SDPct < 0 || n.SlowestPct <= 0 || n.SlowestPct > 100 {
			t.Errorf("CPU %d: %+v", cpus[i], n)
		}
	}
	if _, err := Noise(context.Background(), cpus, time.Second, time.Second); err == nil {
		t.Error("a check shorter than three windows was accepted")
	}
}
