// Package stats summarises repeated measurements: mean, standard deviation
// and 95% confidence interval of a cell, and the loss of a variant against
// its baseline with its own interval. The maths is gonum's.
package stats

import (
	"errors"
	"math"
	"slices"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"
)

// Confidence is the two-sided level of every interval here.
const Confidence = 0.95

// Summary describes the repetitions of one cell.
type Summary struct {
	N    int     `json:"n"`
	Mean float64 `json:"mean"`
	SD   float64 `json:"sd"`
	Low  float64 `json:"ci95_low"`
	High float64 `json:"ci95_high"`
}

// ErrTooFew is returned when an interval needs more repetitions.
var ErrTooFew = errors.New("at least 2 repetitions are needed for a confidence interval")

// Summarize returns mean, sample standard deviation and the Student-t
// confidence interval of the mean. With one sample the interval is the
// point itself and ErrTooFew says it is not an interval.
func Summarize(x []float64) (Summary, error) {
	s := Summary{N: len(x)}
	if len(x) == 0 {
		return s, ErrTooFew
	}
	s.Mean = stat.Mean(x, nil)
	if len(x) < 2 {
		s.Low, s.High = s.Mean, s.Mean
		return s, ErrTooFew
	}
	s.SD = stat.StdDev(x, nil)
	half := tQuantile(float64(len(x)-1)) * s.SD / math.Sqrt(float64(len(x)))
	s.Low, s.High = s.Mean-half, s.Mean+half
	return s, nil
}

// Median is the median of x's empirical distribution (of an even number,
// the lower middle value; 0 for none); x is left as it was.
func Median(x []float64) float64 {
	if len(x) == 0 {
		return 0
	}
	sorted := slices.Clone(x)
	slices.Sort(sorted)
	return stat.Quantile(0.5, stat.Empirical, sorted, nil)
}

func tQuantile(df float64) float64 { return tQuantileAt(df, Confidence) }

func tQuantileAt(df, level float64) float64 {
	return distuv.StudentsT{Mu: 0, Sigma: 1, Nu: df}.Quantile(1 - (1-level)/2)
}

// Loss is the relative cost of a variant against its baseline, in percent:
// (baseline - variant) / baseline, for throughput-like measures.
type Loss struct {
	Pct  float64 `json:"pct"`
	Low  float64 `json:"ci95_low"`
	High float64 `json:"ci95_high"`
	// Significant is false when the interval includes 0: the data cannot
	// tell a loss from noise.
	Significant bool `json:"significant"`
	// Paired says the interval came from within-block ratios.
	Paired bool `json:"paired,omitempty"`
}

// HalfWidth is the interval's wider side from the estimate, in
// percentage points: the precision the interval gives.
func (l Loss) HalfWidth() float64 { return max(l.Pct-l.Low, l.High-l.Pct) }

// Diff is a variant's change of a measure against its baseline, in the
// measure's units, with its 95% interval.
type Diff struct {
	Mean        float64 `json:"mean"`
	Low         float64 `json:"ci95_low"`
	High        float64 `json:"ci95_high"`
	Significant bool    `json:"significant"`
}

// PairedDiff is the mean within-block difference variant - baseline with
// a Student-t interval (n-1 degrees of freedom): for costs such as CPU per
// transaction, where the difference itself is what a layer adds.
func PairedDiff(baseline, variant []float64) (Diff, error) {
	m, half, err := pairedMean(baseline, variant, Confidence, func(b, v float64) (float64, error) { return v - b, nil })
	if err != nil {
		return Diff{}, err
	}
	out := Diff{Mean: m, Low: m - half, High: m + half}
	out.Significant = out.Low > 0 || out.High < 0
	return out, nil
}

// pairedMean is the mean of f over the pairs (baseline[i], variant[i])
// and the half-width of its Student-t interval (n-1 degrees of freedom)
// at level.
func pairedMean(baseline, variant []float64, level float64, f func(b, v float64) (float64, error)) (mean, half float64, err error) {
	if len(baseline) != len(variant) {
		return 0, 0, errors.New("paired samples of different lengths")
	}
	if len(baseline) < 2 {
		return 0, 0, ErrTooFew
	}
	d := make([]float64, len(baseline))
	for i := range baseline {
		if d[i], err = f(baseline[i], variant[i]); err != nil {
			return 0, 0, err
		}
	}
	m, sd := stat.MeanStdDev(d, nil)
	return m, tQuantileAt(float64(len(d)-1), level) * sd / math.Sqrt(float64(len(d))), nil
}

// DiffOfMeans is variant's mean minus baseline's with a Welch interval,
// for measurements that do not pair up.
func DiffOfMeans(baseline, variant []float64) (Diff, error) {
	if len(baseline) < 2 || len(variant) < 2 {
		return Diff{}, ErrTooFew
	}
	vb, vv := stat.Variance(baseline, nil), stat.Variance(variant, nil)
	nb, nv := float64(len(baseline)), float64(len(variant))
	m := stat.Mean(variant, nil) - stat.Mean(baseline, nil)
	half := tQuantile(welchDF(vb/nb, vv/nv, nb, nv)) * math.Sqrt(vb/nb+vv/nv)
	d := Diff{Mean: m, Low: m - half, High: m + half}
	d.Significant = d.Low > 0 || d.High < 0
	return d, nil
}

// LossPct compares variant against baseline. The interval comes from the
// delta method on the ratio of the two means, with Welch-Satterthwaite
// degrees of freedom, so unequal variances and sample sizes are allowed.
func LossPct(baseline, variant []float64) (Loss, error) {
	if len(baseline) < 2 || len(variant) < 2 {
		return Loss{}, ErrTooFew
	}
	mb, mv := stat.Mean(baseline, nil), stat.Mean(variant, nil)
	if mb == 0 {
		return Loss{}, errors.New("baseline mean is zero")
	}
	vb, vv := stat.Variance(baseline, nil), stat.Variance(variant, nil)
	nb, nv := float64(len(baseline)), float64(len(variant))
	ratio := mv / mb
	// Relative variances of the two means.
	rb, rv := vb/(nb*mb*mb), 0.0
	if mv != 0 {
		rv = vv / (nv * mv * mv)
	} else {
		rv = vv / (nv * mb * mb)
	}
	se := math.Abs(ratio) * math.Sqrt(rb+rv)
	df := welchDF(vb/nb, vv/nv, nb, nv)
	half := tQuantile(df) * se
	l := Loss{Pct: 100 * (1 - ratio), Low: 100 * (1 - ratio - half), High: 100 * (1 - ratio + half)}
	l.Significant = l.Low > 0 || l.High < 0
	return l, nil
}

// welchDF is the Welch-Satterthwaite approximation for two samples whose
// squared standard errors are a and b.
func welchDF(a, b, na, nb float64) float64 {
	if a+b == 0 {
		return na + nb - 2
	}
	return (a + b) * (a + b) / (a*a/(na-1) + b*b/(nb-1))
}

// PairedLossPct compares variant against baseline measured in blocks: the
// i-th values of the two slices ran in the same block (one repetition of
// every variant, adjacent in time), so drift between blocks cancels in
// their ratio. The loss is 1 - exp(mean of the log ratios), with a
// Student-t interval on that mean (n-1 degrees of freedom) carried through
// exp, so the interval is asymmetric around the loss, as a ratio's is.
func PairedLossPct(baseline, variant []float64) (Loss, error) {
	return PairedLossPctAt(baseline, variant, Confidence)
}

// PairedLossPctAt is PairedLossPct with an interval at level instead of
// Confidence: for intervals that must hold together, such as n A/A checks
// at 1 - 0.05/n each (Bonferroni).
func PairedLossPctAt(baseline, variant []float64, level float64) (Loss, error) {
	if level <= 0 || level >= 1 {
		return Loss{}, errors.New("confidence level outside (0, 1)")
	}
	m, half, err := pairedMean(baseline, variant, level, func(b, v float64) (float64, error) {
		if b <= 0 || v <= 0 {
			return 0, errors.New("paired loss needs positive values")
		}
		return math.Log(v / b), nil
	})
	if err != nil {
		return Loss{}, err
	}
	l := Loss{Pct: 100 * (1 - math.Exp(m)), Low: 100 * (1 - math.Exp(m+half)), High: 100 * (1 - math.Exp(m-half)), Paired: true}
	l.Significant = l.Low > 0 || l.High < 0
	return l, nil
}

// BlocksFor is about how many blocks a Student-t interval of half-width
// half from n blocks needs to narrow to target at the same spread: the
// half-width scales as t(n-1)/sqrt(n). It is always more than n when half
// is wider than target, and n when it is not.
func BlocksFor(half float64, n int, target float64) int {
	if n < 2 || target <= 0 || half <= target {
		return n
	}
	scale := half / (tQuantile(float64(n-1)) / math.Sqrt(float64(n)))
	const most = 100000
	for m := n + 1; m < most; m++ {
		if scale*tQuantile(float64(m-1))/math.Sqrt(float64(m)) <= target {
			return m
		}
	}
	return most
}
