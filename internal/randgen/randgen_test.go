package randgen

import (
	"math"
	"testing"
)

func draw(t *testing.T, typ string, n int, a, b uint32) []uint32 {
	t.Helper()
	o := Defaults()
	o.Type, o.Seed = typ, 99
	if err := o.Validate(); err != nil {
		t.Fatal(err)
	}
	s := New(o, 3)
	out := make([]uint32, n)
	for i := range out {
		out[i] = s.Default(a, b)
		if out[i] < a || out[i] > b {
			t.Fatalf("%s drew %d outside [%d, %d]", typ, out[i], a, b)
		}
	}
	return out
}

func mean(v []uint32) float64 {
	s := 0.0
	for _, x := range v {
		s += float64(x)
	}
	return s / float64(len(v))
}

func TestUniformCoversRangeEvenly(t *testing.T) {
	v := draw(t, "uniform", 200000, 1, 10)
	counts := make([]int, 11)
	for _, x := range v {
		counts[x]++
	}
	for k := 1; k <= 10; k++ {
		if math.Abs(float64(counts[k])-20000) > 1000 {
			t.Errorf("value %d drawn %d times, want about 20000", k, counts[k])
		}
	}
}

func TestGaussianConcentratesInTheMiddle(t *testing.T) {
	v := draw(t, "gaussian", 100000, 1, 10000)
	if m := mean(v); math.Abs(m-5000) > 100 {
		t.Errorf("mean %.0f, want about 5000", m)
	}
	middle := 0
	for _, x := range v {
		if x > 4000 && x <= 6000 {
			middle++
		}
	}
	// 12 averaged uniforms have sd 0.083 of the range: 20% of the range holds ~77%.
	if frac := float64(middle) / float64(len(v)); frac < 0.7 {
		t.Errorf("only %.2f of draws in the middle 20%%", frac)
	}
}

// Special sends rand-spec-res (75%) of draws to rand-spec-pct (1%) of the
// range around its centre, as sysbench 1.0's default distribution.
func TestSpecialHitsHotSpot(t *testing.T) {
	v := draw(t, "special", 100000, 1, 100000)
	hot := 0
	for _, x := range v {
		if x >= 49500 && x <= 50501 {
			hot++
		}
	}
	if frac := float64(hot) / float64(len(v)); frac < 0.74 || frac > 0.8 {
		t.Errorf("%.3f of draws in the hot 1%%, want about 0.75 plus the gaussian share", frac)
	}
}

func TestParetoSkewsToLowValues(t *testing.T) {
	v := draw(t, "pareto", 100000, 1, 10000)
	low := 0
	for _, x := range v {
		if x <= 2000 {
			low++
		}
	}
	// h=0.2: 80% of draws fall in the lowest 20% of the range.
	if frac := float64(low) / float64(len(v)); math.Abs(frac-0.8) > 0.02 {
		t.Errorf("%.3f of draws in the lowest 20%%, want 0.80", frac)
	}
}

func TestZipfianFollowsPowerLaw(t *testing.T) {
	v := draw(t, "zipfian", 200000, 1, 1000)
	counts := map[uint32]int{}
	for _, x := range v {
		counts[x]++
	}
	// P(k) ~ 1/k^0.8, so count(1)/count(2) ~ 2^0.8 = 1.74.
	ratio := float64(counts[1]) / float64(counts[2])
	if math.Abs(ratio-math.Pow(2, 0.8)) > 0.15 {
		t.Errorf("count(1)/count(2) = %.2f, want about %.2f", ratio, math.Pow(2, 0.8))
	}
	if counts[1] <= counts[10] || counts[10] <= counts[500] {
		t.Error("zipfian counts do not fall with rank")
	}
}

func TestSeedRepeatsSequence(t *testing.T) {
	a, b := draw(t, "special", 1000, 1, 1<<20), draw(t, "special", 1000, 1, 1<<20)
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("same seed gave different draws at %d", i)
		}
	}
}

func TestFillTemplate(t *testing.T) {
	s := New(Defaults(), 1)
	out := string(s.FillTemplate(nil, "##-@@-x"))
	if len(out) != 7 || out[2] != '-' || out[5] != '-' || out[6] != 'x' {
		t.Fatalf("unexpected %q", out)
	}
	for _, i := range []int{0, 1} {
		if out[i] < '0' || out[i] > '9' {
			t.Errorf("position %d = %q, want a digit", i, out[i])
		}
	}
	for _, i := range []int{3, 4} {
		if out[i] < 'a' || out[i] > 'z' {
			t.Errorf("position %d = %q, want a letter", i, out[i])
		}
	}
}

func TestValidateRejects(t *testing.T) {
	for _, mutate := range []func(*Options){
		func(o *Options) { o.Type = "lognormal" },
		func(o *Options) { o.SpecIter = 0 },
		func(o *Options) { o.SpecRes = 100 },
		func(o *Options) { o.ParetoH = 1 },
		func(o *Options) { o.ZipfianExp = -1 },
	} {
		o := Defaults()
		mutate(&o)
		if o.Validate() == nil {
			t.Errorf("Validate accepted %+v", o)
		}
	}
}
