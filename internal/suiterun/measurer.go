package suiterun

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/encbench/encbench/internal/errs"
	"github.com/encbench/encbench/internal/fsx"
	"github.com/encbench/encbench/internal/merge"
	"github.com/encbench/encbench/internal/orchestrator"
	"github.com/encbench/encbench/internal/report"
	"github.com/encbench/encbench/internal/result"
	"github.com/encbench/encbench/internal/runner"
	"github.com/encbench/encbench/internal/suite"
	"github.com/encbench/encbench/internal/workload"
)

// measurer runs what it is given, block by block (connections, turns,
// results, the quiet machine, restarts, the watchdog); it knows nothing
// of precision or budgets.
type measurer struct {
	Plan     *suite.Plan
	Dir      suite.Dir
	Registry *workload.Registry
	Stdout   io.Writer
	Stderr   io.Writer
	srv      *servers
	led      *ledger
	// noRoom is the first write the file system refused for lack of
	// space (or being read-only): the suite stops there.
	noRoom    error
	cellTimes []time.Duration
	// autoTurns are the turns chosen per group (suites without turn:).
	autoTurns map[suite.Group]*autoTurn
}

// runCells measures cells in order, each on a quiet machine; the blocks
// of an interleaved suite run their cells in turns.
func (x *measurer) runCells(ctx context.Context, q *quietMachine, prog Progress, cells []suite.Cell) {
	for _, block := range suite.Blocks(cells) {
		if ctx.Err() != nil || x.noRoom != nil {
			return
		}
		if err := x.srv.freshInstances(ctx, q, block); err != nil {
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
func (x *measurer) runEach(ctx context.Context, q *quietMachine, prog Progress, cells []suite.Cell) {
	for _, c := range cells {
		if ctx.Err() != nil || x.noRoom != nil {
			return
		}
		t0 := time.Now()
		ls := x.srv.setups[c.Setup]
		prog.CellStart(c)
		if err := ls.host().err; err != nil {
			err = fmt.Errorf("setup %s failed: %w", ls.host().ID, err)
			x.led.failed(c, err)
			prog.CellDone(c, nil, err)
			continue
		}
		res, err := x.measureCell(ctx, q, ls, c, prog.Live)
		if err != nil && fsx.NoRoom(err) {
			// Every later cell would fail the same way.
			x.noRoom = err
		}
		if res != nil && !res.Partial && err == nil {
			x.led.Finished++
		} else if ctx.Err() == nil {
			x.led.failed(c, err)
		}
		x.cellTimes = append(x.cellTimes, time.Since(t0))
		prog.CellDone(c, res, err)
	}
}

// measureCell runs a cell on a quiet machine, and again when other work
// disturbed it beyond the suite's rule.
func (x *measurer) measureCell(ctx context.Context, q *quietMachine, ls *liveSetup, c suite.Cell, live func(float64)) (*result.Result, error) {
	res, reruns, err := x.Plan.Suite.Disturb().RepeatOne(func(discarded []string) (*result.Result, error) {
		wctx, cancel, bound := x.watchdog(ctx, 1)
		defer cancel()
		res, err := x.runCell(wctx, q, ls, c, live, discarded)
		return res, overran(wctx, bound, err)
	})
	x.led.Reruns += reruns
	return res, err
}

// runCell measures one cell and writes its result; an interrupted cell is
// kept as .partial.json and runs again on resume.
func (x *measurer) runCell(ctx context.Context, q *quietMachine, ls *liveSetup, c suite.Cell, live func(float64), discarded []string) (*result.Result, error) {
	log, err := os.Create(x.Dir.Log(c.ID + ".log"))
	if err != nil {
		return nil, fmt.Errorf("creating cell log: %w", err)
	}
	defer log.Close()
	s, err := x.srv.cellSpec(ls, c)
	if err != nil {
		return nil, errs.Usage("cell %s: %w", c.ID, err)
	}
	for _, d := range discarded {
		fmt.Fprintf(log, "an earlier attempt was disturbed: %s\n", d)
	}
	if err := q.before(ctx, ls.host().ID, log); err != nil {
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
