package integration

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/encbench/encbench/internal/engine"
	"github.com/encbench/encbench/internal/result"
	"github.com/encbench/encbench/internal/sandbox"
	"github.com/encbench/encbench/internal/suite"
)

// TestReplicatedPostgresSandbox starts a three-node PostgreSQL sandbox
// (a primary and two streaming replicas, one synchronous, the replication
// links under TLS) and checks what issue 69 asks of it: a row written on
// the primary is read on every replica; the tls-repl layer proves itself
// from the primary's view; the cluster's multi-host DSN with
// target_session_attrs=standby reaches a standby; a replica restarted in
// the middle of a run leaves the run to end, not hang; and sandbox down
// leaves no server process behind.
func TestReplicatedPostgresSandbox(t *testing.T) {
	if len(servers(t)) == 0 {
		return
	}
	dir := filepath.Join(fx.dir, "replicated")
	info, err := sandbox.Up(t.Context(), sandbox.Options{Engine: "postgres", Dir: dir, Replicas: 2, Sync: true, Variant: "tls-repl", BufferPool: "64MB"})
	if err != nil {
		t.Fatal(err)
	}
	down := false
	t.Cleanup(func() {
		if !down {
			_ = sandbox.Down(dir)
		}
	})
	if len(info.Members) != 2 || !info.Sync || strings.Count(info.ClusterDSN, ",") != 2 {
		t.Fatalf("members %+v, sync %v, cluster %s", info.Members, info.Sync, info.ClusterDSN)
	}
	query := func(dsn, sql string) string {
		t.Helper()
		tg, err := engine.ParseTarget(dsn, engine.TLSOptions{Mode: engine.TLSDisable})
		if err != nil {
			t.Fatal(err)
		}
		c, err := tg.Engine.Connect(t.Context(), tg)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		rows, err := c.Query(t.Context(), sql)
		if err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
		if len(rows) == 0 {
			return ""
		}
		return rows[0][0]
	}
	marker := fmt.Sprintf("written-%d", time.Now().UnixNano())
	query(info.DSN, "CREATE TABLE IF NOT EXISTS repl_check (v text)")
	query(info.DSN, "INSERT INTO repl_check VALUES ('"+marker+"') RETURNING v")
	for _, m := range info.Members {
		var got string
		for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline) && got != "1"; time.Sleep(50 * time.Millisecond) {
			got = query(m.DSN, "SELECT count(*) FROM repl_check WHERE v = '"+marker+"'")
		}
		if got != "1" || query(m.DSN, "SELECT pg_is_in_recovery()::text") != "true" {
			t.Errorf("%s: the row written on the primary is not there (%q), or it is no standby", m.Name, got)
		}
	}
	data := []string{"--sandbox", dir}
	mustRun(t, append([]string{"prepare", "pgbench", "--scale", "1"}, data...)...)
	r := runJSON(t, append([]string{"pgbench", "--variant", "tls-repl", "--time", "1", "--threads", "2"}, data...)...)
	if p := r.Variant.Verified.Layers; len(p) != 1 || p[0].Checked != 2 || p[0].Proven != 2 {
		t.Errorf("tls-repl proof: %+v", p)
	}
	// The same primary named by its DSN, as a user's cluster is: the layer
	// proves itself and the run samples its replicas all the same.
	d := runJSON(t, "pgbench", "--dsn", info.DSN, "--layer", "tls-repl", "--time", "1", "--threads", "2")
	if p := d.Variant.Verified.Layers; len(p) != 1 || p[0].Proven != 2 {
		t.Errorf("tls-repl proof through the DSN: %+v", p)
	}
	if d.Replication == nil || len(d.Replication.Replicas) != 2 || d.Replication.Samples == 0 {
		t.Errorf("replication through the DSN: %+v", d.Replication)
	}
	// An account without pg_read_all_stats sees the replicas' rows but
	// not their positions: the run says the lag is not measured, and
	// tls-repl, whose proof it cannot read, stops before the run.
	adminQuery := func(sql string) {
		c, err := pgconn.Connect(t.Context(), strings.Replace(info.AdminDSN, "/postgres?", "/sbtest?", 1))
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close(context.Background())
		if _, err := c.Exec(t.Context(), sql).ReadAll(); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	adminQuery("CREATE ROLE watcher LOGIN PASSWORD 'watcher-pw'")
	adminQuery("GRANT SELECT ON ALL TABLES IN SCHEMA public TO watcher")
	u, _ := url.Parse(info.DSN)
	u.User = url.UserPassword("watcher", "watcher-pw")
	one := filepath.Join(t.TempDir(), "one.sql")
	if err := os.WriteFile(one, []byte("SELECT 1;\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if out := mustRun(t, "run", "script", "--file", one, "--dsn", u.String(), "--time", "1"); !strings.Contains(out, "not measured: pg_stat_replication hides") {
		t.Errorf("an account that cannot read the replicas' lag was not told:\n%s", out)
	}
	if code, _, errOut := encbench(t.Context(), "run", "script", "--file", one, "--dsn", u.String(), "--layer", "tls-repl", "--time", "1"); code != 2 || !strings.Contains(errOut, "pg_read_all_stats") {
		t.Errorf("tls-repl with an account that cannot read its proof: exit %d\n%s", code, errOut)
	}
	// A suite's pre-flight of that DSN target says it once, and the
	// suite runs without the figures.
	adminQuery("CREATE DATABASE watcherdb OWNER watcher")
	own := *u
	own.Path = "/watcherdb"
	sdir, sfile := suiteFile(t, "watcher", fmt.Sprintf("name: watcher\ntargets: [{name: users-cluster, dsn: %q}]\nvariants: [plain]\n"+
		"workloads: [{name: connect}]\nthreads: [1]\ntime: 1\nwarmup: 0\nrepetitions: 1\nprecision: 0\n", own.String()))
	code, _, errOut := encbench(t.Context(), "suite", "run", sfile, "--out", filepath.Join(sdir, "out"))
	if code != 0 || strings.Count(errOut, "the replicas' state will not be measured") != 1 || !strings.Contains(errOut, "pg_read_all_stats") {
		t.Errorf("suite on a cluster whose replicas the account cannot read: exit %d\n%s", code, errOut)
	}
	standby := filepath.Join(t.TempDir(), "standby.sql")
	if err := os.WriteFile(standby, []byte("SELECT 1 AS r WHERE pg_is_in_recovery() \\gset\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	mustRun(t, "run", "script", "--file", standby, "--dsn", info.ClusterDSN+"?target_session_attrs=standby", "--time", "1")
	mustRun(t, "run", "script", "--file", standby, "--sandbox", dir, "--target-session-attrs", "standby", "--time", "1")

	// A replica restarted mid-run: the synchronous one may be the one
	// that goes, and commits then wait for the other to take its place.
	done := background(append([]string{"run", "pgbench", "--time", "6", "--threads", "2"}, data...)...)
	time.Sleep(1500 * time.Millisecond)
	if _, err := sandbox.Restart(context.Background(), dir, sandbox.RestartOptions{Member: "replica1", Immediate: true, Down: time.Second}); err != nil {
		t.Fatal(err)
	}
	o := await(t, done, 90*time.Second, func() {}, "a run whose replica restarted")
	if o.code != 0 && o.code != 1 {
		t.Errorf("the run ended with exit %d\n%s", o.code, o.err)
	}

	if err := sandbox.Down(dir); err != nil {
		t.Fatal(err)
	}
	down = true
	if procs, err := sandbox.ServersUnder(dir); err != nil || len(procs) != 0 {
		t.Errorf("after sandbox down, servers still run under %s: %+v %v", dir, procs, err)
	}
}

// TestReplicatedMariaDBSandbox starts a two-node MariaDB sandbox (GTID
// replication, semi-synchronous, the replication link under TLS): the
// data prepare writes on the primary is read on the replica, which
// refuses the benchmark account's writes; a run through the cluster's
// host list as a DSN proves tls-repl from the primary's binlog dump
// session and samples the replica (GTID lag, the semi-synchronous wait);
// target_session_attrs=standby reaches the replica; sandbox down leaves
// no server process behind.
func TestReplicatedMariaDBSandbox(t *testing.T) {
	if len(servers(t)) == 0 {
		return
	}
	dir := filepath.Join(fx.dir, "replicated-mariadb")
	info, err := sandbox.Up(t.Context(), sandbox.Options{Engine: "mariadb", Dir: dir, Replicas: 1, Sync: true, Variant: "tls-repl", BufferPool: "64M"})
	if err != nil {
		t.Fatal(err)
	}
	down := false
	t.Cleanup(func() {
		if !down {
			_ = sandbox.Down(dir)
		}
	})
	mustRun(t, "prepare", "oltp_write_only", "--sandbox", dir, "--tables", "1", "--table-size", "500")
	tg, err := engine.ParseTarget(info.Members[0].DSN, engine.TLSOptions{Mode: engine.TLSDisable})
	if err != nil {
		t.Fatal(err)
	}
	c, err := tg.Engine.Connect(t.Context(), tg)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var rows [][]string
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if rows, err = c.Query(t.Context(), "SELECT count(*) FROM sbtest1"); err == nil && rows[0][0] == "500" {
			break
		}
	}
	if err != nil || rows[0][0] != "500" {
		t.Fatalf("the replica holds %v rows of sbtest1 (%v), want 500", rows, err)
	}
	if err := c.Exec(t.Context(), "DELETE FROM sbtest1 WHERE id = 1"); err == nil || !strings.Contains(err.Error(), "read-only") {
		t.Errorf("the replica took the benchmark account's write: %v", err)
	}
	if strings.Count(info.ClusterDSN, ",") != 1 {
		t.Fatalf("cluster DSN %s does not name both members", info.ClusterDSN)
	}
	d := runJSON(t, "oltp_write_only", "--dsn", info.ClusterDSN, "--layer", "tls-repl", "--time", "2", "--threads", "2", "--tables", "1", "--table-size", "500")
	if p := d.Variant.Verified.Layers; len(p) != 1 || p[0].Checked != 1 || p[0].Proven != 1 {
		t.Errorf("tls-repl proof through the DSN: %+v", p)
	}
	if rp := d.Replication; rp == nil || !rp.GTID || len(rp.Replicas) != 1 || rp.Replicas[0].Name != "replica1" ||
		rp.Replicas[0].Sync != "semi-sync" || rp.Writing == 0 || rp.Replicas[0].MeanFlushLagMs <= 0 {
		t.Errorf("replication through the DSN: %+v", rp)
	}
	tg, err = engine.ParseTarget(info.ClusterDSN+"?target_session_attrs=standby", engine.TLSOptions{Mode: engine.TLSDisable})
	if err != nil {
		t.Fatal(err)
	}
	sc, err := tg.Engine.Connect(t.Context(), tg)
	if err != nil {
		t.Fatal(err)
	}
	ro, err := sc.Query(t.Context(), "SELECT @@global.read_only, @@global.report_host")
	sc.Close()
	if err != nil || ro[0][0] != "1" || ro[0][1] != "replica1" {
		t.Errorf("target_session_attrs=standby reached %v (%v), want the replica", ro, err)
	}
	// The semi-synchronous replica restarted mid-run: commits wait for it
	// (10 s at most, then go on asynchronously); the run ends either way.
	done := background("run", "oltp_write_only", "--sandbox", dir, "--time", "6", "--threads", "2", "--tables", "1", "--table-size", "500")
	time.Sleep(1500 * time.Millisecond)
	if _, err := sandbox.Restart(context.Background(), dir, sandbox.RestartOptions{Member: "replica1", Immediate: true, Down: time.Second}); err != nil {
		t.Fatal(err)
	}
	if o := await(t, done, 90*time.Second, func() {}, "a run whose replica restarted"); o.code != 0 && o.code != 1 {
		t.Errorf("the run ended with exit %d\n%s", o.code, o.err)
	}
	if err := sandbox.Down(dir); err != nil {
		t.Fatal(err)
	}
	down = true
	if procs, err := sandbox.ServersUnder(dir); err != nil || len(procs) != 0 {
		t.Errorf("after sandbox down, servers still run under %s: %+v %v", dir, procs, err)
	}
}

// TestSuiteOnATopology: a suite target with replicas and session_attrs
// runs R2's connect on a standby (prepare wrote on the primary), every
// connect dialling the primary first, with TLS proved; the target runs
// only the workloads it lists; the replicas' CPU is the server's.
func TestSuiteOnATopology(t *testing.T) {
	if len(servers(t)) == 0 {
		return
	}
	dir, file := suiteFile(t, "topology", `name: topology
targets:
  - name: pg3
    engine: postgres
    replicas: 2
    session_attrs: prefer-standby
    workloads: [connect]
variants: [plain, tls1.3]
workloads:
  - name: connect
  - name: oltp_point_select
threads: [1]
time: 1
warmup: 0
repetitions: 1
precision: 0
`)
	out := filepath.Join(dir, "out")
	mustRun(t, "suite", "run", file, "--out", out)
	cells, _ := filepath.Glob(filepath.Join(suite.Dir(out).Cells(), "*.json"))
	if len(cells) != 2 {
		t.Fatalf("%d cells, want connect in plain and tls1.3 only", len(cells))
	}
	for _, c := range cells {
		r, err := result.ReadFile(c)
		if err != nil {
			t.Fatal(err)
		}
		if r.Workload.Name != "connect" || !r.Variant.Verified.OK || len(r.CPU.MemberPIDs) != 2 || !strings.Contains(r.Target, "target_session_attrs=prefer-standby") {
			t.Errorf("%s: workload %s, proof %v, members %v, target %s", c, r.Workload.Name, r.Variant.Verified.OK, r.CPU.MemberPIDs, r.Target)
		}
		if r.Notes["sockets_dialled"] != 2*r.Notes["connects_with_several_sockets"] || r.Notes["connects_with_several_sockets"] == 0 {
			t.Errorf("%s: notes %v, want two servers dialled per connect", c, r.Notes)
		}
		if tls := r.Variant.Name == "tls1.3"; tls && r.Notes["tls_handshakes"] != r.Notes["sockets_dialled"] {
			t.Errorf("%s: %d handshakes for %d servers dialled", c, r.Notes["tls_handshakes"], r.Notes["sockets_dialled"])
		}
	}
}
