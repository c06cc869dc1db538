package suiterun

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/encbench/encbench/internal/errs"
	"github.com/encbench/encbench/internal/fsx"
	"github.com/encbench/encbench/internal/report"
	"github.com/encbench/encbench/internal/sandbox"
	"github.com/encbench/encbench/internal/suite"
	"github.com/encbench/encbench/internal/workload"
)

// Options are what `encbench suite run` was given.
type Options struct {
	NameOrFile string
	// Out is the suite directory: new, or an interrupted suite's with Resume.
	Out       string
	Resume    bool
	Overrides suite.Overrides
	NoReport  bool
	// Report chooses the report's language and PDF.
	Report report.Options
	// Command is the command line as the user typed it (plan.json, report).
	Command     string
	Registry    *workload.Registry
	Supports    suite.Supports
	Stdout      io.Writer
	Stderr      io.Writer
	NewProgress func(total, done int) Progress
	// Generator and StartAt run the suite as load generator I of N on
	// other machines (a Kubernetes Indexed Job): every cell on a fixed
	// schedule from StartAt, each generator's share of it.
	Generator, StartAt string
	// PrepareOnly loads every target's data and stops.
	PrepareOnly bool
}

// Run runs a suite into its directory (or resumes it there), then
// writes the report.
func Run(ctx context.Context, o Options) error {
	abs, err := filepath.Abs(o.Out)
	if err != nil {
		return errs.Usage("bad --out %q: %w", o.Out, err)
	}
	dir := suite.Dir(abs)
	text, ov, err := openSuiteDir(dir, o)
	if err != nil {
		return err
	}
	s, err := suite.Parse(text)
	if err != nil {
		return errs.Usage("%s: %w", o.NameOrFile, err)
	}
	scripts, err := resolveScripts(s, dir, o.NameOrFile, o.Resume)
	if err != nil {
		return err
	}
	if err := s.MarkReadOnly(Catalogue(o.Registry)); err != nil {
		return errs.Usage("%s: %w", o.NameOrFile, err)
	}
	plan, err := suite.Expand(*s, ov, o.Supports)
	if err != nil {
		return errs.Usage("%w", err)
	}
	x := &Executor{Plan: plan, Dir: dir, Stdout: o.Stdout, Stderr: o.Stderr, Command: o.Command,
		Registry: o.Registry, NewProgress: o.NewProgress}
	if o.Resume {
		// The report shows how the suite was started, not how it resumed.
		if rec, _, err := dir.ReadRecord(); err == nil {
			if rec.Command != "" {
				x.Command = rec.Command
			}
			if rec.Plan != nil {
				plan.Keep(rec.Cells)
			}
		}
	}
	if err := x.Check(); err != nil {
		return err
	}
	if err := x.Preflight(ctx); err != nil {
		return err
	}
	// Only a suite that passed every check claims the directory, so a
	// fixed file runs there again without --resume.
	if !o.Resume {
		if err := claimDir(dir, text, ov); err != nil {
			return err
		}
		if err := scripts.keep(dir, plan); err != nil {
			return err
		}
	}
	pruneOrphans(o.Stderr)
	if err := dir.WriteRecord(x.Record()); err != nil {
		return err
	}
	if o.PrepareOnly {
		return x.PrepareOnly(ctx)
	}
	if o.Generator != "" {
		return x.ExecuteAsGenerator(ctx, o.Generator, o.StartAt)
	}
	runErr := x.Execute(ctx)
	// The record now says which variants failed, and why, for the report.
	if err := dir.WriteRecord(x.Record()); err != nil && runErr == nil {
		runErr = err
	}
	if !o.NoReport && x.led.Finished > 0 && ctx.Err() == nil {
		paths, err := report.Write(string(dir), o.Report)
		if err != nil {
			return fmt.Errorf("writing the report: %w", err)
		}
		fmt.Fprintf(o.Stdout, "\nreport: %s\n", strings.Join(paths, "  "))
	}
	return runErr
}

// openSuiteDir returns the suite text and overrides: given, for a new
// suite (nothing is written yet: claimDir does that once the suite has
// passed its checks), or stored in dir, when resuming.
func openSuiteDir(dir suite.Dir, o Options) ([]byte, suite.Overrides, error) {
	if o.Resume {
		return storedSuite(dir, o)
	}
	_, text, err := suite.Load(o.NameOrFile)
	if err != nil {
		return nil, suite.Overrides{}, err
	}
	if entries, err := os.ReadDir(string(dir)); err == nil && len(entries) > 0 {
		if _, err := os.Stat(dir.SuiteFile()); err == nil {
			return nil, suite.Overrides{}, errs.Usage("%s holds a suite already: add --resume to continue it, or give a new --out", dir)
		}
		return nil, suite.Overrides{}, errs.Usage("%s is not empty: give a new or empty --out directory", dir)
	}
	if o.Overrides.Seed == 0 {
		// The variants' order within blocks is drawn from a seed the
		// directory keeps, so --resume continues the same order.
		o.Overrides.Seed = rand.Uint64() | 1
		if at, err := time.Parse(time.RFC3339Nano, o.StartAt); err == nil && o.Generator != "" {
			// Generators on other machines must draw the same order.
			o.Overrides.Seed = uint64(at.Unix()) | 1
		}
	}
	return text, o.Overrides, nil
}

// storedSuite is the suite and overrides a resumed suite began with. The
// suite file given again must be the one stored: a changed file is
// refused, naming what changed, rather than silently ignored.
func storedSuite(dir suite.Dir, o Options) ([]byte, suite.Overrides, error) {
	text, err := os.ReadFile(dir.SuiteFile())
	if err != nil {
		return nil, suite.Overrides{}, errs.Usage("nothing to resume in %s (no %s): run without --resume", dir, filepath.Base(dir.SuiteFile()))
	}
	ov := suite.NoOverrides()
	data, err := os.ReadFile(dir.OverridesFile())
	if err == nil {
		err = json.Unmarshal(data, &ov)
	}
	if err != nil {
		return nil, suite.Overrides{}, fmt.Errorf("reading %s: %w", dir.OverridesFile(), err)
	}
	// A resumed suite may aim at another precision or get more time.
	if o.Overrides.Precision >= 0 {
		ov.Precision = o.Overrides.Precision
	}
	if o.Overrides.Budget != "" {
		ov.Budget = o.Overrides.Budget
	}
	stored, err := suite.Parse(text)
	if err != nil {
		return nil, suite.Overrides{}, errs.Usage("the suite stored in %s no longer parses (%v): start a new --out", dir, err)
	}
	given, givenText, err := suite.Load(o.NameOrFile)
	switch {
	case err != nil || given.Name != stored.Name:
		fmt.Fprintf(o.Stderr, "encbench: resuming suite %s stored in %s (the stored plan wins over %s)\n", stored.Name, dir, o.NameOrFile)
	case !bytes.Equal(bytes.TrimSpace(givenText), bytes.TrimSpace(text)):
		return nil, suite.Overrides{}, errs.Usage("%s changed since the suite began in %s (%s): resume with the file as it was (a copy is %s), or start a new --out",
			o.NameOrFile, dir, lineChanges(text, givenText), dir.SuiteFile())
	}
	return text, ov, nil
}

// lineChanges names the first lines that differ between two versions of
// a file, as "line N: was ..., now ...".
func lineChanges(was, now []byte) string {
	a, b := strings.Split(string(was), "\n"), strings.Split(string(now), "\n")
	var out []string
	for i := range max(len(a), len(b)) {
		var x, y string
		if i < len(a) {
			x = strings.TrimSpace(a[i])
		}
		if i < len(b) {
			y = strings.TrimSpace(b[i])
		}
		if x == y {
			continue
		}
		if len(out) == 3 {
			out = append(out, "...")
			break
		}
		out = append(out, fmt.Sprintf("line %d: was %q, now %q", i+1, x, y))
	}
	return strings.Join(out, "; ")
}

// claimDir creates the suite's directory and stores the suite and its
// overrides there, for --resume and the report.
func claimDir(dir suite.Dir, text []byte, ov suite.Overrides) error {
	if err := dir.Create(); err != nil {
		return err
	}
	if err := fsx.WriteFile(dir.SuiteFile(), text, 0o600); err != nil {
		return fmt.Errorf("storing the suite: %w", err)
	}
	return suite.WriteJSON(dir.OverridesFile(), ov)
}

// pruneOrphans stops the sandboxes an encbench that was killed (SIGKILL,
// a crash) left running: they hold ports and memory and would disturb the
// measurements. Sandboxes started by hand are not touched.
func pruneOrphans(w io.Writer) {
	stopped, err := sandbox.Prune()
	for _, s := range stopped {
		switch {
		case s.Deleted:
			fmt.Fprintf(w, "encbench: stopped the %s server (pid %d) of %s, whose directory was deleted while it ran\n", s.Info.Engine, s.Info.PID, s.Info.Dir)
		case s.Orphan && s.Server != "stopped":
			fmt.Fprintf(w, "encbench: stopped the %s sandbox in %s, left running by encbench pid %d, which is gone\n", s.Info.Engine, s.Info.Dir, s.Info.Owner.PID)
		}
	}
	if err != nil {
		fmt.Fprintf(w, "encbench: %v (see encbench sandbox ls)\n", err)
	}
}
