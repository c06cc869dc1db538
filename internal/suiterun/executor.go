package suiterun

import (
	"fmt"
	"github.com/encbench/encbench/internal/orchestrator"
	"io"
	"maps"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/encbench/encbench/internal/engine"
	"github.com/encbench/encbench/internal/result"
	"github.com/encbench/encbench/internal/sandbox"
	"github.com/encbench/encbench/internal/spec"
	"github.com/encbench/encbench/internal/suite"
	"github.com/encbench/encbench/internal/variant"
	"github.com/encbench/encbench/internal/workload"
)

// Progress shows a suite's advance; the CLI draws it.
type Progress interface {
	CellStart(c suite.Cell)
	Live(tps float64)
	CellDone(c suite.Cell, res *result.Result, err error)
	// Grow adds cells that a precision target asked for.
	Grow(n int)
	// Bound says how far a precision target may grow the suite: to at
	// most mostCells cells, and past no deadline (zero: no budget).
	Bound(mostCells int, deadline time.Time)
	Close()
}

// Executor executes a suite plan: sandboxes up, data prepared once per
// setup, cells in the plan's interleaved order, sandboxes down.
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
	// Finished and Failed count cells once Execute returns; Reruns the
	// attempts discarded as disturbed.
	Finished, Failed, Reruns int
	// failures are this execution's failed cells by variant, with the
	// first cause, for plan.json and the report.
	failures map[string]suite.Failure
	// reuse are the data sets pre-flight found on DSN targets with this
	// suite's parameters, by setup and family.
	reuse map[string]*orchestrator.DataSet
	// replace are the data sets of other parameters that recreate_data
	// lets the suite replace.
	replace map[string]bool
	// noRoom is the first write the file system refused for lack of
	// space (or being read-only): the suite stops there.
	noRoom error
	// BudgetSpent says the budget stopped blocks a precision target wanted.
	BudgetSpent bool
	// noise is the machine's own steadiness, checked before measuring.
	noise *suite.MachineNoise

	cellTimes []time.Duration
	// results are complete cell results by cell ID (resultOf).
	results map[string]*result.Result

	setups map[string]*liveSetup
	// instance is the repetition (Plan.Instance) each server was
	// (re)started for, and cold the servers restarted since, which the
	// next block warms up.
	instance map[string]int
	cold     map[string]bool
	// autoTurns are the turns chosen per group (suites without turn:).
	autoTurns  map[suite.Group]*autoTurn
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
	// pid is the server's, when known (sandboxes, server_pid), and err
	// why its start or prepare failed; both are the owner's (see server).
	pid int
	err error
	// owner is the setup whose server and data this one uses (nil: its
	// own); shared says other setups use this one's server, and offerTLS
	// that some of them connect over TLS.
	owner            *liveSetup
	shared, offerTLS bool
	// copies is the database of a DSN target's server that holds the
	// encrypted copies of its tables (a tde variant without tde_dsn).
	copies string
}

// server is the setup that owns the server ls runs on.
func (ls *liveSetup) server() *liveSetup {
	if ls.owner != nil {
		return ls.owner
	}
	return ls
}

// sandboxOptions are the owner's server: its own layers, TLS offered but
// not required when setups sharing it connect with and without TLS, and
// a version pinned on the server only when nothing shares it (sharers pin
// their version in the client).
func (x *Executor) sandboxOptions(ls *liveSetup) sandbox.Options {
	st := x.Plan.Suite
	v := variant.Variant{TLS: ls.variant.TLS || ls.offerTLS, TDE: ls.variant.TDE}
	o := sandbox.Options{Engine: ls.Engine, Dir: ls.sandboxDir, BufferPool: st.BufferPool, Variant: v.String(),
		TDECipher: st.TDECipher, ServerCPUs: x.serverCPUs, TLSOptional: ls.shared && v.TLS, Settings: st.SettingsFor(ls.Engine),
		// Quiesce vacuums and analyzes between runs, so no maintenance
		// starts inside one.
		NoAutovacuum: sandbox.HasAutovacuum(ls.Engine)}
	if !ls.shared {
		o.TLSVersion = ls.variant.TLSVersion
	}
	return o
}

// baseSpec is a phase of a workload on a setup's server with its
// encryption layers and the suite's data set.
func (x *Executor) baseSpec(cmd spec.Command, ls *liveSetup, name string) (spec.Spec, error) {
	fam, err := x.Registry.Lookup(name)
	if err != nil {
		return spec.Spec{}, err
	}
	s := spec.New(cmd, name, fam)
	if ls.Sandbox {
		s.Server.Sandbox = ls.sandboxDir
		s.Server.TLS.Version = ls.variant.TLSVersion
		if !ls.variant.TLS {
			// Said, not implied by the sandbox's DSN: a server shared with
			// TLS variants offers TLS too.
			s.Server.TLS.Mode = engine.TLSDisable
		}
	} else {
		t := ls.target
		s.Server.DSN = t.DSN
		s.Server.TLS = engine.TLSOptions{Mode: engine.TLSDisable}
		if ls.variant.TLS {
			s.Server.TLS = engine.TLSOptions{Mode: engine.TLSVerifyFull, CAFile: t.TLSCA, CertFile: t.TLSCert, KeyFile: t.TLSKey, Version: ls.variant.TLSVersion}
		}
		s.TDE = ls.variant.TDE
		s.Server.ServerPID = ls.pid // tde_dsn's own server for a tde variant
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
func (x *Executor) applyColumns(s *spec.Spec, ls *liveSetup) error {
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
	keys := x.Dir.Keys()
	sets := map[string]string{opt: value, "master-key-file": filepath.Join(keys, "master.json"), "keyset": filepath.Join(keys, "keyset.json")}
	maps.Copy(sets, extra)
	for _, k := range slices.Sorted(maps.Keys(sets)) {
		if err := s.Set(k, sets[k]); err != nil {
			return fmt.Errorf("variant %s: %w", v, err)
		}
	}
	return nil
}

func (x *Executor) prepareSpec(ls *liveSetup, name string) (spec.Spec, error) {
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

func (x *Executor) cellSpec(ls *liveSetup, c suite.Cell) (spec.Spec, error) {
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

func (x *Executor) sandboxLine(ls *liveSetup) string {
	o := x.sandboxOptions(ls.server())
	args := []string{"encbench", "sandbox", "up", "--engine", o.Engine, "--dir", o.Dir, "--variant", o.Variant}
	if o.TLSVersion != "" {
		args = append(args, "--tls-version", o.TLSVersion)
	}
	if o.TLSOptional {
		args = append(args, "--tls-optional")
	}
	if o.BufferPool != "" {
		args = append(args, "--buffer-pool", o.BufferPool)
	}
	if ls.variant.TDE && o.TDECipher != "" {
		args = append(args, "--tde-cipher", o.TDECipher)
	}
	if o.ServerCPUs != "" {
		args = append(args, "--server-cpus", o.ServerCPUs)
	}
	if o.NoAutovacuum {
		args = append(args, "--autovacuum=false")
	}
	for _, kv := range o.Settings {
		args = append(args, "--set", kv)
	}
	for i, a := range args {
		args[i] = spec.ShellWord(a)
	}
	return strings.Join(args, " ")
}

// Record is plan.json: the plan, how it was started and how to reproduce
// each setup by hand.
func (x *Executor) Record() suite.Record {
	d := suite.Record{Plan: x.Plan, Command: x.Command,
		CreatedAt: time.Now().UTC().Format(time.RFC3339), ClientCPUs: x.clientCPUs, ServerCPUs: x.serverCPUs,
		Reproduce: map[string]string{}, BudgetSpent: x.BudgetSpent, Noise: x.noise, Failed: x.failures, ReusedData: x.reusedData()}
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
		if ls.owner != nil && ls.owner != ls {
			// The owner's server and data serve this setup too.
			lines = append(lines, "# the data set is "+ls.owner.ID+"'s, prepared once")
		} else if ps, err := x.prepareSpec(ls, first.Name); err == nil {
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

// failed counts a failed cell and keeps its variant's first cause.
func (x *Executor) failed(c suite.Cell, err error) {
	x.Failed++
	if x.failures == nil {
		x.failures = map[string]suite.Failure{}
	}
	f := x.failures[c.Variant]
	f.Cells++
	if f.Cause == "" {
		f.Cause = "partial result (the run was cut short)"
		if err != nil {
			f.Cause = firstLine(err)
		}
	}
	x.failures[c.Variant] = f
}

func (x *Executor) cellPath(c suite.Cell) string {
	return x.Dir.Cell(c.ID)
}

// done says whether a cell has a complete result already.
func (x *Executor) done(c suite.Cell) bool { return x.resultOf(c) != nil }

// resultOf is a cell's complete result, or nil: read from the suite
// directory once, then kept, so the precision rule does not re-read every
// finished cell after each block.
func (x *Executor) resultOf(c suite.Cell) *result.Result {
	if r, ok := x.results[c.ID]; ok {
		return r
	}
	r, err := result.ReadFile(x.cellPath(c))
	if err != nil || r.Partial {
		return nil
	}
	x.keep(c, r)
	return r
}

func (x *Executor) keep(c suite.Cell, r *result.Result) {
	if x.results == nil {
		x.results = map[string]*result.Result{}
	}
	x.results[c.ID] = r
}

// ms is a duration in milliseconds, as results give them.
func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// reusedData are the setups whose DSN target already held the suite's data
// set (pre-flight found it), with when it was prepared.
func (x *Executor) reusedData() map[string]string {
	if len(x.reuse) == 0 {
		return nil
	}
	out := map[string]string{}
	for key, ds := range x.reuse {
		setup, _, _ := strings.Cut(key, "/")
		out[setup] = ds.PreparedAt
	}
	return out
}

// firstLine is an error's first line, for a one-line message.
func firstLine(err error) string {
	msg, _, _ := strings.Cut(err.Error(), "\n")
	return msg
}
