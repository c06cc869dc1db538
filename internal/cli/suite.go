package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/encbench/encbench/internal/errs"
	"github.com/encbench/encbench/internal/orchestrator"
	"github.com/encbench/encbench/internal/report"
	"github.com/encbench/encbench/internal/sandbox"
	"github.com/encbench/encbench/internal/suite"
	"github.com/encbench/encbench/internal/variant"
	"github.com/encbench/encbench/internal/workload"
)

// Files a suite directory holds besides its cells.
const (
	suiteFile     = orchestrator.SuiteFile
	overridesFile = orchestrator.OverridesFile
	planFile      = orchestrator.PlanFile
	cellsDir      = orchestrator.CellsDir
	logsDir       = orchestrator.LogsDir
)

type suiteFlags struct {
	out         string
	resume      bool
	time        int
	warmup      int
	repetitions int
	threads     []int
	engines     []string
	clientCPUs  string
	serverCPUs  string
	scale       string
	noReport    bool
}

func newSuite() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "suite",
		Short: "Run a matrix of engines, encryption variants, workloads and threads, repeated and interleaved",
	}
	f := &suiteFlags{}
	run := &cobra.Command{
		Use:   "run NAME|FILE --out DIR",
		Short: "Run a built-in suite or a suite file; results go to DIR, one JSON per cell, then the report",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return f.run(cmd, args[0])
		},
	}
	fs := run.Flags()
	fs.StringVar(&f.out, "out", "", "directory for results, logs and the report (new, or an interrupted suite's with --resume)")
	fs.BoolVar(&f.resume, "resume", false, "continue the interrupted suite in --out, skipping finished cells")
	fs.IntVar(&f.time, "time", -1, "seconds per cell (default: the suite's)")
	fs.IntVar(&f.warmup, "warmup-time", -1, "warmup seconds per cell (default: the suite's)")
	fs.IntVar(&f.repetitions, "repetitions", -1, "repetitions of every cell (default: the suite's)")
	fs.IntSliceVar(&f.threads, "threads", nil, "thread counts, for example 1,8,16 (default: the suite's)")
	fs.StringSliceVar(&f.engines, "engines", nil, "run only these targets (engine or target names, for example mariadb)")
	fs.StringVar(&f.clientCPUs, "client-cpus", "", "CPUs for encbench's workers: a list like 0 or 0-1, auto (first half) or none (default: the suite's)")
	fs.StringVar(&f.serverCPUs, "server-cpus", "", "CPUs for sandbox servers: a list, auto (second half) or none (default: the suite's)")
	fs.StringVar(&f.scale, "scale", "", "a named scale of the suite (for example full for tde)")
	fs.BoolVar(&f.noReport, "no-report", false, "do not write report.html and report.md at the end")
	list := &cobra.Command{
		Use:   "list",
		Short: "List the built-in suites",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			all, err := suite.Builtin()
			if err != nil {
				return err
			}
			for _, s := range all {
				fmt.Fprintf(cmd.OutOrStdout(), "%-8s %s\n", s.Name, strings.Join(strings.Fields(s.Description), " "))
			}
			return nil
		},
	}
	show := &cobra.Command{
		Use:   "show NAME",
		Short: "Print a built-in suite's file, to copy and edit",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			_, text, err := suite.Load(args[0])
			if err != nil {
				return err
			}
			_, err = cmd.OutOrStdout().Write(text)
			return err
		},
	}
	cmd.AddCommand(run, list, show)
	return cmd
}

func (f *suiteFlags) overrides(cmd *cobra.Command) suite.Overrides {
	o := suite.Overrides{Time: f.time, Warmup: f.warmup, Repetitions: f.repetitions,
		Threads: f.threads, Engines: f.engines, Scale: f.scale}
	if cmd.Flags().Changed("client-cpus") {
		o.ClientCPUs = &f.clientCPUs
	}
	if cmd.Flags().Changed("server-cpus") {
		o.ServerCPUs = &f.serverCPUs
	}
	return o
}

func (f *suiteFlags) run(cmd *cobra.Command, nameOrFile string) error {
	if f.out == "" {
		return errs.Usage("no output directory: pass --out DIR")
	}
	dir, err := filepath.Abs(f.out)
	if err != nil {
		return errs.Usage("bad --out %q: %v", f.out, err)
	}
	text, o, err := f.loadOrStore(cmd, dir, nameOrFile)
	if err != nil {
		return err
	}
	s, err := suite.Parse(text)
	if err != nil {
		return errs.Usage("%s: %v", nameOrFile, err)
	}
	plan, err := suite.Expand(*s, o, sandboxSupports)
	if err != nil {
		return errs.Usage("%v", err)
	}
	out := cmd.OutOrStdout()
	x := &orchestrator.SuiteRun{Plan: plan, Dir: dir, Stdout: out, Stderr: cmd.ErrOrStderr(),
		Command: commandLine(cmd, nameOrFile, dir), Registry: workload.Default(),
		NewProgress: func(total, done int) orchestrator.Progress { return newProgress(out, total, done) }}
	if f.resume {
		// The report shows how the suite was started, not how it resumed.
		if old, err := os.ReadFile(filepath.Join(dir, planFile)); err == nil {
			var rec suite.Record
			if json.Unmarshal(old, &rec) == nil && rec.Command != "" {
				x.Command = rec.Command
			}
		}
	}
	if err := x.Check(); err != nil {
		return err
	}
	if err := orchestrator.WriteJSON(filepath.Join(dir, planFile), x.Record()); err != nil {
		return err
	}
	runErr := x.Execute(cmd.Context())
	if !f.noReport && x.Finished > 0 && cmd.Context().Err() == nil {
		paths, err := report.Write(dir)
		if err != nil {
			return fmt.Errorf("writing the report: %w", err)
		}
		fmt.Fprintf(out, "\nreport: %s\n", strings.Join(paths, "  "))
	}
	return runErr
}

// loadOrStore returns the suite text and overrides: from the command line
// for a new suite (and stores them in dir), from dir when resuming.
func (f *suiteFlags) loadOrStore(cmd *cobra.Command, dir, nameOrFile string) ([]byte, suite.Overrides, error) {
	if f.resume {
		for _, name := range []string{"time", "warmup-time", "repetitions", "threads", "engines", "client-cpus", "server-cpus", "scale"} {
			if cmd.Flags().Changed(name) {
				return nil, suite.Overrides{}, errs.Usage("--resume continues the stored plan; --%s cannot change it (start a new --out instead)", name)
			}
		}
		text, err := os.ReadFile(filepath.Join(dir, suiteFile))
		if err != nil {
			return nil, suite.Overrides{}, errs.Usage("nothing to resume in %s (no %s): run without --resume", dir, suiteFile)
		}
		var o suite.Overrides
		data, err := os.ReadFile(filepath.Join(dir, overridesFile))
		if err == nil {
			err = json.Unmarshal(data, &o)
		}
		if err != nil {
			return nil, suite.Overrides{}, fmt.Errorf("reading %s: %w", filepath.Join(dir, overridesFile), err)
		}
		if s, err := suite.Parse(text); err == nil && s.Name != nameOrFile && filepath.Base(nameOrFile) != s.Name+".yaml" {
			fmt.Fprintf(cmd.ErrOrStderr(), "encbench: resuming suite %s stored in %s (the stored plan wins over %s)\n", s.Name, dir, nameOrFile)
		}
		return text, o, nil
	}
	_, text, err := suite.Load(nameOrFile)
	if err != nil {
		return nil, suite.Overrides{}, err
	}
	if entries, err := os.ReadDir(dir); err == nil && len(entries) > 0 {
		if _, err := os.Stat(filepath.Join(dir, suiteFile)); err == nil {
			return nil, suite.Overrides{}, errs.Usage("%s holds a suite already: add --resume to continue it, or give a new --out", dir)
		}
		return nil, suite.Overrides{}, errs.Usage("%s is not empty: give a new or empty --out directory", dir)
	}
	o := f.overrides(cmd)
	// Expand once here so a bad override fails before anything is written.
	s, err := suite.Parse(text)
	if err != nil {
		return nil, o, errs.Usage("%s: %v", nameOrFile, err)
	}
	if _, err := suite.Expand(*s, o, nil); err != nil {
		return nil, o, errs.Usage("%v", err)
	}
	for _, d := range []string{dir, filepath.Join(dir, cellsDir), filepath.Join(dir, logsDir)} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return nil, o, fmt.Errorf("creating %s: %w", d, err)
		}
	}
	// Sandbox servers run as their own users and must reach their dirs.
	if err := os.Chmod(dir, 0o755); err != nil {
		return nil, o, fmt.Errorf("setting mode of %s: %w", dir, err)
	}
	if err := os.WriteFile(filepath.Join(dir, suiteFile), text, 0o600); err != nil {
		return nil, o, fmt.Errorf("storing the suite: %w", err)
	}
	if err := orchestrator.WriteJSON(filepath.Join(dir, overridesFile), o); err != nil {
		return nil, o, err
	}
	return text, o, nil
}

// commandLine is the suite command as a user would type it again.
func commandLine(cmd *cobra.Command, nameOrFile, dir string) string {
	parts := []string{cmd.CommandPath(), nameOrFile, "--out", dir}
	cmd.Flags().Visit(func(f *pflag.Flag) {
		if f.Name == "out" || f.Name == "resume" {
			return
		}
		v := f.Value.String()
		if sv, ok := f.Value.(pflag.SliceValue); ok {
			v = strings.Join(sv.GetSlice(), ",")
		}
		parts = append(parts, "--"+f.Name, v)
	})
	return strings.Join(parts, " ")
}

func sandboxSupports(engine string, v variant.Variant) error {
	err := sandbox.Check(sandbox.Options{Engine: engine, Variant: v.Server(), TLSVersion: v.TLSVersion})
	if err != nil {
		msg, _, _ := strings.Cut(err.Error(), ":")
		return errors.New(msg)
	}
	return nil
}

func elapsedString(d time.Duration) string {
	d = d.Round(time.Second)
	return fmt.Sprintf("%02d:%02d:%02d", int(d.Hours()), int(d.Minutes())%60, int(d.Seconds())%60)
}
