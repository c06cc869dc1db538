// Package sandbox runs local database servers from the installed binaries:
// a private data directory, a free loopback port, a private socket, and a
// benchmark user and database. A server outlives the command that started
// it; Down stops it by the pid recorded in the sandbox directory.
package sandbox

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/encbench/encbench/internal/encryption/certs"
	"github.com/encbench/encbench/internal/encryption/tdekeys"
	"github.com/encbench/encbench/internal/engine/tlsconf"
	"github.com/encbench/encbench/internal/errs"
	"github.com/encbench/encbench/internal/fsx"
	tdelayer "github.com/encbench/encbench/internal/layer/tde"
	tlslayer "github.com/encbench/encbench/internal/layer/tls"
	"github.com/encbench/encbench/internal/quiet"
	"github.com/encbench/encbench/internal/serverconf"
	"github.com/encbench/encbench/internal/variant"
)

// Options are what `sandbox up` accepts.
type Options struct {
	Engine     string
	Dir        string
	BufferPool string // for example 512MB or 1G
	// StatStatements loads pg_stat_statements so statement counts can be
	// read from the server (PostgreSQL only).
	StatStatements bool
	// NoAutovacuum turns PostgreSQL's autovacuum off, for an owner that
	// runs Quiesce (VACUUM (ANALYZE)) between its runs itself: maintenance
	// then never starts inside a measured run.
	NoAutovacuum bool
	// BinDir, when set, is where the server binaries are (for example a
	// custom build); otherwise the installed packages are used.
	BinDir string
	// Variant is plain, tls, tde or tls+tde.
	Variant string
	// TLSVersion pins the server to "1.2" or "1.3"; TLSCipher is a TLS 1.2
	// suite in OpenSSL's spelling.
	TLSVersion string
	TLSCipher  string
	// TLSOptional offers TLS without requiring it: clients choose per
	// connection (variants with and without TLS sharing one server).
	TLSOptional bool
	// CertAlgorithm is the certificates' key: ecdsa-p256 (the default),
	// rsa-2048 or rsa-4096 (ecdsa and rsa are the older spellings).
	CertAlgorithm string
	// ClientCert is mutual TLS: the server requires a client certificate
	// of its CA (the sandbox's client certificate, named in its DSN).
	ClientCert bool
	// openSSLConf is the OpenSSL configuration a server pinned to a TLS
	// 1.3 suite starts with (Up writes it).
	openSSLConf string
	// Settings are name=value server settings written after encbench's
	// own, so they win: my.cnf options for MariaDB, postgresql.conf
	// parameters for PostgreSQL.
	Settings []string
	// TDECipher is aes-ctr or aes-cbc; TDEKeyFile an existing key file to
	// use instead of generating one.
	TDECipher  string
	TDEKeyFile string
	// ServerCPUs, a CPU list like "1" or "0-1", pins the server and every
	// process or thread it starts (through taskset, which execs it).
	ServerCPUs string
	// Owner is the process that will stop the sandbox (a suite); nil for
	// one started by hand, which runs until `sandbox down`.
	Owner *Owner
	// Replicas is the number of replicas the primary streams to (0: a
	// single server); Sync makes one of them synchronous, so each commit
	// waits for it (PostgreSQL's synchronous_standby_names).
	Replicas int
	Sync     bool
}

// replTLS says the replication links are to be encrypted (tls-repl).
func (o Options) replTLS() bool { v, _ := variant.Parse(o.Variant); return v.Has("tls-repl") }

// pinned returns the server command line, wrapped in taskset when the
// server is to run on chosen CPUs.
func (o Options) pinned(name string, args ...string) []string {
	argv := append([]string{name}, args...)
	if o.ServerCPUs != "" {
		argv = append([]string{"taskset", "-c", o.ServerCPUs}, argv...)
	}
	if o.openSSLConf != "" {
		// OpenSSL reads the server's TLS 1.3 suites from its
		// configuration only; env execs the server, so its PID stays.
		argv = append([]string{"env", "OPENSSL_CONF=" + o.openSSLConf}, argv...)
	}
	return argv
}

// tls13Cipher says the server is pinned to one TLS 1.3 suite.
func (o Options) tls13Cipher() bool { return o.TLSCipher != "" && tlsconf.IsTLS13Suite(o.TLSCipher) }

// writeOpenSSLConf writes the OpenSSL configuration that leaves a server
// one TLS 1.3 suite (Ciphersuites in the system default section, which
// every SSL_CTX the server makes takes), for servers whose own settings
// choose TLS 1.2 suites only (PostgreSQL 15's ssl_ciphers).
func writeOpenSSLConf(dir, suite string) (string, error) {
	path := filepath.Join(dir, "openssl.cnf")
	text := "openssl_conf = encbench\n\n[encbench]\nssl_conf = encbench_ssl\n\n[encbench_ssl]\nsystem_default = encbench_tls\n\n" +
		"[encbench_tls]\nMinProtocol = TLSv1.3\nCiphersuites = " + suite + "\n"
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		return "", fmt.Errorf("writing %s: %w", path, err)
	}
	return path, nil
}

// tls and tde say which layers the variant turns on.
func (o Options) tls() bool { v, _ := variant.Parse(o.Variant); return v.Has("tls") }
func (o Options) tde() bool { v, _ := variant.Parse(o.Variant); return v.Has("tde") }

func (o *Options) validate() error {
	if o.Variant == "" {
		o.Variant = "plain"
	}
	v, err := variant.Parse(o.Variant)
	if err != nil {
		return errs.Usage("unknown --variant %q: %v", o.Variant, err)
	}
	if v.AA || len(v.ServerLayers()) != len(v.Layers) {
		return errs.Usage("--variant %q: a server's layers are plain, tls (tls1.2, tls1.3, tls1.2:cipher=NAME), tde (tde:cipher=aes-ctr|aes-cbc), fscrypt, joined with + (column encryption, in the client or by the server's functions, belongs to the run: encbench run --variant)", o.Variant)
	}
	if o.CertAlgorithm != "" {
		if o.CertAlgorithm, err = certs.Canonical(o.CertAlgorithm); err != nil {
			return errs.Usage("--cert-key: %v", err)
		}
	}
	// The layers' options are the server's settings: given both ways,
	// they must agree.
	tls, _ := tlslayer.Of(v.Layers)
	tdeCipher, _ := tdelayer.Of(v.Layers)
	for _, opt := range []struct {
		flag, fromVariant string
		field             *string
	}{
		{"--tls-version", tls.Version, &o.TLSVersion}, {"--tls-cipher", tls.Cipher, &o.TLSCipher}, {"--tde-cipher", tdeCipher, &o.TDECipher},
		{"--cert-key", tls.Cert, &o.CertAlgorithm},
	} {
		switch {
		case opt.fromVariant == "":
		case *opt.field != "" && *opt.field != opt.fromVariant:
			return errs.Usage("--variant %s and %s %s disagree: give one of them", o.Variant, opt.flag, *opt.field)
		default:
			*opt.field = opt.fromVariant
		}
	}
	o.ClientCert = o.ClientCert || tls.ClientCert
	o.Variant = v.Server()
	if o.CertAlgorithm, err = certs.Canonical(o.CertAlgorithm); err != nil {
		return errs.Usage("--cert-key: %v", err)
	}
	if o.TLSVersion != "" && o.TLSVersion != "1.2" && o.TLSVersion != "1.3" {
		return errs.Usage("unknown --tls-version %q: use 1.2 or 1.3", o.TLSVersion)
	}
	if o.TLSCipher != "" {
		if _, err := tlsconf.CipherID(o.TLSCipher); err != nil {
			return err
		}
		switch t13 := tlsconf.IsTLS13Suite(o.TLSCipher); {
		case t13 && o.TLSVersion != "1.3":
			return errs.Usage("--tls-cipher %s is a TLS 1.3 suite: it needs --tls-version 1.3 (tls1.3:cipher=%s)", o.TLSCipher, o.TLSCipher)
		case !t13 && o.TLSVersion == "1.3":
			return errs.Usage("--tls-cipher %s is a TLS 1.2 suite; it cannot go with --tls-version 1.3", o.TLSCipher)
		}
	}
	if o.ClientCert && (!o.tls() || o.TLSOptional) {
		return errs.Usage("--client-cert (tls:client-cert=on) needs a TLS variant that requires TLS, without --tls-optional")
	}
	if o.TLSOptional && !o.tls() {
		return errs.Usage("--tls-optional needs a TLS variant (--variant tls or tls+tde)")
	}
	if (o.TLSVersion != "" || o.TLSCipher != "") && !o.tls() {
		return errs.Usage("--tls-version and --tls-cipher need a TLS variant (--variant tls or tls+tde)")
	}
	switch o.TDECipher {
	case "":
		o.TDECipher = "aes-ctr"
	case "aes-ctr", "aes-cbc":
	default:
		return errs.Usage("unknown --tde-cipher %q: use aes-ctr or aes-cbc", o.TDECipher)
	}
	for _, kv := range o.Settings {
		if err := serverconf.Check(kv); err != nil {
			return err
		}
	}
	switch {
	case o.Replicas < 0 || o.Replicas > 8:
		return errs.Usage("--replicas %d: give 0 (a single server) to 8", o.Replicas)
	case o.Sync && o.Replicas == 0:
		return errs.Usage("--sync makes a replica synchronous: give --replicas N too")
	}
	if o.ServerCPUs != "" {
		if _, err := exec.LookPath("taskset"); err != nil {
			return errs.Usage("--server-cpus needs taskset (apt-get install util-linux)")
		}
		for _, part := range strings.Split(o.ServerCPUs, ",") {
			lo, hi, _ := strings.Cut(part, "-")
			for _, v := range []string{lo, hi} {
				if n, err := strconv.Atoi(v); v != "" && (err != nil || n < 0 || n >= runtime.NumCPU()) {
					return errs.Usage("bad --server-cpus %q: give CPUs 0-%d as a list like 1 or 0-1", o.ServerCPUs, runtime.NumCPU()-1)
				}
			}
		}
	}
	if o.TDEKeyFile != "" {
		if !o.tde() {
			return errs.Usage("--tde-key-file needs a TDE variant (--variant tde or tls+tde)")
		}
		if err := tdekeys.Check(o.TDEKeyFile); err != nil {
			return err
		}
	}
	return nil
}

// Info is the state file of a running sandbox and the line `up` prints.
type Info struct {
	Engine  string `json:"engine"`
	Version string `json:"version"`
	DSN     string `json:"dsn"`
	PID     int    `json:"pid"`
	Port    int    `json:"port"`
	Dir     string `json:"dir"`
	Socket  string `json:"socket"`
	// AdminDSN reaches the server as its superuser over the private socket.
	AdminDSN string `json:"admin_dsn"`
	// Password is the benchmark account's (the DSN carries it too, and
	// its user, sbtest), AdminPassword the superuser's: for connecting by
	// hand and for scripts. The state file is readable by its owner only.
	Password      string `json:"password,omitempty"`
	AdminPassword string `json:"admin_password,omitempty"`
	// Variant and what it turned on; CA, client certificate and key are
	// the generated PEM files of a TLS variant.
	Variant    string `json:"variant"`
	CA         string `json:"ca,omitempty"`
	ClientCert string `json:"client_cert,omitempty"`
	ClientKey  string `json:"client_key,omitempty"`
	DataDir    string `json:"data_dir"`
	// ServerCPUs is the CPU list the server is pinned to, if any.
	ServerCPUs string `json:"server_cpus,omitempty"`
	// Layers is what each plugin layer below the server's files set up
	// (package layer's DataDir), by layer, for its tear-down.
	Layers map[string]map[string]string `json:"layers,omitempty"`
	// MarkerFiles are the raw files a TDE proof scans for the marker.
	MarkerFiles []string `json:"marker_files,omitempty"`
	// Owner is the encbench process that stops the sandbox when it ends.
	Owner *Owner `json:"owner,omitempty"`
	// Start is the server's command line, RunAs the account it runs as
	// and StartLog its output file: what a restart runs again.
	Start    []string `json:"start,omitempty"`
	RunAs    string   `json:"run_as,omitempty"`
	StartLog string   `json:"start_log,omitempty"`
	// Members are a replicated sandbox's replicas (the sandbox's own
	// server is the primary); ClusterDSN names the primary, then each
	// replica, as a multi-host DSN; Sync says one replica is synchronous;
	// ReplPassword is the replication account's.
	Members      []Member `json:"members,omitempty"`
	ClusterDSN   string   `json:"cluster_dsn,omitempty"`
	Sync         bool     `json:"sync,omitempty"`
	ReplPassword string   `json:"repl_password,omitempty"`
}

// Member is one replica of a replicated sandbox: a server of its own in a
// directory under the sandbox's, fed by the primary.
type Member struct {
	Name     string   `json:"name"`
	Dir      string   `json:"dir"`
	DataDir  string   `json:"data_dir"`
	Socket   string   `json:"socket"`
	Port     int      `json:"port"`
	PID      int      `json:"pid"`
	DSN      string   `json:"dsn"`
	AdminDSN string   `json:"admin_dsn"`
	Start    []string `json:"start"`
	StartLog string   `json:"start_log"`
}

// replicator is a provider that can start replicas of its primary.
type replicator interface {
	addReplicas(ctx context.Context, o Options, primary *Info, u *user.User, tls certs.Files) ([]Member, error)
	// clusterDSN names the primary and its replicas in one DSN, where the
	// engine's client takes several hosts ("" where it does not).
	clusterDSN(info *Info) string
}

const stateFile = "sandbox.json"

// Provider knows how to build and start one engine's server.
type Provider interface {
	Name() string
	// Check reports missing binaries with a hint on installing them.
	Check(o Options) error
	Up(ctx context.Context, o Options, port int, osUser *user.User, tls certs.Files) (*Info, error)
}

type registry struct {
	mu        sync.RWMutex
	providers map[string]Provider
}

// providers is filled by init functions in this package only.
var providers = &registry{providers: map[string]Provider{}}

func register(p Provider) {
	providers.mu.Lock()
	defer providers.mu.Unlock()
	providers.providers[p.Name()] = p
}

// Engines lists the sandbox engine names.
func Engines() []string {
	providers.mu.RLock()
	defer providers.mu.RUnlock()
	var out []string
	for n := range providers.providers {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// Up creates and starts a sandbox in o.Dir.
func Up(ctx context.Context, o Options) (*Info, error) {
	p, err := provider(o.Engine)
	if err != nil {
		return nil, err
	}
	if o.Dir == "" {
		return nil, errs.Usage("no sandbox directory: pass --dir DIR")
	}
	if _, err := ParseSize(o.BufferPool); err != nil {
		return nil, err
	}
	if err := o.validate(); err != nil {
		return nil, err
	}
	if err := p.Check(o); err != nil {
		return nil, err
	}
	if _, ok := p.(replicator); o.Replicas > 0 && !ok {
		return nil, errs.Usage("--replicas: encbench does not start %s replicas yet", o.Engine)
	}
	if o.replTLS() && o.Replicas == 0 {
		// Checked here, not in Check: a suite asks Check about a variant
		// before it knows the target's topology.
		return nil, errs.Usage("--variant tls-repl encrypts the replication links: give --replicas N too (a suite target: replicas: N)")
	}
	abs, err := filepath.Abs(o.Dir)
	if err != nil {
		return nil, errs.Usage("bad --dir %q: %w", o.Dir, err)
	}
	o.Dir = abs
	if info, err := Load(abs); err == nil && alive(info.PID) {
		return nil, errs.Usage("a sandbox is already running in %s (pid %d): run `encbench sandbox down --dir %s` first", abs, info.PID, o.Dir)
	}
	if entries, err := os.ReadDir(abs); err == nil && len(entries) > 0 {
		return nil, errs.Usage("sandbox directory %s is not empty: give a new or empty directory", abs)
	}
	if err := os.MkdirAll(abs, 0o755); err != nil {
		return nil, fmt.Errorf("creating sandbox directory: %w", err)
	}
	osUser, err := serverUser(p.Name())
	if err != nil {
		return nil, err
	}
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	var files certs.Files
	if o.tls() || o.replTLS() {
		if files, err = writeCerts(o, osUser); err != nil {
			return nil, err
		}
		if o.tls13Cipher() {
			if o.openSSLConf, err = writeOpenSSLConf(filepath.Dir(files.CA), o.TLSCipher); err != nil {
				return nil, err
			}
		}
	}
	layers, err := setUpLayers(ctx, o, abs)
	if err != nil {
		return nil, err
	}
	info, err := p.Up(ctx, o, port, osUser, files)
	if err != nil {
		_ = tearDownLayers(o.Engine, o.Variant, layers)
		return nil, err
	}
	info.Layers = layers
	info.Variant = o.Variant
	info.ServerCPUs = o.ServerCPUs
	info.Owner = o.Owner
	info.Sync = o.Sync && o.Replicas > 0
	if o.Replicas > 0 {
		members, err := p.(replicator).addReplicas(ctx, o, info, osUser, files)
		if err != nil {
			_ = stopAll(info)
			_ = tearDownLayers(o.Engine, o.Variant, layers)
			return nil, err
		}
		info.Members = members
		info.ClusterDSN = p.(replicator).clusterDSN(info)
	}
	if o.tls() {
		info.CA, info.ClientCert, info.ClientKey = files.CA, files.ClientCert, files.ClientKey
		q := url.Values{"sslmode": {"verify-full"}, "sslrootcert": {files.CA}}
		if o.ClientCert {
			q.Set("sslcert", files.ClientCert)
			q.Set("sslkey", files.ClientKey)
		}
		info.DSN = withQuery(info.DSN, q)
		for i := range info.Members {
			info.Members[i].DSN = withQuery(info.Members[i].DSN, q)
		}
		if info.ClusterDSN != "" {
			info.ClusterDSN = withQuery(info.ClusterDSN, q)
		}
	}
	if err := save(info); err != nil {
		_ = stopAll(info)
		return nil, err
	}
	if err := enrol(info.Dir, info.Engine); err != nil {
		_ = stopAll(info)
		_ = os.Remove(filepath.Join(info.Dir, stateFile))
		return nil, err
	}
	return info, nil
}

// Down stops the sandbox in dir and waits until its server has exited.
func Down(dir string) error {
	info, err := Load(dir)
	if err != nil {
		return err
	}
	if err := stopAll(info); err != nil {
		return err
	}
	unenrol(info.Dir)
	if err := tearDownLayers(info.Engine, info.Variant, info.Layers); err != nil {
		return err
	}
	return os.Remove(filepath.Join(info.Dir, stateFile))
}

// stopAll stops the replicas, then the primary, and waits until each has
// exited. A suite freezes idle sandboxes; one it left frozen must wake
// to stop.
func stopAll(info *Info) error {
	var errs []error
	for _, m := range info.Members {
		_ = quiet.Thaw(m.PID)
		if err := stop(m.PID, 60*time.Second); err != nil {
			errs = append(errs, fmt.Errorf("stopping %s: %w", m.Name, err))
		}
	}
	_ = quiet.Thaw(info.PID)
	if err := stop(info.PID, 60*time.Second); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// withQuery adds a DSN's query parameters.
func withQuery(dsn string, q url.Values) string {
	sep := "?"
	if strings.Contains(dsn, "?") {
		sep = "&"
	}
	return dsn + sep + q.Encode()
}

// multiHostDSN is the primary's DSN with every replica's address after
// its own: a multi-host DSN, tried in order (PostgreSQL's
// target_session_attrs chooses among them).
func multiHostDSN(info *Info) string {
	u, err := url.Parse(info.DSN)
	if err != nil {
		return ""
	}
	hosts := []string{u.Host}
	for _, m := range info.Members {
		hosts = append(hosts, fmt.Sprintf("127.0.0.1:%d", m.Port))
	}
	u.Host = strings.Join(hosts, ",")
	return u.String()
}

// Load reads the state of the sandbox in dir.
func Load(dir string) (*Info, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, errs.Usage("bad --dir %q: %w", dir, err)
	}
	data, err := os.ReadFile(filepath.Join(abs, stateFile))
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, errs.Usage("no sandbox in %s (no %s): start one with `encbench sandbox up --dir %s`", abs, stateFile, dir)
		}
		return nil, fmt.Errorf("reading sandbox state: %w", err)
	}
	var info Info
	if err := json.Unmarshal(data, &info); err != nil {
		return nil, fmt.Errorf("parsing %s: %w", filepath.Join(abs, stateFile), err)
	}
	return &info, nil
}

func save(info *Info) error {
	data, err := json.MarshalIndent(info, "", "  ")
	if err != nil {
		return fmt.Errorf("encoding sandbox state: %w", err)
	}
	return fsx.WriteFile(filepath.Join(info.Dir, stateFile), data, 0o600)
}

// benchUser is the benchmark account every sandbox creates.
const benchUser = "sbtest"

// passwords are a new sandbox's: the superuser's and the benchmark user's.
type passwords struct{ admin, bench, repl string }

// newPasswords draws 128 random bits per account, in hex so that they
// need no quoting in a URL, a libpq string, SQL or a shell.
func newPasswords() (passwords, error) {
	draw := func() (string, error) {
		b := make([]byte, 16)
		if _, err := rand.Read(b); err != nil {
			return "", fmt.Errorf("drawing a sandbox password: %w", err)
		}
		return hex.EncodeToString(b), nil
	}
	a, err := draw()
	if err != nil {
		return passwords{}, err
	}
	b, err := draw()
	if err != nil {
		return passwords{}, err
	}
	r, err := draw()
	return passwords{admin: a, bench: b, repl: r}, err
}

// writeSecret writes a file that holds a password, mode 0600 from its
// first byte, and gives it to the server's user.
func writeSecret(path, text string, u *user.User) error {
	if err := fsx.WriteFile(path, []byte(text), 0o600); err != nil {
		return err
	}
	return chown(u, path)
}

// writeCerts makes the sandbox's CA, server and client certificates; the
// server's key goes to the server's user, readable by it alone.
func writeCerts(o Options, u *user.User) (certs.Files, error) {
	f, err := certs.Write(filepath.Join(o.Dir, "tls"), certs.Options{Algorithm: o.CertAlgorithm})
	if err != nil {
		return f, fmt.Errorf("making certificates: %w", err)
	}
	return f, chown(u, f.ServerKey)
}

// serverUser is the unprivileged account a server runs as when encbench is
// root (PostgreSQL refuses root; MariaDB is told to switch).
func serverUser(engine string) (*user.User, error) {
	if os.Geteuid() != 0 {
		return nil, nil
	}
	name, ok := map[string]string{"postgres": "postgres", "mariadb": "mysql"}[engine]
	if !ok {
		return nil, nil // runs as the invoking user
	}
	u, err := user.Lookup(name)
	if err != nil {
		return nil, fmt.Errorf("running as root needs the system user %q to start %s (it comes with the server package): %w", name, engine, err)
	}
	return u, nil
}

// serverDirs creates the data, socket and log directories, owned by the
// server's user, after checking that user can reach them at all.
func serverDirs(dir string, u *user.User) (data, run, logDir string, err error) {
	if err := reachable(dir, u); err != nil {
		return "", "", "", err
	}
	data, run, logDir = filepath.Join(dir, "data"), filepath.Join(dir, "run"), filepath.Join(dir, "log")
	if target, err := os.Readlink(run); err == nil {
		run = target // a server started here before
	} else if len(run)+len(longestSocketName) > maxSocketPath {
		// A deep directory (a suite's, named by a variant with options)
		// would put the socket past what a Unix socket's address holds,
		// and the server would not start: the sockets go to a short
		// private directory, which dir/run points to.
		short, err := os.MkdirTemp("", "encbench-run-")
		if err != nil {
			return "", "", "", fmt.Errorf("creating a short socket directory for %s: %w", dir, err)
		}
		if err := os.Symlink(short, run); err != nil {
			return "", "", "", fmt.Errorf("linking %s to its socket directory: %w", run, err)
		}
		run = short
	}
	for _, d := range []string{data, run, logDir} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return "", "", "", fmt.Errorf("creating %s: %w", d, err)
		}
	}
	return data, run, logDir, chown(u, data, run, logDir)
}

// maxSocketPath is the longest path a Unix socket's address holds (108
// bytes of sun_path with its NUL), and longestSocketName the longest
// socket file name a sandbox server makes in its run directory.
const (
	maxSocketPath     = 107
	longestSocketName = "/.s.PGSQL.65535.lock"
)

// chown hands paths to the server's user.
func chown(u *user.User, paths ...string) error {
	if u == nil {
		return nil
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	for _, p := range paths {
		if err := os.Chown(p, uid, gid); err != nil {
			return fmt.Errorf("giving %s to %s: %w", p, u.Username, err)
		}
	}
	return nil
}

// command builds a server command that runs as u (when set) in its own
// session, so Ctrl-C in the caller's terminal does not reach it.
func command(u *user.User, logPath string, argv ...string) (*exec.Cmd, *os.File, error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if u != nil {
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		cmd.SysProcAttr.Credential = &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
		cmd.Env = append(os.Environ(), "HOME="+u.HomeDir, "USER="+u.Username)
	}
	var logf *os.File
	if logPath != "" {
		f, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		if err != nil {
			return nil, nil, fmt.Errorf("opening log %s: %w", logPath, err)
		}
		logf = f
		cmd.Stdout, cmd.Stderr = f, f
	}
	return cmd, logf, nil
}

// toolTimeout bounds a set-up tool (initdb, mariadb-install-db: seconds).
const toolTimeout = 5 * time.Minute

// runTool runs a set-up tool to completion, at most toolTimeout, and
// reports its output on failure.
func runTool(u *user.User, name string, args ...string) error {
	cmd, _, err := command(u, "", append([]string{name}, args...)...)
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	cmd.Stdout, cmd.Stderr = &buf, &buf
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("starting %s: %w", filepath.Base(name), err)
	}
	timer := time.AfterFunc(toolTimeout, func() { _ = cmd.Process.Kill() })
	err = cmd.Wait()
	if !timer.Stop() {
		return fmt.Errorf("%s did not finish within %v and was killed", filepath.Base(name), toolTimeout)
	}
	out := buf.Bytes()
	if err != nil {
		lines := strings.Split(strings.TrimSpace(string(out)), "\n")
		return fmt.Errorf("%s failed (%w): %s", filepath.Base(name), err, lines[len(lines)-1])
	}
	return nil
}

// startServer starts a long-running server; the returned channel closes
// when it exits, which Up uses to report an early death quickly.
func startServer(cmd *exec.Cmd, logf *os.File) (int, <-chan struct{}, error) {
	if err := cmd.Start(); err != nil {
		logf.Close()
		return 0, nil, fmt.Errorf("starting %s: %w", cmd.Path, err)
	}
	logf.Close()
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	return cmd.Process.Pid, exited, nil
}

// waitReady polls ready until it succeeds, the server exits or time runs out.
func waitReady(ctx context.Context, exited <-chan struct{}, logPath string, ready func(context.Context) error) error {
	deadline := time.Now().Add(60 * time.Second)
	var last error
	for time.Now().Before(deadline) {
		select {
		case <-exited:
			return fmt.Errorf("server exited during start-up: %s (log: %s)", tail(logPath, 1), logPath)
		case <-ctx.Done():
			return ctx.Err()
		default:
		}
		cctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		last = ready(cctx)
		cancel()
		if last == nil {
			return nil
		}
		time.Sleep(50 * time.Millisecond)
	}
	return fmt.Errorf("server did not accept connections within 60 s (last error: %v); see %s", last, logPath)
}

func tail(path string, n int) string {
	data, err := os.ReadFile(path)
	if err != nil {
		return "(no log)"
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("finding a free loopback port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// alive reports whether pid runs and is not a zombie waiting to be reaped.
func alive(pid int) bool {
	if pid <= 0 {
		return false
	}
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	s := string(data)
	i := strings.LastIndex(s, ")")
	return i < 0 || i+2 >= len(s) || (s[i+2] != 'Z' && s[i+2] != 'X')
}

// stop asks the server to shut down (SIGTERM: PostgreSQL's smart
// shutdown, MariaDB's normal one) and escalates to SIGKILL after the
// timeout.
func stop(pid int, timeout time.Duration) error { return halt(pid, syscall.SIGTERM, timeout) }

// halt sends sig, waits for the server to exit and escalates to SIGKILL
// after the timeout.
func halt(pid int, sig syscall.Signal, timeout time.Duration) error {
	if !alive(pid) {
		return nil
	}
	if err := syscall.Kill(pid, sig); err != nil && !errors.Is(err, syscall.ESRCH) {
		return fmt.Errorf("stopping server %d: %w", pid, err)
	}
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		if !alive(pid) {
			return nil
		}
		time.Sleep(50 * time.Millisecond)
	}
	_ = syscall.Kill(pid, syscall.SIGKILL)
	for i := 0; i < 100 && alive(pid); i++ {
		time.Sleep(50 * time.Millisecond)
	}
	if alive(pid) {
		return fmt.Errorf("server %d did not stop", pid)
	}
	return nil
}

// ParseSize reads sizes like 512MB, 1G, 256M, 1073741824.
func ParseSize(s string) (int64, error) {
	if s == "" {
		return 0, nil
	}
	u := strings.ToUpper(strings.TrimSpace(s))
	u = strings.TrimSuffix(u, "B")
	mult := int64(1)
	switch {
	case strings.HasSuffix(u, "K"):
		mult, u = 1<<10, strings.TrimSuffix(u, "K")
	case strings.HasSuffix(u, "M"):
		mult, u = 1<<20, strings.TrimSuffix(u, "M")
	case strings.HasSuffix(u, "G"):
		mult, u = 1<<30, strings.TrimSuffix(u, "G")
	}
	n, err := strconv.ParseInt(u, 10, 64)
	if err != nil || n <= 0 {
		return 0, errs.Usage("bad size %q: use a number with K, M or G, for example 512MB", s)
	}
	return n * mult, nil
}

// Check says, without touching anything, whether Up could start a sandbox
// with these options here (engine known, variant supported, binaries
// installed).
func Check(o Options) error {
	p, err := provider(o.Engine)
	if err != nil {
		return err
	}
	if err := o.validate(); err != nil {
		return err
	}
	return p.Check(o)
}

// TDE says whether the sandbox stores tables encrypted at rest.
func (i *Info) TDE() bool {
	v, err := variant.Parse(i.Variant)
	return err == nil && v.Has("tde")
}

// Quiescer is a provider whose server defers write work (a checkpoint) that
// would otherwise land in a later measurement on the same server.
type Quiescer interface {
	Quiesce(ctx context.Context, info *Info) error
}

// autovacuumer is a provider whose server maintains its tables in the
// background on its own schedule (Options.NoAutovacuum turns that off).
type autovacuumer interface{ autovacuum() }

// HasAutovacuum tells whether Options.NoAutovacuum means anything for
// the engine's sandboxes.
func HasAutovacuum(engine string) bool {
	providers.mu.RLock()
	p, ok := providers.providers[engine]
	providers.mu.RUnlock()
	_, has := p.(autovacuumer)
	return ok && has
}

// Quiesce has the sandbox's server finish its deferred write work now;
// engines without such work return at once.
func Quiesce(ctx context.Context, info *Info) error {
	providers.mu.RLock()
	p, ok := providers.providers[info.Engine]
	providers.mu.RUnlock()
	if q, can := p.(Quiescer); ok && can {
		return q.Quiesce(ctx, info)
	}
	return nil
}

// splitSetting is a checked setting's name and value.
func splitSetting(kv string) (string, string) {
	name, value, _ := strings.Cut(kv, "=")
	return name, value
}

// engineAliases are other names users give engines (the DSN schemes).
var engineAliases = map[string]string{"postgresql": "postgres", "mongo": "mongodb"}

// provider finds the sandbox provider of an engine name or alias.
func provider(name string) (Provider, error) {
	if a, ok := engineAliases[name]; ok {
		name = a
	}
	providers.mu.RLock()
	p, ok := providers.providers[name]
	providers.mu.RUnlock()
	if ok {
		return p, nil
	}
	all := strings.Join(Engines(), ", ")
	if name == "" {
		return nil, errs.Usage("no sandbox engine given: pass --engine, one of %s", all)
	}
	return nil, errs.Usage("unknown sandbox engine %q%s: use one of %s", name, errs.DidYouMean(name, Engines()), all)
}
