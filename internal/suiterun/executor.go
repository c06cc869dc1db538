package suiterun

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/encbench/encbench/internal/result"
	"github.com/encbench/encbench/internal/spec"
	"github.com/encbench/encbench/internal/suite"
	"github.com/encbench/encbench/internal/workload"
)

// Progress shows a suite's advance; the CLI draws it.
type Progress interface {
	CellStart(c suite.Cell)
	Live(tps float64)
	CellDone(c suite.Cell, res *result.Result, err error)
	// Grow adds cells that a precision target asked for.
	Grow(n int)
	// Bound says how far a precision target may grow the suite (to at
	// most mostCells cells), the budget's deadline (zero: none) and the
	// most cells of a block, the most a suite may run past its deadline.
	Bound(mostCells, blockCells int, deadline time.Time)
	Close()
}

// Executor executes a suite plan: it checks the plan, asks the planner
// what to run next, has the measurer run it on the servers, and keeps the
// record (plan.json) of what ran.
type Executor struct {
	Plan *suite.Plan
	Dir  suite.Dir
	// Command is how the suite was started, for plan.json and the report.
	Command  string
	Registry *workload.Registry
	Stdout   io.Writer
	Stderr   io.Writer
	// NewProgress draws the cells' advance (total, finished so far).
	NewProgress func(total, done int) Progress
	// BudgetSpent says the budget stopped blocks a precision target wanted.
	BudgetSpent bool
	// noise is the machine's own steadiness, checked before measuring.
	noise *suite.MachineNoise

	srv  *servers
	led  *ledger
	meas *measurer
}

// parts makes the executor's ledger, servers and measurer (Check calls
// it first).
func (x *Executor) parts() {
	x.led = &ledger{Dir: x.Dir}
	x.srv = &servers{Plan: x.Plan, Dir: x.Dir, Registry: x.Registry, Stdout: x.Stdout, Stderr: x.Stderr, led: x.led}
	x.meas = &measurer{Plan: x.Plan, Dir: x.Dir, Registry: x.Registry, Stdout: x.Stdout, Stderr: x.Stderr, srv: x.srv, led: x.led}
}

// Record is plan.json: the plan, how it was started and how to reproduce
// each setup by hand.
func (x *Executor) Record() suite.Record {
	d := suite.Record{Plan: x.Plan, Command: x.Command,
		CreatedAt: time.Now().UTC().Format(time.RFC3339), ClientCPUs: x.srv.clientCPUs, ServerCPUs: x.srv.serverCPUs,
		Reproduce: map[string]string{}, BudgetSpent: x.BudgetSpent, Noise: x.noise, Failed: x.led.failures, ReusedData: x.srv.reusedData()}
	for _, su := range x.Plan.Setups {
		ls := x.srv.setups[su.ID]
		var lines []string
		if ls.Sandbox {
			lines = append(lines, x.srv.sandboxLine(ls))
		}
		first := x.Plan.Suite.Workloads[0]
		for _, w := range x.Plan.Suite.Workloads {
			if w.RunsOn(ls.target) && w.RunsIn(ls.Variant) {
				first = w
				break
			}
		}
		if ls.owner != nil && ls.owner != ls {
			// The owner's server and data serve this setup too.
			lines = append(lines, "# the data set is "+ls.owner.ID+"'s, prepared once")
		} else if ps, err := x.srv.prepareSpec(ls, first.Name); err == nil {
			lines = append(lines, ps.Display())
		}
		c := suite.Cell{Variant: ls.Variant, Workload: first.Name, Options: first.OptionStrings(), Threads: x.Plan.Suite.Threads[0], Repetition: 1}
		if rs, err := x.srv.cellSpec(ls, c); err == nil {
			lines = append(lines, rs.Display())
		}
		if ls.Sandbox {
			lines = append(lines, "encbench sandbox down --dir "+spec.ShellWord(ls.sandboxDir))
		}
		d.Reproduce[su.ID] = strings.Join(lines, "\n")
	}
	return d
}

// firstLine is an error's first line, for a one-line message.
func firstLine(err error) string {
	msg, _, _ := strings.Cut(err.Error(), "\n")
	return msg
}

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
	if x.led.Finished > 0 {
		fmt.Fprintf(x.Stdout, "resuming suite %s: %d of %d cells finished, %d to run\n", x.Plan.Suite.Name, x.led.Finished, total, len(pending))
	}
	defer x.srv.stopSandboxes()
	if err := x.srv.startSetups(ctx, x.needed(pending, more)); err != nil {
		return x.interrupted(ctx, err)
	}
	q := x.srv.quietMachine()
	defer q.thawAll()
	if x.Plan.Suite.Precision > 0 {
		if err := x.checkNoise(ctx, q); err != nil {
			return x.interrupted(ctx, err)
		}
	}
	prog := x.NewProgress(total, x.led.Finished)
	defer prog.Close()
	boundProgress(prog, x.Plan, total, start)
	// The planner decides, the measurer runs; the plan is stored once per
	// step that grew it, before its cells run.
	for ctx.Err() == nil && x.meas.noRoom == nil {
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
		x.meas.runCells(ctx, q, prog, st.cells)
	}
	prog.Close()
	if ctx.Err() != nil {
		return x.interrupted(ctx, ctx.Err())
	}
	if err := x.outcome(); err != nil {
		return err
	}
	if x.Plan.Suite.Cleanup {
		return x.srv.cleanupData(ctx)
	}
	return nil
}

// pending are the cells without a complete result, widened to whole
// blocks; the others count as finished.
func (x *Executor) pending() []suite.Cell {
	var pending []suite.Cell
	for _, c := range x.Plan.Cells {
		if !x.led.done(c) {
			pending = append(pending, c)
		}
	}
	pending = x.wholeBlocks(pending)
	x.led.Finished = len(x.Plan.Cells) - len(pending)
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

// outcome is how the suite ended: a full disk, failed cells, or nil.
func (x *Executor) outcome() error {
	if x.meas.noRoom != nil {
		return fmt.Errorf("%s: %d of %d cells finished, none written in part; make room there (or make it writable), then continue with `encbench suite run %s --out %s --resume`",
			firstLine(x.meas.noRoom), x.led.Finished, len(x.Plan.Cells), x.Plan.Suite.Name, x.Dir)
	}
	if x.led.Failed > 0 {
		return fmt.Errorf("%d of %d cells failed (see %s); rerun with --resume to retry them", x.led.Failed, len(x.Plan.Cells), x.Dir.Logs())
	}
	return nil
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
		x.led.Finished, len(x.Plan.Cells), x.Plan.Suite.Name, x.Dir)
}

// measured is what the planner reads: the time since the suite started,
// a cell's mean time so far, and the results.
func (x *Executor) measured(start time.Time) measured {
	return measured{elapsed: time.Since(start), perCell: meanCellTime(x.meas.cellTimes, x.Plan.Suite), resultOf: x.led.resultOf}
}

// boundProgress tells the progress how far a precision target may grow
// the suite, the budget's deadline and the largest block.
func boundProgress(prog Progress, plan *suite.Plan, total int, start time.Time) {
	su := plan.Suite
	least, most := su.BlockBounds()
	var deadline time.Time
	if b := su.BudgetDuration(); b > 0 {
		deadline = start.Add(b)
	}
	block := 0
	for _, b := range suite.Blocks(plan.Cells) {
		block = max(block, len(b))
	}
	prog.Bound(total*most/max(least, 1), block, deadline)
}
