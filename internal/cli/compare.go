package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/encbench/encbench/internal/errs"
	"github.com/encbench/encbench/internal/report"
)

func newCompare() *cobra.Command {
	var failPct float64
	cmd := &cobra.Command{
		Use:   "compare A B",
		Short: "Show each cell's change from A to B (result files or suite directories), with 95% intervals",
		Long: "compare matches cells by target, workload, threads and variant and prints B's TPS change\n" +
			"against A with a 95% interval (when both sides have 2+ repetitions). With\n" +
			"--fail-on-regression PCT it exits 1 when a significant TPS drop is larger than PCT percent.",
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			if failPct < 0 {
				return errs.Usage("--fail-on-regression must not be negative")
			}
			a, err := report.Load(args[0])
			if err != nil {
				return err
			}
			b, err := report.Load(args[1])
			if err != nil {
				return err
			}
			for i, d := range []*report.Data{a, b} {
				if w := d.PartialWarning(args[i]); w != "" {
					fmt.Fprintln(cmd.ErrOrStderr(), "encbench: "+w)
				}
			}
			changes, missing := report.Compare(a, b)
			if len(changes) == 0 {
				return errs.Usage("%s and %s have no cell in common (same target, workload, threads and variant)", args[0], args[1])
			}
			if err := report.PrintChanges(cmd.OutOrStdout(), changes, missing); err != nil {
				return err
			}
			if !cmd.Flags().Changed("fail-on-regression") {
				return nil
			}
			worst, n := 0.0, 0
			for _, c := range changes {
				if c.Regression && c.Interval.Pct > failPct {
					n++
					worst = max(worst, c.Interval.Pct)
				}
			}
			if n > 0 {
				return fmt.Errorf("%d cells regressed significantly by more than %.1f%% (worst %.1f%%)", n, failPct, worst)
			}
			return nil
		},
	}
	cmd.Flags().Float64Var(&failPct, "fail-on-regression", 0, "exit 1 when a significant TPS regression exceeds this many percent")
	return cmd
}
