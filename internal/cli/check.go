package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/encbench/encbench/internal/errs"
	"github.com/encbench/encbench/internal/workload"
)

func newCheck() *cobra.Command {
	b := &benchFlags{}
	cmd := &cobra.Command{
		Use:   "check " + workloadArgs,
		Short: "Verify the workload's consistency conditions on the server's data (TPC-C 3.3.2.1-3.3.2.4)",
		Args:  cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			t, wl, err := b.resolve(args, cmd.ErrOrStderr())
			if err != nil {
				return err
			}
			ch, ok := wl.(workload.Checker)
			if !ok {
				return errs.Usage("workload %s has no consistency conditions to check (tpcc has)", wl.Name())
			}
			results, err := ch.Check(cmd.Context(), b.env(t, false, cmd.OutOrStdout()))
			if err != nil {
				return fmt.Errorf("check failed: %w", err)
			}
			failed := 0
			for _, r := range results {
				verdict := "ok"
				if !r.OK {
					verdict, failed = "FAILED", failed+1
				}
				fmt.Fprintf(cmd.OutOrStdout(), "%-8s %-6s %s: %s\n", r.ID, verdict, r.Condition, r.Detail)
			}
			if failed > 0 {
				return fmt.Errorf("%d of %d consistency conditions failed", failed, len(results))
			}
			return nil
		},
	}
	b.bind(cmd.Flags())
	cmd.Long = workloadHelp(b)
	return cmd
}
