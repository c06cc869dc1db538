package suiterun

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/encbench/encbench/internal/errs"
	"github.com/encbench/encbench/internal/fsx"
	"github.com/encbench/encbench/internal/report"
	"github.com/encbench/encbench/internal/suite"
)

// SeedsName runs the four seed suites as one: encbench suite run seeds.
const SeedsName = "seeds"

// DefaultSeedsBudget is the wall time the four seed suites share.
const DefaultSeedsBudget = 2 * time.Hour

// seedsClose is the time the last suite leaves for the run's close (its
// servers stopping, its report and the seeds report).
const seedsClose = time.Minute

// RunSeeds runs the suites that reproduce the published reports, each in
// a directory of its own under o.Out, under one budget: each suite gets
// the share of what is left that its own budget is of the budgets still to
// run, so a suite that finishes early leaves its time to the next. Then it
// writes one report with a section per published report.
func RunSeeds(ctx context.Context, o Options) error {
	dir, err := filepath.Abs(o.Out)
	if err != nil {
		return errs.Usage("bad --out %q: %w", o.Out, err)
	}
	budget := DefaultSeedsBudget
	if o.Overrides.Budget != "" {
		if budget, err = time.ParseDuration(o.Overrides.Budget); err != nil || budget <= 0 {
			return errs.Usage("--budget %q: give a duration such as 2h", o.Overrides.Budget)
		}
	}
	if err := claimSeedsDir(dir, o.Resume); err != nil {
		return err
	}
	own := make([]time.Duration, len(suite.SeedSuites()))
	for i, name := range suite.SeedSuites() {
		s, _, err := suite.Load(name)
		if err != nil {
			return err
		}
		own[i] = s.BudgetDuration()
	}
	start := time.Now()
	var failed []string
	for i, name := range suite.SeedSuites() {
		left := budget - time.Since(start)
		share := seedShare(left, own[i:])
		if i == len(own)-1 {
			// The last suite leaves the close its time: its last block,
			// stopping the sandboxes and the reports overran by 20 s.
			share = max(0, share-seedsClose)
		}
		if share < time.Minute {
			failed = append(failed, fmt.Sprintf("%s: no budget left", name))
			continue
		}
		if !hasTargets(name, o.Overrides.Engines) {
			fmt.Fprintf(o.Stdout, "\n== seed suite %s: no target among --engines %s, skipped\n", name, strings.Join(o.Overrides.Engines, ","))
			continue
		}
		fmt.Fprintf(o.Stdout, "\n== seed suite %s (%d of %d), budget %v of the %v left\n", name, i+1, len(suite.SeedSuites()), share, left.Round(time.Second))
		so := o
		so.NameOrFile, so.Out = name, filepath.Join(dir, name)
		so.Overrides.Budget = share.String()
		so.Overrides.Scale = scaleOf(name, o.Overrides.Scale)
		_, statErr := os.Stat(suite.Dir(so.Out).SuiteFile())
		so.Resume = o.Resume && statErr == nil
		so.Command = o.Command + " # seed suite " + name
		err := Run(ctx, so)
		if ctx.Err() != nil {
			return fmt.Errorf("interrupted in seed suite %s; continue with `encbench suite run seeds --out %s --resume`", name, dir)
		}
		if err != nil {
			why, _, _ := strings.Cut(firstLine(err), "; rerun with --resume")
			fmt.Fprintf(o.Stderr, "encbench: seed suite %s: %s\n", name, why)
			failed = append(failed, fmt.Sprintf("%s (%s)", name, why))
		}
	}
	if !o.NoReport {
		paths, err := report.WriteSeeds(dir, o.Report)
		if err != nil {
			return fmt.Errorf("writing the seeds report: %w", err)
		}
		fmt.Fprintf(o.Stdout, "\nseeds report: %s (took %v of the %v budget)\n", strings.Join(paths, "  "), time.Since(start).Round(time.Second), budget)
	}
	if len(failed) > 0 {
		return fmt.Errorf("seed suites that did not finish: %s; continue with `encbench suite run seeds --out %s --resume`", strings.Join(failed, "; "), dir)
	}
	return nil
}

// seedShare is the next suite's part of the time left: what its own
// budget (own[0]) is of the budgets of the suites still to run.
func seedShare(left time.Duration, own []time.Duration) time.Duration {
	var rest time.Duration
	for _, b := range own {
		rest += b
	}
	if rest <= 0 || left <= 0 {
		return 0
	}
	return time.Duration(float64(left) * float64(own[0]) / float64(rest)).Round(time.Second)
}

// scaleOf passes a --scale on only to the suites that have it.
func scaleOf(name, scale string) string {
	s, _, err := suite.Load(name)
	if err != nil || scale == "" {
		return ""
	}
	if _, ok := s.Scales[scale]; ok {
		return scale
	}
	return ""
}

// claimSeedsDir creates a seeds run's directory, or checks that the one
// to resume is one.
func claimSeedsDir(dir string, resume bool) error {
	_, err := os.Stat(filepath.Join(dir, suite.SeedsMark))
	switch {
	case resume && err != nil:
		return errs.Usage("nothing to resume in %s (no %s): run without --resume", dir, suite.SeedsMark)
	case resume:
		return nil
	case err == nil:
		return errs.Usage("%s holds a seeds run already: add --resume to continue it, or give a new --out", dir)
	}
	if entries, err := os.ReadDir(dir); err == nil && len(entries) > 0 {
		return errs.Usage("%s is not empty: give a new or empty --out directory", dir)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("creating %s: %w", dir, err)
	}
	// Sandbox servers run as their own users and must reach their dirs.
	if err := os.Chmod(dir, 0o755); err != nil {
		return fmt.Errorf("setting mode of %s: %w", dir, err)
	}
	text := "encbench seeds run: " + strings.Join(suite.SeedSuites(), ", ") + ", each in its own directory\n"
	return fsx.WriteFile(filepath.Join(dir, suite.SeedsMark), []byte(text), 0o644)
}

// hasTargets says whether --engines (none: all) leaves the suite a target.
func hasTargets(name string, engines []string) bool {
	s, _, err := suite.Load(name)
	if err != nil || len(engines) == 0 {
		return err == nil
	}
	return slices.ContainsFunc(s.Targets, func(t suite.Target) bool { return t.Matches(engines) })
}
