// Package cli builds encbench's cobra commands. It never switches on an
// engine or workload name: engines and workloads register themselves.
package cli

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/encbench/encbench/internal/errs"
	"github.com/encbench/encbench/internal/spec"
	"github.com/encbench/encbench/internal/version"

	// Engines and workloads register themselves.
	_ "github.com/encbench/encbench/internal/engine/mongo"
	_ "github.com/encbench/encbench/internal/engine/mysql"
	_ "github.com/encbench/encbench/internal/engine/postgres"
	_ "github.com/encbench/encbench/internal/workload/connect"
	_ "github.com/encbench/encbench/internal/workload/oltp"
	_ "github.com/encbench/encbench/internal/workload/script"
	_ "github.com/encbench/encbench/internal/workload/tpcc"
	_ "github.com/encbench/encbench/internal/workload/ycsb"
)

// Execute runs the command line and returns the process exit code. Errors
// are printed as one line; nothing panics for bad input.
func Execute(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	root := newRoot(stdout, stderr)
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return 0
	}
	// Cobra reports an unknown subcommand as a plain error; it is bad usage.
	if strings.HasPrefix(err.Error(), "unknown command") {
		err = errs.Usage("%w", err)
	}
	fmt.Fprintf(stderr, "encbench: %s\n", oneLine(err))
	return errs.ExitCode(err)
}

// oneLine keeps the first line of an error: a server's start-up log tail
// goes to its log file, not to the user's terminal.
func oneLine(err error) string {
	msg := err.Error()
	if i := strings.IndexByte(msg, '\n'); i >= 0 {
		msg = msg[:i]
	}
	return msg
}

func newRoot(stdout, stderr io.Writer) *cobra.Command {
	root := &cobra.Command{
		Use:   "encbench",
		Short: "Measure what encryption costs a database",
		Long: "encbench runs standard workloads (sysbench OLTP first) against PostgreSQL and\n" +
			"MySQL/MariaDB with each encryption layer off and on, proves from the server's side\n" +
			"which layers were on, and records throughput, latency percentiles and CPU.",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.SetGlobalNormalizationFunc(underscoresToDashes)
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error {
		return errs.Usage("%w (see --help)", err)
	})
	for _, phase := range spec.Commands {
		root.AddCommand(newPhase(phase))
	}
	root.AddCommand(newSandbox(), newSuite(), newReport(), newCompare(), newMerge(), newKeys(), newLayers(), newVersion())
	for _, c := range root.Commands() {
		c.Args = wrapArgs(c.Args)
	}
	return root
}

// underscoresToDashes accepts sysbench's --table_size spelling too.
func underscoresToDashes(fs *pflag.FlagSet, name string) pflag.NormalizedName {
	return spec.NormalizeName(fs, name)
}

func wrapArgs(check cobra.PositionalArgs) cobra.PositionalArgs {
	if check == nil {
		return nil
	}
	return func(cmd *cobra.Command, args []string) error {
		if err := check(cmd, args); err != nil {
			return errs.Usage("%w (see %s --help)", err, cmd.CommandPath())
		}
		return nil
	}
}

func newVersion() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print encbench's version",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			fmt.Fprintf(cmd.OutOrStdout(), "encbench %s\n", version.String())
			return nil
		},
	}
}
