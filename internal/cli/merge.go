package cli

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/encbench/encbench/internal/errs"
	"github.com/encbench/encbench/internal/merge"
	"github.com/encbench/encbench/internal/report"
	"github.com/encbench/encbench/internal/result"
)

func newMerge() *cobra.Command {
	var out, suiteOut string
	cmd := &cobra.Command{
		Use:   "merge FILES|DIR --json OUT | merge DIRS --suite-out OUT",
		Short: "Add up the results of load generators that shared a run (encbench run --generator I/N) into one result",
		Long: "merge adds the generators' latency histograms (percentiles come from the sum, never\n" +
			"averaged), sums transactions, errors, TPS and the interval series on the common\n" +
			"time grid, and keeps each generator's client CPU. It refuses results that did not\n" +
			"prove the same variant against the same server, or are not one whole set 0..N-1.\n" +
			"The merged result is a normal result: report and compare accept it.\n" +
			"With --suite-out, DIRS are the suite directories of generators that ran\n" +
			"encbench suite run --generator I/N; OUT gets one merged result per cell.",
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if suiteOut != "" {
				if out != "" {
					return errs.Usage("give --json (one run's generators) or --suite-out (a suite's), not both")
				}
				n, missing, err := merge.Suite(args, suiteOut)
				if err != nil {
					return err
				}
				for _, m := range missing {
					fmt.Fprintf(cmd.ErrOrStderr(), "encbench: cell not merged: %s\n", m)
				}
				fmt.Fprintf(cmd.OutOrStdout(), "merged %d cells into %s; write its report with encbench report %s\n", n, suiteOut, suiteOut)
				if len(missing) > 0 {
					return fmt.Errorf("%d cells could not be merged", len(missing))
				}
				return nil
			}
			if out == "" {
				return errs.Usage("merge needs --json OUT (the merged result's file) or, for suite directories, --suite-out OUT")
			}
			rs, err := merge.Load(args)
			if err != nil {
				return err
			}
			m, err := merge.Results(rs)
			if err != nil {
				return err
			}
			m.Command = "encbench merge " + strings.Join(args, " ") + " --json " + out
			report.Summary(cmd.OutOrStdout(), m)
			if err := result.WriteFile(out, m); err != nil {
				return err
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "encbench: %d generators merged into %s\n", len(rs), out)
			return nil
		},
	}
	cmd.Flags().StringVar(&out, "json", "", "write the merged result here")
	cmd.Flags().StringVar(&suiteOut, "suite-out", "", "merge generators' suite directories into this new suite directory")
	return cmd
}
