package orchestrator

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/encbench/encbench/internal/engine"
	"github.com/encbench/encbench/internal/errs"
	"github.com/encbench/encbench/internal/result"
	"github.com/encbench/encbench/internal/runner"
	"github.com/encbench/encbench/internal/runset"
	"github.com/encbench/encbench/internal/spec"
	"github.com/encbench/encbench/internal/workload"
)

// maxClockOffset is how far the server's clock may be from this machine's
// before generators are refused a common start: beyond it the clocks are
// obviously unsynchronised (NTP keeps machines within milliseconds).
const maxClockOffset = time.Second

// generatorPlan is generator Index of Count: its share of threads, events
// and rate, and the ids of its workers among all generators' workers.
type generatorPlan struct {
	Schedule
	Threads      int
	IDOffset     int
	TotalThreads int
}

// share is generator i's part of total when n generators split it.
func share(total, i, n int) int {
	s := total / n
	if i < total%n {
		s++
	}
	return s
}

// Schedule is --generator I/N (I from 0, as a Kubernetes Indexed Job's
// completion index) and --start-at: which generator, and when all start.
type Schedule struct {
	Index, Count int
	StartAt      time.Time
}

// ParseSchedule reads --generator and --start-at; nil without --generator.
// threads, when > 0, is the --threads the generators share (a suite's
// cells check their own).
func ParseSchedule(gen, startAt string, threads int) (*Schedule, error) {
	if gen == "" {
		if startAt != "" {
			return nil, errs.Usage("--start-at needs --generator I/N")
		}
		return nil, nil
	}
	is, ns, ok := strings.Cut(gen, "/")
	i, err1 := strconv.Atoi(is)
	n, err2 := strconv.Atoi(ns)
	if !ok || err1 != nil || err2 != nil || n < 1 || i < 0 || i >= n {
		return nil, errs.Usage("bad --generator %q: give I/N with 0 <= I < N, for example 0/3 (a Kubernetes Indexed Job's completion index is I)", gen)
	}
	if threads > 0 && threads < n {
		return nil, errs.Usage("--threads %d is shared by %d generators: give at least one thread each", threads, n)
	}
	sc := &Schedule{Index: i, Count: n}
	example := time.Now().Add(time.Minute).UTC().Format(time.RFC3339)
	if startAt == "" {
		if n > 1 {
			return nil, errs.Usage("--generator %s needs --start-at RFC3339 (for example %s): the generators start together", gen, example)
		}
		return sc, nil
	}
	at, err := time.Parse(time.RFC3339Nano, startAt)
	if err != nil {
		return nil, errs.Usage("bad --start-at %q: give an RFC3339 time such as %s", startAt, example)
	}
	if late := time.Since(at); late > 0 {
		return nil, errs.Usage("--start-at %s is %v in the past: give a later time (every generator must be connected before it)", startAt, late.Round(time.Millisecond))
	}
	sc.StartAt = at
	return sc, nil
}

// parseGenerator is the run's share as generator: its schedule and its
// part of the threads; nil without --generator.
func parseGenerator(r runset.Settings, threads int) (*generatorPlan, error) {
	sc, err := ParseSchedule(r.Generator, r.StartAt, threads)
	if sc == nil || err != nil {
		return nil, err
	}
	i, n := sc.Index, sc.Count
	return &generatorPlan{Schedule: *sc, Threads: share(threads, i, n), TotalThreads: threads,
		IDOffset: i*(threads/n) + min(i, threads%n)}, nil
}

// apply gives the runner this generator's share.
func (g *generatorPlan) apply(cfg *runner.Config) {
	cfg.Threads, cfg.IDOffset, cfg.TotalThreads, cfg.StartTime = g.Threads, g.IDOffset, g.TotalThreads, g.StartAt
	if cfg.Events > 0 {
		cfg.Events = int64(share(int(cfg.Events), g.Index, g.Count))
	}
	cfg.Rate /= float64(g.Count)
}

// clockOffset measures the server's clock against this machine's, at the
// midpoint of the query's round trip; engines that cannot tell are not
// checked (ok false).
func clockOffset(ctx context.Context, e engine.Engine, c engine.Conn) (time.Duration, bool, error) {
	clk, ok := e.(engine.Clock)
	if !ok {
		return 0, false, nil
	}
	t0 := time.Now()
	st, err := clk.ServerTime(ctx, c)
	if err != nil {
		return 0, false, fmt.Errorf("reading the server's clock: %w", err)
	}
	t1 := time.Now()
	return st.Sub(t0.Add(t1.Sub(t0) / 2)), true, nil
}

// checkClock refuses a common start against a server whose clock is
// obviously not this machine's.
func (g *generatorPlan) checkClock(ctx context.Context, e engine.Engine, c engine.Conn) (*result.Generator, error) {
	doc := &result.Generator{Index: g.Index, Count: g.Count, Threads: g.Threads}
	if !g.StartAt.IsZero() {
		doc.StartAt = g.StartAt.UTC().Format(time.RFC3339Nano)
	}
	off, ok, err := clockOffset(ctx, e, c)
	if err != nil || !ok {
		return doc, err
	}
	ms := float64(off.Microseconds()) / 1000
	doc.ClockOffsetMs = &ms
	if off > maxClockOffset || off < -maxClockOffset {
		return nil, fmt.Errorf("the server's clock is %v away from this machine's: synchronise the clocks (NTP) before starting generators together", off.Round(time.Millisecond))
	}
	return doc, nil
}

// partition tells a workload whose generators could collide (YCSB's
// insert keys) which generator this is.
func (g *generatorPlan) partition(wl workload.Workload) {
	if p, ok := wl.(workload.Partitioned); ok {
		p.Partition(g.Index, g.Count)
	}
}

// CheckGenerator validates a spec's --generator and --start-at without
// running anything.
func CheckGenerator(s spec.Spec) error {
	_, err := parseGenerator(s.Runner, s.Threads)
	return err
}
