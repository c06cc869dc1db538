package orchestrator

import (
	"context"
	"fmt"
	"time"

	"github.com/encbench/encbench/internal/sandbox"
	"github.com/encbench/encbench/internal/suite"
)

// freshInstances restarts every running sandbox server before the first
// block of a repetition higher than any run so far, when the suite asks
// for it: each instance is a new draw of the memory layout that makes
// two instances of one server differ, so that difference varies between
// blocks (noise the intervals show) instead of biasing all of them alike.
// Restarted servers are cold: the next block warms them up first.
func (x *SuiteRun) freshInstances(ctx context.Context, q *quietMachine, block []suite.Cell) error {
	rep, instance := block[0].Repetition, x.Plan.Instance(block[0])
	if x.Plan.Suite.Restart != "repetition" || block[0].LoadPct > 0 || instance <= x.instance {
		return nil
	}
	first := x.instance == 0
	x.instance = instance
	if first {
		return nil // started for this run already
	}
	t0 := time.Now()
	n := 0
	for _, su := range x.Plan.Setups {
		ls := x.setups[su.ID]
		if !ls.Sandbox || ls.owner != nil || ls.err != nil || ls.pid == 0 {
			continue
		}
		info, err := sandbox.Restart(ctx, ls.sandboxDir, sandbox.RestartOptions{})
		if err != nil {
			ls.err = fmt.Errorf("restarting before repetition %d: %w", rep, err)
			return ls.err
		}
		ls.pid = info.PID
		q.restarted(su.ID, info.PID, func(ctx context.Context) error { return sandbox.Quiesce(ctx, info) })
		if x.cold == nil {
			x.cold = map[string]bool{}
		}
		x.cold[su.ID] = true
		n++
	}
	fmt.Fprintf(x.Stdout, "restarted %d servers before repetition %d in %.1f s\n", n, rep, time.Since(t0).Seconds())
	return nil
}
