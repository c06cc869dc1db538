package sandbox

import (
	"context"
	"fmt"
	"os"
	"os/user"
	"path/filepath"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/encbench/encbench/internal/encryption/certs"
)

// pgReplicationHBA lets the replicas' account in for replication, over
// TLS only with tls-repl (then a plaintext replication connection is
// refused, so nothing falls back to one).
func pgReplicationHBA(o Options) string {
	if o.Replicas == 0 {
		return ""
	}
	if o.replTLS() {
		return "hostssl replication replicator 127.0.0.1/32 scram-sha-256\nhostnossl replication all 0.0.0.0/0 reject\n"
	}
	return "host replication replicator 127.0.0.1/32 scram-sha-256\n"
}

func (postgresProvider) clusterDSN(info *Info) string { return multiHostDSN(info) }

// addReplicas makes each replica a streaming standby of the primary: a
// base backup through a replication slot of its own (pg_basebackup -C
// -S), its own port and socket, primary_conninfo over TCP (verify-full
// against the sandbox's CA with tls-repl), then started and waited for
// until the primary sees every replica streaming.
func (p postgresProvider) addReplicas(ctx context.Context, o Options, primary *Info, u *user.User, tls certs.Files) ([]Member, error) {
	bin, err := p.binDir(o)
	if err != nil {
		return nil, err
	}
	var members []Member
	stopStarted := func() {
		for _, m := range members {
			_ = stop(m.PID, 30*time.Second)
		}
	}
	for i := 1; i <= o.Replicas; i++ {
		m, err := p.startReplica(ctx, o, bin, primary, fmt.Sprintf("replica%d", i), u, tls)
		if err != nil {
			stopStarted()
			return nil, err
		}
		members = append(members, m)
	}
	if err := waitStreaming(ctx, primary.AdminDSN, len(members)); err != nil {
		stopStarted()
		return nil, err
	}
	if o.Sync {
		if err := pgSynchronous(ctx, primary.AdminDSN); err != nil {
			stopStarted()
			return nil, err
		}
	}
	return members, nil
}

func (p postgresProvider) startReplica(ctx context.Context, o Options, bin string, primary *Info, name string, u *user.User, tls certs.Files) (Member, error) {
	dir := filepath.Join(o.Dir, name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return Member{}, fmt.Errorf("creating %s: %w", dir, err)
	}
	data, run, logDir, err := serverDirs(dir, u)
	if err != nil {
		return Member{}, err
	}
	port, err := freePort()
	if err != nil {
		return Member{}, err
	}
	// The password reaches libpq through a passfile only the server's
	// user reads, never a command line.
	passfile := filepath.Join(run, "pgpass")
	if err := writeSecret(passfile, fmt.Sprintf("127.0.0.1:%d:*:replicator:%s\n", primary.Port, primary.ReplPassword), u); err != nil {
		return Member{}, err
	}
	conninfo := fmt.Sprintf("host=127.0.0.1 port=%d user=replicator passfile=%s application_name=%s", primary.Port, passfile, name)
	if o.replTLS() {
		conninfo += " sslmode=verify-full sslrootcert=" + tls.CA
	} else {
		conninfo += " sslmode=disable"
	}
	if err := runTool(u, filepath.Join(bin, "pg_basebackup"), "-D", data, "-d", conninfo, "-X", "stream", "-C", "-S", name, "-c", "fast", "--no-sync"); err != nil {
		return Member{}, fmt.Errorf("copying the primary for %s: %w", name, err)
	}
	conf := []string{
		fmt.Sprintf("port = %d", port),
		fmt.Sprintf("unix_socket_directories = '%s'", run),
		"primary_conninfo = " + pgQuote(conninfo),
		"primary_slot_name = " + pgQuote(name),
		"cluster_name = " + pgQuote(name),
		"hot_standby = on",
		"synchronous_standby_names = ''",
	}
	if err := appendFile(filepath.Join(data, "postgresql.conf"), "\n# encbench replica\n"+strings.Join(conf, "\n")+"\n"); err != nil {
		return Member{}, err
	}
	signal := filepath.Join(data, "standby.signal")
	if err := os.WriteFile(signal, nil, 0o600); err != nil {
		return Member{}, fmt.Errorf("writing %s: %w", signal, err)
	}
	if err := chown(u, signal); err != nil {
		return Member{}, err
	}
	logPath := filepath.Join(logDir, "postgresql.log")
	argv := o.pinned(filepath.Join(bin, "postgres"), "-D", data)
	cmd, logf, err := command(u, logPath, argv...)
	if err != nil {
		return Member{}, err
	}
	pid, exited, err := startServer(cmd, logf)
	if err != nil {
		return Member{}, err
	}
	admin := fmt.Sprintf("postgres://postgres:%s@/postgres?host=%s&port=%d&sslmode=disable", primary.AdminPassword, run, port)
	if err := waitReady(ctx, exited, logPath, func(c context.Context) error { return p.ready(c, &Info{AdminDSN: admin}) }); err != nil {
		_ = stop(pid, 10*time.Second)
		return Member{}, fmt.Errorf("starting %s: %w", name, err)
	}
	return Member{Name: name, Dir: dir, DataDir: data, Socket: run, Port: port, PID: pid, AdminDSN: admin, Start: argv, StartLog: logPath,
		DSN: fmt.Sprintf("postgres://sbtest:%s@127.0.0.1:%d/sbtest", primary.Password, port)}, nil
}

// pgSynchronous makes the first replica to stream synchronous: every
// commit then waits until it has flushed the commit's WAL.
func pgSynchronous(ctx context.Context, admin string) error {
	conn, err := pgconn.Connect(ctx, admin)
	if err != nil {
		return fmt.Errorf("making a replica synchronous: %w", err)
	}
	defer conn.Close(ctx)
	for _, q := range []string{"ALTER SYSTEM SET synchronous_standby_names = '*'", "SELECT pg_reload_conf()"} {
		if _, err := conn.Exec(ctx, q).ReadAll(); err != nil {
			return fmt.Errorf("making a replica synchronous: %w", err)
		}
	}
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		rows, err := conn.Exec(ctx, "SELECT count(*) FROM pg_stat_replication WHERE sync_state = 'sync'").ReadAll()
		if err == nil && len(rows) == 1 && len(rows[0].Rows) == 1 && string(rows[0].Rows[0][0]) == "1" {
			return nil
		}
		time.Sleep(50 * time.Millisecond)
	}
	return fmt.Errorf("no replica became synchronous within 30 s")
}

// waitStreaming waits until the primary sees n replicas streaming.
func waitStreaming(ctx context.Context, admin string, n int) error {
	deadline := time.Now().Add(60 * time.Second)
	var last string
	for time.Now().Before(deadline) {
		conn, err := pgconn.Connect(ctx, admin)
		if err == nil {
			rows, qerr := conn.Exec(ctx, "SELECT count(*) FROM pg_stat_replication WHERE state = 'streaming'").ReadAll()
			conn.Close(ctx)
			if qerr == nil && len(rows) == 1 && len(rows[0].Rows) == 1 {
				last = string(rows[0].Rows[0][0])
				if last == fmt.Sprint(n) {
					return nil
				}
			}
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
	return fmt.Errorf("the primary saw %s of %d replicas streaming after 60 s (see each replica's log/postgresql.log)", last, n)
}
