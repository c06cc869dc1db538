package suiterun

import (
	"context"
	"fmt"
	"math"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/encbench/encbench/internal/orchestrator"

	"github.com/encbench/encbench/internal/errs"
	"github.com/encbench/encbench/internal/fsx"
	"github.com/encbench/encbench/internal/report"
	"github.com/encbench/encbench/internal/result"
	"github.com/encbench/encbench/internal/runner"
	"github.com/encbench/encbench/internal/suite"
)

// interleaves says whether a block runs its variants in turns: the suite
// asks for it, and every cell is closed loop in one process (a fixed rate
// or several generators run cell by cell).
func (x *measurer) interleaves(block []suite.Cell) bool {
	if !x.Plan.Suite.Interleaved() || len(block) < 2 {
		return false
	}
	for _, c := range block {
		if c.LoadPct > 0 || c.Rate > 0 || x.srv.setups[c.Setup].target.Generators > 1 {
			return false
		}
	}
	return true
}

// runBlock measures an interleaved block, again while other work
// disturbed it beyond the suite's rule.
func (x *measurer) runBlock(ctx context.Context, q *quietMachine, prog Progress, block []suite.Cell) {
	t0 := time.Now()
	prog.CellStart(block[0])
	var cells []suite.Cell
	for _, c := range block {
		if err := x.srv.setups[c.Setup].host().err; err != nil {
			err = fmt.Errorf("setup %s failed: %w", x.srv.setups[c.Setup].host().ID, err)
			x.led.failed(c, err)
			prog.CellDone(c, nil, err)
			continue
		}
		cells = append(cells, c)
	}
	if len(cells) == 0 {
		return
	}
	rs, reruns, err := x.Plan.Suite.Disturb().Repeat(func(discarded []string) ([]*result.Result, error) {
		wctx, cancel, bound := x.watchdog(ctx, len(cells))
		defer cancel()
		rs, err := x.interleave(wctx, q, cells, prog.Live, discarded)
		return rs, overran(wctx, bound, err)
	})
	x.led.Reruns += reruns * len(cells)
	if err != nil && fsx.NoRoom(err) {
		x.noRoom = err
	}
	per := time.Since(t0) / time.Duration(len(cells))
	for i, c := range cells {
		var res *result.Result
		if i < len(rs) {
			res = rs[i]
		}
		if res != nil && !res.Partial && err == nil {
			x.led.Finished++
		} else if ctx.Err() == nil {
			x.led.failed(c, err)
		}
		x.cellTimes = append(x.cellTimes, per)
		prog.CellDone(c, res, err)
	}
}

// member is one cell of an interleaved block: its run, connected.
type member struct {
	cell   suite.Cell
	server string
	log    *os.File
	lr     *orchestrator.Live
	sess   *runner.Session
	turns  *runner.Turns
}

func (m *member) close() {
	if m.turns != nil {
		_ = m.turns.Stop()
	}
	if m.sess != nil {
		m.sess.Close()
	}
	if m.lr != nil {
		m.lr.Close()
	}
	if m.log != nil {
		m.log.Close()
	}
}

// interleave runs a block's cells in turns: every cell's workers connect
// and prove their variant, then each cell runs one turn at a time, in
// the block's order rotated by one place every round, on a machine where
// only its own server is thawed. A warm-up round goes first and is not
// counted. Every cell's result covers its own turns only.
func (x *measurer) interleave(ctx context.Context, q *quietMachine, cells []suite.Cell, live func(float64), discarded []string) (rs []*result.Result, err error) {
	st := x.Plan.Suite
	group := cells[0].Group()
	chosen := x.autoTurns[group]
	turn, warmTurn, warmup := blockTurns(st, chosen)
	c := &crew{q: q, members: make([]*member, len(cells))}
	defer c.closeAll()
	servers, order, threads, err := x.newMembers(cells, c.members, discarded)
	if err != nil {
		return nil, err
	}
	c.servers = servers
	if err := q.beforeBlock(ctx, servers, c.members[0].log); err != nil {
		return nil, err
	}
	defer runner.PinProcs(threads)()
	for _, m := range c.members {
		if err := x.connect(ctx, m); err != nil {
			fmt.Fprintf(m.log, "\nencbench: %v\n", err)
			return nil, fmt.Errorf("cell %s: %w", m.cell.ID, err)
		}
	}
	q.forgetTrees()
	started := time.Now()
	for _, m := range c.members {
		m.turns = m.sess.StartTurns()
	}
	warm, err := c.warmUp(ctx, warmup, warmTurn, live)
	if err != nil {
		return nil, err
	}
	if turn == 0 {
		chosen = chooseTurn(warm, cells, time.Duration(st.Time)*time.Second)
		if x.autoTurns == nil {
			x.autoTurns = map[suite.Group]*autoTurn{}
		}
		x.autoTurns[group] = chosen
		turn = chosen.turn
	}
	rounds := max(1, int(math.Round(float64(time.Duration(st.Time)*time.Second)/float64(turn))))
	cold, err := x.warmRestarted(ctx, q, c.members, servers)
	if err != nil {
		return nil, err
	}
	var runErr error
	for k := range rounds {
		if runErr = round(ctx, q, c.members, servers, warmup+k, turn, live, nil); runErr != nil {
			break
		}
	}
	rs, wrote, err := x.blockResults(c.members, &runErr, started, discarded, turns{turn: turn, rounds: rounds, warmup: warmup, order: order, cold: cold, auto: chosen})
	if err != nil {
		return rs, err
	}
	if runErr != nil {
		for _, m := range c.members {
			fmt.Fprintf(m.log, "\nencbench: %v\n", runErr)
		}
		return rs, runErr
	}
	// The members' own writes at close are part of what the block's
	// servers settle.
	log := c.members[0].log
	c.members[0].log = nil
	defer log.Close()
	c.closeAll()
	if err := q.afterBlock(ctx, servers, wrote, log); err != nil {
		return rs, err
	}
	return rs, nil
}

// blockTurns is how a block's turns go: the measured turn (0: auto and
// not chosen yet, so the warm-up runs in probe turns and measures what it
// is chosen from), and the warm-up's turn and rounds. Without a warmup,
// one short round still goes first: fresh connections' first
// transactions fill their caches. A round of whole turns instead was
// tried: the first measured round rose from 0.965 to 0.974 of the median
// turn, for a sixth of the quick suite's budget, and a slow round falls
// on every variant of the block alike.
func blockTurns(st suite.Suite, chosen *autoTurn) (turn, warmTurn time.Duration, warmup int) {
	turn = st.TurnDuration()
	if chosen != nil {
		turn = chosen.turn
	}
	warmTurn = turn
	if turn == 0 {
		warmTurn = autoProbeTurn
	}
	warmup = int(math.Ceil(float64(time.Duration(st.Warmup)*time.Second) / float64(warmTurn)))
	if warmup == 0 {
		warmup, warmTurn = 1, min(warmTurn, 100*time.Millisecond)
	}
	return turn, warmTurn, warmup
}

// crew is a block's members and the servers they run on.
type crew struct {
	q       *quietMachine
	members []*member
	servers []string
}

// closeAll closes every member. Closing a member can write (enc_write_mix
// puts back the rows its events deleted): every server of the block must
// run, or the close waits for a frozen server forever.
func (c *crew) closeAll() {
	for _, id := range c.servers {
		_ = c.q.thaw(id)
	}
	for i, m := range c.members {
		if m != nil {
			m.close()
			c.members[i] = nil
		}
	}
}

// warmUp runs the warm-up rounds and returns each member's warm-up turns
// summed, which an auto turn is chosen from.
func (c *crew) warmUp(ctx context.Context, rounds int, d time.Duration, live func(float64)) ([]runner.Turn, error) {
	warm := make([]runner.Turn, len(c.members))
	seen := func(i int, t runner.Turn) {
		warm[i].Window += t.Window
		warm[i].Work += t.Work
	}
	for k := range rounds {
		if err := round(ctx, c.q, c.members, c.servers, k, d, live, seen); err != nil {
			return nil, err
		}
	}
	return warm, nil
}

// round gives every member a turn of d, in the block's order rotated by k
// places, with only its own server thawed.
func round(ctx context.Context, q *quietMachine, members []*member, servers []string, k int, d time.Duration, live func(float64), seen func(int, runner.Turn)) error {
	n := len(members)
	for i := range n {
		m := members[(i+k)%n]
		if err := q.turn(m.server, servers); err != nil {
			return err
		}
		took, err := m.turns.Turn(ctx, d)
		if err != nil {
			return fmt.Errorf("cell %s: %w", m.cell.ID, err)
		}
		if seen != nil {
			seen((i+k)%n, took)
		}
		live(float64(took.Txns) / took.Elapsed.Seconds())
	}
	return nil
}

// warmRestarted gives the block's restarted servers their warm-up turns
// (coldWarmup), then drops every warm-up measured so far.
func (x *measurer) warmRestarted(ctx context.Context, q *quietMachine, members []*member, servers []string) ([]time.Duration, error) {
	cold := coldWarmup(members, x.srv.cold)
	for i, m := range members {
		if cold[i] == 0 {
			continue
		}
		if err := q.turn(m.server, servers); err != nil {
			return nil, err
		}
		if _, err := m.turns.Turn(ctx, cold[i]); err != nil {
			return nil, fmt.Errorf("cell %s: warming its restarted server: %w", m.cell.ID, err)
		}
	}
	for _, m := range members {
		m.turns.Take() // warm-up
		delete(x.srv.cold, m.server)
	}
	return cold, nil
}

// newMembers opens each cell's log (saying why earlier attempts were
// discarded) and returns the block's servers, its variants in order and
// its most threads.
func (x *measurer) newMembers(cells []suite.Cell, members []*member, discarded []string) (servers, order []string, threads int, err error) {
	for i, c := range cells {
		m := &member{cell: c, server: x.srv.setups[c.Setup].host().ID}
		members[i] = m
		if m.log, err = os.Create(x.Dir.Log(c.ID + ".log")); err != nil {
			return nil, nil, 0, fmt.Errorf("creating cell log: %w", err)
		}
		for _, d := range discarded {
			fmt.Fprintf(m.log, "an earlier attempt at this block was disturbed: %s\n", d)
		}
		if !slices.Contains(servers, m.server) {
			servers = append(servers, m.server)
		}
		order = append(order, c.Variant)
		threads = max(threads, c.Threads)
	}
	return servers, order, threads, nil
}

// turns is how a block was run in turns, for its results.
type turns struct {
	turn           time.Duration
	rounds, warmup int
	order          []string
	cold           []time.Duration
	auto           *autoTurn
}

// blockResults takes each member's measurement as its cell's result and
// writes it; wrote says whether any cell wrote to its server. A worker's
// failure at the end becomes the block's runErr if it had none.
func (x *measurer) blockResults(members []*member, runErr *error, started time.Time, discarded []string, tn turns) (rs []*result.Result, wrote bool, err error) {
	st := x.Plan.Suite
	for i, m := range members {
		out := m.turns.Take()
		stopErr := m.turns.Stop()
		m.turns = nil
		if *runErr == nil {
			*runErr = stopErr
		}
		if out.Elapsed == 0 {
			continue
		}
		out.Sessions = m.sess.Sessions()
		res := m.lr.Result(out, *runErr == nil, started)
		res.Suite = &result.SuiteRef{Name: st.Name, Cell: m.cell.ID, Setup: m.cell.Setup, Target: m.cell.Target, Discarded: discarded,
			Interleaved: &result.Interleaving{TurnMs: ms(tn.turn), Rounds: tn.rounds, Order: tn.order, Position: i, WarmupRounds: tn.warmup, ColdWarmupMs: ms(tn.cold[i])}}
		if tn.auto != nil {
			res.Suite.Interleaved.TurnAuto, res.Suite.Interleaved.WarmupTxnMs = true, ms(tn.auto.txn)
		}
		res.Workload.Label = m.cell.Label
		res.Partial = res.Partial || *runErr != nil
		wrote = wrote || res.Totals.Queries.Write > 0
		report.Summary(m.log, res)
		if err := x.writeCell(m.cell, res); err != nil {
			return rs, wrote, err
		}
		rs = append(rs, res)
	}
	return rs, wrote, nil
}

// coldWarmup is each member's warm-up turn on a restarted server, whose
// caches are empty: a second of load per server, shared among the block's
// cells on it (caches are the server's, so one cell's turn warms them for
// all). A second per cell instead cost the quick suite about 70 s of its
// ten and a half minutes, for restarted servers whose first measured round
// came out at 0.98-1.0 of the median turn either way.
func coldWarmup(members []*member, cold map[string]bool) []time.Duration {
	cells := map[string]int{}
	for _, m := range members {
		if cold[m.server] {
			cells[m.server]++
		}
	}
	out := make([]time.Duration, len(members))
	for i, m := range members {
		if n := cells[m.server]; n > 0 {
			out[i] = time.Second / time.Duration(n)
		}
	}
	return out
}

// connect readies a member: its spec resolved and layers proven, its
// workers connected with their sessions checked.
func (x *measurer) connect(ctx context.Context, m *member) error {
	s, err := x.srv.cellSpec(x.srv.setups[m.cell.Setup], m.cell)
	if err != nil {
		return errs.Usage("cell %s: %w", m.cell.ID, err)
	}
	// One line per turn would drown the log: the summary follows.
	s.Runner.ReportInterval = 0
	fmt.Fprintf(m.log, "$ %s\n(interleaved: this command's measurement, run in turns beside the block's other cells)\n\n", s.Display())
	if m.lr, err = orchestrator.Open(ctx, s, x.Registry, orchestrator.Output{Stdout: m.log, Stderr: m.log}); err != nil {
		return err
	}
	m.sess, err = m.lr.Session(ctx)
	return err
}

// writeCell writes a cell's result: complete, or kept as .partial.json to
// run again on resume.
func (x *measurer) writeCell(c suite.Cell, res *result.Result) error {
	path := x.led.cellPath(c)
	if res.Partial {
		path = strings.TrimSuffix(path, ".json") + ".partial.json"
	}
	if err := result.WriteFile(path, res); err != nil {
		return err
	}
	if !res.Partial {
		_ = os.Remove(strings.TrimSuffix(path, ".json") + ".partial.json")
		x.led.keep(c, res)
	}
	return nil
}
