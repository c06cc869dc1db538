package orchestrator

import (
	"context"
	"fmt"
	"io"
	"maps"
	"slices"
	"time"

	"github.com/encbench/encbench/internal/quiet"
	result "github.com/encbench/encbench/internal/resultdoc"
	"github.com/encbench/encbench/internal/suite"
)

// quietMachine keeps other servers off the CPUs while a cell runs: the
// server that ran last finishes its background work (settles) first, then
// every sandbox but the next cell's is frozen. Servers given by DSN are
// not ours to freeze; they are settled when their pid is known.
type quietMachine struct {
	// pids are the servers' pids by setup; sandboxes may be frozen.
	pids    map[string]int
	sandbox map[string]bool
	// quiesce has a sandbox's server finish deferred write work.
	quiesce   map[string]func(context.Context) error
	frozen    map[string]bool
	last      string
	maxSettle time.Duration
}

func newQuietMachine() *quietMachine {
	return &quietMachine{pids: map[string]int{}, sandbox: map[string]bool{}, frozen: map[string]bool{},
		quiesce: map[string]func(context.Context) error{}, maxSettle: quiet.MaxWait}
}

// add registers a server; quiesce, when not nil, has it finish its
// deferred write work.
func (q *quietMachine) add(setup string, pid int, sandbox bool, quiesce func(context.Context) error) {
	if pid > 0 {
		q.pids[setup], q.sandbox[setup] = pid, sandbox
	}
	if quiesce != nil {
		q.quiesce[setup] = quiesce
	}
}

// before readies the machine for a cell on setup and says what it did.
func (q *quietMachine) before(ctx context.Context, setup string, log io.Writer) error {
	if f := q.quiesce[q.last]; f != nil {
		t0 := time.Now()
		if err := f(ctx); err != nil {
			return fmt.Errorf("quiescing %s: %w", q.last, err)
		}
		fmt.Fprintf(log, "quiet: %s wrote its deferred work in %.2f s\n", q.last, time.Since(t0).Seconds())
	}
	if pid, ok := q.pids[q.last]; ok && !q.frozen[q.last] {
		waited, idle, err := quiet.Settle(ctx, pid, q.maxSettle)
		switch {
		case err != nil:
			return err
		case idle:
			fmt.Fprintf(log, "quiet: %s settled in %.2f s\n", q.last, waited.Seconds())
		default:
			fmt.Fprintf(log, "quiet: %s was still busy after %.0f s; going on\n", q.last, waited.Seconds())
		}
	}
	for _, id := range slices.Sorted(maps.Keys(q.pids)) {
		if id == setup || !q.sandbox[id] || q.frozen[id] {
			continue
		}
		if err := quiet.Freeze(q.pids[id]); err != nil {
			return fmt.Errorf("freezing sandbox %s: %w", id, err)
		}
		q.frozen[id] = true
	}
	if q.frozen[setup] {
		if err := quiet.Thaw(q.pids[setup]); err != nil {
			return fmt.Errorf("thawing sandbox %s: %w", setup, err)
		}
		q.frozen[setup] = false
	}
	q.last = setup
	return nil
}

// thawAll lets every frozen sandbox run again (before stopping them).
func (q *quietMachine) thawAll() {
	for id, f := range q.frozen {
		if f {
			_ = quiet.Thaw(q.pids[id])
			q.frozen[id] = false
		}
	}
}

// disturbed says why a result was disturbed beyond the rule, or "".
func disturbed(r *result.Result, rule suite.Disturbance) string {
	c := r.CPU
	if c.ForeignUtilPct != nil && *c.ForeignUtilPct > rule.ForeignPct {
		return fmt.Sprintf("foreign CPU %.1f%% of the machine (limit %.0f%%)", *c.ForeignUtilPct, rule.ForeignPct)
	}
	if c.StealPct != nil && *c.StealPct > rule.StealPct {
		return fmt.Sprintf("steal %.1f%% of the machine (limit %.0f%%)", *c.StealPct, rule.StealPct)
	}
	return ""
}
