package integration

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/encbench/encbench/internal/engine"
	"github.com/encbench/encbench/internal/sandbox"
	"github.com/encbench/encbench/internal/suite"
)

// dsnServer is a sandbox a test reaches only through its DSN, as a user's
// own server, with an admin connection standing in for its DBA.
func dsnServer(t *testing.T, o sandbox.Options) (*sandbox.Info, engine.Conn) {
	t.Helper()
	dir, err := os.MkdirTemp(fx.dir, "dsn-"+o.Engine+"-")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	o.Dir = dir
	info, err := sandbox.Up(t.Context(), o)
	if err != nil {
		t.Fatalf("starting the %s server: %v", o.Engine, err)
	}
	t.Cleanup(func() { _ = sandbox.Down(dir) })
	target, err := engine.ParseTarget(info.AdminDSN, engine.TLSOptions{Mode: engine.TLSDisable})
	if err != nil {
		t.Fatal(err)
	}
	target.URL.Path = "/sbtest"
	admin, err := target.Engine.Connect(context.Background(), target)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = admin.Close() })
	return info, admin
}

func adminRows(t *testing.T, c engine.Conn, sql string) [][]string {
	t.Helper()
	rows, err := c.Query(context.Background(), sql)
	if err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return rows
}

func adminExec(t *testing.T, c engine.Conn, sql string) {
	t.Helper()
	if err := c.Exec(context.Background(), sql); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
}

// TestDSNSuiteWholeFlow plays a user's suite against two servers of their
// own, reached only by DSN: PostgreSQL offering TLS, MariaDB with a key
// management plugin (tables encrypted only when they ask). It checks the
// pre-flight refusals (no database for TDE's copies, no tls_ca) leave
// nothing behind, SIGINT and --resume, a variant failing mid-suite and
// listed, the report's wording for servers of the user's, reuse of the
// data set, refusal of other data parameters and cleanup: true.
func TestDSNSuiteWholeFlow(t *testing.T) {
	servers(t)
	pg, pgAdmin := dsnServer(t, sandbox.Options{Engine: "postgres", Variant: "tls", TLSOptional: true, BufferPool: "128MB"})
	maria, mariaAdmin := dsnServer(t, sandbox.Options{Engine: "mariadb", Variant: "tde", BufferPool: "128M",
		Settings: []string{"innodb_encrypt_tables=OFF"}})
	// A user's DSN names no certificate: the suite's tls_ca does.
	pgURL, err := url.Parse(pg.DSN)
	if err != nil {
		t.Fatal(err)
	}
	pgURL.RawQuery = ""
	dir := t.TempDir()
	write := func(name, tlsCA, data, extra string) string {
		file := filepath.Join(dir, name+".yaml")
		text := fmt.Sprintf(`name: %s
targets:
  - name: maria
    dsn: '%s'
  - name: pg
    dsn: '%s'
%s
variants: [plain, tls, aa, tde]
workloads:
  - name: oltp_read_only
    engines: [maria]
    variants: [plain, aa, tde]
  - name: oltp_point_select
    engines: [pg]
    variants: [plain, tls, aa]
threads: [1]
time: 1
warmup: 0
repetitions: 2
precision: 0
data: {%s}
%s`, name, maria.DSN, pgURL.String(), tlsCA, data, extra)
		if err := os.WriteFile(file, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		return file
	}
	withCA := "    tls_ca: " + pg.CA
	noTables := func(when string) {
		t.Helper()
		if n := adminRows(t, mariaAdmin, "SELECT count(*) FROM information_schema.tables WHERE table_schema LIKE 'sbtest%'"); n[0][0] != "0" {
			t.Errorf("%s: MariaDB has %s tables", when, n[0][0])
		}
		if n := adminRows(t, pgAdmin, "SELECT count(*) FROM pg_tables WHERE schemaname = 'public'"); n[0][0] != "0" {
			t.Errorf("%s: PostgreSQL has %s tables", when, n[0][0])
		}
	}
	refused := func(file, out, want string) {
		t.Helper()
		code, so, se := encbench(t.Context(), "suite", "run", file, "--out", filepath.Join(dir, out))
		if code != 2 || !strings.Contains(se, want) || strings.Count(strings.TrimSpace(se), "\n") > 0 {
			t.Fatalf("want exit 2 and one line with %q, got exit %d\nstdout:\n%s\nstderr:\n%s", want, code, so, se)
		}
		if _, err := os.Stat(filepath.Join(dir, out)); !os.IsNotExist(err) {
			t.Errorf("a refused suite left %s behind", out)
		}
		noTables("after a refused suite")
	}

	// The user may not create databases: the encrypted copies need one.
	data := "tables: 1, table-size: 500"
	s1 := write("mine", withCA, data, "")
	refused(s1, "o0", "variant tde: the encrypted copies of the tables go in database sbtest_tde")
	adminExec(t, mariaAdmin, "CREATE DATABASE sbtest_tde")
	adminExec(t, mariaAdmin, "GRANT ALL ON sbtest_tde.* TO 'sbtest'@'127.0.0.1'")
	// A server that cannot encrypt tables is named with what it lacks.
	pgTDE := write("pgtde", withCA, data, "")
	raw, _ := os.ReadFile(pgTDE)
	withTDE := strings.Replace(string(raw), "variants: [plain, tls, aa]\n", "variants: [plain, tls, aa, tde]\n", 1)
	if err := os.WriteFile(pgTDE, []byte(withTDE), 0o600); err != nil || withTDE == string(raw) {
		t.Fatalf("writing the suite with tde on PostgreSQL: %v", err)
	}
	refused(pgTDE, "o0", "this PostgreSQL server cannot encrypt tables: it has no pg_tde extension")
	refused(write("noca", "", data, ""), "o0", "line 5: variant tls needs tls_ca (the server's CA certificate) on target pg")
	// A user who may only read: the probe table finds it out first.
	adminExec(t, mariaAdmin, "CREATE USER 'reader'@'127.0.0.1' IDENTIFIED BY 'reader-pw'")
	adminExec(t, mariaAdmin, "GRANT SELECT ON sbtest.* TO 'reader'@'127.0.0.1'")
	readerURL, err := url.Parse(maria.DSN)
	if err != nil {
		t.Fatal(err)
	}
	readerURL.User = url.UserPassword("reader", "reader-pw")
	reader := filepath.Join(dir, "reader.yaml")
	text := fmt.Sprintf("name: reader\ntargets:\n  - name: maria\n    dsn: '%s'\nvariants: [plain]\nworkloads:\n  - name: oltp_read_only\nthreads: [1]\ntime: 1\nwarmup: 0\nrepetitions: 2\nprecision: 0\ndata: {%s}\n", readerURL, data)
	if err := os.WriteFile(reader, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	refused(reader, "o0", "the user cannot create tables in this database")

	// Interrupted after its first cell, then resumed.
	bin := buildBinary(t)
	out := filepath.Join(dir, "o1")
	cells := suite.Dir(out).Cells()
	interruptAfterFirstCell(t, bin, cells, "suite", "run", s1, "--out", out)
	const total = 12 // (maria: plain, aa, tde; pg: plain, tls, aa) x 2 repetitions
	if n := countFiles(cells, ".json", ".partial.json"); n < 1 || n >= total {
		t.Fatalf("after the interrupt %d of %d cells are finished", n, total)
	}
	prepared := adminRows(t, mariaAdmin, "SELECT prepared_at FROM sbtest_tde.encbench_dataset")

	// The encrypted copy loses its encryption: the tde cells fail and the
	// report lists the variant with its cause.
	adminExec(t, mariaAdmin, "ALTER TABLE sbtest_tde.sbtest1 ENCRYPTED=NO")
	code, so, se := encbench(t.Context(), "suite", "run", s1, "--out", out, "--resume")
	if code != 1 || !strings.Contains(so, "reusing the oltp data set on maria") {
		t.Fatalf("resume with the copy decrypted: exit %d\n%s\n%s", code, so, se)
	}
	md, _ := os.ReadFile(filepath.Join(out, "report.md"))
	if !strings.Contains(string(md), "tde failed in") || !strings.Contains(string(md), "encryption at rest not proven") {
		t.Errorf("the report does not list the failed tde variant with its cause:\n%s", md)
	}
	adminExec(t, mariaAdmin, "ALTER TABLE sbtest_tde.sbtest1 ENCRYPTED=YES")
	code, so, se = encbench(t.Context(), "suite", "run", s1, "--out", out, "--resume")
	if code != 0 {
		t.Fatalf("resume: exit %d\n%s\n%s", code, so, se)
	}
	if n := countFiles(cells, ".json", ".partial.json"); n != total {
		t.Fatalf("after resume %d of %d cells are finished", n, total)
	}
	if again := adminRows(t, mariaAdmin, "SELECT prepared_at FROM sbtest_tde.encbench_dataset"); again[0][0] != prepared[0][0] {
		t.Errorf("resume prepared the data set again: %v then %v", prepared, again)
	}
	md, _ = os.ReadFile(filepath.Join(out, "report.md"))
	report := string(md)
	for _, want := range []string{
		"the variant aa is the baseline again on the baseline's own server", // DSN targets: one server each
		"Server CPU was not measured: give server_pid",
		"TDE on maria was measured per table",
		"innodb_encrypt_log=ON",
		// The cost table: traffic is counted on encbench's sockets, the
		// server's CPU and I/O cannot be read on a server of the user's.
		"What one committed transaction takes of each resource",
		"| not measured |",
		"latency-bound, nothing saturated (server CPU not measured",
	} {
		if !strings.Contains(report, want) {
			t.Errorf("report.md lacks %q", want)
		}
	}
	for _, unwanted := range []string{"on a second server of its own", "servers: own", "compared across two server instances", "failed in", "server CPU per"} {
		if strings.Contains(report, unwanted) {
			t.Errorf("report.md says %q", unwanted)
		}
	}
	if t.Failed() {
		t.Logf("report.md:\n%s", report)
	}

	// Other data parameters are refused; the same ones are reused, and
	// cleanup: true removes what encbench made (the database stays).
	refused2 := func() {
		code, so, se := encbench(t.Context(), "suite", "run", write("other", withCA, "tables: 1, table-size: 600", ""), "--out", filepath.Join(dir, "o2"))
		if code != 2 || !strings.Contains(se, "holds a oltp data set prepared") || !strings.Contains(se, "recreate_data: true") || strings.Count(strings.TrimSpace(se), "\n") > 0 {
			t.Fatalf("other data parameters: exit %d\n%s\n%s", code, so, se)
		}
	}
	refused2()
	code, so, se = encbench(t.Context(), "suite", "run", write("again", withCA, "table-size: 500, tables: 1", "cleanup: true\n"), "--out", filepath.Join(dir, "o3"), "--no-report")
	if code != 0 || strings.Count(so, "reusing the oltp data set") != 3 || strings.Contains(so, "preparing") {
		t.Fatalf("same data parameters: exit %d\n%s\n%s", code, so, se)
	}
	if n := adminRows(t, mariaAdmin, "SELECT count(*) FROM information_schema.tables WHERE table_schema IN ('sbtest', 'sbtest_tde')"); n[0][0] != "0" {
		t.Errorf("cleanup: true left %s tables on MariaDB", n[0][0])
	}
	noTables("after cleanup: true")
}
