package sandbox

import (
	"context"
	"database/sql/driver"
	"fmt"
	"os"
	"os/user"
	"path/filepath"
	"strings"
	"time"

	"github.com/encbench/encbench/internal/encryption/certs"
)

// mariadbReplicationConf is a server's binary log and performance schema:
// both off for a single server; on for a primary with replicas (GTID,
// row events), with MariaDB's semi-synchronous replication when --sync
// asks a commit to wait for a replica's acknowledgement (10 s at most,
// then it goes on asynchronously, as the server does).
func mariadbReplicationConf(o Options) []string {
	if o.Replicas == 0 {
		return []string{"skip-log-bin", "performance_schema=OFF"}
	}
	conf := []string{"log-bin=mariadb-bin", "server_id=1", "binlog_format=ROW", "gtid_strict_mode=ON"}
	if o.Sync {
		// Enabled once the replicas have attached (semiSyncOn): the
		// sandbox's own set-up would otherwise wait out the timeout and
		// leave the primary asynchronous until a replica caught up.
		conf = append(conf, "rpl_semi_sync_master_timeout=10000")
	}
	// The replication sessions' TLS is read from
	// performance_schema.status_by_thread (tls-repl's proof), so a
	// replicated primary has the performance schema on, with tls-repl or
	// without it (both sides of the comparison pay the same), and every
	// instrument off: only the threads' status is kept.
	conf = append(conf, "performance_schema=ON", "performance_schema_instrument='%=OFF'")
	return conf
}

// clusterDSN: the primary's address, then each replica's, tried in order
// (the MySQL engine's host lists, with target_session_attrs).
func (mariadbProvider) clusterDSN(info *Info) string { return multiHostDSN(info) }

// addReplicas starts each replica as a server of its own (its data
// directory initialised, the same accounts), then has it replicate from
// the primary's current GTID position (MASTER_USE_GTID=slave_pos), read
// only, and waits until both of its replication threads run.
func (p mariadbProvider) addReplicas(ctx context.Context, o Options, primary *Info, u *user.User, tls certs.Files) ([]Member, error) {
	var members []Member
	stopStarted := func() {
		for _, m := range members {
			_ = stop(m.PID, 30*time.Second)
		}
	}
	pos, err := mariadbQuery(ctx, primary, "SELECT @@gtid_binlog_pos")
	if err != nil {
		return nil, fmt.Errorf("reading the primary's GTID position: %w", err)
	}
	for i := 1; i <= o.Replicas; i++ {
		m, err := p.startReplica(ctx, o, primary, i, pos, u, tls)
		if err != nil {
			stopStarted()
			return nil, err
		}
		members = append(members, m)
	}
	if o.Sync {
		if err := semiSyncOn(ctx, o, primary); err != nil {
			stopStarted()
			return nil, err
		}
	}
	return members, nil
}

// semiSyncOn makes the primary semi-synchronous now and at every restart,
// and checks that it is (Rpl_semi_sync_master_status).
func semiSyncOn(ctx context.Context, o Options, primary *Info) error {
	if _, err := mariadbQuery(ctx, primary, "SET GLOBAL rpl_semi_sync_master_enabled = ON"); err != nil {
		return fmt.Errorf("turning semi-synchronous replication on: %w", err)
	}
	if err := appendFile(filepath.Join(o.Dir, "my.cnf"), "\n# encbench: semi-synchronous once the replicas attached\n[mysqld]\nrpl_semi_sync_master_enabled=ON\n"); err != nil {
		return err
	}
	v, err := mariadbQuery(ctx, primary, "SELECT VARIABLE_VALUE FROM information_schema.GLOBAL_STATUS WHERE VARIABLE_NAME = 'RPL_SEMI_SYNC_MASTER_STATUS'")
	if err != nil || v != "ON" {
		return fmt.Errorf("the primary is not semi-synchronous after enabling it (Rpl_semi_sync_master_status %q, %v)", v, err)
	}
	return nil
}

func (p mariadbProvider) startReplica(ctx context.Context, o Options, primary *Info, i int, pos string, u *user.User, tls certs.Files) (Member, error) {
	server, installDB, err := p.bins(o)
	if err != nil {
		return Member{}, err
	}
	name := fmt.Sprintf("replica%d", i)
	ro := o
	ro.Dir, ro.Replicas, ro.Sync = filepath.Join(o.Dir, name), 0, false
	if err := os.MkdirAll(ro.Dir, 0o755); err != nil {
		return Member{}, fmt.Errorf("creating %s: %w", ro.Dir, err)
	}
	data, run, logDir, err := serverDirs(ro.Dir, u)
	if err != nil {
		return Member{}, err
	}
	port, err := freePort()
	if err != nil {
		return Member{}, err
	}
	sock := filepath.Join(run, "mysqld.sock")
	logPath := filepath.Join(logDir, "mariadb.err")
	cnfPath, err := mariadbConfigure(ro, data, sock, logPath, port, u, tls)
	if err != nil {
		return Member{}, err
	}
	// report_host names the replica where encbench reports its lag.
	extra := []string{fmt.Sprintf("server_id=%d", 1+i), "read_only=ON", "relay_log=" + filepath.Join(data, "relay-bin"), "report_host=" + name}
	if o.Sync {
		extra = append(extra, "rpl_semi_sync_slave_enabled=ON")
	}
	if err := appendFile(cnfPath, strings.Join(extra, "\n")+"\n"); err != nil {
		return Member{}, err
	}
	args := []string{"--defaults-file=" + cnfPath, "--auth-root-authentication-method=normal", "--skip-test-db"}
	if u != nil {
		args = append(args, "--user="+u.Username)
	}
	if err := runTool(nil, installDB, args...); err != nil {
		return Member{}, err
	}
	initFile := filepath.Join(run, "init.sql")
	pw := passwords{admin: primary.AdminPassword, bench: primary.Password}
	if err := writeSecret(initFile, mariadbAccounts(pw, o.ClientCert, false, false), u); err != nil {
		return Member{}, err
	}
	defer os.Remove(initFile)
	argv := o.pinned(server, "--defaults-file="+cnfPath)
	startLog := filepath.Join(logDir, "mariadbd.out")
	cmd, logf, err := command(nil, startLog, append(argv, "--init-file="+initFile)...)
	if err != nil {
		return Member{}, err
	}
	pid, exited, err := startServer(cmd, logf)
	if err != nil {
		return Member{}, err
	}
	admin := &Info{Socket: sock, AdminPassword: primary.AdminPassword}
	fail := func(err error) (Member, error) {
		_ = stop(pid, 10*time.Second)
		return Member{}, fmt.Errorf("starting %s: %w", name, err)
	}
	if _, err := p.adminVersion(ctx, exited, logPath, admin); err != nil {
		return fail(err)
	}
	change := fmt.Sprintf("CHANGE MASTER TO MASTER_HOST='127.0.0.1', MASTER_PORT=%d, MASTER_USER='replicator', MASTER_PASSWORD='%s', MASTER_USE_GTID=slave_pos",
		primary.Port, primary.ReplPassword)
	if o.replTLS() {
		// The replica verifies the primary's certificate against the
		// sandbox's CA and its name (the certificate holds 127.0.0.1).
		change += fmt.Sprintf(", MASTER_SSL=1, MASTER_SSL_CA='%s', MASTER_SSL_VERIFY_SERVER_CERT=1", tls.CA)
	} else {
		change += ", MASTER_SSL=0"
	}
	for _, q := range []string{"SET GLOBAL gtid_slave_pos = '" + pos + "'", change, "START SLAVE"} {
		if _, err := mariadbQuery(ctx, admin, q); err != nil {
			return fail(fmt.Errorf("%s: %w", strings.SplitN(q, " MASTER_PASSWORD", 2)[0], err))
		}
	}
	if err := waitReplicating(ctx, admin); err != nil {
		return fail(err)
	}
	if o.replTLS() {
		if err := checkReplicaTLS(ctx, admin); err != nil {
			return fail(err)
		}
	}
	return Member{Name: name, Dir: ro.Dir, DataDir: data, Socket: sock, Port: port, PID: pid, Start: argv, StartLog: startLog,
		AdminDSN: fmt.Sprintf("mysql://root:%s@localhost/?socket=%s", primary.AdminPassword, sock),
		DSN:      fmt.Sprintf("mysql://sbtest:%s@127.0.0.1:%d/sbtest", primary.Password, port)}, nil
}

// waitReplicating waits until the replica's I/O and SQL threads run.
func waitReplicating(ctx context.Context, admin *Info) error {
	deadline := time.Now().Add(30 * time.Second)
	var last string
	for time.Now().Before(deadline) {
		io, err1 := mariadbQuery(ctx, admin, "SELECT VARIABLE_VALUE FROM information_schema.GLOBAL_STATUS WHERE VARIABLE_NAME = 'SLAVE_RUNNING'")
		last = io
		if err1 == nil && io == "ON" {
			return nil
		}
		time.Sleep(100 * time.Millisecond)
	}
	return fmt.Errorf("the replica did not start replicating within 30 s (Slave_running %q; see its log)", last)
}

// checkReplicaTLS reads the replica's own status: its link to the primary
// must be TLS with the primary's certificate verified.
func checkReplicaTLS(ctx context.Context, admin *Info) error {
	for _, f := range []string{"Master_SSL_Allowed", "Master_SSL_Verify_Server_Cert"} {
		v, err := mariadbStatusField(ctx, admin, "SHOW SLAVE STATUS", f)
		if err != nil {
			return err
		}
		if v != "Yes" {
			return fmt.Errorf("the replica's %s is %q, not Yes", f, v)
		}
	}
	return nil
}

// mariadbStatusField reads one column of a SHOW statement's first row.
func mariadbStatusField(ctx context.Context, admin *Info, show, field string) (string, error) {
	row, err := mariadbFirstRow(ctx, admin, show)
	if err != nil {
		return "", fmt.Errorf("%s: %w", show, err)
	}
	v, ok := row[field]
	if !ok {
		return "", fmt.Errorf("%s gave no row with a column %s", show, field)
	}
	return v, nil
}

// mariadbQuery runs one statement as the server's root and returns the
// first column of its first row ("" for none).
func mariadbQuery(ctx context.Context, admin *Info, q string) (string, error) {
	row, err := mariadbFirstRow(ctx, admin, q)
	return row[""], err
}

// mariadbFirstRow runs one statement as the server's root and returns its
// first row by column name, the first column also under "" (an empty map
// for no row).
func mariadbFirstRow(ctx context.Context, admin *Info, q string) (map[string]string, error) {
	connector, err := adminConnector(admin)
	if err != nil {
		return nil, err
	}
	dc, err := connector.Connect(ctx)
	if err != nil {
		return nil, err
	}
	defer dc.Close()
	rows, err := dc.(driver.QueryerContext).QueryContext(ctx, q, nil)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	cols := rows.Columns()
	dest := make([]driver.Value, len(cols))
	out := map[string]string{}
	if len(dest) == 0 || rows.Next(dest) != nil {
		return out, nil
	}
	for i, c := range cols {
		v := fmt.Sprint(dest[i])
		if b, ok := dest[i].([]byte); ok {
			v = string(b)
		}
		out[c] = v
		if i == 0 {
			out[""] = v
		}
	}
	return out, nil
}
