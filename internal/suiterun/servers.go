package suiterun

import (
	"context"
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
	"github.com/encbench/encbench/internal/layer"
	"github.com/encbench/encbench/internal/layer/colenc"
	tdelayer "github.com/encbench/encbench/internal/layer/tde"
	tlslayer "github.com/encbench/encbench/internal/layer/tls"
	"github.com/encbench/encbench/internal/orchestrator"
	"github.com/encbench/encbench/internal/sandbox"
	"github.com/encbench/encbench/internal/spec"
	"github.com/encbench/encbench/internal/suite"
	"github.com/encbench/encbench/internal/variant"
	"github.com/encbench/encbench/internal/workload"
)

// servers are the suite's setups: their servers (sandboxes started,
// restarted and stopped, DSN targets checked) and data sets, and each
// cell's spec on them.
type servers struct {
	Plan     *suite.Plan
	Dir      suite.Dir
	Registry *workload.Registry
	Stdout   io.Writer
	Stderr   io.Writer
	led      *ledger

	setups map[string]*liveSetup
	// reuse are the data sets pre-flight found on DSN targets with this
	// suite's parameters, by setup and family.
	reuse map[string]*orchestrator.DataSet
	// replace are the data sets of other parameters that recreate_data
	// lets the suite replace.
	replace map[string]bool
	// instance is the repetition (Plan.Instance) each server was
	// (re)started for, and cold the servers restarted since, which the
	// next block warms up.
	instance   map[string]int
	cold       map[string]bool
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
	// main is a DSN target's DSN parsed once, parsed the DSN this setup
	// runs on (main, or its tde_dsn or database of copies); each phase
	// adds its TLS (WithTLS).
	main, parsed engine.Target
}

// host is the setup that owns the host ls runs on.
func (ls *liveSetup) host() *liveSetup {
	if ls.owner != nil {
		return ls.owner
	}
	return ls
}

// quietMachine knows every server of the suite by its owning setup.
func (x *servers) quietMachine() *quietMachine {
	q := newQuietMachine()
	for _, su := range x.Plan.Setups {
		ls := x.setups[su.ID]
		if ls.owner != nil {
			continue // the quiet machine knows servers by their owners
		}
		var quiesce func(context.Context) error
		if info, err := sandbox.Load(ls.sandboxDir); ls.Sandbox && err == nil {
			quiesce = func(ctx context.Context) error { return sandbox.Quiesce(ctx, info) }
		}
		q.add(su.ID, ls.pid, ls.Sandbox, quiesce)
	}
	return q
}

// startSetups brings up every needed sandbox first, then prepares each
// data set once: all variants stay up so cells can interleave.
func (x *servers) startSetups(ctx context.Context, need map[string]bool) error {
	// A server is needed when any setup on it is.
	for _, su := range x.Plan.Setups {
		need[su.ServerID()] = need[su.ServerID()] || need[su.ID]
	}
	for _, su := range x.Plan.Setups {
		ls := x.setups[su.ID]
		if !need[su.ID] || !ls.Sandbox || ls.owner != nil {
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
		if !need[su.ID] || ls.err != nil || ls.owner != nil {
			continue // setups sharing a server use its owner's data
		}
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

func (x *servers) startSandbox(ctx context.Context, ls *liveSetup) error {
	// A resumed suite starts from a fresh server: the old one was stopped.
	if info, err := sandbox.Load(ls.sandboxDir); err == nil {
		_ = sandbox.Down(info.Dir)
	}
	// A server whose state file is gone (its directory overwritten) still
	// runs from it: the directory is not reused while it does.
	procs, err := sandbox.StopServersUnder(ls.sandboxDir)
	for _, p := range procs {
		fmt.Fprintf(x.Stderr, "encbench: stopped server pid %d, still running from %s: %s\n", p.PID, ls.sandboxDir, p.Command)
	}
	if err != nil {
		return fmt.Errorf("clearing %s: %w", ls.sandboxDir, err)
	}
	if err := os.RemoveAll(ls.sandboxDir); err != nil {
		return fmt.Errorf("clearing %s: %w", ls.sandboxDir, err)
	}
	if err := os.MkdirAll(filepath.Dir(ls.sandboxDir), 0o755); err != nil {
		return fmt.Errorf("creating %s: %w", filepath.Dir(ls.sandboxDir), err)
	}
	o := x.sandboxOptions(ls)
	o.Owner = sandbox.Self()
	info, err := sandbox.Up(ctx, o)
	if err == nil {
		ls.pid = info.PID
	}
	return err
}

func (x *servers) stopSandboxes() {
	for _, su := range x.Plan.Setups {
		ls := x.setups[su.ID]
		if !ls.Sandbox || ls.owner != nil {
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
		_ = os.Rename(filepath.Join(ls.sandboxDir, "log"), x.Dir.Log(su.ID+"-server"))
		_ = os.RemoveAll(ls.sandboxDir)
	}
}

// prepare loads each workload family's data set once per setup.
func (x *servers) prepare(ctx context.Context, ls *liveSetup) error {
	log, err := os.Create(x.Dir.Log(ls.ID + "-prepare.log"))
	if err != nil {
		return fmt.Errorf("creating prepare log: %w", err)
	}
	defer log.Close()
	var prepared []string
	said := false
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
			return errs.Usage("preparing %s: %w", w.Name, err)
		}
		if !ls.Sandbox {
			if x.reuseData(ls, fam.Name()) {
				continue
			}
			// Only encbench's own data set is replaced (cleanup drops
			// what encbench created; prepare then refuses anything else).
			if x.replace[ls.ID+"/"+fam.Name()] {
				c := s
				c.Command = spec.Cleanup
				fmt.Fprintf(log, "$ %s\n", c.Display())
				if err := orchestrator.Cleanup(ctx, c, x.Registry, log); err != nil {
					return fmt.Errorf("replacing the %s data set: %w", fam.Name(), err)
				}
			}
		}
		if !said {
			fmt.Fprintf(x.Stdout, "preparing %s (%s)\n", ls.ID, strings.Join(suite.Args(x.Plan.Suite.DataOptions()), " "))
			said = true
		}
		fmt.Fprintf(log, "$ %s\n", s.Display())
		if err := orchestrator.Prepare(ctx, s, x.Registry, log); err != nil {
			return fmt.Errorf("prepare %s: %w", w.Name, err)
		}
	}
	return nil
}

// sandboxOptions are the owner's server: its own layers, TLS offered but
// not required when setups sharing it connect with and without TLS, and
// a version pinned on the server only when nothing shares it (sharers pin
// their version in the client).
func (x *servers) sandboxOptions(ls *liveSetup) sandbox.Options {
	st := x.Plan.Suite
	v := variant.Of(ls.variant.ServerLayers()...)
	if ls.offerTLS {
		v = v.With(layer.Spec{Layer: "tls"})
	}
	tls, _ := tlslayer.Of(ls.variant.Layers)
	tdeCipher := st.TDECipher
	if c, _ := tdelayer.Of(ls.variant.Layers); c != "" {
		tdeCipher = c
	}
	o := sandbox.Options{Engine: ls.Engine, Dir: ls.sandboxDir, BufferPool: st.BufferPool, Variant: v.String(),
		TDECipher: tdeCipher, ServerCPUs: x.serverCPUs, TLSOptional: ls.shared && v.Has("tls"), Settings: st.SettingsFor(ls.Engine),
		Replicas: ls.target.Replicas, Sync: ls.target.Sync,
		// Quiesce vacuums and analyzes between runs, so no maintenance
		// starts inside one.
		NoAutovacuum: sandbox.HasAutovacuum(ls.Engine)}
	if !ls.shared || tls.ServerChoosesCipher() {
		// A TLS 1.3 suite is the server's choice: every setup on this
		// server pins the same one (dataKey).
		o.TLSVersion, o.TLSCipher = tls.Version, tls.Cipher
	}
	// Setups share a server only with the same certificate (dataKey).
	o.CertAlgorithm, o.ClientCert = tls.Cert, tls.ClientCert
	return o
}

// baseSpec is a phase of a workload on a setup's server with its
// encryption layers and the suite's data set.
func (x *servers) baseSpec(cmd spec.Command, ls *liveSetup, name string) (spec.Spec, error) {
	fam, err := x.Registry.Lookup(name)
	if err != nil {
		return spec.Spec{}, err
	}
	s := spec.New(cmd, name, fam)
	if cmd == spec.Run {
		s.Server.SessionAttrs = ls.target.SessionAttrs
	}
	tls, hasTLS := tlslayer.Of(ls.variant.Layers)
	if ls.Sandbox {
		s.Server.Sandbox = ls.sandboxDir
		s.Server.TLS.Version, s.Server.TLS.Cipher, s.Server.TLS.ServerKey = tls.Version, tls.Cipher, tls.Cert
		s.Server.TLS.ClientAuth = tls.ClientCert
		if !hasTLS {
			// Said, not implied by the sandbox's DSN: a server shared with
			// TLS variants offers TLS too.
			s.Server.TLS.Mode = engine.TLSDisable
		}
	} else {
		t := ls.target
		s.Server.DSN = t.DSN
		s.Server.TLS = engine.TLSOptions{Mode: engine.TLSDisable}
		if hasTLS {
			s.Server.TLS = engine.TLSOptions{Mode: engine.TLSVerifyFull, CAFile: t.TLSCA, CertFile: t.TLSCert, KeyFile: t.TLSKey,
				Version: tls.Version, Cipher: tls.Cipher, ServerKey: tls.Cert, ClientAuth: tls.ClientCert}
		}
		s.TDE = ls.variant.Has("tde")
		s.Server.ServerPID = ls.pid // tde_dsn's own server for a tde variant
	}
	if err := x.applyColumns(&s, ls); err != nil {
		return s, err
	}
	if cmd != spec.Check {
		s.Layers = ls.variant.PluginNames()
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
func (x *servers) applyColumns(s *spec.Spec, ls *liveSetup) error {
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
	col, _ := colenc.Of(v.Layers)
	value := strconv.Itoa(col.Level)
	var extra map[string]string
	if col.Set != "" {
		set := x.Plan.Suite.ColumnSets[col.Set]
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

func (x *servers) prepareSpec(ls *liveSetup, name string) (spec.Spec, error) {
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

func (x *servers) cellSpec(ls *liveSetup, c suite.Cell) (spec.Spec, error) {
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
	s.Runner.Time, s.Runner.Events, s.Runner.Warmup = time.Duration(st.Time)*time.Second, 0, time.Duration(st.Warmup)*time.Second
	s.Runner.Repetition = c.Repetition
	s.Runner.Rate = c.Rate
	s.Runner.ClientCPUs = x.clientCPUs
	// Reports group by the suite's variant, whatever the engine's spec.
	s.VariantName = c.Variant
	return s, nil
}

func (x *servers) sandboxLine(ls *liveSetup) string {
	o := x.sandboxOptions(ls.host())
	args := []string{"encbench", "sandbox", "up", "--engine", o.Engine, "--dir", o.Dir, "--variant", o.Variant}
	if o.TLSVersion != "" {
		args = append(args, "--tls-version", o.TLSVersion)
	}
	if o.TLSCipher != "" {
		args = append(args, "--tls-cipher", o.TLSCipher)
	}
	if o.CertAlgorithm != "" {
		args = append(args, "--cert-key", o.CertAlgorithm)
	}
	if o.ClientCert {
		args = append(args, "--client-cert")
	}
	if o.TLSOptional {
		args = append(args, "--tls-optional")
	}
	if o.BufferPool != "" {
		args = append(args, "--buffer-pool", o.BufferPool)
	}
	if ls.variant.Has("tde") && o.TDECipher != "" {
		args = append(args, "--tde-cipher", o.TDECipher)
	}
	if o.ServerCPUs != "" {
		args = append(args, "--server-cpus", o.ServerCPUs)
	}
	if o.NoAutovacuum {
		args = append(args, "--autovacuum=false")
	}
	if o.Replicas > 0 {
		args = append(args, "--replicas", strconv.Itoa(o.Replicas))
	}
	if o.Sync {
		args = append(args, "--sync")
	}
	for _, kv := range o.Settings {
		args = append(args, "--set", kv)
	}
	for i, a := range args {
		args[i] = spec.ShellWord(a)
	}
	return strings.Join(args, " ")
}

// reusedData are the setups whose DSN target already held the suite's data
// set (pre-flight found it), with when it was prepared.
func (x *servers) reusedData() map[string]string {
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

// reuseData says whether pre-flight found this suite's data set for a
// family already on the setup's DSN target (then it is not loaded again).
func (x *servers) reuseData(ls *liveSetup, family string) bool {
	ds := x.reuse[ls.ID+"/"+family]
	if ds == nil {
		return false
	}
	fmt.Fprintf(x.Stdout, "reusing the %s data set on %s, prepared %s with the same parameters (%s)\n", family, ls.target.Name, ds.PreparedAt, ds.Params)
	return true
}
