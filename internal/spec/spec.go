// Package spec is the typed description of one encbench command on one
// workload: the target, its encryption layers, the workload with its
// family's typed options, and the runner's settings. The command line
// binds into a Spec, a suite builds Specs directly, and a Spec renders the
// command line that reproduces it.
package spec

import (
	"reflect"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/encbench/encbench/internal/engine"
	"github.com/encbench/encbench/internal/result"
	"github.com/encbench/encbench/internal/runset"
	"github.com/encbench/encbench/internal/workload"
)

// Command is the phase a spec is for.
type Command string

// The phases that take a workload.
const (
	Prepare Command = "prepare"
	Run     Command = "run"
	Cleanup Command = "cleanup"
	Check   Command = "check"
)

// Commands lists the phases in the order a user meets them.
var Commands = []Command{Prepare, Run, Cleanup, Check}

// Spec is one phase of one workload against one target.
type Spec struct {
	Command  Command
	Workload string
	// Options are the workload family's own typed options.
	Options workload.Options
	Server  Server
	// TDE: prepare stores the tables encrypted at rest; run proves they are.
	TDE bool
	// Layers are plugin layers (package layer's Plugin) by their
	// canonical names, such as srvenc: prepare sets them up, run proves
	// and applies them.
	Layers  []string
	Threads int
	// Force lets prepare replace tables encbench did not create.
	Force bool
	// Runner is how the run phase runs: sysbench's general options plus
	// encbench's own, in the struct the runner itself reads.
	Runner runset.Settings
	// Explain prints the server's plan of each statement before a run.
	Explain bool
	// JSON is where run writes its result document.
	JSON string
	// VariantName is what reports group the run under; empty: named from
	// the layers the run proved.
	VariantName string
	// Ignored are run's flags given to another phase (a sysbench option
	// string shared by every phase), which that phase ignores.
	Ignored []string
}

// Server is the server a spec runs on, as given: a sandbox directory or a
// DSN, with TLS choices (engine.Target is the same parsed).
type Server struct {
	DSN     string
	Sandbox string
	TLS     engine.TLSOptions
	// ServerPID or ServerProcess name a local server whose CPU is measured
	// (sandboxes: automatic).
	ServerPID     int
	ServerProcess string
	// MemberPIDs are a replicated sandbox's replicas (their CPU is the
	// server's).
	MemberPIDs []int
	// SessionAttrs chooses among a host list's servers (libpq's
	// target_session_attrs), set on the DSN or the sandbox's cluster DSN.
	SessionAttrs string
}

// New returns the spec of a phase of a workload with every default set.
func New(cmd Command, name string, fam workload.Family) Spec {
	s := Spec{Command: cmd, Workload: name, Options: fam.NewOptions()}
	Bind(newFlagSet(), &s)
	return s
}

// Bind registers the phase's flags, and the workload's, on fs, pointing
// into s; registering sets every field to its default.
func Bind(fs *pflag.FlagSet, s *Spec) {
	fs.SortFlags = false
	fs.StringVar(&s.Server.DSN, "dsn", "", "server to test: postgres://user:pass@host:port/db, a libpq 'host=... dbname=...' string, mysql://user:pass@host:port/db, user:pass@tcp(host:port)/db, or mongodb://...")
	fs.StringVar(&s.Server.Sandbox, "sandbox", "", "use the sandbox running in this directory instead of --dsn")
	fs.StringVar(&s.Server.SessionAttrs, "target-session-attrs", "", "with a host list (a DSN's, or a replicated sandbox's primary and replicas): which server to use, as libpq's target_session_attrs: any, read-write, primary, read-only, standby or prefer-standby (MySQL/MariaDB judge by read_only)")
	// --variant is expanded into the flags below before they are parsed
	// (expandVariant); it is bound for help and for scan's check.
	var variantName string
	fs.StringVar(&variantName, "variant", "", "the encryption layers, named as in suites: plain, or layers joined with +, such as tls1.3+tde or tls1.2:cipher=ECDHE-RSA-AES128-GCM-SHA256 (encbench layers lists them); it stands for --tls on, --tls-version, --tls-cipher, --tde and TPC-C's column share, which stay as aliases")
	t := &s.Server.TLS
	fs.StringVar(&t.Mode, "tls", "", "transport encryption: disable (default unless the DSN has sslmode), require (no verification), verify-ca, verify-full, or on (= verify-full); --variant tls says on")
	fs.StringVar(&t.Version, "tls-version", "", "pin the TLS protocol version: 1.2 or 1.3 (an alias of --variant tls1.2 or tls1.3)")
	fs.StringVar(&t.Cipher, "tls-cipher", "", "TLS 1.2 cipher suite (OpenSSL name, for example ECDHE-ECDSA-AES128-GCM-SHA256; an alias of --variant tls1.2:cipher=NAME)")
	fs.StringVar(&t.ServerKey, "tls-server-key", "", "the key the server's certificate must have: ecdsa-p256, rsa-2048 or rsa-4096; the run reports the key it saw and fails on another (an alias of --variant tls:cert=NAME)")
	fs.BoolVar(&t.ClientAuth, "tls-client-auth", false, "mutual TLS: the server must see a client certificate (--tls-cert and --tls-key, or the sandbox's) on every connection; the run proves it from the server's view (an alias of --variant tls:client-cert=on)")
	fs.StringVar(&t.CAFile, "tls-ca", "", "CA certificate (PEM) that signed the server's certificate")
	fs.StringVar(&t.CertFile, "tls-cert", "", "client certificate (PEM)")
	fs.StringVar(&t.KeyFile, "tls-key", "", "client private key (PEM)")
	if s.Command != Check {
		fs.StringArrayVar(&s.Layers, "layer", nil, "a layer beyond TLS, TDE and client-side columns, with its options (such as srvenc); repeat for more; --variant names them with the others")
		workload.Mark(fs, workload.Data, "layer")
	}
	fs.IntVar(&s.Threads, "threads", 1, "number of threads to use")
	workload.Mark(fs, workload.Location, "dsn", "sandbox", "target-session-attrs", "variant", "tls", "tls-version", "tls-cipher", "tls-server-key", "tls-client-auth", "tls-ca", "tls-cert", "tls-key")
	workload.Mark(fs, workload.Setting, "threads")
	switch s.Command {
	case Prepare:
		fs.BoolVar(&s.Force, "force", false, "replace existing tables of the workload, even ones encbench did not create")
		fs.BoolVar(&s.TDE, "tde", false, "store the tables encrypted at rest, in the server's own syntax (MariaDB ENCRYPTED=YES, MySQL ENCRYPTION='Y', pg_tde USING tde_heap); an alias of --variant tde")
		workload.Mark(fs, workload.Setting, "force")
		workload.Mark(fs, workload.Data, "tde")
	case Run:
		bindRun(fs, s)
	}
	if s.Options != nil {
		s.Options.Bind(fs, s.Workload)
	}
}

func bindRun(fs *pflag.FlagSet, s *Spec) {
	r := &s.Runner
	r.Time = 10 * time.Second
	fs.Var(runset.Seconds{D: &r.Time}, "time", "limit for total execution time in seconds (0: no limit)")
	fs.Int64Var(&r.Events, "events", 0, "limit for total number of events (0: no limit)")
	r.Warmup = 0
	fs.Var(runset.Seconds{D: &r.Warmup}, "warmup-time", "execute events for this many seconds with statistics disabled before the measured run")
	fs.Float64Var(&r.Rate, "rate", 0, "average transactions rate (0: unlimited); latency then counts from each event's intended start")
	r.ReportInterval = 0
	fs.Var(runset.Seconds{D: &r.ReportInterval}, "report-interval", "report intermediate statistics every N seconds (0: off)")
	fs.Float64Var(&r.Percentile, "percentile", 95, "percentile to show in intermediate reports")
	tries := 1
	if d, ok := s.Options.(workload.RunDefaults); ok {
		tries = d.DefaultMaxTries()
	}
	fs.IntVar(&r.MaxTries, "max-tries", tries, "tries of a transaction that fails with a serialization failure or deadlock, with the same input, as pgbench's --max-tries (0: until the run ends)")
	fs.StringVar(&r.IgnoreErrors, "ignore-errors", "", "errors that fail a transaction without stopping the run, as sysbench's --mysql-ignore-errors: all, none, or codes (40P01, 1213) and kinds (serialization, deadlock, lock_timeout, unique_violation) (default: sysbench's list for the engine)")
	fs.DurationVar(&r.ReconnectTimeout, "reconnect-timeout", engine.DefaultReconnectTimeout, "how long a worker tries to reconnect (with back-off) after losing its connection, and the most any wait for the server may take, before the run fails")
	fs.IntVar(&r.MaxReconnects, "max-reconnects", 0, "lost connections one worker may replace in a run (0: no limit)")
	fs.BoolVar(&r.ReconnectPerTxn, "reconnect-per-txn", false, "open a new connection (and prepare again) for every transaction, like pgbench -C; its time counts in the latency")
	fs.StringVar(&r.ClientCPUs, "client-cpus", "", "pin worker threads to these CPUs, round robin (a list like 0,1 or 0-3)")
	fs.DurationVar(&r.NetDelay, "net-delay", 0, "emulate a network: add this round-trip time (for example 0.5ms or 2ms) between the workers and the server, through a Toxiproxy TCP proxy on loopback")
	fs.DurationVar(&r.NetJitter, "net-jitter", 0, "with --net-delay: vary each round trip by up to this much (uniform, order kept)")
	fs.Int64Var(&r.NetBandwidth, "net-bandwidth", 0, "emulate a network: limit each direction to this many KB/s (0: unlimited)")
	fs.DurationVar(&r.NetCutAfter, "net-cut-after", 0, "fault: cut every worker connection (through the proxy: its next message dropped, both sides closed) once it has been open this long; workers reconnect (--reconnect-timeout)")
	fs.StringVar(&r.Generator, "generator", "", "I/N: run as load generator I (from 0) of N that share --threads (and --events, --rate); merge their results with encbench merge")
	fs.StringVar(&r.StartAt, "start-at", "", "with --generator: the common start, an RFC3339 time such as 2026-11-24T10:00:00Z (refused if past, or if this machine's clock is more than 1 s from the server's)")
	fs.IntVar(&r.Repetition, "repetition", 1, "repetition number recorded in the result")
	fs.BoolVar(&s.TDE, "tde", false, "the tables are encrypted at rest: prove it from the server before measuring (automatic for TDE sandboxes); an alias of --variant tde")
	fs.IntVar(&s.Server.ServerPID, "server-pid", 0, "pid of a local server whose process tree's CPU to measure (sandboxes: automatic)")
	fs.StringVar(&s.Server.ServerProcess, "server-process", "", "name of a local server process (for example mariadbd or postgres) whose tree's CPU to measure")
	fs.BoolVar(&s.Explain, "explain", false, "print the server's plan (EXPLAIN) of each statement of the workload once, before measuring")
	fs.StringVar(&s.VariantName, "variant-name", "", "name reports group this run under (default: from the encryption layers, such as plain, tls, colenc50)")
	fs.StringVar(&s.JSON, "json", "", "write the result document ("+result.Schema+") to this file")
	workload.Mark(fs, workload.Setting, "time", "events", "warmup-time", "rate", "report-interval", "percentile", "max-tries", "ignore-errors",
		"reconnect-timeout", "max-reconnects", "reconnect-per-txn", "client-cpus", "net-delay", "net-jitter", "net-bandwidth",
		"net-cut-after", "generator", "start-at", "repetition", "explain", "variant-name", "json")
	workload.Mark(fs, workload.Data, "tde")
	workload.Mark(fs, workload.Location, "server-pid", "server-process")
}

// Args is the command line that reproduces the spec: the phase, the
// workload, then every flag whose value differs from its default, in the
// order the flags are defined.
func (s Spec) Args() []string {
	args := []string{string(s.Command), s.Workload}
	s.visitChanged(func(f *pflag.Flag, v string) {
		if sv, ok := f.Value.(pflag.SliceValue); ok {
			// One flag per value, as it was given: --layer=a --layer=b.
			for _, e := range sv.GetSlice() {
				args = append(args, "--"+f.Name+"="+e)
			}
			return
		}
		if f.Value.Type() == "bool" && v == "true" {
			args = append(args, "--"+f.Name)
		} else {
			args = append(args, "--"+f.Name+"="+v)
		}
	})
	return args
}

// Display is Args as a shell line safe to print: DSN passwords redacted,
// arguments quoted where a shell would split them.
func (s Spec) Display() string {
	args := s.Args()
	out := make([]string, 0, len(args)+1)
	out = append(out, "encbench")
	for _, a := range args {
		if v, ok := strings.CutPrefix(a, "--dsn="); ok {
			a = "--dsn=" + engine.RedactDSN(v)
		}
		out = append(out, ShellWord(a))
	}
	return strings.Join(out, " ")
}

// Changed lists the flags of the spec that differ from their defaults.
func (s Spec) Changed() map[string]string {
	out := map[string]string{}
	s.visitChanged(func(f *pflag.Flag, v string) { out[f.Name] = v })
	return out
}

// visitChanged calls fn for each flag whose value differs from its
// default, in definition order.
func (s Spec) visitChanged(fn func(f *pflag.Flag, v string)) {
	fs, _ := s.flags()
	fs.VisitAll(func(f *pflag.Flag) {
		if v := f.Value.String(); v != f.DefValue {
			fn(f, v)
		}
	})
}

// flags binds a copy of s holding s's values: the flag set's defaults are
// the phase's, its values are s's.
func (s Spec) flags() (*pflag.FlagSet, *Spec) {
	c := s
	if s.Options != nil {
		c.Options = cloneOptions(s.Options)
	}
	fs := newFlagSet()
	Bind(fs, &c) // resets c to the defaults
	opts := c.Options
	c = s
	c.Options = opts
	if opts != nil {
		reflect.ValueOf(opts).Elem().Set(reflect.ValueOf(s.Options).Elem())
	}
	return fs, &c
}

// cloneOptions returns a new value of the options' type (a pointer to a
// struct, as every family's NewOptions returns).
func cloneOptions(o workload.Options) workload.Options {
	v := reflect.New(reflect.TypeOf(o).Elem())
	v.Elem().Set(reflect.ValueOf(o).Elem())
	return v.Interface().(workload.Options)
}

// Clone is a deep copy: the options are not shared.
func (s Spec) Clone() Spec {
	if s.Options != nil {
		s.Options = cloneOptions(s.Options)
	}
	return s
}

// Set sets one flag of the spec by name, as the command line would.
func (s *Spec) Set(name, value string) error {
	fs, c := s.flags()
	if err := fs.Set(name, value); err != nil {
		return err
	}
	*s = *c
	return nil
}

// Has says whether the spec's phase and workload take a flag.
func (s Spec) Has(name string) bool {
	fs, _ := s.flags()
	return fs.Lookup(name) != nil
}

// ShellWord quotes an argument a shell would split or drop.
func ShellWord(a string) string {
	if a != "" && !strings.ContainsAny(a, " \t\n'\"\\$`;&|<>()*?[]{}~#!") {
		return a
	}
	return "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
}
