package suiterun

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/encbench/encbench/internal/errs"
	"github.com/encbench/encbench/internal/fsx"
	"github.com/encbench/encbench/internal/merge"
	"github.com/encbench/encbench/internal/orchestrator"
	"github.com/encbench/encbench/internal/report"
	"github.com/encbench/encbench/internal/result"
	"github.com/encbench/encbench/internal/runner"
	"github.com/encbench/encbench/internal/sandbox"
	"github.com/encbench/encbench/internal/spec"
	"github.com/encbench/encbench/internal/suite"
)

// Execute runs every cell not finished yet, then, with a precision
// target, more blocks of the groups that have not reached it, phase by
// phase.
func (x *Executor) Execute(ctx context.Context) error {
	start := time.Now()
	pending := x.pending()
	total := len(x.Plan.Cells)
	for _, sk := range x.Plan.Skipped {
		fmt.Fprintf(x.Stderr, "encbench: skipped %s\n", sk)
	}
	pl := newPlanner(x.Plan, pending)
	more := pl.wantsMore(x.measured(start))
	if len(pending) == 0 && len(more) == 0 {
		fmt.Fprintf(x.Stdout, "all %d cells of suite %s are finished in %s\n", total, x.Plan.Suite.Name, x.Dir)
		return nil
	}
	if x.Finished > 0 {
		fmt.Fprintf(x.Stdout, "resuming suite %s: %d of %d cells finished, %d to run\n", x.Plan.Suite.Name, x.Finished, total, len(pending))
	}
	defer x.stopSandboxes()
	if err := x.startSetups(ctx, x.needed(pending, more)); err != nil {
		return x.interrupted(ctx, err)
	}
	q := x.quietMachine()
	defer q.thawAll()
	if x.Plan.Suite.Precision > 0 {
		if err := x.checkNoise(ctx, q); err != nil {
			return x.interrupted(ctx, err)
		}
	}
	prog := x.NewProgress(total, x.Finished)
	defer prog.Close()
	boundProgress(prog, x.Plan.Suite, total, start)
	// The planner decides, the measurer runs; the plan is stored once per
	// step that grew it, before its cells run.
	for ctx.Err() == nil && x.noRoom == nil {
		st := pl.next(x.measured(start))
		x.BudgetSpent = pl.spent
		if st.done {
			break
		}
		if st.grown {
			prog.Grow(len(st.cells))
			if err := x.Dir.WriteRecord(x.Record()); err != nil {
				fmt.Fprintf(x.Stderr, "encbench: %v\n", err)
			}
		}
		x.runCells(ctx, q, prog, st.cells)
	}
	prog.Close()
	if ctx.Err() != nil {
		return x.interrupted(ctx, ctx.Err())
	}
	if err := x.outcome(); err != nil {
		return err
	}
	if x.Plan.Suite.Cleanup {
		return x.cleanupData(ctx)
	}
	return nil
}

// pending are the cells without a complete result, widened to whole
// blocks; the others count as finished.
func (x *Executor) pending() []suite.Cell {
	var pending []suite.Cell
	for _, c := range x.Plan.Cells {
		if !x.done(c) {
			pending = append(pending, c)
		}
	}
	pending = x.wholeBlocks(pending)
	x.Finished = len(x.Plan.Cells) - len(pending)
	return pending
}

// needed are the setups the pending cells and the wanted blocks run on.
func (x *Executor) needed(pending []suite.Cell, more []want) map[string]bool {
	need := map[string]bool{}
	for _, c := range pending {
		need[c.Setup] = true
	}
	for _, su := range x.Plan.Setups {
		for _, g := range more {
			need[su.ID] = need[su.ID] || su.Target == g.group.Target
		}
	}
	return need
}

// boundProgress tells the progress how far a precision target may grow
// the suite, and its deadline.
func boundProgress(prog Progress, su suite.Suite, total int, start time.Time) {
	if su.Precision <= 0 {
		return
	}
	least, most := su.Blocks()
	var deadline time.Time
	if b := su.BudgetDuration(); b > 0 {
		deadline = start.Add(b)
	}
	prog.Bound(total*most/max(least, 1), deadline)
}

// quietMachine knows every server of the suite by its owning setup.
func (x *Executor) quietMachine() *quietMachine {
	q := newQuietMachine()
	for _, su := range x.Plan.Setups {
		ls := x.setups[su.ID]
		if ls.owner != nil {
			continue // the quiet machine knows servers by their owners
		}
		var quiesce func(context.Context) error
		if info, err := sandbox.Load(ls.sandboxDir); ls.Sandbox && err == nil {
			quiesce = func(ctx context.Context) error { return sandbox.Quiesce(ctx, info) }
		}
		q.add(su.ID, ls.pid, ls.Sandbox, quiesce)
	}
	return q
}

// outcome is how the suite ended: a full disk, failed cells, or nil.
func (x *Executor) outcome() error {
	if x.noRoom != nil {
		return fmt.Errorf("%s: %d of %d cells finished, none written in part; make room there (or make it writable), then continue with `encbench suite run %s --out %s --resume`",
			firstLine(x.noRoom), x.Finished, len(x.Plan.Cells), x.Plan.Suite.Name, x.Dir)
	}
	if x.Failed > 0 {
		return fmt.Errorf("%d of %d cells failed (see %s); rerun with --resume to retry them", x.Failed, len(x.Plan.Cells), x.Dir.Logs())
	}
	return nil
}

// runCells measures cells in order, each on a quiet machine; the blocks
// of an interleaved suite run their cells in turns.
func (x *Executor) runCells(ctx context.Context, q *quietMachine, prog Progress, cells []suite.Cell) {
	for _, block := range suite.Blocks(cells) {
		if ctx.Err() != nil || x.noRoom != nil {
			return
		}
		if err := x.freshInstances(ctx, q, block); err != nil {
			fmt.Fprintf(x.Stderr, "encbench: %s\n", firstLine(err))
		}
		if x.interleaves(block) {
			x.runBlock(ctx, q, prog, block)
			continue
		}
		x.runEach(ctx, q, prog, block)
	}
}

// runEach measures cells one after the other.
func (x *Executor) runEach(ctx context.Context, q *quietMachine, prog Progress, cells []suite.Cell) {
	for _, c := range cells {
		if ctx.Err() != nil || x.noRoom != nil {
			return
		}
		t0 := time.Now()
		ls := x.setups[c.Setup]
		prog.CellStart(c)
		if err := ls.server().err; err != nil {
			err = fmt.Errorf("setup %s failed: %w", ls.server().ID, err)
			x.failed(c, err)
			prog.CellDone(c, nil, err)
			continue
		}
		res, err := x.measureCell(ctx, q, ls, c, prog.Live)
		if err != nil && fsx.NoRoom(err) {
			// Every later cell would fail the same way.
			x.noRoom = err
		}
		if res != nil && !res.Partial && err == nil {
			x.Finished++
		} else if ctx.Err() == nil {
			x.failed(c, err)
		}
		x.cellTimes = append(x.cellTimes, time.Since(t0))
		prog.CellDone(c, res, err)
	}
}

// measureCell runs a cell on a quiet machine, and again when other work
// disturbed it beyond the suite's rule.
func (x *Executor) measureCell(ctx context.Context, q *quietMachine, ls *liveSetup, c suite.Cell, live func(float64)) (*result.Result, error) {
	res, reruns, err := x.Plan.Suite.Disturb().RepeatOne(func(discarded []string) (*result.Result, error) {
		wctx, cancel, bound := x.watchdog(ctx, 1)
		defer cancel()
		res, err := x.runCell(wctx, q, ls, c, live, discarded)
		return res, overran(wctx, bound, err)
	})
	x.Reruns += reruns
	return res, err
}

// wholeBlocks widens the pending cells of an interleaved suite to whole
// blocks (a suite that runs cell by cell resumes cell by cell).
func (x *Executor) wholeBlocks(pending []suite.Cell) []suite.Cell {
	if !x.Plan.Suite.Interleaved() {
		return pending
	}
	return x.Plan.WholeBlocks(pending)
}

func (x *Executor) interrupted(ctx context.Context, err error) error {
	if ctx.Err() == nil {
		return err
	}
	return fmt.Errorf("interrupted: %d of %d cells finished; continue with `encbench suite run %s --out %s --resume`",
		x.Finished, len(x.Plan.Cells), x.Plan.Suite.Name, x.Dir)
}

// startSetups brings up every needed sandbox first, then prepares each
// data set once: all variants stay up so cells can interleave.
func (x *Executor) startSetups(ctx context.Context, need map[string]bool) error {
	// A server is needed when any setup on it is.
	for _, su := range x.Plan.Setups {
		need[su.ServerID()] = need[su.ServerID()] || need[su.ID]
	}
	for _, su := range x.Plan.Setups {
		ls := x.setups[su.ID]
		if !need[su.ID] || !ls.Sandbox || ls.owner != nil {
			continue
		}
		fmt.Fprintf(x.Stdout, "starting sandbox %s\n", su.ID)
		if err := x.startSandbox(ctx, ls); err != nil {
			if ctx.Err() != nil {
				return err
			}
			ls.err = err
			fmt.Fprintf(x.Stderr, "encbench: sandbox %s: %s\n", su.ID, firstLine(err))
		}
	}
	for _, su := range x.Plan.Setups {
		ls := x.setups[su.ID]
		if !need[su.ID] || ls.err != nil || ls.owner != nil {
			continue // setups sharing a server use its owner's data
		}
		if err := x.prepare(ctx, ls); err != nil {
			if ctx.Err() != nil {
				return err
			}
			ls.err = err
			fmt.Fprintf(x.Stderr, "encbench: preparing %s: %s\n", su.ID, firstLine(err))
		}
	}
	return nil
}

func (x *Executor) startSandbox(ctx context.Context, ls *liveSetup) error {
	// A resumed suite starts from a fresh server: the old one was stopped.
	if info, err := sandbox.Load(ls.sandboxDir); err == nil {
		_ = sandbox.Down(info.Dir)
	}
	// A server whose state file is gone (its directory overwritten) still
	// runs from it: the directory is not reused while it does.
	procs, err := sandbox.StopServersUnder(ls.sandboxDir)
	for _, p := range procs {
		fmt.Fprintf(x.Stderr, "encbench: stopped server pid %d, still running from %s: %s\n", p.PID, ls.sandboxDir, p.Command)
	}
	if err != nil {
		return fmt.Errorf("clearing %s: %w", ls.sandboxDir, err)
	}
	if err := os.RemoveAll(ls.sandboxDir); err != nil {
		return fmt.Errorf("clearing %s: %w", ls.sandboxDir, err)
	}
	if err := os.MkdirAll(filepath.Dir(ls.sandboxDir), 0o755); err != nil {
		return fmt.Errorf("creating %s: %w", filepath.Dir(ls.sandboxDir), err)
	}
	o := x.sandboxOptions(ls)
	o.Owner = sandbox.Self()
	info, err := sandbox.Up(ctx, o)
	if err == nil {
		ls.pid = info.PID
	}
	return err
}

func (x *Executor) stopSandboxes() {
	for _, su := range x.Plan.Setups {
		ls := x.setups[su.ID]
		if !ls.Sandbox || ls.owner != nil {
			continue
		}
		if _, err := sandbox.Load(ls.sandboxDir); err != nil {
			continue
		}
		if err := sandbox.Down(ls.sandboxDir); err != nil {
			fmt.Fprintf(x.Stderr, "encbench: stopping sandbox %s: %s\n", su.ID, firstLine(err))
			continue
		}
		// Keep the server's log with the results; the data can go.
		_ = os.Rename(filepath.Join(ls.sandboxDir, "log"), x.Dir.Log(su.ID+"-server"))
		_ = os.RemoveAll(ls.sandboxDir)
	}
}

// prepare loads each workload family's data set once per setup.
func (x *Executor) prepare(ctx context.Context, ls *liveSetup) error {
	log, err := os.Create(x.Dir.Log(ls.ID + "-prepare.log"))
	if err != nil {
		return fmt.Errorf("creating prepare log: %w", err)
	}
	defer log.Close()
	var prepared []string
	said := false
	for _, w := range x.Plan.Suite.Workloads {
		if !w.RunsOn(ls.target) || !w.RunsIn(ls.Variant) {
			continue
		}
		fam, err := x.Registry.Lookup(w.Name)
		if err != nil {
			return err
		}
		if slices.Contains(prepared, fam.Name()) {
			continue
		}
		prepared = append(prepared, fam.Name())
		s, err := x.prepareSpec(ls, w.Name)
		if err != nil {
			return errs.Usage("preparing %s: %w", w.Name, err)
		}
		if !ls.Sandbox {
			if x.reuseData(ls, fam.Name()) {
				continue
			}
			// Only encbench's own data set is replaced (cleanup drops
			// what encbench created; prepare then refuses anything else).
			if x.replace[ls.ID+"/"+fam.Name()] {
				c := s
				c.Command = spec.Cleanup
				fmt.Fprintf(log, "$ %s\n", c.Display())
				if err := orchestrator.Cleanup(ctx, c, x.Registry, log); err != nil {
					return fmt.Errorf("replacing the %s data set: %w", fam.Name(), err)
				}
			}
		}
		if !said {
			fmt.Fprintf(x.Stdout, "preparing %s (%s)\n", ls.ID, strings.Join(suite.Args(x.Plan.Suite.DataOptions()), " "))
			said = true
		}
		fmt.Fprintf(log, "$ %s\n", s.Display())
		if err := orchestrator.Prepare(ctx, s, x.Registry, log); err != nil {
			return fmt.Errorf("prepare %s: %w", w.Name, err)
		}
	}
	return nil
}

// runCell measures one cell and writes its result; an interrupted cell is
// kept as .partial.json and runs again on resume.
func (x *Executor) runCell(ctx context.Context, q *quietMachine, ls *liveSetup, c suite.Cell, live func(float64), discarded []string) (*result.Result, error) {
	log, err := os.Create(x.Dir.Log(c.ID + ".log"))
	if err != nil {
		return nil, fmt.Errorf("creating cell log: %w", err)
	}
	defer log.Close()
	s, err := x.cellSpec(ls, c)
	if err != nil {
		return nil, errs.Usage("cell %s: %w", c.ID, err)
	}
	for _, d := range discarded {
		fmt.Fprintf(log, "an earlier attempt was disturbed: %s\n", d)
	}
	if err := q.before(ctx, ls.server().ID, log); err != nil {
		return nil, err
	}
	var res *result.Result
	if n := ls.target.Generators; n > 1 {
		var paths []string
		if paths, err = orchestrator.RunGenerators(ctx, s, n, func(i int) string { return x.Dir.GeneratorResult(c.ID, i) }, log); err == nil {
			res, err = merge.Files(paths)
		}
	} else {
		fmt.Fprintf(log, "$ %s\n\n", s.Display())
		res, err = orchestrator.Run(ctx, s, x.Registry, orchestrator.Output{Stdout: log, Stderr: log, Summary: report.Summary, OnInterval: func(iv runner.Interval) { live(iv.TPS) }})
	}
	if err != nil {
		fmt.Fprintf(log, "\nencbench: %v\n", err)
	}
	if res == nil {
		return nil, err
	}
	res.Suite = &result.SuiteRef{Name: x.Plan.Suite.Name, Cell: c.ID, Setup: c.Setup, Target: c.Target, Discarded: discarded}
	res.Workload.Label = c.Label
	res.Partial = res.Partial || err != nil
	if werr := x.writeCell(c, res); werr != nil {
		return nil, errors.Join(err, werr)
	}
	return res, err
}

// measured is what the planner reads: the time since the suite started,
// a cell's mean time so far, and the results.
func (x *Executor) measured(start time.Time) measured {
	return measured{elapsed: time.Since(start), perCell: meanCellTime(x.cellTimes, x.Plan.Suite), resultOf: x.resultOf}
}
