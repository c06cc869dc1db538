package cli

import (
	"context"
	"fmt"
	"io"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/encbench/encbench/internal/encryption/colenc"
	"github.com/encbench/encbench/internal/engine"
	"github.com/encbench/encbench/internal/errs"
	"github.com/encbench/encbench/internal/explain"
	"github.com/encbench/encbench/internal/measure"
	"github.com/encbench/encbench/internal/report"
	result "github.com/encbench/encbench/internal/resultdoc"
	"github.com/encbench/encbench/internal/runner"
	"github.com/encbench/encbench/internal/sandbox"
	"github.com/encbench/encbench/internal/workload"
)

// benchFlags are shared by prepare, run and cleanup.
type benchFlags struct {
	dsn        string
	sandboxDir string
	tls        engine.TLSOptions
	workload   string
	threads    int
	families   []workload.Family
	serverPID  int
	tde        bool
	sb         *sandbox.Info
	keys       colenc.Paths
}

func (b *benchFlags) bind(fs *pflag.FlagSet) {
	fs.StringVar(&b.dsn, "dsn", "", "server to test: postgres://user:pass@host:port/db or mysql://user:pass@host:port/db")
	fs.StringVar(&b.sandboxDir, "sandbox", "", "use the sandbox running in this directory instead of --dsn")
	fs.StringVar(&b.tls.Mode, "tls", "", "transport encryption: disable (default unless the DSN has sslmode), require (no verification), verify-ca, verify-full, or on (= verify-full)")
	fs.StringVar(&b.tls.Version, "tls-version", "", "pin the TLS protocol version: 1.2 or 1.3")
	fs.StringVar(&b.tls.Cipher, "tls-cipher", "", "TLS 1.2 cipher suite (OpenSSL name, for example ECDHE-ECDSA-AES128-GCM-SHA256)")
	fs.StringVar(&b.tls.CAFile, "tls-ca", "", "CA certificate (PEM) that signed the server's certificate")
	fs.StringVar(&b.tls.CertFile, "tls-cert", "", "client certificate (PEM)")
	fs.StringVar(&b.tls.KeyFile, "tls-key", "", "client private key (PEM)")
	fs.StringVar(&b.workload, "workload", "", "workload to run (see `encbench run --help`)")
	fs.IntVar(&b.threads, "threads", 1, "number of threads to use")
	colenc.BindFlags(fs, &b.keys)
	b.families = workload.Families()
	for _, f := range b.families {
		f.BindFlags(fs)
	}
}

// resolve turns the flags into a target and a workload.
func (b *benchFlags) resolve(args []string, warn io.Writer) (engine.Target, workload.Workload, error) {
	if len(args) == 1 {
		if b.workload != "" && b.workload != args[0] {
			return engine.Target{}, nil, errs.Usage("workload given twice: %q and --workload %q", args[0], b.workload)
		}
		b.workload = args[0]
	}
	fam, err := workload.Lookup(b.families, b.workload)
	if err != nil {
		return engine.Target{}, nil, err
	}
	wl, err := fam.New(b.workload)
	if err != nil {
		return engine.Target{}, nil, err
	}
	if ku, ok := wl.(workload.KeyUser); ok {
		ku.UseKeys(b.keys)
	}
	if err := wl.Validate(b.threads); err != nil {
		return engine.Target{}, nil, err
	}
	dsn := b.dsn
	if b.sandboxDir != "" {
		if dsn != "" {
			return engine.Target{}, nil, errs.Usage("give either --dsn or --sandbox, not both")
		}
		info, err := sandbox.Load(b.sandboxDir)
		if err != nil {
			return engine.Target{}, nil, err
		}
		dsn = info.DSN
		b.sb = info
		// A TDE sandbox's tables are stored encrypted without being asked.
		b.tde = b.tde || strings.Contains(info.Variant, "tde")
		if b.serverPID == 0 {
			b.serverPID = info.PID
		}
	}
	t, err := engine.ParseTarget(dsn, b.tls)
	if err == nil && t.TLS.Mode == engine.TLSRequire {
		fmt.Fprintln(warn, "encbench: warning: --tls require encrypts but does not verify the server; use verify-full with --tls-ca for a server you do not control")
	}
	return t, wl, err
}

func (b *benchFlags) env(t engine.Target, force bool, log io.Writer) workload.Env {
	return workload.Env{Target: t, Threads: b.threads, Force: force, TDE: b.tde, Log: log}
}

const workloadArgs = "[workload]"

func workloadHelp(b *benchFlags) string {
	return "Workloads:\n" + workload.Describe(b.families)
}

func newPrepare() *cobra.Command {
	b := &benchFlags{}
	var force bool
	cmd := &cobra.Command{
		Use:   "prepare " + workloadArgs,
		Short: "Create and load the workload's tables (in parallel over --threads)",
		Args:  cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			t, wl, err := b.resolve(args, cmd.ErrOrStderr())
			if err != nil {
				return err
			}
			if err := wl.Prepare(cmd.Context(), b.env(t, force, cmd.OutOrStdout())); err != nil {
				return fmt.Errorf("prepare failed: %w", err)
			}
			return nil
		},
	}
	b.bind(cmd.Flags())
	cmd.Flags().BoolVar(&force, "force", false, "replace existing sbtest tables, even ones encbench did not create")
	cmd.Flags().BoolVar(&b.tde, "tde", false, "store the tables encrypted at rest, in the server's own syntax (MariaDB ENCRYPTED=YES, MySQL ENCRYPTION='Y', pg_tde USING tde_heap)")
	cmd.Long = workloadHelp(b)
	return cmd
}

func newCleanup() *cobra.Command {
	b := &benchFlags{}
	cmd := &cobra.Command{
		Use:   "cleanup " + workloadArgs,
		Short: "Drop the workload's tables (only those encbench created)",
		Args:  cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			t, wl, err := b.resolve(args, cmd.ErrOrStderr())
			if err != nil {
				return err
			}
			if err := wl.Cleanup(cmd.Context(), b.env(t, false, cmd.OutOrStdout())); err != nil {
				return fmt.Errorf("cleanup failed: %w", err)
			}
			return nil
		},
	}
	b.bind(cmd.Flags())
	cmd.Long = workloadHelp(b)
	return cmd
}

type runFlags struct {
	benchFlags
	time           int
	events         int64
	warmup         int
	rate           float64
	reportInterval int
	percentile     float64
	jsonPath       string
	maxReconnects  int
	repetition     int
	clientCPUs     string
	serverProcess  string
	reconnectEach  bool
	explain        bool
	variantName    string
	fs             *pflag.FlagSet
	// onInterval feeds a suite's progress display.
	onInterval func(runner.Interval)
}

func newRun() *cobra.Command {
	r := &runFlags{}
	cmd := &cobra.Command{
		Use:   "run " + workloadArgs,
		Short: "Run the workload and report throughput, latency and CPU",
		Args:  cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			_, err := r.run(cmd.Context(), cmd.OutOrStdout(), cmd.ErrOrStderr(), args)
			return err
		},
	}
	r.bindRun(cmd.Flags())
	cmd.Long = workloadHelp(&r.benchFlags)
	return cmd
}

func (r *runFlags) bindRun(fs *pflag.FlagSet) {
	r.bind(fs)
	r.fs = fs
	fs.BoolVar(&r.explain, "explain", false, "print the server's plan (EXPLAIN) of each statement of the workload once, before measuring")
	fs.StringVar(&r.variantName, "variant-name", "", "name reports group this run under (default: from the encryption layers, such as plain, tls, colenc50)")
	fs.BoolVar(&r.reconnectEach, "reconnect-per-txn", false, "open a new connection (and prepare again) for every transaction, like pgbench -C; its time counts in the latency")
	fs.IntVar(&r.time, "time", 10, "limit for total execution time in seconds (0: no limit)")
	fs.Int64Var(&r.events, "events", 0, "limit for total number of events (0: no limit)")
	fs.IntVar(&r.warmup, "warmup-time", 0, "execute events for this many seconds with statistics disabled before the measured run")
	fs.Float64Var(&r.rate, "rate", 0, "average transactions rate (0: unlimited); latency then counts from each event's intended start")
	fs.IntVar(&r.reportInterval, "report-interval", 0, "report intermediate statistics every N seconds (0: off)")
	fs.Float64Var(&r.percentile, "percentile", 95, "percentile to show in intermediate reports")
	fs.StringVar(&r.jsonPath, "json", "", "write the result document (encbench/result/v1) to this file")
	fs.IntVar(&r.serverPID, "server-pid", 0, "pid of a local server whose process tree's CPU to measure (sandboxes: automatic)")
	fs.StringVar(&r.serverProcess, "server-process", "", "name of a local server process (for example mariadbd or postgres) whose tree's CPU to measure")
	fs.IntVar(&r.maxReconnects, "max-reconnects", 3, "reconnect attempts a worker makes after losing its connection in one event")
	fs.IntVar(&r.repetition, "repetition", 1, "repetition number recorded in the result")
	fs.StringVar(&r.clientCPUs, "client-cpus", "", "pin worker threads to these CPUs, round robin (a list like 0,1 or 0-3)")
	fs.BoolVar(&r.tde, "tde", false, "the tables are encrypted at rest: prove it from the server before measuring (automatic for TDE sandboxes)")
}

func (r *runFlags) config(out io.Writer) (runner.Config, error) {
	switch {
	case r.time < 0 || r.events < 0 || r.warmup < 0 || r.rate < 0 || r.reportInterval < 0:
		return runner.Config{}, errs.Usage("--time, --events, --warmup-time, --rate and --report-interval must not be negative")
	case r.time == 0 && r.events == 0:
		return runner.Config{}, errs.Usage("--time=0 needs --events: the run would never end")
	case r.percentile <= 0 || r.percentile > 100:
		return runner.Config{}, errs.Usage("--percentile must be in (0, 100]")
	case r.threads < 1:
		return runner.Config{}, errs.Usage("--threads must be at least 1")
	}
	cpus, err := parseCPUList(r.clientCPUs)
	if err != nil {
		return runner.Config{}, err
	}
	if r.serverProcess != "" && r.serverPID == 0 {
		pid, err := measure.FindProcess(r.serverProcess)
		if err != nil {
			return runner.Config{}, errs.Usage("--server-process: %v", err)
		}
		r.serverPID = pid
	}
	return runner.Config{
		ClientCPUs:      cpus,
		Threads:         r.threads,
		Time:            time.Duration(r.time) * time.Second,
		Events:          r.events,
		Warmup:          time.Duration(r.warmup) * time.Second,
		Rate:            r.rate,
		ReportInterval:  time.Duration(r.reportInterval) * time.Second,
		Percentile:      r.percentile,
		MaxReconnects:   r.maxReconnects,
		Out:             out,
		ServerPID:       r.serverPID,
		OnInterval:      r.onInterval,
		ReconnectPerTxn: r.reconnectEach,
	}, nil
}

func (r *runFlags) run(ctx context.Context, stdout, stderr io.Writer, args []string) (*result.Result, error) {
	t, wl, err := r.resolve(args, stderr)
	if err != nil {
		return nil, err
	}
	if r.fs != nil {
		// Each family chooses encrypted columns with its own option.
		ef, _ := wl.(workload.EncryptFlagger)
		for _, name := range []string{"encrypt-columns", "encrypt"} {
			if f := r.fs.Lookup(name); f != nil && r.fs.Changed(name) && f.Value.String() != "0" && f.Value.String() != "" {
				if ef == nil || ef.EncryptFlag() != name {
					return nil, errs.Usage("--%s does not apply to %s (tpcc takes --encrypt-columns, the enc_* workloads --encrypt)", name, wl.Name())
				}
			}
		}
	}
	if eb, ok := wl.(workload.EventBound); ok && r.fs != nil && !r.fs.Changed("events") && !r.fs.Changed("time") {
		r.events, r.time = eb.DefaultEvents(), 0
	}
	cfg, err := r.config(stdout)
	if err != nil {
		return nil, err
	}
	admin, err := t.Engine.Connect(ctx, t)
	if err != nil {
		return nil, err
	}
	defer admin.Close()
	info, err := t.Engine.ServerInfo(ctx, admin)
	if err != nil {
		return nil, err
	}
	tdeProof, err := proveAtRest(ctx, t, admin, wl, r.sb, r.tde)
	if err != nil {
		return nil, err
	}
	var colProof *result.ColencProof
	if enc, ok := wl.(workload.Encrypter); ok {
		if colProof, err = enc.ProveColumns(ctx, admin); err != nil {
			return nil, fmt.Errorf("column encryption not proven: %w", err)
		}
		if pp, ok := wl.(workload.PredicatePlacer); ok && colProof != nil {
			colProof.Predicate = pp.PredicatePlacement(t.Engine.Dialect())
		}
	}
	reg := regime(ctx, t, admin, wl)
	var proof result.TLSProof
	cfg.CheckSessions = func(s []engine.SessionTLS) error {
		proof = tlsProof(t, s)
		return checkTLS(t, proof)
	}
	fmt.Fprintf(stdout, "encbench: %s on %s (%s), %d threads, TLS %s\n\n", wl.Name(), info.Version, t.Redacted(), cfg.Threads, t.TLS.Mode)
	if r.explain {
		ex, ok := wl.(workload.Explainable)
		if !ok || !ex.ExplainSQL() || t.Engine.Dialect().Explain == "" {
			return nil, errs.Usage("--explain: %s on %s has no SQL plans to show", wl.Name(), t.Engine.Kind())
		}
		fmt.Fprintf(stdout, "Plans of the workload's statements (EXPLAIN, first execution of each):\n\n")
		n, err := explain.Run(ctx, t, wl, cfg.Threads, stdout)
		if err != nil {
			return nil, fmt.Errorf("--explain: %w", err)
		}
		fmt.Fprintf(stdout, "%d statement(s) explained.\n\n", n)
	}
	if cfg.Warmup > 0 {
		fmt.Fprintf(stdout, "Warming up for %d seconds...\n", r.warmup)
	}
	started := time.Now()
	out, runErr := runner.Run(ctx, t, wl, cfg)
	if out == nil || out.Hist == nil || out.Elapsed == 0 {
		if runErr == nil {
			runErr = fmt.Errorf("run produced no measurements")
		}
		return nil, runErr
	}
	res := out.Result(cfg, started)
	res.Target = t.Redacted()
	res.Engine = result.Engine{Kind: t.Engine.Kind(), Version: info.Version, Settings: info.Settings}
	res.Workload = result.Workload{Name: wl.Name(), Params: wl.Params()}
	if r.reconnectEach {
		res.Workload.Params["reconnect_per_txn"] = true
	}
	if d, ok := wl.(workload.Describer); ok {
		res.Workload.Schema = d.Schema()
	}
	res.Repetition = r.repetition
	name := variantName(t, r.tde, colProof)
	if r.variantName != "" {
		name = r.variantName
	}
	res.Variant = result.Variant{Name: name, TLS: t.TLS.Mode, TDE: r.tde, Colenc: colencName(colProof),
		Verified: result.Verification{OK: runErr == nil, TLS: proof, TDE: tdeProof, Colenc: colProof}}
	if rt, ok := wl.(workload.Rater); ok {
		counts := map[string]int64{}
		for name, it := range res.Items {
			counts[name] = it.N
		}
		res.Rates = rt.Rates(counts, res.DurationS)
	}
	res.Regime = reg
	if r.sb != nil {
		res.CPU.ServerCPUs = r.sb.ServerCPUs
		if d := measure.Disk(r.sb.DataDir); d != "" {
			res.Environment.Disk = d
		}
	}
	fmt.Fprintln(stdout)
	report.Summary(stdout, res)
	if r.jsonPath != "" {
		if err := result.WriteFile(r.jsonPath, res); err != nil {
			return nil, err
		}
		fmt.Fprintf(stderr, "encbench: result written to %s\n", r.jsonPath)
	}
	if runErr != nil {
		return res, fmt.Errorf("run failed: %w", runErr)
	}
	if res.Partial {
		return res, fmt.Errorf("interrupted: the result covers %.1f s and is marked partial", res.DurationS)
	}
	return res, nil
}

func variantName(t engine.Target, tde bool, col *result.ColencProof) string {
	var layers []string
	if t.TLS.Mode != engine.TLSDisable {
		layers = append(layers, "tls")
	}
	if tde {
		layers = append(layers, "tde")
	}
	if col != nil && col.Level > 0 {
		layers = append(layers, colencName(col))
	}
	if len(layers) == 0 {
		return "plain"
	}
	return strings.Join(layers, "+")
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
	}
	return p
}

// checkTLS fails a run whose connections are not what --tls promised.
func checkTLS(t engine.Target, p result.TLSProof) error {
	if t.TLS.Mode == engine.TLSDisable && p.TLSConnections > 0 {
		return fmt.Errorf("TLS was meant to be off, but the server (%s) reports %d of %d connections encrypted (%s): not reported as plain",
			p.Source, p.TLSConnections, p.Connections, keys(p.Versions))
	}
	if t.TLS.Mode != engine.TLSDisable && p.TLSConnections != p.Connections {
		return fmt.Errorf("TLS was meant to be on, but the server (%s) reports only %d of %d connections encrypted", p.Source, p.TLSConnections, p.Connections)
	}
	return nil
}

func keys(m map[string]int) string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return strings.Join(out, ", ")
}

// parseCPUList reads CPU lists such as "0,1" or "0-3,6".
func parseCPUList(s string) ([]int, error) {
	if s == "" {
		return nil, nil
	}
	var out []int
	for _, part := range strings.Split(s, ",") {
		lo, hi, isRange := strings.Cut(strings.TrimSpace(part), "-")
		a, err1 := strconv.Atoi(lo)
		b, err2 := a, error(nil)
		if isRange {
			b, err2 = strconv.Atoi(hi)
		}
		if err1 != nil || err2 != nil || a < 0 || b < a || b >= runtime.NumCPU() {
			return nil, errs.Usage("bad --client-cpus %q: give CPUs 0-%d as a list like 0,1 or 0-1", s, runtime.NumCPU()-1)
		}
		for c := a; c <= b; c++ {
			out = append(out, c)
		}
	}
	return out, nil
}
