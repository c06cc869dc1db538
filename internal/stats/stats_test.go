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

// Known values: log ratios ln(0.9), ln(0.8), ln(0.85) have mean -0.16367
// and SD 0.05890; t(0.975, 2) = 4.3027, so the half-width on the log
// scale is 0.14632: loss 1 - e^-0.16367 = 15.10%, interval
// 1 - e^-0.01735 = 1.72% to 1 - e^-0.30999 = 26.65%.
func TestPairedLossKnownValues(t *testing.T) {
	l, err := PairedLossPct([]float64{100, 200, 400}, []float64{90, 160, 340})
	if err != nil {
		t.Fatal(err)
	}
	if !near(l.Pct, 15.10, 0.01) || !near(l.Low, 1.72, 0.01) || !near(l.High, 26.65, 0.01) || !l.Significant || !l.Paired {
		t.Errorf("paired loss %+v", l)
	}
	// At 99% (t = 9.925 with 2 degrees of freedom) the same loss is no
	// longer told from 0.
	l99, err := PairedLossPctAt([]float64{100, 200, 400}, []float64{90, 160, 340}, 0.99)
	if err != nil || !near(l99.Pct, 15.10, 0.01) || !near(l99.Low, -18.99, 0.01) || !near(l99.High, 39.42, 0.01) || l99.Significant {
		t.Errorf("paired loss at 99%%: %+v, %v", l99, err)
	}
	if _, err := PairedLossPctAt([]float64{1, 2}, []float64{1, 2}, 1); err == nil {
		t.Error("a confidence level of 1 accepted")
	}
	if _, err := PairedLossPct([]float64{1, 2}, []float64{1}); err == nil {
		t.Error("unequal lengths accepted")
	}
	if _, err := PairedLossPct([]float64{1, 0}, []float64{1, 1}); err == nil {
		t.Error("a zero accepted")
	}
}

// Blocks that drift together (a noisy shared machine) make the unpaired
// interval wide; the within-block ratios are steady, so pairing gives a
// far narrower one around the same loss.
func TestPairingNarrowsTheIntervalUnderDrift(t *testing.T) {
	base := []float64{1000, 1400, 800, 1200, 950, 1300}
	variant := make([]float64, len(base))
	for i, b := range base {
		variant[i] = b * (0.90 + 0.004*float64(i%2))
	}
	u, err := LossPct(base, variant)
	if err != nil {
		t.Fatal(err)
	}
	p, err := PairedLossPct(base, variant)
	if err != nil {
		t.Fatal(err)
	}
	if pw, uw := p.High-p.Low, u.High-u.Low; pw*10 > uw {
		t.Errorf("paired width %.2f, unpaired %.2f: pairing should be at least 10x narrower here", pw, uw)
	}
	if !p.Significant || u.Significant {
		t.Errorf("paired %+v, unpaired %+v: only pairing can tell this loss from drift", p, u)
	}
	if !near(p.Pct, 9.8, 0.2) {
		t.Errorf("paired loss %.2f, want about 9.8", p.Pct)
	}
}

func TestPairedDiffKnownValues(t *testing.T) {
	// Differences 2, 3, 2, 3: mean 2.5, sd sqrt(1/3), t(0.975, 3) = 3.182446.
	d, err := PairedDiff([]float64{10, 12, 11, 13}, []float64{12, 15, 13, 16})
	if err != nil {
		t.Fatal(err)
	}
	half := 3.182446 * math.Sqrt(1.0/3) / 2
	if math.Abs(d.Mean-2.5) > 1e-9 || math.Abs(d.Low-(2.5-half)) > 1e-5 || math.Abs(d.High-(2.5+half)) > 1e-5 || !d.Significant {
		t.Fatalf("got %+v, want 2.5 +- %.5f, significant", d, half)
	}
	if _, err := PairedDiff([]float64{1}, []float64{2}); err == nil {
		t.Fatal("one pair gave an interval")
	}
	if _, err := PairedDiff([]float64{1, 2}, []float64{2}); err == nil {
		t.Fatal("unequal lengths were paired")
	}
}

func TestHalfWidthIsTheWiderSide(t *testing.T) {
	l := Loss{Pct: 10, Low: 7, High: 14}
	if l.HalfWidth() != 4 {
		t.Fatalf("half-width of 7..10..14 is %v, want 4", l.HalfWidth())
	}
}

func TestMedian(t *testing.T) {
	x := []float64{4, 1, 3, 2}
	for _, c := range []struct {
		in   []float64
		want float64
	}{{x, 2}, {[]float64{5, 1, 3}, 3}, {[]float64{7}, 7}, {nil, 0}} {
		if got := Median(c.in); got != c.want {
			t.Errorf("Median(%v) = %v, want %v", c.in, got, c.want)
		}
	}
	if x[0] != 4 || x[1] != 1 {
		t.Fatalf("Median reordered its input: %v", x)
	}
}

// A loss of ±3.2 from 5 blocks was once said to need "about 3" blocks
// for ±3 (a normal quantile against the interval's t): the estimate must
// name more blocks than ran, and agree with t's own scaling.
func TestBlocksForNeverNamesFewerThanRan(t *testing.T) {
	if got := BlocksFor(3.2, 5, 3); got <= 5 {
		t.Fatalf("±3.2 from 5 blocks to ±3 needs %d blocks, want more than 5", got)
	}
	if got := BlocksFor(2.5, 5, 3); got != 5 {
		t.Fatalf("a half-width already within target needs %d blocks, want the 5 run", got)
	}
	got := BlocksFor(6, 5, 3)
	half := 6 * tQuantile(float64(got-1)) / math.Sqrt(float64(got)) / (tQuantile(4) / math.Sqrt(5))
	before := 6 * tQuantile(float64(got-2)) / math.Sqrt(float64(got-1)) / (tQuantile(4) / math.Sqrt(5))
	if half > 3 || before <= 3 {
		t.Fatalf("±6 from 5 blocks: %d blocks give ±%.2f (one fewer ±%.2f), want the fewest within ±3", got, half, before)
	}
}
