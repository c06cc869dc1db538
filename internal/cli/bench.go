package cli

import (
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/encbench/encbench/internal/orchestrator"
	"github.com/encbench/encbench/internal/report"
	"github.com/encbench/encbench/internal/spec"
	"github.com/encbench/encbench/internal/workload"
)

var phaseShort = map[spec.Command]string{
	spec.Prepare: "Create and load the workload's tables (in parallel over --threads)",
	spec.Run:     "Run the workload and report throughput, latency and CPU",
	spec.Cleanup: "Drop the workload's tables (only those encbench created)",
	spec.Check:   "Verify the workload's consistency conditions on the server's data (tpcc: TPC-C's twelve, 3.3.2.1-3.3.2.12)",
}

// newPhase is prepare, run, cleanup or check. Each workload has flags of
// its own, so the phase parses its arguments itself once it knows the
// workload (spec.Parse) instead of letting cobra parse every flag.
func newPhase(cmd spec.Command) *cobra.Command {
	reg := workload.Default()
	return &cobra.Command{
		Use:                string(cmd) + " WORKLOAD [flags]",
		Short:              phaseShort[cmd],
		Long:               phaseShort[cmd] + ".\n\n" + spec.Help(cmd, "", reg),
		DisableFlagParsing: true,
		RunE: func(c *cobra.Command, args []string) error {
			s, err := spec.Parse(cmd, args, reg)
			if errors.Is(err, spec.ErrHelp) {
				fmt.Fprint(c.OutOrStdout(), spec.Help(cmd, s.Workload, reg))
				return nil
			}
			if err != nil {
				return err
			}
			out, errOut, ctx := c.OutOrStdout(), c.ErrOrStderr(), c.Context()
			if len(s.Ignored) > 0 {
				fmt.Fprintf(errOut, "encbench: %s ignores %s: options of run\n", cmd, strings.Join(s.Ignored, ", "))
			}
			switch cmd {
			case spec.Prepare:
				return orchestrator.Prepare(ctx, s, reg, out)
			case spec.Cleanup:
				return orchestrator.Cleanup(ctx, s, reg, out)
			case spec.Check:
				results, err := orchestrator.Check(ctx, s, reg, out)
				return printChecks(c, results, err)
			}
			_, err = orchestrator.Run(ctx, s, reg, orchestrator.Output{Stdout: out, Stderr: errOut, Summary: report.Summary})
			return err
		},
	}
}

func printChecks(c *cobra.Command, results []workload.CheckResult, err error) error {
	if err != nil {
		return err
	}
	failed := 0
	for _, r := range results {
		verdict := "ok"
		switch {
		case !r.OK:
			verdict, failed = "FAILED", failed+1
		case r.NotApplicable:
			verdict = "n/a"
		}
		fmt.Fprintf(c.OutOrStdout(), "%-8s %-6s %s: %s\n", r.ID, verdict, r.Condition, r.Detail)
	}
	if failed > 0 {
		return fmt.Errorf("%d of %d consistency conditions failed", failed, len(results))
	}
	return nil
}
