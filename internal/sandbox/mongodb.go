package sandbox

import (
	"context"
	"net"
	"net/url"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/encbench/encbench/internal/encryption/certs"
	"github.com/encbench/encbench/internal/errs"
)

func init() { register(mongoProvider{}) }

// mongoProvider runs FerretDB, a MongoDB wire-protocol server written in Go,
// on its SQLite backend: no MongoDB server package exists for Debian. It is
// a process of its own, so its CPU is measured as a server's, and it serves
// TLS and SCRAM-SHA-256 as mongod does (its "new authentication", which
// FerretDB 1.24 marks experimental). Results name FerretDB, not mongod.
type mongoProvider struct{}

func (mongoProvider) Name() string { return "mongodb" }

// ferretdbBinary is what `make ferretdb` builds (tools/ferretdb/build.sh).
const ferretdbBinary = "ferretdb"

// binary finds FerretDB: --bin-dir, $ENCBENCH_FERRETDB, next to the
// encbench binary (make puts both in bin/), under the working directory's
// bin/, or on PATH.
func (mongoProvider) binary(o Options) (string, error) {
	var candidates []string
	if o.BinDir != "" {
		candidates = append(candidates, filepath.Join(o.BinDir, ferretdbBinary))
	}
	if p := os.Getenv("ENCBENCH_FERRETDB"); p != "" {
		candidates = append(candidates, p)
	}
	if exe, err := os.Executable(); err == nil {
		candidates = append(candidates, filepath.Join(filepath.Dir(exe), ferretdbBinary))
	}
	candidates = append(candidates, filepath.Join("bin", ferretdbBinary))
	for _, c := range candidates {
		if st, err := os.Stat(c); err == nil && !st.IsDir() {
			return filepath.Abs(c)
		}
	}
	if p, err := exec.LookPath(ferretdbBinary); err == nil {
		return p, nil
	}
	return "", errs.Usage("no MongoDB server package exists here: the mongodb sandbox runs FerretDB; build it with `make ferretdb` or point ENCBENCH_FERRETDB at a ferretdb binary")
}

func (p mongoProvider) Check(o Options) error {
	if o.tde() {
		return errs.Usage("the mongodb sandbox (FerretDB on SQLite) has no encryption at rest: use --variant plain or tls")
	}
	if o.TLSOptional {
		return errs.Usage("the mongodb sandbox cannot offer TLS as an option: FerretDB serves TLS and plaintext on ports of their own, so give each variant a server of its own")
	}
	if len(o.Settings) > 0 {
		return errs.Usage("the mongodb sandbox takes no --setting: FerretDB is configured by encbench alone")
	}
	if o.tls13Cipher() {
		return errs.Usage("the mongodb sandbox (FerretDB, Go's TLS) cannot be pinned to a TLS 1.3 suite: Go chooses them itself")
	}
	if o.ClientCert {
		return errs.Usage("the mongodb sandbox (FerretDB) does not verify client certificates: tls:client-cert=on runs on postgres and mariadb sandboxes, or on a mongod you set up for it")
	}
	_, err := p.binary(o)
	return err
}

func (p mongoProvider) Up(ctx context.Context, o Options, port int, _ *user.User, files certs.Files) (*Info, error) {
	bin, err := p.binary(o)
	if err != nil {
		return nil, err
	}
	// Runs as the invoking user: it needs no system account.
	data, _, logDir, err := serverDirs(o.Dir, nil)
	if err != nil {
		return nil, err
	}
	pw, err := newPasswords()
	if err != nil {
		return nil, err
	}
	logPath := filepath.Join(logDir, "server.log")
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	// --state-dir names the sandbox on the command line, where ServersUnder
	// looks for a sandbox's server. No debug listener (it would take a
	// fixed port) and no telemetry (load goes only to loopback).
	args := []string{"--handler=sqlite", "--sqlite-url=file:" + data + "/", "--state-dir=" + data,
		"--debug-addr=-", "--telemetry=disable", "--log-level=WARN",
		"--test-enable-new-auth", "--setup-database=" + benchDatabase, "--setup-username=" + benchUser}
	if o.tls() {
		args = append(args, "--listen-addr=", "--listen-tls="+addr,
			"--listen-tls-cert-file="+files.ServerCert, "--listen-tls-key-file="+files.ServerKey)
	} else {
		args = append(args, "--listen-addr="+addr)
	}
	cmd, logf, err := command(nil, logPath, o.pinned(bin, args...)...)
	if err != nil {
		return nil, err
	}
	// The password goes in the environment, which only the sandbox's
	// owner can read, not on the command line every user sees.
	cmd.Env = append(os.Environ(), "FERRETDB_SETUP_PASSWORD="+pw.bench)
	pid, exited, err := startServer(cmd, logf)
	if err != nil {
		return nil, err
	}
	ready := func(ctx context.Context) error {
		var d net.Dialer
		c, err := d.DialContext(ctx, "tcp", addr)
		if err != nil {
			return err
		}
		return c.Close()
	}
	if err := waitReady(ctx, exited, logPath, ready); err != nil {
		_ = stop(pid, 10*time.Second)
		return nil, err
	}
	u := url.URL{Scheme: "mongodb", User: url.UserPassword(benchUser, pw.bench), Host: addr, Path: "/" + benchDatabase,
		RawQuery: url.Values{"authMechanism": {"SCRAM-SHA-256"}}.Encode()}
	dsn := u.String()
	return &Info{Engine: "mongodb", Version: "FerretDB " + ferretdbVersion(bin) + " (MongoDB wire protocol, SQLite backend)", DSN: dsn, AdminDSN: dsn,
		Password: pw.bench, PID: pid, Port: port, Dir: o.Dir, DataDir: data}, nil
}

// ferretdbVersion is what the binary says it is (its "version: v1.24.2"
// line), so the sandbox names the build it runs, whatever
// tools/ferretdb/build.sh pins.
func ferretdbVersion(bin string) string {
	out, err := exec.Command(bin, "--version").Output()
	if err != nil {
		return "(version unknown)"
	}
	for _, line := range strings.Split(string(out), "\n") {
		if v, ok := strings.CutPrefix(line, "version: "); ok {
			return strings.TrimSpace(v)
		}
	}
	return "(version unknown)"
}
