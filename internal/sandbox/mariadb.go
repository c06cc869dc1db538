package sandbox

import (
	"context"
	"database/sql/driver"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strings"
	"syscall"

	gomysql "github.com/go-sql-driver/mysql"

	"github.com/encbench/encbench/internal/encryption/certs"
	"github.com/encbench/encbench/internal/encryption/tdekeys"
	"github.com/encbench/encbench/internal/errs"
	"github.com/encbench/encbench/internal/fsx"
)

func init() { register(mariadbProvider{}) }

type mariadbProvider struct{}

func (mariadbProvider) Name() string { return "mariadb" }

func (mariadbProvider) bins(o Options) (server, installDB string, err error) {
	if o.BinDir != "" {
		server, installDB = filepath.Join(o.BinDir, "mariadbd"), filepath.Join(o.BinDir, "mariadb-install-db")
		for _, b := range []string{server, installDB} {
			if _, err := os.Stat(b); err != nil {
				return "", "", errs.Usage("--bin-dir %s has no %s: point it at the directory holding mariadbd and mariadb-install-db", o.BinDir, filepath.Base(b))
			}
		}
		return server, installDB, nil
	}
	server, err1 := exec.LookPath("mariadbd")
	if err1 != nil {
		server, err1 = exec.LookPath("/usr/sbin/mariadbd")
	}
	installDB, err2 := exec.LookPath("mariadb-install-db")
	if err1 != nil || err2 != nil {
		return "", "", errs.Usage("MariaDB server binaries (mariadbd, mariadb-install-db) not found: install them with `apt-get install mariadb-server`")
	}
	return server, installDB, nil
}

func (p mariadbProvider) Check(o Options) error {
	_, _, err := p.bins(o)
	return err
}

func (p mariadbProvider) Up(ctx context.Context, o Options, port int, u *user.User, tls certs.Files) (*Info, error) {
	server, installDB, err := p.bins(o)
	if err != nil {
		return nil, err
	}
	data, run, logDir, err := serverDirs(o.Dir, u)
	if err != nil {
		return nil, err
	}
	sock := filepath.Join(run, "mysqld.sock")
	logPath := filepath.Join(logDir, "mariadb.err")
	cnfPath, err := mariadbConfigure(o, data, sock, logPath, port, u, tls)
	if err != nil {
		return nil, err
	}
	// The defaults file goes first, or Debian's /etc/mysql settings leak in.
	args := []string{"--defaults-file=" + cnfPath, "--auth-root-authentication-method=normal", "--skip-test-db"}
	if u != nil {
		args = append(args, "--user="+u.Username)
	}
	if err := runTool(nil, installDB, args...); err != nil {
		return nil, err
	}
	pw, err := newPasswords()
	if err != nil {
		return nil, err
	}
	// The accounts are set up by an init file that the server runs before
	// it serves its first connection, so no account is ever reachable
	// without a password; the file (it holds both passwords) is removed
	// once the server is up, and restarts run without it.
	initFile := filepath.Join(run, "init.sql")
	if err := writeSecret(initFile, mariadbAccounts(pw, o.ClientCert, o.Replicas > 0, o.replTLS()), u); err != nil {
		return nil, err
	}
	defer os.Remove(initFile)
	argv := o.pinned(server, "--defaults-file="+cnfPath)
	startLog := filepath.Join(logDir, "mariadbd.out")
	cmd, logf, err := command(nil, startLog, append(argv, "--init-file="+initFile)...)
	if err != nil {
		return nil, err
	}
	pid, exited, err := startServer(cmd, logf)
	if err != nil {
		return nil, err
	}
	version, err := p.adminVersion(ctx, exited, logPath, &Info{Socket: sock, AdminPassword: pw.admin})
	if err != nil {
		_ = stop(pid, 10e9)
		return nil, err
	}
	return &Info{
		ReplPassword:  pw.repl,
		Start:         argv,
		StartLog:      startLog,
		DataDir:       data,
		MarkerFiles:   []string{filepath.Join(data, "sbtest", "encbench_marker.ibd"), filepath.Join(data, "ib_logfile0")},
		Engine:        "mariadb",
		Version:       "MariaDB " + version,
		DSN:           fmt.Sprintf("mysql://sbtest:%s@127.0.0.1:%d/sbtest", pw.bench, port),
		Password:      pw.bench,
		AdminPassword: pw.admin,
		PID:           pid,
		Port:          port,
		Dir:           o.Dir,
		Socket:        sock,
		AdminDSN:      fmt.Sprintf("mysql://root:%s@localhost/?socket=%s", pw.admin, sock),
	}, nil
}

// adminVersion waits until the new server accepts its admin connection,
// then reads its version.
func (p mariadbProvider) adminVersion(ctx context.Context, exited <-chan struct{}, logPath string, admin *Info) (string, error) {
	if err := waitReady(ctx, exited, logPath, func(c context.Context) error { return p.ready(c, admin) }); err != nil {
		return "", err
	}
	connector, err := adminConnector(admin)
	if err != nil {
		return "", err
	}
	dc, err := connector.Connect(ctx)
	if err != nil {
		return "", fmt.Errorf("connecting to the new server: %w", err)
	}
	defer dc.Close()
	return serverVersion(ctx, dc)
}

// mariadbConfigure writes the sandbox's my.cnf: encbench's settings, the
// variant's TLS and TDE ones, then the user's.
func mariadbConfigure(o Options, data, sock, logPath string, port int, u *user.User, tls certs.Files) (string, error) {
	pool := "1G"
	if o.BufferPool != "" {
		n, _ := ParseSize(o.BufferPool)
		pool = fmt.Sprintf("%dM", max(n>>20, 5))
	}
	// LOAD_FILE, LOAD DATA and SELECT ... INTO OUTFILE reach only this
	// directory, and only for an account with the FILE privilege.
	files := filepath.Join(o.Dir, "files")
	if err := os.Mkdir(files, 0o700); err != nil {
		return "", fmt.Errorf("creating %s: %w", files, err)
	}
	if err := chown(u, files); err != nil {
		return "", err
	}
	cnf := []string{
		"[mysqld]",
		"datadir=" + data,
		"socket=" + sock,
		"pid-file=" + filepath.Join(filepath.Dir(sock), "mysqld.pid"),
		fmt.Sprintf("port=%d", port),
		"bind-address=127.0.0.1",
		"log-error=" + logPath,
		"innodb_buffer_pool_size=" + pool,
		"innodb_log_file_size=256M",
		"max_connections=500",
		"skip-name-resolve",
		"max_prepared_stmt_count=100000",
		"secure_file_priv=" + files,
	}
	if u != nil {
		cnf = append(cnf, "user="+u.Username)
	}
	cnf = append(cnf, mariadbReplicationConf(o)...)
	cnf = append(cnf, mariadbTLSConf(o, tls)...)
	if o.tde() {
		tde, err := mariadbTDE(o, u)
		if err != nil {
			return "", err
		}
		cnf = append(cnf, tde...)
	}
	cnf = append(cnf, o.Settings...)
	cnfPath := filepath.Join(o.Dir, "my.cnf")
	if err := os.WriteFile(cnfPath, []byte(strings.Join(cnf, "\n")+"\n"), 0o644); err != nil {
		return "", fmt.Errorf("writing %s: %w", cnfPath, err)
	}
	return cnfPath, nil
}

// mariadbAccounts is the init file's SQL: root keeps only its socket
// account, with a password; the benchmark user gets its database and
// PROCESS (to read every session's TLS state and InnoDB's encryption
// tables), never FILE or SUPER. One statement per line, as the server
// reads an init file.
func mariadbAccounts(pw passwords, clientCert, replicas, replTLS bool) string {
	require := ""
	if clientCert {
		// Mutual TLS: no benchmark session without a client certificate
		// of the sandbox's CA.
		require = " REQUIRE X509"
	}
	sql := []string{
		"DELETE FROM mysql.global_priv WHERE User = 'root' AND Host <> 'localhost';",
		"FLUSH PRIVILEGES;",
		"ALTER USER 'root'@'localhost' IDENTIFIED BY '" + pw.admin + "';",
		"CREATE DATABASE sbtest;",
	}
	for _, host := range []string{"127.0.0.1", "::1", "localhost"} {
		sql = append(sql,
			fmt.Sprintf("CREATE USER 'sbtest'@'%s' IDENTIFIED BY '%s'%s;", host, pw.bench, require),
			fmt.Sprintf("GRANT ALL ON sbtest.* TO 'sbtest'@'%s';", host),
			fmt.Sprintf("GRANT PROCESS ON *.* TO 'sbtest'@'%s';", host))
		if replicas {
			// tls-repl's proof reads the replication sessions' TLS there.
			sql = append(sql, fmt.Sprintf("GRANT SELECT ON performance_schema.* TO 'sbtest'@'%s';", host))
		}
	}
	if replicas {
		// The replicas' account: replication only, from loopback.
		requireTLS := ""
		if replTLS {
			// No replication session without TLS: the primary refuses the
			// replicas' account in plaintext.
			requireTLS = " REQUIRE SSL"
		}
		sql = append(sql, "CREATE USER 'replicator'@'127.0.0.1' IDENTIFIED BY '"+pw.repl+"'"+requireTLS+";",
			"GRANT REPLICATION SLAVE ON *.* TO 'replicator'@'127.0.0.1';")
	}
	return strings.Join(sql, "\n") + "\n"
}

func adminConnector(info *Info) (driver.Connector, error) {
	cfg := gomysql.NewConfig()
	cfg.User, cfg.Passwd, cfg.Net, cfg.Addr = "root", info.AdminPassword, "unix", info.Socket
	c, err := gomysql.NewConnector(cfg)
	if err != nil {
		return nil, fmt.Errorf("configuring admin connection: %w", err)
	}
	return c, nil
}

// haltSignal: SIGTERM is MariaDB's normal shutdown (sessions killed,
// pages flushed); SIGKILL a crash, recovered from the redo log.
func (mariadbProvider) haltSignal(immediate bool) syscall.Signal {
	if immediate {
		return syscall.SIGKILL
	}
	return syscall.SIGTERM
}

func (mariadbProvider) ready(ctx context.Context, info *Info) error {
	connector, err := adminConnector(info)
	if err != nil {
		return err
	}
	dc, err := connector.Connect(ctx)
	if err != nil {
		return err
	}
	return dc.Close()
}

// mariadbTLSConf turns TLS on and requires it of every TCP client.
func mariadbTLSConf(o Options, f certs.Files) []string {
	if !o.tls() && !o.replTLS() {
		return nil
	}
	if !o.tls() {
		// TLS for the replicas' connections only (their account requires
		// it); clients may still connect without.
		return []string{"ssl_cert=" + f.ServerCert, "ssl_key=" + f.ServerKey, "ssl_ca=" + f.CA}
	}
	conf := []string{"ssl_cert=" + f.ServerCert, "ssl_key=" + f.ServerKey, "ssl_ca=" + f.CA}
	if !o.TLSOptional {
		conf = append(conf, "require_secure_transport=ON")
	}
	if o.TLSVersion != "" {
		conf = append(conf, "tls_version=TLSv"+o.TLSVersion)
	}
	if o.TLSCipher != "" && !o.tls13Cipher() {
		conf = append(conf, "ssl_cipher="+o.TLSCipher, "tls_version=TLSv1.2")
	}
	return conf
}

// mariadbTDE sets up file_key_management with a key file only the server's
// user can read, and encrypts tables, redo log, temporary tables and files.
func mariadbTDE(o Options, u *user.User) ([]string, error) {
	keyDir := filepath.Join(o.Dir, "keys")
	if err := os.MkdirAll(keyDir, 0o700); err != nil {
		return nil, fmt.Errorf("creating %s: %w", keyDir, err)
	}
	keyFile := filepath.Join(keyDir, "keyfile")
	if o.TDEKeyFile != "" {
		data, err := os.ReadFile(o.TDEKeyFile)
		if err != nil {
			return nil, errs.Usage("cannot read --tde-key-file: %w", err)
		}
		if err := fsx.WriteFile(keyFile, data, 0o600); err != nil {
			return nil, fmt.Errorf("copying the key file: %w", err)
		}
	} else if err := tdekeys.Generate(keyFile); err != nil {
		return nil, err
	}
	if err := chown(u, keyDir, keyFile); err != nil {
		return nil, err
	}
	return []string{
		"plugin_load_add=file_key_management",
		"file_key_management_filename=" + keyFile,
		"file_key_management_encryption_algorithm=" + strings.ToUpper(strings.ReplaceAll(o.TDECipher, "-", "_")),
		"innodb_encrypt_tables=ON",
		"innodb_encrypt_log=ON",
		"innodb_encrypt_temporary_tables=ON",
		"innodb_encryption_threads=4",
		"encrypt_tmp_files=ON",
		"aria_encrypt_tables=ON",
	}, nil
}

func serverVersion(ctx context.Context, dc driver.Conn) (string, error) {
	rows, err := dc.(driver.QueryerContext).QueryContext(ctx, "SELECT VERSION()", nil)
	if err != nil {
		return "", fmt.Errorf("reading server version: %w", err)
	}
	defer rows.Close()
	dest := make([]driver.Value, 1)
	if err := rows.Next(dest); err != nil {
		return "", fmt.Errorf("reading server version: %w", err)
	}
	if b, ok := dest[0].([]byte); ok {
		return string(b), nil
	}
	return fmt.Sprint(dest[0]), nil
}
