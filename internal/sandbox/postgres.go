package sandbox

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strings"
	"syscall"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/encbench/encbench/internal/encryption/certs"
	"github.com/encbench/encbench/internal/errs"
)

func init() { register(postgresProvider{}) }

type postgresProvider struct{}

func (postgresProvider) Name() string { return "postgres" }

func (postgresProvider) autovacuum() {}

// binDir finds the server binaries in o.BinDir or the newest installed ones.
func (postgresProvider) binDir(o Options) (string, error) {
	if o.BinDir != "" {
		for _, b := range []string{"initdb", "postgres"} {
			if _, err := os.Stat(filepath.Join(o.BinDir, b)); err != nil {
				return "", errs.Usage("--bin-dir %s has no %s: point it at the directory holding initdb and postgres", o.BinDir, b)
			}
		}
		return o.BinDir, nil
	}
	matches, _ := filepath.Glob("/usr/lib/postgresql/*/bin/initdb")
	sort.Strings(matches)
	if len(matches) > 0 {
		return filepath.Dir(matches[len(matches)-1]), nil
	}
	if p, err := exec.LookPath("initdb"); err == nil {
		return filepath.Dir(p), nil
	}
	return "", errs.Usage("PostgreSQL server binaries (initdb, postgres) not found: install them with `apt-get install postgresql`")
}

func (p postgresProvider) Check(o Options) error {
	if o.tde() {
		return errs.Usage("PostgreSQL has no transparent data encryption in the community server: it needs the pg_tde extension (Percona Server for PostgreSQL 17 or later); use --variant plain or tls here, or run against such a server by --dsn with prepare --tde")
	}
	_, err := p.binDir(o)
	return err
}

func (p postgresProvider) Up(ctx context.Context, o Options, port int, u *user.User, tls certs.Files) (*Info, error) {
	bin, err := p.binDir(o)
	if err != nil {
		return nil, err
	}
	data, run, logDir, err := serverDirs(o.Dir, u)
	if err != nil {
		return nil, err
	}
	pw, err := newPasswords()
	if err != nil {
		return nil, err
	}
	if err := pgInit(bin, data, run, pw, u); err != nil {
		return nil, err
	}
	if err := pgConfigure(o, data, run, port, u, tls); err != nil {
		return nil, err
	}
	logPath := filepath.Join(logDir, "postgresql.log")
	argv := o.pinned(filepath.Join(bin, "postgres"), "-D", data)
	cmd, logf, err := command(u, logPath, argv...)
	if err != nil {
		return nil, err
	}
	pid, exited, err := startServer(cmd, logf)
	if err != nil {
		return nil, err
	}
	admin := fmt.Sprintf("postgres://postgres:%s@/postgres?host=%s&port=%d&sslmode=disable", pw.admin, run, port)
	if err := waitReady(ctx, exited, logPath, func(c context.Context) error { return p.ready(c, &Info{AdminDSN: admin}) }); err != nil {
		_ = stop(pid, 10e9)
		return nil, err
	}
	version, err := pgSetUp(ctx, admin, pw, o.StatStatements, o.Replicas > 0)
	if err != nil {
		_ = stop(pid, 10e9)
		return nil, err
	}
	return &Info{
		ReplPassword:  pw.repl,
		Start:         argv,
		RunAs:         userName(u),
		StartLog:      logPath,
		DataDir:       data,
		Engine:        "postgres",
		Version:       "PostgreSQL " + version,
		DSN:           fmt.Sprintf("postgres://sbtest:%s@127.0.0.1:%d/sbtest", pw.bench, port),
		Password:      pw.bench,
		AdminPassword: pw.admin,
		PID:           pid,
		Port:          port,
		Dir:           o.Dir,
		Socket:        run,
		AdminDSN:      admin,
	}, nil
}

// pgInit creates the cluster with the superuser's password, which
// reaches initdb through a file only the server's user can read, removed
// once initdb has read it.
func pgInit(bin, data, run string, pw passwords, u *user.User) error {
	pwFile := filepath.Join(run, "initdb.pw")
	if err := writeSecret(pwFile, pw.admin+"\n", u); err != nil {
		return err
	}
	defer os.Remove(pwFile)
	return runTool(u, filepath.Join(bin, "initdb"), "-D", data, "-U", "postgres", "-A", "scram-sha-256", "--pwfile", pwFile, "-E", "UTF8", "--no-sync", "--no-instructions")
}

// pgConfigure appends encbench's settings (then the user's) to
// postgresql.conf and writes pg_hba.conf.
func pgConfigure(o Options, data, run string, port int, u *user.User, tls certs.Files) error {
	sharedBuffers := "512MB"
	if o.BufferPool != "" {
		n, _ := ParseSize(o.BufferPool)
		sharedBuffers = fmt.Sprintf("%dkB", n/1024)
	}
	conf := []string{
		"listen_addresses = '127.0.0.1'",
		fmt.Sprintf("port = %d", port),
		fmt.Sprintf("unix_socket_directories = '%s'", run),
		"shared_buffers = " + sharedBuffers,
		"max_connections = 300",
		"max_wal_size = 1GB",
		"min_wal_size = 80MB",
		"logging_collector = off",
		"huge_pages = off",
		// sysbench's write models deadlock now and then; PostgreSQL looks
		// for a deadlock only after this wait, and every transaction queued
		// behind the locks stalls with it. At the default 1 s one deadlock
		// halves a short run's throughput (seen as bimodal write runs);
		// MariaDB detects deadlocks at once.
		"deadlock_timeout = 100ms",
	}
	conf = append(conf, pgTLSConf(o, tls)...)
	if o.Replicas > 0 {
		// Each replica streams from a slot of its own, so the primary
		// keeps the WAL it has not received.
		// With --sync, commits wait for a replica only once one streams
		// (addReplicas): the set-up's own commits come before any.
		conf = append(conf, "max_wal_senders = 16", "max_replication_slots = 16", "hot_standby = on")
	}
	if o.NoAutovacuum {
		conf = append(conf, "autovacuum = off")
	}
	if o.StatStatements {
		conf = append(conf, "shared_preload_libraries = 'pg_stat_statements'", "pg_stat_statements.track = all")
	}
	for _, kv := range o.Settings {
		name, value := splitSetting(kv)
		conf = append(conf, name+" = "+pgQuote(value))
	}
	if err := appendFile(filepath.Join(data, "postgresql.conf"), "\n# encbench sandbox\n"+strings.Join(conf, "\n")+"\n"); err != nil {
		return err
	}
	// Every connection, socket included, proves a password: another local
	// user gets nothing without the sandbox's password.
	hba := "local all all scram-sha-256\nhost all all 127.0.0.1/32 scram-sha-256\nhost all all ::1/128 scram-sha-256\n"
	if o.tls() && !o.TLSOptional {
		// Plaintext TCP is refused, so nothing can fall back to it. With
		// client certificates, TCP connections authenticate by certificate
		// alone (cert: signed by the sandbox's CA, its CN the user's name).
		method := "scram-sha-256"
		if o.ClientCert {
			method = "cert"
		}
		hba = "local all all scram-sha-256\nhostssl all all 127.0.0.1/32 " + method + "\nhostssl all all ::1/128 " + method + "\n" +
			"hostnossl all all 0.0.0.0/0 reject\nhostnossl all all ::/0 reject\n"
	}
	hba = pgReplicationHBA(o) + hba
	if err := os.WriteFile(filepath.Join(data, "pg_hba.conf"), []byte(hba), 0o600); err != nil {
		return fmt.Errorf("writing pg_hba.conf: %w", err)
	}
	return chown(u, filepath.Join(data, "pg_hba.conf"))
}

// pgSetUp creates the benchmark user and database (and pg_stat_statements
// when asked) and returns the server's version. The benchmark user is no
// superuser: it owns its database and reads the statistics views
// (pg_stat_ssl of every backend), nothing more.
func pgSetUp(ctx context.Context, admin string, pw passwords, statStatements, replicas bool) (string, error) {
	conn, err := pgconn.Connect(ctx, admin)
	if err != nil {
		return "", fmt.Errorf("connecting to the new server: %w", err)
	}
	defer conn.Close(ctx)
	setup := []string{
		"CREATE ROLE sbtest LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE PASSWORD '" + pw.bench + "'",
		"GRANT pg_read_all_stats TO sbtest",
		"CREATE DATABASE " + benchDatabase + " OWNER sbtest",
	}
	if replicas {
		// The replicas' account: replication only, no database.
		setup = append(setup, "CREATE ROLE replicator REPLICATION LOGIN NOSUPERUSER PASSWORD '"+pw.repl+"'")
	}
	for _, q := range setup {
		if _, err := conn.Exec(ctx, q).ReadAll(); err != nil {
			return "", fmt.Errorf("setting up the benchmark user (%s): %w", strings.SplitN(q, " PASSWORD", 2)[0], err)
		}
	}
	if statStatements {
		db, err := pgconn.Connect(ctx, inDatabase(admin, benchDatabase))
		if err == nil {
			_, err = db.Exec(ctx, "CREATE EXTENSION IF NOT EXISTS pg_stat_statements").ReadAll()
			db.Close(ctx)
		}
		if err != nil {
			return "", fmt.Errorf("creating pg_stat_statements: %w", err)
		}
	}
	return conn.ParameterStatus("server_version"), nil
}

// benchDatabase is the database the sandbox creates for the workloads.
const benchDatabase = "sbtest"

// inDatabase is the admin DSN with another database.
func inDatabase(admin, db string) string {
	return strings.Replace(admin, "/postgres?", "/"+db+"?", 1)
}

// haltSignal: SIGINT is PostgreSQL's fast shutdown (SIGTERM's smart one
// would wait for the workers to leave), SIGQUIT its immediate one.
func (postgresProvider) haltSignal(immediate bool) syscall.Signal {
	if immediate {
		return syscall.SIGQUIT
	}
	return syscall.SIGINT
}

func (postgresProvider) ready(ctx context.Context, info *Info) error {
	conn, err := pgconn.Connect(ctx, info.AdminDSN)
	if err != nil {
		return err
	}
	return conn.Close(ctx)
}

// pgTLSConf turns TLS on (or explicitly off) in postgresql.conf.
func pgTLSConf(o Options, f certs.Files) []string {
	if !o.tls() && !o.replTLS() {
		return []string{"ssl = off"}
	}
	if !o.tls() {
		// TLS for the replicas' connections only: clients connect with
		// sslmode=disable, and pg_hba lets them.
		return []string{"ssl = on", fmt.Sprintf("ssl_cert_file = '%s'", f.ServerCert),
			fmt.Sprintf("ssl_key_file = '%s'", f.ServerKey), fmt.Sprintf("ssl_ca_file = '%s'", f.CA)}
	}
	conf := []string{
		"ssl = on",
		fmt.Sprintf("ssl_cert_file = '%s'", f.ServerCert),
		fmt.Sprintf("ssl_key_file = '%s'", f.ServerKey),
		fmt.Sprintf("ssl_ca_file = '%s'", f.CA),
	}
	if o.TLSVersion != "" {
		v := "TLSv" + o.TLSVersion
		conf = append(conf, "ssl_min_protocol_version = '"+v+"'", "ssl_max_protocol_version = '"+v+"'")
	}
	if o.TLSCipher != "" && !o.tls13Cipher() {
		conf = append(conf, "ssl_ciphers = '"+o.TLSCipher+"'", "ssl_max_protocol_version = 'TLSv1.2'")
	}
	return conf
}

func appendFile(path, text string) error {
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		return fmt.Errorf("opening %s: %w", path, err)
	}
	if _, err := f.WriteString(text); err != nil {
		f.Close()
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return f.Close()
}

// reachable checks that the server's user can walk down to dir: a 0700
// parent owned by root (as Go's test temp dirs are) would stop the server.
func reachable(dir string, u *user.User) error {
	if u == nil {
		return nil
	}
	for d := filepath.Dir(dir); ; d = filepath.Dir(d) {
		st, err := os.Stat(d)
		if err != nil {
			return fmt.Errorf("checking %s: %w", d, err)
		}
		if st.Mode().Perm()&0o001 == 0 {
			return errs.Usage("the server runs as user %s, which cannot enter %s (mode %v): `chmod o+x %s` or choose another --dir", u.Username, d, st.Mode().Perm(), d)
		}
		if d == "/" {
			return nil
		}
	}
}

// Quiesce has the server finish what writes left behind, as InnoDB's purge
// does on its own: VACUUM removes the dead row versions of the benchmark
// database (a write cell's updates and deletes would otherwise slow the
// next reads measured on this server, against a variant that never wrote)
// and ANALYZE refreshes the statistics the writes changed - the work
// autovacuum would otherwise start, once a minute, inside a run (an
// ANALYZE of TPC-C's tables at one warehouse takes about 0.8 s, a few
// points of a 15 s run's throughput, more with encrypted columns); then a
// checkpoint writes and syncs the dirty buffers, so neither a timed
// checkpoint nor the kernel's write-back of this server's files falls into
// the next run measured on it (or, once the server is frozen, on another).
func (postgresProvider) Quiesce(ctx context.Context, info *Info) error {
	// One connection: CHECKPOINT is server-wide, VACUUM per database.
	conn, err := pgconn.Connect(ctx, inDatabase(info.AdminDSN, benchDatabase))
	if err != nil {
		return fmt.Errorf("connecting to vacuum and checkpoint: %w", err)
	}
	defer conn.Close(ctx)
	for _, q := range []string{"VACUUM (ANALYZE)", "CHECKPOINT"} {
		if _, err := conn.Exec(ctx, q).ReadAll(); err != nil {
			return fmt.Errorf("%s: %w", strings.ToLower(q), err)
		}
	}
	return nil
}

// pgQuote is a postgresql.conf string value.
func pgQuote(v string) string {
	return "'" + strings.ReplaceAll(v, "'", "''") + "'"
}
