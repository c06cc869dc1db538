package suiterun

import (
	"context"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/encbench/encbench/internal/measure"
	"github.com/encbench/encbench/internal/quiet"
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
	// trees are the servers' process trees, found again whenever a cell
	// or block starts, or its workers have connected (new backends).
	trees map[string][]int
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

// tree is a server's process tree, found once until forgotten.
func (q *quietMachine) tree(id string) ([]int, error) {
	if t, ok := q.trees[id]; ok {
		return t, nil
	}
	t, err := measure.Tree(q.pids[id])
	if err != nil {
		return nil, err
	}
	if q.trees == nil {
		q.trees = map[string][]int{}
	}
	q.trees[id] = t
	return t, nil
}

// forgetTrees has the servers' trees found again: at a cell's or block's
// start, and once its workers have connected (new backend processes).
func (q *quietMachine) forgetTrees() { clear(q.trees) }

// before readies the machine for a cell on setup and says what it did.
func (q *quietMachine) before(ctx context.Context, setup string, log io.Writer) error {
	q.forgetTrees()
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
	if err := q.freezeAllBut(setup, slices.Sorted(maps.Keys(q.pids))); err != nil {
		return err
	}
	q.last = setup
	return q.thaw(setup)
}

// freezeAllBut freezes the sandboxes among ids that are not keep.
func (q *quietMachine) freezeAllBut(keep string, ids []string) error {
	for _, id := range ids {
		if id == keep || !q.sandbox[id] || q.frozen[id] {
			continue
		}
		t, err := q.tree(id)
		if err == nil {
			err = quiet.FreezeTree(t)
		}
		if err != nil {
			return fmt.Errorf("freezing sandbox %s: %w", id, err)
		}
		q.frozen[id] = true
	}
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

// beforeBlock readies the machine for an interleaved block on servers:
// the server that ran last settles, the block's servers are thawed and
// every other sandbox is frozen.
func (q *quietMachine) beforeBlock(ctx context.Context, servers []string, log io.Writer) error {
	if err := q.before(ctx, servers[0], log); err != nil {
		return err
	}
	for _, id := range servers[1:] {
		if err := q.thaw(id); err != nil {
			return err
		}
	}
	return nil
}

func (q *quietMachine) thaw(id string) error {
	if !q.frozen[id] {
		return nil
	}
	t, err := q.tree(id)
	if err == nil {
		err = quiet.ThawTree(t)
	}
	if err != nil {
		return fmt.Errorf("thawing sandbox %s: %w", id, err)
	}
	q.frozen[id] = false
	return nil
}

// turn gives the machine to one server of a block for a turn: the others
// of the block that are sandboxes are frozen, so the background work each
// server does falls in its own slices.
func (q *quietMachine) turn(id string, block []string) error {
	if err := q.freezeAllBut(id, block); err != nil {
		return err
	}
	q.last = id
	return q.thaw(id)
}

// afterBlock lets a block's servers that wrote finish their deferred work
// together, then leaves the machine as a cell on the last one would: the
// others frozen.
func (q *quietMachine) afterBlock(ctx context.Context, servers []string, wrote bool, log io.Writer) error {
	last := q.last
	if wrote {
		var pids []int
		for _, id := range servers {
			if err := q.thaw(id); err != nil {
				return err
			}
			if pid, ok := q.pids[id]; ok {
				pids = append(pids, pid)
			}
		}
		t0 := time.Now()
		for _, id := range servers {
			if f := q.quiesce[id]; f != nil {
				if err := f(ctx); err != nil {
					return fmt.Errorf("quiescing %s: %w", id, err)
				}
			}
		}
		if len(pids) > 0 {
			_, idle, err := quiet.SettleAll(ctx, pids, q.maxSettle)
			if err != nil {
				return err
			}
			fmt.Fprintf(log, "quiet: the block's servers wrote their deferred work and settled (%v) in %.2f s\n", idle, time.Since(t0).Seconds())
		}
	}
	if err := q.freezeAllBut(last, servers); err != nil {
		return err
	}
	// Settled already, or it only read: the next cell need not wait for it.
	q.last = ""
	return nil
}

// restarted registers a server's new process: running, not frozen, and
// with nothing deferred to wait for.
func (q *quietMachine) restarted(setup string, pid int, quiesce func(context.Context) error) {
	q.pids[setup] = pid
	delete(q.trees, setup)
	q.frozen[setup] = false
	q.quiesce[setup] = quiesce
	if q.last == setup {
		q.last = ""
	}
}

// noiseCheck is how long the noise check runs on each CPU.
const noiseCheck = 6 * time.Second

// checkNoise measures how steadily the machine's CPUs deliver work before
// the first block: the servers settle, every sandbox is frozen, and a
// spin loop on each CPU counts its work per turn (per second when cells
// are not interleaved). The report shows it as the floor of the noise.
func (x *Executor) checkNoise(ctx context.Context, q *quietMachine) error {
	pids := slices.Collect(maps.Values(q.pids))
	if _, _, err := quiet.SettleAll(ctx, pids, q.maxSettle); err != nil {
		return err
	}
	if err := q.freezeAllBut("", slices.Sorted(maps.Keys(q.pids))); err != nil {
		return err
	}
	cpus, err := quiet.AllowedCPUs()
	if err != nil {
		return err
	}
	window := x.Plan.Suite.TurnDuration()
	switch {
	case window > 0:
	case x.Plan.Suite.TurnAuto():
		window = autoProbeTurn
	default:
		window = time.Second
	}
	d := max(noiseCheck, 10*window)
	cs, err := quiet.Noise(ctx, cpus, window, d)
	if err != nil {
		return err
	}
	x.noise = &suite.MachineNoise{WindowMs: ms(window), Seconds: d.Seconds(), CPUs: cs}
	parts := make([]string, len(cs))
	for i, c := range cs {
		parts[i] = fmt.Sprintf("CPU %d sd %.1f%% (slowest %.0f%% of the median), memory walk sd %.1f%% (slowest %.0f%%)", c.CPU, c.SDPct, c.SlowestPct, c.MemorySDPct, c.MemorySlowestPct)
	}
	fmt.Fprintf(x.Stdout, "machine noise per %v window, every sandbox frozen: %s\n", window, strings.Join(parts, ", "))
	return nil
}

// ms is a duration in milliseconds, as results give them.
func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
