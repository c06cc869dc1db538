package orchestrator

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/encbench/encbench/internal/engine"
	"github.com/encbench/encbench/internal/engine/tlsconf"
	"github.com/encbench/encbench/internal/errs"
	"github.com/encbench/encbench/internal/explain"
	"github.com/encbench/encbench/internal/locale"
	"github.com/encbench/encbench/internal/measure"
	"github.com/encbench/encbench/internal/netem"
	"github.com/encbench/encbench/internal/result"
	"github.com/encbench/encbench/internal/runner"
	"github.com/encbench/encbench/internal/runset"
	"github.com/encbench/encbench/internal/spec"
	"github.com/encbench/encbench/internal/variant"
	"github.com/encbench/encbench/internal/workload"
)

// Output is where a run writes: its progress and summary to Stdout,
// notices to Stderr; OnInterval sees every interval (a suite's display).
type Output struct {
	Stdout, Stderr io.Writer
	OnInterval     func(runner.Interval)
	// Summary, when set, prints the finished run's summary to Stdout: the
	// caller says how (report.Summary), so a run links no report code.
	Summary func(io.Writer, *result.Result)
}

// runnerConfig turns the spec's runner settings into the runner's.
func runnerConfig(s spec.Spec, t engine.Target, out io.Writer) (runner.Config, error) {
	r := s.Runner
	switch {
	case r.Time < 0 || r.Events < 0 || r.Warmup < 0 || r.Rate < 0 || r.ReportInterval < 0:
		return runner.Config{}, errs.Usage("--time, --events, --warmup-time, --rate and --report-interval must not be negative")
	case r.Time == 0 && r.Events == 0:
		return runner.Config{}, errs.Usage("--time=0 needs --events: the run would never end")
	case r.Percentile <= 0 || r.Percentile > 100:
		return runner.Config{}, errs.Usage("--percentile must be in (0, 100]")
	case s.Threads < 1:
		return runner.Config{}, errs.Usage("--threads must be at least 1")
	}
	cpus, err := ParseCPUList(r.ClientCPUs)
	if err != nil {
		return runner.Config{}, err
	}
	if r.MaxTries < 0 || r.MaxReconnects < 0 || r.ReconnectTimeout < 0 {
		return runner.Config{}, errs.Usage("--max-tries, --max-reconnects and --reconnect-timeout must not be negative")
	}
	ignore, err := engine.ParseIgnoreSet(r.IgnoreErrors)
	if err != nil {
		return runner.Config{}, err
	}
	if r.IgnoreErrors == "" {
		ignore, err = engine.ParseIgnoreSet(strings.Join(t.Engine.DefaultIgnoredErrors(), ","))
		if err != nil {
			return runner.Config{}, fmt.Errorf("the %s engine's default ignored errors: %w", t.Engine.Kind(), err)
		}
	}
	pid := s.Server.ServerPID
	if s.Server.ServerProcess != "" && pid == 0 {
		if pid, err = measure.FindProcess(s.Server.ServerProcess); err != nil {
			return runner.Config{}, errs.Usage("--server-process: %w", err)
		}
	}
	return runner.Config{Settings: r, Threads: s.Threads, Ignore: ignore, Out: out, ServerPID: pid, MemberPIDs: s.Server.MemberPIDs, CPUs: cpus}, nil
}

// Run proves the spec's encryption layers from the server, measures the
// workload and returns the result document (written to s.JSON if set).
// A result comes back with an error too when the run measured something
// but failed or was interrupted.
func Run(ctx context.Context, s spec.Spec, reg *workload.Registry, o Output) (*result.Result, error) {
	lr, err := Open(ctx, s, reg, o)
	if err != nil {
		return nil, err
	}
	defer lr.Close()
	if lr.cfg.Warmup > 0 {
		fmt.Fprintf(o.Stdout, "Warming up for %d seconds...\n", int(lr.spec().Runner.Warmup/time.Second))
	}
	started := time.Now()
	out, runErr := runner.Run(ctx, lr.workers, lr.rs.Workload, lr.cfg)
	if out == nil || out.Hist == nil || out.Elapsed == 0 {
		if runErr == nil {
			runErr = fmt.Errorf("run produced no measurements")
		}
		return nil, runErr
	}
	res := lr.Result(out, runErr == nil, started)
	if o.Summary != nil {
		fmt.Fprintln(o.Stdout)
		o.Summary(o.Stdout, res)
	}
	if path := lr.spec().JSON; path != "" {
		if err := result.WriteFile(path, res); err != nil {
			return nil, err
		}
		fmt.Fprintf(o.Stderr, "encbench: result written to %s\n", path)
	}
	if runErr != nil {
		return res, fmt.Errorf("run failed: %w", runErr)
	}
	if res.Partial {
		return res, fmt.Errorf("interrupted: the result covers %.1f s and is marked partial", res.DurationS)
	}
	return res, nil
}

// Live is a run's spec resolved, its server's layers proven and its
// admin connection open: what measuring needs, and what the result says
// about the server and the variant. Run measures one straight through; a
// suite's executor opens several and gives their workers turns
// (Session).
type Live struct {
	command  string
	rs       *Resolved
	caps     workload.Capabilities
	cfg      runner.Config
	workers  engine.Target
	link     *netem.Link
	admin    engine.Conn
	info     engine.ServerInfo
	genDoc   *result.Generator
	tdeProof *result.TDEProof
	colProof *result.ColencProof
	// layerProofs are the plugin layers' proofs.
	layerProofs []result.LayerProof
	regime      *result.Regime
	// lockSource names where the lock waits are read from ("": not read).
	lockSource string
	// proof is the server's view of the workers' sessions, set when they
	// connect.
	proof result.TLSProof
	// repl samples the primary's view of its replicas (nil: none).
	repl *replSampler
}

// spec is the run's spec as resolved (a sandbox's server pid filled in).
func (lr *Live) spec() spec.Spec { return lr.rs.Spec }

// Session connects the run's workers and checks their sessions, for a
// controller that runs them in turns (runner.Session.StartTurns).
func (lr *Live) Session(ctx context.Context) (*runner.Session, error) {
	return runner.Open(ctx, lr.workers, lr.rs.Workload, lr.cfg)
}

// openBound bounds Open: the admin connection (itself bounded by
// engine.ConnectTimeout), the server's settings and the proofs of every
// layer, which read catalogues and a few rows.
const openBound = time.Minute

// Open resolves the spec and proves what can be proven before any worker
// connects; its runner config checks the workers' sessions.
func Open(ctx context.Context, s spec.Spec, reg *workload.Registry, o Output) (lr *Live, err error) {
	// Connecting and proving take seconds; a server that stops answering
	// meanwhile must fail the run, not hold it (issue 54).
	ctx, cancel := context.WithTimeout(ctx, openBound)
	defer cancel()
	// The command as given: Resolve fills in what a sandbox knows (its
	// server's pid), which a reproduction must not repeat.
	lr = &Live{command: s.Display()}
	if lr.rs, err = Resolve(s, reg, o.Stderr); err != nil {
		return nil, err
	}
	s = lr.rs.Spec
	t, wl := lr.rs.Target, lr.rs.Workload
	lr.caps = wl.Capabilities()
	if lr.cfg, err = runnerConfig(s, t, o.Stdout); err != nil {
		return nil, err
	}
	lr.cfg.OnInterval = o.OnInterval
	gen, err := parseGenerator(s.Runner, s.Threads)
	if err != nil {
		return nil, err
	}
	if gen != nil {
		gen.apply(&lr.cfg)
		gen.partition(wl)
	}
	// Before anything connects: a path that cannot be emulated is a usage error.
	if lr.workers, lr.link, err = throughNetwork(t, s.Runner); err != nil {
		return nil, err
	}
	if lr.link != nil {
		// Two delay lines per worker connection (one each way).
		lr.link.KeepProcs(2 * s.Threads)
		lr.cfg.DelayLines = true
	}
	defer func() {
		if err != nil {
			if errors.Is(ctx.Err(), context.DeadlineExceeded) {
				err = fmt.Errorf("%s stopped answering: connecting and proving the layers took longer than %v: %w", t.Redacted(), openBound, err)
			}
			lr.Close()
		}
	}()
	// The admin connection's handshake shows the server's certificate.
	admin, seen := t, &engine.TLSProbe{}
	admin.Probe = seen
	if lr.admin, err = t.Engine.Connect(ctx, admin); err != nil {
		return lr, err
	}
	serverKey := seen.Last().ServerKey
	if lr.info, err = t.Engine.ServerInfo(ctx, lr.admin); err != nil {
		return lr, err
	}
	if gen != nil {
		if lr.genDoc, err = gen.checkClock(ctx, t.Engine, lr.admin); err != nil {
			return lr, err
		}
	}
	if lr.tdeProof, err = proveAtRest(ctx, t, lr.admin, wl, lr.rs.Sandbox, lr.rs.TDE); err != nil {
		return lr, err
	}
	if err := requireLayers(ctx, lr.rs, lr.admin); err != nil {
		return lr, err
	}
	if lr.layerProofs, err = proveLayers(ctx, lr.rs, lr.admin); err != nil {
		return lr, err
	}
	if lr.caps.ProveColumns != nil {
		if lr.colProof, err = lr.caps.ProveColumns(ctx, lr.admin, t); err != nil {
			if errs.ExitCode(err) == 2 { // the options refused, nothing to prove
				return lr, err
			}
			return lr, fmt.Errorf("column encryption not proven: %w", err)
		}
	}
	lr.regime = regime(ctx, t, lr.admin, wl)
	if lc, ok := t.Engine.(engine.LockCounter); ok {
		// Read on the admin connection, outside the workers' windows; a
		// server that cannot say leaves them not counted.
		if _, err := lc.LockWaits(ctx, lr.admin); err == nil {
			admin := lr.admin
			lr.cfg.LockWaits = func(ctx context.Context) (engine.LockWaits, error) { return lc.LockWaits(ctx, admin) }
			lr.lockSource = lc.LockWaitSource()
		}
	}
	var replErr error
	lr.repl, replErr = startReplication(ctx, t)
	lr.cfg.CheckSessions = func(sessions []engine.SessionTLS) error {
		lr.proof = tlsProof(t, sessions)
		lr.proof.ServerKey = serverKey
		return checkTLS(t, lr.proof)
	}
	fmt.Fprintf(o.Stdout, "encbench: %s on %s (%s), %s, TLS %s\n\n", wl.Name(), lr.info.Version, t.Redacted(), locale.Threads(lr.cfg.Threads), t.TLS.Mode)
	if replErr != nil {
		fmt.Fprintf(o.Stdout, "encbench: the replicas' state is not measured: %v\n\n", errs.OneLine(replErr))
	}
	if s.Explain {
		if err := explainFirst(ctx, t, wl, lr.cfg.Threads, o.Stdout); err != nil {
			return lr, err
		}
	}
	if link := lr.link; link != nil {
		cut := ""
		if link.Options.CutAfter > 0 {
			cut = fmt.Sprintf(", every connection cut after %v", link.Options.CutAfter)
		}
		fmt.Fprintf(o.Stdout, "Emulated network: +%v round trip (jitter %v, bandwidth %s%s) through Toxiproxy on %s\n\n",
			link.Options.RTT, link.Options.Jitter, bandwidthText(link.Options.BandwidthKBps), cut, link.Addr)
	}
	return lr, nil
}

// Close ends the run's admin connection and emulated network.
func (lr *Live) Close() {
	if lr.repl != nil {
		lr.repl.halt()
		<-lr.repl.done
	}
	if lr.admin != nil {
		lr.admin.Close()
	}
	if lr.link != nil {
		lr.link.Close()
	}
}

// Result is the result document of what the run measured; verified says
// the run ended without an error.
func (lr *Live) Result(out *runner.Outcome, verified bool, started time.Time) *result.Result {
	t, wl, caps, s := lr.rs.Target, lr.rs.Workload, lr.caps, lr.spec()
	res := assemble(out, lr.cfg, started)
	res.LockWaits = lockWaitsOf(out, lr.lockSource)
	if lr.repl != nil {
		res.Replication = lr.repl.result()
	}
	res.Target = t.Redacted()
	res.Command = lr.command
	res.Engine = result.Engine{Kind: t.Engine.Kind(), Version: lr.info.Version, Settings: lr.info.Settings}
	res.Workload = result.Workload{Name: wl.Name(), Params: wl.Params(), Schema: wl.Schema()}
	for _, p := range caps.Parts {
		res.Workload.Parts = append(res.Workload.Parts, result.Part{Name: p.Name, Label: p.Label, Role: p.Role})
	}
	if s.Runner.ReconnectPerTxn {
		res.Workload.Params["reconnect_per_txn"] = true
	}
	res.Repetition = s.Runner.Repetition
	name := variant.Observed(t.TLS.Mode != engine.TLSDisable, lr.rs.TDE, colencName(lr.colProof), layerNames(lr.layerProofs)...)
	if s.VariantName != "" {
		name = s.VariantName
	}
	res.Variant = result.Variant{Name: name, TLS: t.TLS.Mode, TDE: lr.rs.TDE, Colenc: colencName(lr.colProof),
		Verified: result.Verification{OK: verified, TLS: lr.proof, TDE: lr.tdeProof, Colenc: lr.colProof, Layers: lr.layerProofs}}
	if caps.Rates != nil {
		counts := map[string]int64{}
		for name, it := range res.Parts {
			counts[name] = it.N
		}
		res.Rates = caps.Rates(counts, rateSeconds(res))
	}
	res.Regime = lr.regime
	res.Generator = lr.genDoc
	if link := lr.link; link != nil {
		res.Network = &result.Network{RTTMs: ms(link.Options.RTT), JitterMs: ms(link.Options.Jitter),
			BandwidthKBps: link.Options.BandwidthKBps, CutAfterMs: ms(link.Options.CutAfter), Via: netem.Via}
	}
	if lr.rs.Sandbox != nil {
		res.CPU.ServerCPUs = lr.rs.Sandbox.ServerCPUs
		if d := measure.Disk(lr.rs.Sandbox.DataDir); d != "" {
			res.Environment.Disk = d
		}
	}
	return res
}

func explainFirst(ctx context.Context, t engine.Target, wl workload.Workload, threads int, out io.Writer) error {
	if !wl.Capabilities().ExplainSQL || t.Engine.Dialect().Explain == "" {
		return errs.Usage("--explain: %s on %s has no SQL plans to show", wl.Name(), t.Engine.Kind())
	}
	fmt.Fprintf(out, "Plans of the workload's statements (EXPLAIN, first execution of each):\n\n")
	n, err := explain.Run(ctx, t, wl, threads, out)
	if err != nil {
		return fmt.Errorf("--explain: %w", err)
	}
	fmt.Fprintf(out, "%d statement(s) explained.\n\n", n)
	return nil
}

// colencName is the column encryption layer's name: "colenc50" or "none".
func colencName(p *result.ColencProof) string {
	if p == nil || p.Level == 0 {
		return "none"
	}
	if p.Name != "" {
		return p.Name
	}
	return "colenc" + strconv.Itoa(p.Level)
}

func tlsProof(t engine.Target, sessions []engine.SessionTLS) result.TLSProof {
	p := result.TLSProof{Source: t.Engine.Dialect().TLSProofSource, Connections: len(sessions),
		Versions: map[string]int{}, Ciphers: map[string]int{}}
	for _, s := range sessions {
		if s.Encrypted {
			p.TLSConnections++
			p.Versions[s.Version]++
			p.Ciphers[s.Cipher]++
		}
		if s.ClientCert {
			p.ClientCerts++
		}
	}
	return p
}

// checkTLS fails a run whose connections are not what --tls promised.
func checkTLS(t engine.Target, p result.TLSProof) error {
	if t.TLS.Mode == engine.TLSDisable && p.TLSConnections > 0 {
		return fmt.Errorf("TLS was meant to be off, but the server (%s) reports %d of %d connections encrypted (%s): not reported as plain",
			p.Source, p.TLSConnections, p.Connections, sortedKeys(p.Versions))
	}
	if t.TLS.Mode != engine.TLSDisable && p.TLSConnections != p.Connections {
		return fmt.Errorf("TLS was meant to be on, but the server (%s) reports only %d of %d connections encrypted", p.Source, p.TLSConnections, p.Connections)
	}
	// A pinned version or cipher is proved too: a run named tls1.2 that
	// negotiated 1.3 measured another layer.
	for v := range p.Versions {
		if t.TLS.Version != "" && !strings.HasSuffix(v, t.TLS.Version) {
			return fmt.Errorf("TLS %s was pinned, but the server (%s) reports connections of %s", t.TLS.Version, p.Source, sortedKeys(p.Versions))
		}
	}
	if t.TLS.ClientAuth && p.ClientCerts != p.Connections {
		return fmt.Errorf("mutual TLS was asked for, but the server (%s) saw a verified client certificate on %d of %d connections", p.Source, p.ClientCerts, p.Connections)
	}
	if k := t.TLS.ServerKey; k != "" && t.TLS.Mode != engine.TLSDisable && p.ServerKey != k {
		return fmt.Errorf("a server certificate with an %s key was asked for, but the server presented one with %s", k, orNone(p.ServerKey))
	}
	if t.TLS.Cipher != "" {
		want, err := tlsconf.CipherID(t.TLS.Cipher)
		if err != nil {
			return err
		}
		for c := range p.Ciphers {
			if got, err := tlsconf.CipherID(c); err != nil || got != want {
				return fmt.Errorf("the cipher suite %s was pinned, but the server (%s) reports connections of %s", t.TLS.Cipher, p.Source, sortedKeys(p.Ciphers))
			}
		}
	}
	return nil
}

func orNone(s string) string {
	if s == "" {
		return "none seen"
	}
	return s
}

func sortedKeys(m map[string]int) string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return strings.Join(out, ", ")
}

// ParseCPUList reads CPU lists such as "0,1" or "0-3,6".
func ParseCPUList(s string) ([]int, error) {
	cpus, err := runset.CPUList(s, runtime.NumCPU())
	if err != nil {
		return nil, errs.Usage("bad --client-cpus %q: give CPUs 0-%d as a list like 0,1 or 0-1", s, runtime.NumCPU()-1)
	}
	return cpus, nil
}

// throughNetwork returns the target the workers connect to: the server
// itself, or, with --net-delay, --net-jitter or --net-bandwidth, a
// Toxiproxy proxy in front of it. The proofs and the admin connection go
// straight to the server; verify-full still checks the server's own name.
func throughNetwork(t engine.Target, r runset.Settings) (engine.Target, *netem.Link, error) {
	o := netem.Options{RTT: r.NetDelay, Jitter: r.NetJitter, BandwidthKBps: r.NetBandwidth, CutAfter: r.NetCutAfter}
	if !o.On() {
		return t, nil, nil
	}
	if err := o.Check(); err != nil {
		return t, nil, errs.Usage("%w", err)
	}
	if !everyHostHasPort(t.URL.Host) {
		return t, nil, errs.Usage("--net-delay (and every --net-* option) needs a server reached over TCP with its port in the DSN (host:port), not %s", t.Redacted())
	}
	link, err := netem.Start(t.URL.Host, o)
	if err != nil {
		return t, nil, err
	}
	u := *t.URL
	u.Host = link.Addr
	w := t
	w.URL = &u
	if w.TLS.ServerName == "" && !strings.Contains(t.URL.Host, ",") {
		w.TLS.ServerName = t.URL.Hostname()
	}
	w.AddDialWrap(func(d engine.DialFunc) engine.DialFunc { return link.DelayHandshake(d) })
	return w, link, nil
}

// everyHostHasPort: a proxy needs each host's TCP port (a host list
// gets a proxy per host).
func everyHostHasPort(hosts string) bool {
	for _, h := range strings.Split(hosts, ",") {
		if _, port, err := net.SplitHostPort(h); err != nil || port == "" || strings.HasPrefix(h, "/") {
			return false
		}
	}
	return true
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

func bandwidthText(kbps int64) string {
	if kbps == 0 {
		return "unlimited"
	}
	return strconv.FormatInt(kbps, 10) + " KB/s"
}

// rateSeconds is the time a workload's rates (tpmC) are per: the run's
// duration, or in turns the time that makes them agree with its TPS (the
// work done while the gates were open, not the drains after them, which
// are longer for a slower variant).
func rateSeconds(r *result.Result) float64 {
	if r.TurnsS > 0 && r.TPS > 0 {
		return float64(r.Totals.Transactions) / r.TPS
	}
	return r.DurationS
}
