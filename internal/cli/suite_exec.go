package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/encbench/encbench/internal/engine"
	"github.com/encbench/encbench/internal/errs"
	result "github.com/encbench/encbench/internal/resultdoc"
	"github.com/encbench/encbench/internal/runner"
	"github.com/encbench/encbench/internal/sandbox"
	"github.com/encbench/encbench/internal/suite"
	"github.com/encbench/encbench/internal/workload"
)

// executor runs a suite plan: sandboxes up, data prepared once per setup,
// cells in the plan's interleaved order, sandboxes down.
type executor struct {
	plan       *suite.Plan
	dir        string
	stdout     io.Writer
	stderr     io.Writer
	command    string
	setups     map[string]*liveSetup
	clientCPUs string
	serverCPUs string
	finished   int
	failed     int
}

// liveSetup is a setup with what it needs to run: its flags and, for a
// sandbox, the server.
type liveSetup struct {
	suite.Setup
	target     suite.Target
	variant    suite.Variant
	sandboxDir string
	err        error
}

func (x *executor) planDoc() suite.Record {
	d := suite.Record{Plan: x.plan, Command: x.command,
		CreatedAt: time.Now().UTC().Format(time.RFC3339), ClientCPUs: x.clientCPUs, ServerCPUs: x.serverCPUs,
		Reproduce: map[string]string{}}
	for _, su := range x.plan.Setups {
		ls := x.setups[su.ID]
		var lines []string
		if ls.Sandbox {
			lines = append(lines, "encbench "+strings.Join(x.sandboxArgs(ls), " "))
		}
		first := x.plan.Suite.Workloads[0]
		for _, w := range x.plan.Suite.Workloads {
			if w.RunsOn(ls.target) && w.RunsIn(ls.Variant) {
				first = w
				break
			}
		}
		lines = append(lines, "encbench "+display(x.prepareArgs(ls, first.Name)))
		c := suite.Cell{Variant: ls.Variant, Workload: first.Name, Options: first.OptionStrings(), Threads: x.plan.Suite.Threads[0], Repetition: 1}
		lines = append(lines, "encbench "+display(x.runArgs(ls, c)))
		if ls.Sandbox {
			lines = append(lines, "encbench sandbox down --dir "+ls.sandboxDir)
		}
		d.Reproduce[su.ID] = strings.Join(lines, "\n")
	}
	return d
}

// check resolves every setup and parses every cell's flags before anything
// starts, so a typo in a suite file fails in the first second.
func (x *executor) check() error {
	n := runtime.NumCPU()
	x.clientCPUs = suite.Placement(x.plan.Suite.ClientCPUs, false, n)
	x.serverCPUs = suite.Placement(x.plan.Suite.ServerCPUs, true, n)
	if _, err := parseCPUList(x.clientCPUs); err != nil {
		return errs.Usage("client_cpus %q: give a CPU list below %d, auto or none", x.clientCPUs, n)
	}
	x.setups = map[string]*liveSetup{}
	for _, su := range x.plan.Setups {
		t, _ := x.plan.Suite.Target(su.Target)
		v, _ := suite.ParseVariant(su.Variant)
		ls := &liveSetup{Setup: su, target: t, variant: v}
		if su.Sandbox {
			ls.sandboxDir = filepath.Join(x.dir, sandboxesDir, su.ID)
		} else {
			t.DSN = os.ExpandEnv(t.DSN)
			ls.target = t
			if _, err := engine.ParseTarget(t.DSN, engine.TLSOptions{}); err != nil {
				return errs.Usage("target %s: %v", t.Name, err)
			}
		}
		x.setups[su.ID] = ls
	}
	for _, c := range x.plan.Cells {
		r := &runFlags{}
		fs := newFlagSet()
		r.bindRun(fs)
		args := x.runArgs(x.setups[c.Setup], c)
		if err := fs.Parse(args); err != nil {
			return errs.Usage("suite cell %s: %v", c.ID, err)
		}
		fam, err := workload.Lookup(r.families, c.Workload)
		if err != nil {
			return err
		}
		wl, err := fam.New(c.Workload)
		if err == nil {
			err = wl.Validate(c.Threads)
		}
		if err != nil {
			return errs.Usage("suite cell %s: %v", c.ID, err)
		}
	}
	return nil
}

func newFlagSet() *pflag.FlagSet {
	fs := pflag.NewFlagSet("encbench", pflag.ContinueOnError)
	fs.SetNormalizeFunc(underscoresToDashes)
	fs.SetOutput(io.Discard)
	return fs
}

// targetArgs select the setup's server and its encryption layers.
func (x *executor) targetArgs(ls *liveSetup) []string {
	return append(x.serverArgs(ls), x.colencArgs(ls)...)
}

// colencArgs set the column encryption level, with keys kept in the suite
// directory (created 0600 by the first prepare).
func (x *executor) colencArgs(ls *liveSetup) []string {
	keys := filepath.Join(x.dir, "keys")
	keyArgs := []string{"--master-key-file", filepath.Join(keys, "master.json"), "--keyset", filepath.Join(keys, "keyset.json")}
	if cs := ls.variant.ColumnSet; cs != "" {
		set := x.plan.Suite.ColumnSets[cs]
		args := append([]string{"--encrypt", set.EncryptFor(ls.target.Engine)}, keyArgs...)
		return append(args, suite.Args(suite.Workload{Options: set.Options}.OptionStrings())...)
	}
	if ls.variant.Colenc == 0 {
		return nil
	}
	return append([]string{"--encrypt-columns", strconv.Itoa(ls.variant.Colenc)}, keyArgs...)
}

func (x *executor) serverArgs(ls *liveSetup) []string {
	if ls.Sandbox {
		args := []string{"--sandbox", ls.sandboxDir}
		if ls.variant.TLSVersion != "" {
			args = append(args, "--tls-version", ls.variant.TLSVersion)
		}
		return args
	}
	t := ls.target
	args := []string{"--dsn", t.DSN}
	if !ls.variant.TLS {
		args = append(args, "--tls", "disable")
	} else {
		args = append(args, "--tls", "verify-full")
		for flag, v := range map[string]string{"--tls-ca": t.TLSCA, "--tls-cert": t.TLSCert, "--tls-key": t.TLSKey, "--tls-version": ls.variant.TLSVersion} {
			if v != "" {
				args = append(args, flag, v)
			}
		}
	}
	if ls.variant.TDE {
		args = append(args, "--tde")
	}
	return args
}

func (x *executor) sandboxArgs(ls *liveSetup) []string {
	s := x.plan.Suite
	args := []string{"sandbox", "up", "--engine", ls.Engine, "--dir", ls.sandboxDir, "--variant", ls.variant.Layers()}
	if ls.variant.TLSVersion != "" {
		args = append(args, "--tls-version", ls.variant.TLSVersion)
	}
	if s.BufferPool != "" {
		args = append(args, "--buffer-pool", s.BufferPool)
	}
	if ls.variant.TDE && s.TDECipher != "" {
		args = append(args, "--tde-cipher", s.TDECipher)
	}
	if x.serverCPUs != "" {
		args = append(args, "--server-cpus", x.serverCPUs)
	}
	return args
}

func (x *executor) prepareArgs(ls *liveSetup, wl string) []string {
	args := append([]string{"prepare", wl}, x.targetArgs(ls)...)
	args = append(args, suite.Args(x.plan.Suite.DataOptions())...)
	loaders := min(4, runtime.NumCPU())
	if t, err := strconv.Atoi(x.plan.Suite.DataOptions()["tables"]); err == nil && t < loaders {
		loaders = max(t, 1)
	}
	args = append(args, "--threads", strconv.Itoa(loaders))
	if ls.Sandbox {
		args = append(args, "--force")
	}
	return args
}

func (x *executor) runArgs(ls *liveSetup, c suite.Cell) []string {
	s := x.plan.Suite
	args := append([]string{c.Workload}, x.targetArgs(ls)...)
	args = append(args, suite.Args(s.DataOptions())...)
	args = append(args, suite.Args(c.Options)...)
	args = append(args, "--threads", strconv.Itoa(c.Threads), "--time", strconv.Itoa(s.Time),
		"--warmup-time", strconv.Itoa(s.Warmup), "--repetition", strconv.Itoa(c.Repetition))
	if ls.variant.ColumnSet != "" {
		// Reports group by the suite's variant, whatever the engine's spec.
		args = append(args, "--variant-name", c.Variant)
	}
	if x.clientCPUs != "" {
		args = append(args, "--client-cpus", x.clientCPUs)
	}
	if ls.target.ServerPID > 0 {
		args = append(args, "--server-pid", strconv.Itoa(ls.target.ServerPID))
	}
	return args
}

// display is a command line safe to print: DSN passwords redacted.
func display(args []string) string {
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = shellWord(a)
		if i > 0 && args[i-1] == "--dsn" {
			if t, err := engine.ParseTarget(a, engine.TLSOptions{}); err == nil {
				out[i] = "'" + t.Redacted() + "'"
			}
		}
	}
	if len(out) > 0 && out[0] != "prepare" {
		out = append([]string{"run"}, out...)
	}
	return strings.Join(out, " ")
}

// shellWord quotes an argument a shell would split or drop.
func shellWord(a string) string {
	if a != "" && !strings.ContainsAny(a, " \t\n'\"\\$`;&|<>()*?[]{}~#!") {
		return a
	}
	return "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
}

func (x *executor) cellPath(c suite.Cell) string {
	return filepath.Join(x.dir, cellsDir, c.ID+".json")
}

// done says whether a cell has a complete result already.
func (x *executor) done(c suite.Cell) bool {
	r, err := result.ReadFile(x.cellPath(c))
	return err == nil && !r.Partial
}

func (x *executor) execute(ctx context.Context) error {
	var pending []suite.Cell
	need := map[string]bool{}
	for _, c := range x.plan.Cells {
		if x.done(c) {
			x.finished++
			continue
		}
		pending = append(pending, c)
		need[c.Setup] = true
	}
	total := len(x.plan.Cells)
	for _, sk := range x.plan.Skipped {
		fmt.Fprintf(x.stderr, "encbench: skipped %s\n", sk)
	}
	if len(pending) == 0 {
		fmt.Fprintf(x.stdout, "all %d cells of suite %s are finished in %s\n", total, x.plan.Suite.Name, x.dir)
		return nil
	}
	if x.finished > 0 {
		fmt.Fprintf(x.stdout, "resuming suite %s: %d of %d cells finished, %d to run\n", x.plan.Suite.Name, x.finished, total, len(pending))
	}
	defer x.stopSandboxes()
	if err := x.startSetups(ctx, need); err != nil {
		return x.interrupted(ctx, err)
	}
	prog := newProgress(x.stdout, total, x.finished)
	defer prog.close()
	for _, c := range pending {
		if ctx.Err() != nil {
			break
		}
		ls := x.setups[c.Setup]
		prog.cellStart(c)
		if ls.err != nil {
			x.failed++
			prog.cellDone(c, nil, fmt.Errorf("setup %s failed: %w", ls.ID, ls.err))
			continue
		}
		res, err := x.runCell(ctx, ls, c, prog.live)
		if res != nil && !res.Partial && err == nil {
			x.finished++
		} else if ctx.Err() == nil {
			x.failed++
		}
		prog.cellDone(c, res, err)
	}
	prog.close()
	if ctx.Err() != nil {
		return x.interrupted(ctx, ctx.Err())
	}
	if x.failed > 0 {
		return fmt.Errorf("%d of %d cells failed (see %s); rerun with --resume to retry them", x.failed, total, filepath.Join(x.dir, logsDir))
	}
	return nil
}

func (x *executor) interrupted(ctx context.Context, err error) error {
	if ctx.Err() == nil {
		return err
	}
	return fmt.Errorf("interrupted: %d of %d cells finished; continue with `encbench suite run %s --out %s --resume`",
		x.finished, len(x.plan.Cells), x.plan.Suite.Name, x.dir)
}

// startSetups brings up every needed sandbox first, then prepares each
// data set once: all variants stay up so cells can interleave.
func (x *executor) startSetups(ctx context.Context, need map[string]bool) error {
	for _, su := range x.plan.Setups {
		ls := x.setups[su.ID]
		if !need[su.ID] || !ls.Sandbox {
			continue
		}
		fmt.Fprintf(x.stdout, "starting sandbox %s\n", su.ID)
		if err := x.startSandbox(ctx, ls); err != nil {
			if ctx.Err() != nil {
				return err
			}
			ls.err = err
			fmt.Fprintf(x.stderr, "encbench: sandbox %s: %s\n", su.ID, oneLine(err))
		}
	}
	for _, su := range x.plan.Setups {
		ls := x.setups[su.ID]
		if !need[su.ID] || ls.err != nil {
			continue
		}
		fmt.Fprintf(x.stdout, "preparing %s (%s)\n", su.ID, strings.Join(suite.Args(x.plan.Suite.DataOptions()), " "))
		if err := x.prepare(ctx, ls); err != nil {
			if ctx.Err() != nil {
				return err
			}
			ls.err = err
			fmt.Fprintf(x.stderr, "encbench: preparing %s: %s\n", su.ID, oneLine(err))
		}
	}
	return nil
}

func (x *executor) startSandbox(ctx context.Context, ls *liveSetup) error {
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
	s := x.plan.Suite
	_, err := sandbox.Up(ctx, sandbox.Options{Engine: ls.Engine, Dir: ls.sandboxDir, BufferPool: s.BufferPool,
		Variant: ls.variant.Layers(), TLSVersion: ls.variant.TLSVersion, TDECipher: s.TDECipher, ServerCPUs: x.serverCPUs})
	return err
}

func (x *executor) stopSandboxes() {
	for _, su := range x.plan.Setups {
		ls := x.setups[su.ID]
		if !ls.Sandbox {
			continue
		}
		if _, err := sandbox.Load(ls.sandboxDir); err != nil {
			continue
		}
		if err := sandbox.Down(ls.sandboxDir); err != nil {
			fmt.Fprintf(x.stderr, "encbench: stopping sandbox %s: %s\n", su.ID, oneLine(err))
			continue
		}
		// Keep the server's log with the results; the data can go.
		_ = os.Rename(filepath.Join(ls.sandboxDir, "log"), filepath.Join(x.dir, logsDir, su.ID+"-server"))
		_ = os.RemoveAll(ls.sandboxDir)
	}
}

// prepare loads each workload family's data set once.
func (x *executor) prepare(ctx context.Context, ls *liveSetup) error {
	log, err := os.Create(filepath.Join(x.dir, logsDir, ls.ID+"-prepare.log"))
	if err != nil {
		return fmt.Errorf("creating prepare log: %w", err)
	}
	defer log.Close()
	var prepared []int
	for _, w := range x.plan.Suite.Workloads {
		if !w.RunsOn(ls.target) || !w.RunsIn(ls.Variant) {
			continue
		}
		b := &benchFlags{}
		fs := newFlagSet()
		b.bind(fs)
		var force bool
		fs.BoolVar(&force, "force", false, "")
		fs.BoolVar(&b.tde, "tde", false, "")
		args := x.prepareArgs(ls, w.Name)
		if err := fs.Parse(args[1:]); err != nil {
			return errs.Usage("preparing %s: %v", w.Name, err)
		}
		fam, err := workload.Lookup(b.families, w.Name)
		if err != nil {
			return err
		}
		idx := slices.Index(b.families, fam)
		if slices.Contains(prepared, idx) {
			continue
		}
		prepared = append(prepared, idx)
		fmt.Fprintf(log, "$ encbench %s\n", display(args))
		t, wl, err := b.resolve(fs.Args(), log)
		if err != nil {
			return err
		}
		if err := wl.Prepare(ctx, b.env(t, force, log)); err != nil {
			return fmt.Errorf("prepare %s: %w", w.Name, err)
		}
	}
	return nil
}

// runCell measures one cell and writes its result; an interrupted cell is
// kept as .partial.json and runs again on resume.
func (x *executor) runCell(ctx context.Context, ls *liveSetup, c suite.Cell, live func(float64)) (*result.Result, error) {
	log, err := os.Create(filepath.Join(x.dir, logsDir, c.ID+".log"))
	if err != nil {
		return nil, fmt.Errorf("creating cell log: %w", err)
	}
	defer log.Close()
	r := &runFlags{}
	fs := newFlagSet()
	r.bindRun(fs)
	args := x.runArgs(ls, c)
	if err := fs.Parse(args); err != nil {
		return nil, errs.Usage("cell %s: %v", c.ID, err)
	}
	fmt.Fprintf(log, "$ encbench %s\n\n", display(args))
	r.onInterval = func(iv runner.Interval) { live(iv.TPS) }
	res, err := r.run(ctx, log, log, fs.Args())
	if err != nil {
		fmt.Fprintf(log, "\nencbench: %v\n", err)
	}
	if res == nil {
		return nil, err
	}
	res.Suite = &result.SuiteRef{Name: x.plan.Suite.Name, Cell: c.ID, Setup: c.Setup, Target: c.Target}
	res.Workload.Label = c.Label
	res.Variant.Name = c.Variant
	res.Command = "encbench " + display(args)
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
