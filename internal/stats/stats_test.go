package stats

import (
	"math"
	"testing"
)

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol }

// Known values: mean 5, sample sd 2.138, t(0.975, 7) = 2.3646.
func TestSummarizeKnownValues(t *testing.T) {
	s, err := Summarize([]float64{2, 4, 4, 4, 5, 5, 7, 9})
	if err != nil {
		t.Fatal(err)
	}
	if s.N != 8 || !near(s.Mean, 5, 1e-12) || !near(s.SD, 2.13809, 1e-4) {
		t.Fatalf("got %+v", s)
	}
	half := 2.364624 * 2.13809 / math.Sqrt(8)
	if !near(s.Low, 5-half, 1e-3) || !near(s.High, 5+half, 1e-3) {
		t.Fatalf("interval [%.4f, %.4f], want 5 ± %.4f", s.Low, s.High, half)
	}
}

func TestSummarizeNeedsTwo(t *testing.T) {
	if _, err := Summarize([]float64{3}); err != ErrTooFew {
		t.Fatalf("one sample: %v", err)
	}
}

func TestLossSignificance(t *testing.T) {
	base := []float64{1000, 1010, 990, 1005, 995}
	clear := []float64{800, 810, 790, 805, 795}
	l, err := LossPct(base, clear)
	if err != nil {
		t.Fatal(err)
	}
	if !near(l.Pct, 20, 1e-9) || !l.Significant || l.Low <= 0 || l.Low > 20 || l.High < 20 {
		t.Fatalf("clear 20%% loss: %+v", l)
	}
	noisy := []float64{700, 1300, 900, 1150, 950}
	l, err = LossPct(base, noisy)
	if err != nil {
		t.Fatal(err)
	}
	if l.Significant || l.Low >= 0 || l.High <= 0 {
		t.Fatalf("noise reported as a loss: %+v", l)
	}
}

// Equal variances and sizes: Welch's df is 2(n-1).
func TestWelchDF(t *testing.T) {
	if df := welchDF(1, 1, 5, 5); !near(df, 8, 1e-12) {
		t.Fatalf("df %.3f, want 8", df)
	}
}
