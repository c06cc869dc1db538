package report

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/encbench/encbench/internal/locale"
	"github.com/encbench/encbench/internal/stats"
)

// Change is one cell's difference between two sets of results: B against A.
type Change struct {
	Key
	A, B *Row
	// TPS is B's throughput change in percent (negative: slower), with its
	// interval when both sides have at least two repetitions.
	TPS         float64
	Interval    *stats.Loss
	P95Pct      float64
	Regression  bool
	Improvement bool
}

// Compare matches the cells of a and b by target, workload, threads and
// variant; cells present on one side only are listed in missing.
func Compare(a, b *Data) (changes []Change, missing []string) {
	order := a.Order()
	ca := Aggregate(a.Results, a.Baseline(), &order)
	cb := Aggregate(b.Results, b.Baseline(), &order)
	index := map[Key]*Row{}
	for _, c := range cb {
		index[c.Key] = c
	}
	seen := map[Key]bool{}
	for _, x := range ca {
		y := index[x.Key]
		if y == nil {
			missing = append(missing, fmt.Sprintf("%s %s %s %s: only in A", x.Target, x.Workload, locale.Threads(x.Threads), x.Variant))
			continue
		}
		seen[x.Key] = true
		ch := Change{Key: x.Key, A: x, B: y}
		if x.TPS.Mean > 0 {
			ch.TPS = 100 * (y.TPS.Mean/x.TPS.Mean - 1)
		}
		if x.P95Ms.Mean > 0 {
			ch.P95Pct = 100 * (y.P95Ms.Mean/x.P95Ms.Mean - 1)
		}
		if l, err := stats.LossPct(tpsOf(x), tpsOf(y)); err == nil {
			ch.Interval = &l
			ch.Regression = l.Significant && l.Pct > 0
			ch.Improvement = l.Significant && l.Pct < 0
		}
		changes = append(changes, ch)
	}
	for _, y := range cb {
		if !seen[y.Key] {
			missing = append(missing, fmt.Sprintf("%s %s %s %s: only in B", y.Target, y.Workload, locale.Threads(y.Threads), y.Variant))
		}
	}
	return changes, missing
}

// PrintChanges writes the comparison as an aligned table.
func PrintChanges(w io.Writer, changes []Change, missing []string) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "target\tworkload\tthreads\tvariant\tA TPS (n)\tB TPS (n)\tTPS change % (95% CI)\tp95 change %\tverdict")
	for _, c := range changes {
		ci, verdict := "no interval (n<2)", "-"
		if c.Interval != nil {
			// The interval is of the loss; a change is its negative.
			ci = fmt.Sprintf("%+.1f (%+.1f to %+.1f)", c.TPS, -c.Interval.High, -c.Interval.Low)
			switch {
			case c.Regression:
				verdict = "REGRESSION"
			case c.Improvement:
				verdict = "improvement"
			default:
				verdict = "not significant"
			}
		} else {
			ci = fmt.Sprintf("%+.1f, %s", c.TPS, ci)
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%.1f (%d)\t%.1f (%d)\t%s\t%+.1f\t%s\n", c.Target, c.Workload, c.Threads, c.Variant,
			c.A.TPS.Mean, c.A.TPS.N, c.B.TPS.Mean, c.B.TPS.N, ci, c.P95Pct, verdict)
	}
	for _, m := range missing {
		fmt.Fprintf(tw, "%s\n", m)
	}
	return tw.Flush()
}
