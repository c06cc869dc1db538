package orchestrator

import (
	"context"
	"fmt"
	"time"

	"github.com/encbench/encbench/internal/sandbox"
	"github.com/encbench/encbench/internal/suite"
)

// freshInstances restarts each sandbox server of a block before the
// first block on it of a repetition higher than any it has run, when the
// suite asks for it: each instance is a new draw of the memory layout
// that makes two instances of one server differ, so that difference
// varies between blocks (noise the intervals show) instead of biasing all
// of them alike. Servers the block does not use keep their instance: a
// group that takes many extra blocks in a row restarts only its own. So do
// the servers of a target whose variants all share one server in the
// block: one instance's layout is common to all of them and cancels in
// their ratios, and a restart would only cost a cold warm-up.
// Restarted servers are cold: the next block warms them up first.
func (x *SuiteRun) freshInstances(ctx context.Context, q *quietMachine, block []suite.Cell) error {
	rep, instance := block[0].Repetition, x.Plan.Instance(block[0])
	if x.Plan.Suite.Restart != "repetition" || block[0].LoadPct > 0 {
		return nil
	}
	if x.instance == nil {
		x.instance = map[string]int{}
	}
	servers := map[string]map[string]bool{} // per target
	for _, c := range block {
		if servers[c.Target] == nil {
			servers[c.Target] = map[string]bool{}
		}
		servers[c.Target][x.setups[c.Setup].server().ID] = true
	}
	t0 := time.Now()
	n := 0
	for _, c := range block {
		ls := x.setups[c.Setup].server()
		if !ls.Sandbox || ls.err != nil || ls.pid == 0 || instance <= x.instance[ls.ID] || len(servers[c.Target]) < 2 {
			continue
		}
		first := x.instance[ls.ID] == 0
		x.instance[ls.ID] = instance
		if first {
			continue // started for this run already
		}
		info, err := sandbox.Restart(ctx, ls.sandboxDir, sandbox.RestartOptions{})
		if err != nil {
			ls.err = fmt.Errorf("restarting before repetition %d: %w", rep, err)
			return ls.err
		}
		ls.pid = info.PID
		q.restarted(ls.ID, info.PID, func(ctx context.Context) error { return sandbox.Quiesce(ctx, info) })
		if x.cold == nil {
			x.cold = map[string]bool{}
		}
		x.cold[ls.ID] = true
		n++
	}
	if n > 0 {
		fmt.Fprintf(x.Stdout, "restarted %d servers before repetition %d in %.1f s\n", n, rep, time.Since(t0).Seconds())
	}
	return nil
}
