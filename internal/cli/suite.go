package cli

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/encbench/encbench/internal/errs"
	tdelayer "github.com/encbench/encbench/internal/layer/tde"
	tlslayer "github.com/encbench/encbench/internal/layer/tls"
	"github.com/encbench/encbench/internal/report"
	"github.com/encbench/encbench/internal/sandbox"
	"github.com/encbench/encbench/internal/suite"
	"github.com/encbench/encbench/internal/suiterun"
	"github.com/encbench/encbench/internal/variant"
	"github.com/encbench/encbench/internal/workload"
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
	report      report.Options
	seed        uint64
	precision   float64
	budget      string
	offered     []int
	generator   string
	startAt     string
	prepareOnly bool
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
	fs.IntVar(&f.repetitions, "repetitions", -1, "blocks of every cell the plan starts with (with a precision target, the least it runs unless the budget ends first; default: the suite's)")
	fs.IntSliceVar(&f.threads, "threads", nil, "thread counts, for example 1,8,16 (default: the suite's)")
	fs.StringSliceVar(&f.engines, "engines", nil, "run only these targets (engine or target names, for example mariadb)")
	fs.StringVar(&f.clientCPUs, "client-cpus", "", "CPUs for encbench's workers: a list like 0 or 0-1, auto (first half) or none (default: the suite's)")
	fs.StringVar(&f.serverCPUs, "server-cpus", "", "CPUs for sandbox servers: a list, auto (second half) or none (default: the suite's)")
	fs.StringVar(&f.scale, "scale", "", "a named scale of the suite (for example full for tde)")
	fs.BoolVar(&f.noReport, "no-report", false, "do not write report.html, report.md and analysis.json at the end")
	addReportFlags(run, &f.report)
	fs.Float64Var(&f.precision, "precision", -1, "target half-width of every loss interval, in percentage points: blocks continue until each cell reaches it, has its most blocks (the suite's max_repetitions, 30 by default) or the budget ends (0: exactly --repetitions; default: the suite's)")
	fs.StringVar(&f.budget, "budget", "", "wall time the suite may take, set-up included, for example 11m: no block starts that would end past it at the mean cell time so far, and a suite whose smallest plan (2 blocks of every cell) cannot fit is refused before it starts (default: the suite's)")
	fs.IntSliceVar(&f.offered, "offered-load", nil, "after the closed-loop blocks, run every variant at these shares (%) of the baseline's saturation TPS, for example 50,80: latency and CPU at equal load (default: the suite's)")
	fs.StringVar(&f.generator, "generator", "", "I/N: run as load generator I (from 0) of N on other machines (a Kubernetes Indexed Job): the fixed plan, every cell at the same time on each, this one's share written to generators/; merge with encbench merge DIRS --suite-out OUT")
	fs.StringVar(&f.startAt, "start-at", "", "with --generator: when the first cell starts (RFC3339); the others follow on a fixed schedule")
	fs.BoolVar(&f.prepareOnly, "prepare-only", false, "load every target's data and stop (before generators run the suite)")
	fs.Uint64Var(&f.seed, "seed", 0, "seed of the variants' random order within each block (default: drawn, and recorded in plan.json)")
	// These shape the plan, which --resume continues as it was stored;
	// precision and budget may change (a resumed suite may aim elsewhere).
	markPlanFlags(fs, "time", "warmup-time", "repetitions", "threads", "engines", "client-cpus", "server-cpus", "scale", "seed", "offered-load")
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
			fmt.Fprintf(cmd.OutOrStdout(), "%-8s %s, under one budget (default %v), with one report that sets each published report's figures beside encbench's\n",
				suiterun.SeedsName, strings.Join(suite.SeedSuites(), ", "), suiterun.DefaultSeedsBudget)
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
		Threads: f.threads, Engines: f.engines, Scale: f.scale, Seed: f.seed,
		Precision: f.precision, Budget: f.budget, OfferedLoad: f.offered}
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
	if f.resume {
		var refused error
		cmd.Flags().Visit(func(fl *pflag.Flag) {
			if refused == nil && shapesPlan(fl) {
				refused = errs.Usage("--resume continues the stored plan; --%s cannot change it (start a new --out instead)", fl.Name)
			}
		})
		if refused != nil {
			return refused
		}
	}
	abs, err := filepath.Abs(f.out)
	if err != nil {
		return errs.Usage("bad --out %q: %w", f.out, err)
	}
	if err := checkLang(f.report.Lang); err != nil {
		return err
	}
	if f.generator != "" && (f.resume || f.prepareOnly) {
		return errs.Usage("--generator runs a fixed schedule from --start-at: it cannot --resume or --prepare-only")
	}
	if f.generator != "" {
		f.noReport = true // one generator's share is not the suite's result
	}
	out := cmd.OutOrStdout()
	runSuite := suiterun.Run
	if nameOrFile == suiterun.SeedsName {
		if f.generator != "" || f.prepareOnly {
			return errs.Usage("seeds runs four suites on local sandboxes: --generator and --prepare-only do not apply")
		}
		runSuite = suiterun.RunSeeds
	}
	return runSuite(cmd.Context(), suiterun.Options{
		NameOrFile: nameOrFile, Out: f.out, Resume: f.resume, Overrides: f.overrides(cmd), NoReport: f.noReport, Report: f.report,
		Command: commandLine(cmd, nameOrFile, abs), Registry: workload.Default(), Supports: sandboxSupports,
		Stdout: out, Stderr: cmd.ErrOrStderr(),
		NewProgress: func(total, done int) suiterun.Progress { return newProgress(out, total, done) },
		Generator:   f.generator, StartAt: f.startAt, PrepareOnly: f.prepareOnly,
	})
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
	tls, _ := tlslayer.Of(v.Layers)
	tdeCipher, _ := tdelayer.Of(v.Layers)
	err := sandbox.Check(sandbox.Options{Engine: engine, Variant: v.Server(), TLSVersion: tls.Version, TLSCipher: tls.Cipher, TDECipher: tdeCipher, CertAlgorithm: tls.Cert, ClientCert: tls.ClientCert})
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

// planAnnotation marks a suite flag that shapes the plan, at its binding.
const planAnnotation = "encbench-shapes-plan"

func markPlanFlags(fs *pflag.FlagSet, names ...string) {
	for _, n := range names {
		if err := fs.SetAnnotation(n, planAnnotation, []string{"true"}); err != nil {
			panic(fmt.Sprintf("marking --%s: %v", n, err)) // a flag this file binds
		}
	}
}

func shapesPlan(f *pflag.Flag) bool { return len(f.Annotations[planAnnotation]) > 0 }
