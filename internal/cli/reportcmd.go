package cli

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/encbench/encbench/internal/report"
)

func newReport() *cobra.Command {
	return &cobra.Command{
		Use:   "report DIR",
		Short: "Write report.html (self-contained, works offline) and report.md for a suite directory or a directory of results",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			paths, err := report.Write(args[0])
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "report: %s\n", strings.Join(paths, "  "))
			return nil
		},
	}
}
