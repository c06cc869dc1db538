package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/encbench/encbench/internal/errs"
	"github.com/encbench/encbench/internal/locale"
	"github.com/encbench/encbench/internal/report"
	"github.com/encbench/encbench/internal/suite"
)

func newReport() *cobra.Command {
	var o report.Options
	cmd := &cobra.Command{
		Use:   "report DIR",
		Short: "Write report.html (self-contained, works offline), report.md and analysis.json for a suite directory or a directory of results (a seeds run's directory: its seeds report and published.json)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkLang(o.Lang); err != nil {
				return err
			}
			write := report.Write
			if _, err := os.Stat(filepath.Join(args[0], suite.SeedsMark)); err == nil {
				// A seeds run's directory: its report judges the
				// published numbers again from the results.
				write = report.WriteSeeds
			}
			paths, err := write(args[0], o)
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "report: %s\n", strings.Join(paths, "  "))
			return nil
		},
	}
	addReportFlags(cmd, &o)
	cmd.Flags().StringVar(&o.WhatIf, "what-if", "", "project each loss to another setting with a closed queueing model calibrated on the measured costs per transaction: client_cpus=N,server_cpus=N (or shared_cpus=N),rtt=DURATION,speed=X,threads=N,N,... (what is not given stays as measured; rtt replaces the added delay; outside the range the model was checked on, the report marks each projection an extrapolation)")
	return cmd
}

// addReportFlags are the report's language and PDF, for report and suite run.
func addReportFlags(cmd *cobra.Command, o *report.Options) {
	cmd.Flags().StringVar(&o.Lang, "lang", locale.Default, "language of the report: "+strings.Join(locale.Codes(), ", ")+" (files other than English are named report.<lang>.*)")
	cmd.Flags().BoolVar(&o.PDF, "pdf", false, "also print the report to PDF with headless Chromium (Debian package chromium; fonts-noto-cjk for zh and ja)")
}

// checkLang refuses an unknown language before any work starts.
func checkLang(code string) error {
	if _, err := locale.Get(code); err != nil {
		return errs.Usage("--lang: %w", err)
	}
	return nil
}
