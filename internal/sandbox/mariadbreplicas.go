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

// mariadbReplicationConf is a server's binary log: off for a single
// server; on for a primary with replicas (GTID, row events), with
// MariaDB's semi-synchronous replication when --sync asks a commit to
// wait for a replica's acknowledgement (10 s at most, then it goes on
// asynchronously, as the server does).
func mariadbReplicationConf(o Options) []string {
	if o.Replicas == 0 {
		return []string{"skip-log-bin"}
	}
	conf := []string{"log-bin=mariadb-bin", "server_id=1", "binlog_format=ROW", "gtid_strict_mode=ON"}
	if o.Sync {
		conf = append(conf, "rpl_semi_sync_master_enabled=ON", "rpl_semi_sync_master_timeout=10000")
	}
	return conf
}

// clusterDSN: go-sql-driver takes one host, and encbench does not yet
// choose among a MariaDB cluster's members; each replica has its DSN.
func (mariadbProvider) clusterDSN(*Info) string { return "" }

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
	return members, nil
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
	extra := []string{fmt.Sprintf("server_id=%d", 1+i), "read_only=ON", "relay_log=" + filepath.Join(data, "relay-bin")}
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
	if err := writeSecret(initFile, mariadbAccounts(pw, o.ClientCert, false), u); err != nil {
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
	for _, q := range []string{"SET GLOBAL gtid_slave_pos = '" + pos + "'", change, "START SLAVE"} {
		if _, err := mariadbQuery(ctx, admin, q); err != nil {
			return fail(fmt.Errorf("%s: %w", strings.SplitN(q, " MASTER_PASSWORD", 2)[0], err))
		}
	}
	if err := waitReplicating(ctx, admin); err != nil {
		return fail(err)
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

// mariadbQuery runs one statement as the server's root and returns the
// first column of its first row ("" for none).
func mariadbQuery(ctx context.Context, admin *Info, q string) (string, error) {
	connector, err := adminConnector(admin)
	if err != nil {
		return "", err
	}
	dc, err := connector.Connect(ctx)
	if err != nil {
		return "", err
	}
	defer dc.Close()
	rows, err := dc.(driver.QueryerContext).QueryContext(ctx, q, nil)
	if err != nil {
		return "", err
	}
	defer rows.Close()
	dest := make([]driver.Value, len(rows.Columns()))
	if len(dest) == 0 || rows.Next(dest) != nil {
		return "", nil
	}
	if b, ok := dest[0].([]byte); ok {
		return string(b), nil
	}
	return fmt.Sprint(dest[0]), nil
}
