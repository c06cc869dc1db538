package suiterun

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/encbench/encbench/internal/errs"
	"github.com/encbench/encbench/internal/orchestrator"
	"github.com/encbench/encbench/internal/report"
	"github.com/encbench/encbench/internal/result"
	"github.com/encbench/encbench/internal/suite"
)

// cellSlot is how long each cell of a generator suite gets: its warmup and
// time, the generators' start-up lead, and slack for the proofs after it.
func (x *measurer) cellSlot() time.Duration {
	st := x.Plan.Suite
	threads := 1
	for _, c := range x.Plan.Cells {
		threads = max(threads, c.Threads)
	}
	return time.Duration(st.Warmup+st.Time)*time.Second + orchestrator.StartLead(threads) + 5*time.Second
}

// ExecuteAsGenerator runs the suite's fixed plan (its repetitions; no
// extra blocks, no fixed-rate cells: those depend on every generator's
// results) as load generator I of N: cell k starts at StartAt + k slots on
// every generator, and this one writes its share of each cell to
// generators/CELL/generator-I.json. encbench merge --suite-out adds the
// generators' directories up into one suite directory for the report.
func (x *Executor) ExecuteAsGenerator(ctx context.Context, gen, startAt string) error {
	g, err := orchestrator.ParseSchedule(gen, startAt, 0)
	if err != nil {
		return err
	}
	if g == nil || g.StartAt.IsZero() {
		return errs.Usage("suite run --generator needs --start-at: every generator follows the same schedule from it")
	}
	for _, su := range x.Plan.Setups {
		if su.Sandbox {
			return errs.Usage("target %s is a sandbox: generators on other machines need servers given by dsn", su.Target)
		}
	}
	slot := x.meas.cellSlot()
	fmt.Fprintf(x.Stdout, "generator %d of %d: %d cells, one every %v from %s (ends about %s)\n", g.Index, g.Count,
		len(x.Plan.Cells), slot, g.StartAt.UTC().Format(time.RFC3339), g.StartAt.Add(time.Duration(len(x.Plan.Cells))*slot).UTC().Format(time.RFC3339))
	for k, c := range x.Plan.Cells {
		if ctx.Err() != nil {
			return x.interrupted(ctx, ctx.Err())
		}
		at := g.StartAt.Add(time.Duration(k) * slot)
		if lead := time.Until(at) - orchestrator.StartLead(c.Threads); lead > 0 {
			select {
			case <-time.After(lead):
			case <-ctx.Done():
				return x.interrupted(ctx, ctx.Err())
			}
		}
		if err := x.meas.runGeneratorCell(ctx, c, gen, at); err != nil {
			x.led.failed(c, err)
			fmt.Fprintf(x.Stderr, "encbench: cell %s: %s\n", c.ID, firstLine(err))
			continue
		}
		x.led.Finished++
	}
	if x.led.Failed > 0 {
		return fmt.Errorf("%d of %d cells failed (see %s)", x.led.Failed, len(x.Plan.Cells), x.Dir.Logs())
	}
	fmt.Fprintf(x.Stdout, "generator %d of %d: %d cells written to %s\n", g.Index, g.Count, x.led.Finished, filepath.Dir(x.Dir.Generators("")))
	return nil
}

func (x *measurer) runGeneratorCell(ctx context.Context, c suite.Cell, gen string, at time.Time) error {
	log, err := os.Create(x.Dir.Log(c.ID + ".log"))
	if err != nil {
		return fmt.Errorf("creating cell log: %w", err)
	}
	defer log.Close()
	s, err := x.srv.cellSpec(x.srv.setups[c.Setup], c)
	if err != nil {
		return errs.Usage("cell %s: %w", c.ID, err)
	}
	s.Runner.Generator, s.Runner.StartAt = gen, at.UTC().Format(time.RFC3339Nano)
	fmt.Fprintf(log, "$ %s\n\n", s.Display())
	res, err := orchestrator.Run(ctx, s, x.Registry, orchestrator.Output{Stdout: log, Stderr: log, Summary: report.Summary})
	if err != nil {
		fmt.Fprintf(log, "\nencbench: %v\n", err)
		return err
	}
	res.Suite = &result.SuiteRef{Name: x.Plan.Suite.Name, Cell: c.ID, Setup: c.Setup, Target: c.Target}
	res.Workload.Label = c.Label
	path := x.Dir.GeneratorResult(c.ID, res.Generator.Index)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("creating %s: %w", filepath.Dir(path), err)
	}
	return result.WriteFile(path, res)
}

// PrepareOnly loads every target's data (once, before generators run the
// suite against it) and stops.
func (x *Executor) PrepareOnly(ctx context.Context) error {
	need := map[string]bool{}
	for _, su := range x.Plan.Setups {
		need[su.ID] = true
	}
	defer x.srv.stopSandboxes()
	if err := x.srv.startSetups(ctx, need); err != nil {
		return err
	}
	for _, su := range x.Plan.Setups {
		if ls := x.srv.setups[su.ID].host(); ls.err != nil {
			return fmt.Errorf("setup %s: %w", ls.ID, ls.err)
		}
	}
	fmt.Fprintf(x.Stdout, "prepared %d setups of suite %s\n", len(x.Plan.Setups), x.Plan.Suite.Name)
	return nil
}
