package suiterun

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
func (x *servers) freshInstances(ctx context.Context, q *quietMachine, block []suite.Cell) error {
	if x.Plan.Suite.Restart != "repetition" || block[0].LoadPct > 0 {
		return nil
	}
	if x.instance == nil {
		x.instance = map[string]int{}
	}
	rep := block[0].Repetition
	serverOf := func(c suite.Cell) string { return x.setups[c.Setup].host().ID }
	t0 := time.Now()
	n := 0
	for _, id := range freshServers(block, serverOf, x.Plan.Instance(block[0]), x.instance) {
		ls := x.setups[id]
		if !ls.Sandbox || ls.err != nil || ls.pid == 0 {
			continue
		}
		info, err := sandbox.Restart(ctx, ls.sandboxDir, sandbox.RestartOptions{})
		if err != nil {
			ls.err = fmt.Errorf("restarting before repetition %d: %w", rep, err)
			return ls.err
		}
		ls.pid = info.PID
		q.restarted(id, info.PID, func(ctx context.Context) error { return sandbox.Quiesce(ctx, info) })
		if x.cold == nil {
			x.cold = map[string]bool{}
		}
		x.cold[id] = true
		n++
	}
	if n > 0 {
		fmt.Fprintf(x.Stdout, "restarted %d servers before repetition %d in %.1f s\n", n, rep, time.Since(t0).Seconds())
	}
	return nil
}

// freshServers is the restart rule: the servers of a block, each once,
// that it runs at an instance higher than any they have run, of targets
// whose variants in the block use more than one server. served is the
// instance each server has run, brought up to date here; a server seen for
// the first time was started for this run and is not listed.
func freshServers(block []suite.Cell, serverOf func(suite.Cell) string, instance int, served map[string]int) []string {
	perTarget := map[string]map[string]bool{}
	for _, c := range block {
		if perTarget[c.Target] == nil {
			perTarget[c.Target] = map[string]bool{}
		}
		perTarget[c.Target][serverOf(c)] = true
	}
	var out []string
	for _, c := range block {
		id := serverOf(c)
		if len(perTarget[c.Target]) < 2 || instance <= served[id] {
			continue
		}
		first := served[id] == 0
		served[id] = instance
		if !first {
			out = append(out, id)
		}
	}
	return out
}
