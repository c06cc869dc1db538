package orchestrator

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/encbench/encbench/internal/engine"
	"github.com/encbench/encbench/internal/errs"
	"github.com/encbench/encbench/internal/fsx"
	result "github.com/encbench/encbench/internal/resultdoc"
	"github.com/encbench/encbench/internal/runner"
	"github.com/encbench/encbench/internal/sandbox"
	"github.com/encbench/encbench/internal/spec"
	"github.com/encbench/encbench/internal/suite"
	"github.com/encbench/encbench/internal/variant"
	"github.com/encbench/encbench/internal/workload"
)

// Files a suite directory holds besides its cells.
const (
	SuiteFile     = "suite.yaml"
	OverridesFile = "overrides.json"
	PlanFile      = "plan.json"
	CellsDir      = "cells"
	LogsDir       = "logs"
	SandboxesDir  = "sandboxes"
)

// Progress shows a suite's advance; the CLI draws it.
type Progress interface {
	CellStart(c suite.Cell)
	Live(tps float64)
	CellDone(c suite.Cell, res *result.Result, err error)
	// Grow adds cells that a precision target asked for.
	Grow(n int)
	Close()
}

// SuiteRun executes a suite plan: sandboxes up, data prepared once per
// setup, cells in the plan's interleaved order, sandboxes down.
type SuiteRun struct {
	Plan *suite.Plan
	Dir  string
	// Command is how the suite was started, for plan.json and the report.
	Command  string
	Registry *workload.Registry
	Stdout   io.Writer
	Stderr   io.Writer
	// NewProgress draws the cells' advance (total, finished so far).
	NewProgress func(total, done int) Progress
	// Finished and Failed count cells once Execute returns; Reruns the
	// attempts discarded as disturbed.
	Finished, Failed, Reruns int
	// BudgetSpent says the budget stopped blocks a precision target wanted.
	BudgetSpent bool

	cellTimes []time.Duration

	setups     map[string]*liveSetup
	clientCPUs string
	serverCPUs string
}

// liveSetup is a setup with what it needs to run: its target, parsed
// variant and, for a sandbox, its directory.
type liveSetup struct {
	suite.Setup
	target     suite.Target
	variant    variant.Variant
	sandboxDir string
	// pid is the server's, when known (sandboxes, server_pid).
	pid int
	err error
}

// Check resolves every setup and builds every cell's spec before anything
// starts, so a mistake in a suite file fails in the first second.
func (x *SuiteRun) Check() error {
	n := runtime.NumCPU()
	x.clientCPUs = suite.Placement(x.Plan.Suite.ClientCPUs, false, n)
	x.serverCPUs = suite.Placement(x.Plan.Suite.ServerCPUs, true, n)
	if _, err := ParseCPUList(x.clientCPUs); err != nil {
		return errs.Usage("client_cpus %q: give a CPU list below %d, auto or none", x.clientCPUs, n)
	}
	if err := x.Plan.Suite.CheckOptions(x.Registry); err != nil {
		return errs.Usage("%v", err)
	}
	x.setups = map[string]*liveSetup{}
	for _, su := range x.Plan.Setups {
		t, _ := x.Plan.Suite.Target(su.Target)
		v, err := x.Plan.Suite.VariantOf(su.Variant)
		if err != nil {
			return errs.Usage("setup %s: %v", su.ID, err)
		}
		ls := &liveSetup{Setup: su, target: t, variant: v, pid: t.ServerPID}
		if su.Sandbox {
			ls.sandboxDir = filepath.Join(x.Dir, SandboxesDir, su.ID)
		} else {
			ls.target.DSN = os.ExpandEnv(t.DSN)
			if _, err := engine.ParseTarget(ls.target.DSN, engine.TLSOptions{}); err != nil {
				return errs.Usage("target %s: %v", t.Name, err)
			}
		}
		x.setups[su.ID] = ls
	}
	for _, c := range x.Plan.Cells {
		s, err := x.cellSpec(x.setups[c.Setup], c)
		if err != nil {
			return errs.Usage("suite cell %s: %v", c.ID, err)
		}
		fam, _ := x.Registry.Lookup(s.Workload)
		wl, err := fam.New(s.Workload, s.Options)
		if err == nil {
			err = wl.Validate(s.Threads)
		}
		if err != nil {
			return errs.Usage("suite cell %s: %v", c.ID, err)
		}
	}
	return nil
}

// baseSpec is a phase of a workload on a setup's server with its
// encryption layers and the suite's data set.
func (x *SuiteRun) baseSpec(cmd spec.Command, ls *liveSetup, name string) (spec.Spec, error) {
	fam, err := x.Registry.Lookup(name)
	if err != nil {
		return spec.Spec{}, err
	}
	s := spec.New(cmd, name, fam)
	if ls.Sandbox {
		s.Target.Sandbox = ls.sandboxDir
		s.Target.TLS.Version = ls.variant.TLSVersion
	} else {
		t := ls.target
		s.Target.DSN = t.DSN
		s.Target.TLS = engine.TLSOptions{Mode: engine.TLSDisable}
		if ls.variant.TLS {
			s.Target.TLS = engine.TLSOptions{Mode: engine.TLSVerifyFull, CAFile: t.TLSCA, CertFile: t.TLSCert, KeyFile: t.TLSKey, Version: ls.variant.TLSVersion}
		}
		s.TDE = ls.variant.TDE
		s.Target.ServerPID = t.ServerPID
	}
	if err := x.applyColumns(&s, ls); err != nil {
		return s, err
	}
	for _, k := range slices.Sorted(maps.Keys(x.Plan.Suite.DataOptions())) {
		if s.Has(k) {
			if err := s.Set(k, x.Plan.Suite.DataOptions()[k]); err != nil {
				return s, fmt.Errorf("data %s: %w", k, err)
			}
		}
	}
	return s, nil
}

// applyColumns sets the workload's column encryption for the variant,
// through the option the workload declares, with keys kept in the suite
// directory (created 0600 by the first prepare).
func (x *SuiteRun) applyColumns(s *spec.Spec, ls *liveSetup) error {
	v := ls.variant
	if !v.Encrypts() {
		return nil
	}
	fam, _ := x.Registry.Lookup(s.Workload)
	wl, err := fam.New(s.Workload, workload.DefaultOptions(fam, s.Workload))
	if err != nil {
		return err
	}
	opt := wl.Capabilities().EncryptOption
	if opt == "" {
		return fmt.Errorf("%s does not encrypt columns, so it cannot run in variant %s", s.Workload, v)
	}
	value := strconv.Itoa(v.Colenc)
	var extra map[string]string
	if v.ColumnSet != "" {
		set := x.Plan.Suite.ColumnSets[v.ColumnSet]
		value = set.EncryptFor(ls.target.Engine)
		extra = suite.Workload{Options: set.Options}.OptionStrings()
	}
	keys := filepath.Join(x.Dir, "keys")
	sets := map[string]string{opt: value, "master-key-file": filepath.Join(keys, "master.json"), "keyset": filepath.Join(keys, "keyset.json")}
	maps.Copy(sets, extra)
	for _, k := range slices.Sorted(maps.Keys(sets)) {
		if err := s.Set(k, sets[k]); err != nil {
			return fmt.Errorf("variant %s: %w", v, err)
		}
	}
	return nil
}

func (x *SuiteRun) prepareSpec(ls *liveSetup, name string) (spec.Spec, error) {
	s, err := x.baseSpec(spec.Prepare, ls, name)
	if err != nil {
		return s, err
	}
	loaders := min(4, runtime.NumCPU())
	if t, err := strconv.Atoi(x.Plan.Suite.DataOptions()["tables"]); err == nil && t < loaders {
		loaders = max(t, 1)
	}
	s.Threads = loaders
	s.Force = ls.Sandbox
	return s, nil
}

func (x *SuiteRun) cellSpec(ls *liveSetup, c suite.Cell) (spec.Spec, error) {
	s, err := x.baseSpec(spec.Run, ls, c.Workload)
	if err != nil {
		return s, err
	}
	for _, k := range slices.Sorted(maps.Keys(c.Options)) {
		if err := s.Set(k, c.Options[k]); err != nil {
			return s, fmt.Errorf("option %s: %w", k, err)
		}
	}
	st := x.Plan.Suite
	s.Threads = c.Threads
	s.Runner.Time, s.Runner.Events, s.Runner.Warmup = st.Time, 0, st.Warmup
	s.Runner.Repetition = c.Repetition
	s.Runner.Rate = c.Rate
	s.Runner.ClientCPUs = x.clientCPUs
	// Reports group by the suite's variant, whatever the engine's spec.
	s.VariantName = c.Variant
	return s, nil
}

func (x *SuiteRun) sandboxLine(ls *liveSetup) string {
	st := x.Plan.Suite
	args := []string{"encbench", "sandbox", "up", "--engine", ls.Engine, "--dir", ls.sandboxDir, "--variant", ls.variant.Server()}
	if ls.variant.TLSVersion != "" {
		args = append(args, "--tls-version", ls.variant.TLSVersion)
	}
	if st.BufferPool != "" {
		args = append(args, "--buffer-pool", st.BufferPool)
	}
	if ls.variant.TDE && st.TDECipher != "" {
		args = append(args, "--tde-cipher", st.TDECipher)
	}
	if x.serverCPUs != "" {
		args = append(args, "--server-cpus", x.serverCPUs)
	}
	for i, a := range args {
		args[i] = spec.ShellWord(a)
	}
	return strings.Join(args, " ")
}

// Record is plan.json: the plan, how it was started and how to reproduce
// each setup by hand.
func (x *SuiteRun) Record() suite.Record {
	d := suite.Record{Plan: x.Plan, Command: x.Command,
		CreatedAt: time.Now().UTC().Format(time.RFC3339), ClientCPUs: x.clientCPUs, ServerCPUs: x.serverCPUs,
		Reproduce: map[string]string{}, BudgetSpent: x.BudgetSpent}
	for _, su := range x.Plan.Setups {
		ls := x.setups[su.ID]
		var lines []string
		if ls.Sandbox {
			lines = append(lines, x.sandboxLine(ls))
		}
		first := x.Plan.Suite.Workloads[0]
		for _, w := range x.Plan.Suite.Workloads {
			if w.RunsOn(ls.target) && w.RunsIn(ls.Variant) {
				first = w
				break
			}
		}
		if ps, err := x.prepareSpec(ls, first.Name); err == nil {
			lines = append(lines, ps.Display())
		}
		c := suite.Cell{Variant: ls.Variant, Workload: first.Name, Options: first.OptionStrings(), Threads: x.Plan.Suite.Threads[0], Repetition: 1}
		if rs, err := x.cellSpec(ls, c); err == nil {
			lines = append(lines, rs.Display())
		}
		if ls.Sandbox {
			lines = append(lines, "encbench sandbox down --dir "+spec.ShellWord(ls.sandboxDir))
		}
		d.Reproduce[su.ID] = strings.Join(lines, "\n")
	}
	return d
}

func (x *SuiteRun) cellPath(c suite.Cell) string {
	return filepath.Join(x.Dir, CellsDir, c.ID+".json")
}

// done says whether a cell has a complete result already.
func (x *SuiteRun) done(c suite.Cell) bool {
	r, err := result.ReadFile(x.cellPath(c))
	return err == nil && !r.Partial
}

// Execute runs every cell not finished yet, then, with a precision
// target, more blocks of the groups that have not reached it.
func (x *SuiteRun) Execute(ctx context.Context) error {
	start := time.Now()
	var pending []suite.Cell
	need := map[string]bool{}
	for _, c := range x.Plan.Cells {
		if x.done(c) {
			x.Finished++
			continue
		}
		pending = append(pending, c)
		need[c.Setup] = true
	}
	total := len(x.Plan.Cells)
	for _, sk := range x.Plan.Skipped {
		fmt.Fprintf(x.Stderr, "encbench: skipped %s\n", sk)
	}
	more := x.needMore()
	if len(pending) == 0 && len(more) == 0 {
		fmt.Fprintf(x.Stdout, "all %d cells of suite %s are finished in %s\n", total, x.Plan.Suite.Name, x.Dir)
		return nil
	}
	if x.Finished > 0 {
		fmt.Fprintf(x.Stdout, "resuming suite %s: %d of %d cells finished, %d to run\n", x.Plan.Suite.Name, x.Finished, total, len(pending))
	}
	for _, su := range x.Plan.Setups {
		for _, g := range more {
			need[su.ID] = need[su.ID] || su.Target == g.group.Target
		}
	}
	defer x.stopSandboxes()
	if err := x.startSetups(ctx, need); err != nil {
		return x.interrupted(ctx, err)
	}
	q := newQuietMachine()
	defer q.thawAll()
	for _, su := range x.Plan.Setups {
		ls := x.setups[su.ID]
		q.add(su.ID, ls.pid, ls.Sandbox)
		if info, err := sandbox.Load(ls.sandboxDir); ls.Sandbox && err == nil {
			q.quiesce[su.ID] = func(ctx context.Context) error { return sandbox.Quiesce(ctx, info) }
		}
	}
	prog := x.NewProgress(total, x.Finished)
	defer prog.Close()
	x.runCells(ctx, q, prog, pending)
	x.extend(ctx, q, prog, start)
	x.offerLoad(ctx, q, prog, start)
	prog.Close()
	if ctx.Err() != nil {
		return x.interrupted(ctx, ctx.Err())
	}
	if x.Failed > 0 {
		return fmt.Errorf("%d of %d cells failed (see %s); rerun with --resume to retry them", x.Failed, len(x.Plan.Cells), filepath.Join(x.Dir, LogsDir))
	}
	return nil
}

// runCells measures cells in order, each on a quiet machine.
func (x *SuiteRun) runCells(ctx context.Context, q *quietMachine, prog Progress, cells []suite.Cell) {
	for _, c := range cells {
		if ctx.Err() != nil {
			return
		}
		t0 := time.Now()
		ls := x.setups[c.Setup]
		prog.CellStart(c)
		if ls.err != nil {
			x.Failed++
			prog.CellDone(c, nil, fmt.Errorf("setup %s failed: %w", ls.ID, ls.err))
			continue
		}
		res, err := x.measureCell(ctx, q, ls, c, prog.Live)
		if res != nil && !res.Partial && err == nil {
			x.Finished++
		} else if ctx.Err() == nil {
			x.Failed++
		}
		x.cellTimes = append(x.cellTimes, time.Since(t0))
		prog.CellDone(c, res, err)
	}
}

// measureCell runs a cell on a quiet machine, and again when other work
// disturbed it beyond the suite's rule.
func (x *SuiteRun) measureCell(ctx context.Context, q *quietMachine, ls *liveSetup, c suite.Cell, live func(float64)) (*result.Result, error) {
	res, reruns, err := untilUndisturbed(x.Plan.Suite.Disturb(), func(discarded []string) (*result.Result, error) {
		return x.runCell(ctx, q, ls, c, live, discarded)
	})
	x.Reruns += reruns
	return res, err
}

// untilUndisturbed runs a cell until a run is not disturbed beyond the
// rule, at most rule.Reruns more times, and keeps the last run; each run
// learns why the earlier ones were discarded.
func untilUndisturbed(rule suite.Disturbance, run func(discarded []string) (*result.Result, error)) (*result.Result, int, error) {
	var discarded []string
	for {
		res, err := run(discarded)
		if err != nil || res == nil || res.Partial || len(discarded) >= rule.Reruns {
			return res, len(discarded), err
		}
		why := disturbed(res, rule)
		if why == "" {
			return res, len(discarded), nil
		}
		discarded = append(discarded, why)
	}
}

func (x *SuiteRun) interrupted(ctx context.Context, err error) error {
	if ctx.Err() == nil {
		return err
	}
	return fmt.Errorf("interrupted: %d of %d cells finished; continue with `encbench suite run %s --out %s --resume`",
		x.Finished, len(x.Plan.Cells), x.Plan.Suite.Name, x.Dir)
}

// startSetups brings up every needed sandbox first, then prepares each
// data set once: all variants stay up so cells can interleave.
func (x *SuiteRun) startSetups(ctx context.Context, need map[string]bool) error {
	for _, su := range x.Plan.Setups {
		ls := x.setups[su.ID]
		if !need[su.ID] || !ls.Sandbox {
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
		if !need[su.ID] || ls.err != nil {
			continue
		}
		fmt.Fprintf(x.Stdout, "preparing %s (%s)\n", su.ID, strings.Join(suite.Args(x.Plan.Suite.DataOptions()), " "))
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

func firstLine(err error) string {
	msg, _, _ := strings.Cut(err.Error(), "\n")
	return msg
}

func (x *SuiteRun) startSandbox(ctx context.Context, ls *liveSetup) error {
	// A resumed suite starts from a fresh server: the old one was stopped.
	if info, err := sandbox.Load(ls.sandboxDir); err == nil {
		_ = sandbox.Down(info.Dir)
	}
	if err := os.RemoveAll(ls.sandboxDir); err != nil {
		return fmt.Errorf("clearing %s: %w", ls.sandboxDir, err)
	}
	if err := os.MkdirAll(filepath.Dir(ls.sandboxDir), 0o755); err != nil {
		return fmt.Errorf("creating %s: %w", filepath.Dir(ls.sandboxDir), err)
	}
	st := x.Plan.Suite
	info, err := sandbox.Up(ctx, sandbox.Options{Engine: ls.Engine, Dir: ls.sandboxDir, BufferPool: st.BufferPool,
		Variant: ls.variant.Server(), TLSVersion: ls.variant.TLSVersion, TDECipher: st.TDECipher, ServerCPUs: x.serverCPUs})
	if err == nil {
		ls.pid = info.PID
	}
	return err
}

func (x *SuiteRun) stopSandboxes() {
	for _, su := range x.Plan.Setups {
		ls := x.setups[su.ID]
		if !ls.Sandbox {
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
		_ = os.Rename(filepath.Join(ls.sandboxDir, "log"), filepath.Join(x.Dir, LogsDir, su.ID+"-server"))
		_ = os.RemoveAll(ls.sandboxDir)
	}
}

// prepare loads each workload family's data set once per setup.
func (x *SuiteRun) prepare(ctx context.Context, ls *liveSetup) error {
	log, err := os.Create(filepath.Join(x.Dir, LogsDir, ls.ID+"-prepare.log"))
	if err != nil {
		return fmt.Errorf("creating prepare log: %w", err)
	}
	defer log.Close()
	var prepared []string
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
			return errs.Usage("preparing %s: %v", w.Name, err)
		}
		fmt.Fprintf(log, "$ %s\n", s.Display())
		if err := Prepare(ctx, s, x.Registry, log); err != nil {
			return fmt.Errorf("prepare %s: %w", w.Name, err)
		}
	}
	return nil
}

// runCell measures one cell and writes its result; an interrupted cell is
// kept as .partial.json and runs again on resume.
func (x *SuiteRun) runCell(ctx context.Context, q *quietMachine, ls *liveSetup, c suite.Cell, live func(float64), discarded []string) (*result.Result, error) {
	log, err := os.Create(filepath.Join(x.Dir, LogsDir, c.ID+".log"))
	if err != nil {
		return nil, fmt.Errorf("creating cell log: %w", err)
	}
	defer log.Close()
	s, err := x.cellSpec(ls, c)
	if err != nil {
		return nil, errs.Usage("cell %s: %v", c.ID, err)
	}
	for _, d := range discarded {
		fmt.Fprintf(log, "an earlier attempt was disturbed: %s\n", d)
	}
	if err := q.before(ctx, c.Setup, log); err != nil {
		return nil, err
	}
	fmt.Fprintf(log, "$ %s\n\n", s.Display())
	res, err := Run(ctx, s, x.Registry, Output{Stdout: log, Stderr: log, OnInterval: func(iv runner.Interval) { live(iv.TPS) }})
	if err != nil {
		fmt.Fprintf(log, "\nencbench: %v\n", err)
	}
	if res == nil {
		return nil, err
	}
	res.Suite = &result.SuiteRef{Name: x.Plan.Suite.Name, Cell: c.ID, Setup: c.Setup, Target: c.Target, Discarded: discarded}
	res.Workload.Label = c.Label
	path := x.cellPath(c)
	if res.Partial || err != nil {
		path = strings.TrimSuffix(path, ".json") + ".partial.json"
		res.Partial = true
	}
	if werr := result.WriteFile(path, res); werr != nil {
		return nil, errors.Join(err, werr)
	}
	if !res.Partial {
		_ = os.Remove(strings.TrimSuffix(path, ".json") + ".partial.json")
	}
	return res, err
}

// WriteJSON writes v to path atomically (a temporary file renamed).
func WriteJSON(path string, v any) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Errorf("encoding %s: %w", filepath.Base(path), err)
	}
	return fsx.WriteFile(path, append(data, '\n'), 0o644)
}
