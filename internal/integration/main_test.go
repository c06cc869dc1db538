// Package integration runs encbench against real PostgreSQL and MariaDB
// sandboxes started from the installed server packages, and checks what the
// servers themselves saw. Set ENCBENCH_REQUIRE_SERVERS=1 (make test does) to
// fail rather than skip when the server packages are missing.
package integration

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime/pprof"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/encbench/encbench/internal/cli"
	"github.com/encbench/encbench/internal/engine"
	"github.com/encbench/encbench/internal/result"
	"github.com/encbench/encbench/internal/sandbox"
)

// server is one running sandbox and an admin connection to it.
type server struct {
	name  string
	info  *sandbox.Info
	admin engine.Conn
	// statements counts the benchmark statements the server has executed.
	statements func(t *testing.T) int64
}

type fixture struct {
	dir     string
	servers []*server
	skip    string
}

// fx is shared by the tests of this package: starting servers once keeps
// the suite fast. It is written only by TestMain.
var fx fixture

// asCLI makes this test binary act as the encbench command, so tests can
// start encbench processes of their own (load generators).
const asCLI = "ENCBENCH_TEST_AS_CLI"

func TestMain(m *testing.M) {
	if os.Getenv(asCLI) == "1" {
		os.Exit(cli.Execute(context.Background(), os.Args[1:], os.Stdout, os.Stderr))
	}
	// The mongodb sandbox's FerretDB, as `make ferretdb` builds it.
	if os.Getenv("ENCBENCH_FERRETDB") == "" {
		if p, err := filepath.Abs(filepath.Join("..", "..", "bin", "ferretdb")); err == nil {
			os.Setenv("ENCBENCH_FERRETDB", p)
		}
	}
	code := func() int {
		if err := fx.start(); err != nil {
			if os.Getenv("ENCBENCH_REQUIRE_SERVERS") == "1" {
				fmt.Fprintf(os.Stderr, "integration: %v\n", err)
				return 1
			}
			fx.skip = err.Error()
		}
		defer fx.stop()
		return m.Run()
	}()
	os.Exit(code)
}

func (f *fixture) start() error {
	dir, err := os.MkdirTemp("", "encbench-it-")
	if err != nil {
		return err
	}
	// The servers run as their own system users and must reach the directory.
	if err := os.Chmod(dir, 0o755); err != nil {
		return err
	}
	f.dir = dir
	ctx := context.Background()
	for _, o := range []sandbox.Options{
		// Each server takes one --set that overrides a setting of
		// encbench's own (TestServerSettingsWin).
		{Engine: "postgres", Dir: filepath.Join(dir, "postgres"), StatStatements: true, BufferPool: "128MB", Settings: []string{"max_connections=301"}},
		{Engine: "mariadb", Dir: filepath.Join(dir, "mariadb"), BufferPool: "256M", Settings: []string{"max_prepared_stmt_count=100001"}},
	} {
		info, err := sandbox.Up(ctx, o)
		if err != nil {
			return fmt.Errorf("starting %s sandbox: %w", o.Engine, err)
		}
		s := &server{name: o.Engine, info: info}
		f.servers = append(f.servers, s)
		if err := s.connectAdmin(ctx); err != nil {
			return err
		}
		if o.Engine == "postgres" {
			s.statements = pgStatements(s)
		} else {
			s.statements = mariadbStatements(s)
		}
	}
	return nil
}

// connectAdmin opens the admin connection, looking at the benchmark
// database.
func (s *server) connectAdmin(ctx context.Context) error {
	t, err := engine.ParseTarget(s.info.AdminDSN, engine.TLSOptions{Mode: engine.TLSDisable})
	if err != nil {
		return err
	}
	t.URL.Path = "/sbtest"
	if s.admin, err = t.Engine.Connect(ctx, t); err != nil {
		return fmt.Errorf("admin connection to %s: %w", s.name, err)
	}
	return nil
}

func (f *fixture) stop() {
	for _, s := range f.servers {
		if s.admin != nil {
			s.admin.Close()
		}
		_ = sandbox.Down(s.info.Dir)
	}
	if f.dir != "" {
		os.RemoveAll(f.dir)
	}
}

func servers(t *testing.T) []*server {
	t.Helper()
	if fx.skip != "" {
		t.Skipf("no sandbox servers: %s", fx.skip)
	}
	return fx.servers
}

func (s *server) query(t *testing.T, sql string) [][]string {
	t.Helper()
	rows, err := s.admin.Query(context.Background(), sql)
	if err != nil {
		t.Fatalf("%s: %s: %v", s.name, sql, err)
	}
	return rows
}

func (s *server) exec(t *testing.T, sql string) {
	t.Helper()
	if err := s.admin.Exec(context.Background(), sql); err != nil {
		t.Fatalf("%s: %s: %v", s.name, sql, err)
	}
}

func (s *server) scalar(t *testing.T, sql string) int64 {
	t.Helper()
	rows := s.query(t, sql)
	if len(rows) != 1 || len(rows[0]) < 1 {
		t.Fatalf("%s: %s returned %v", s.name, sql, rows)
	}
	n, err := strconv.ParseInt(rows[0][len(rows[0])-1], 10, 64)
	if err != nil {
		t.Fatalf("%s: %s: %v", s.name, sql, err)
	}
	return n
}

// tables lists the benchmark database's tables.
func (s *server) tables(t *testing.T) map[string]bool {
	t.Helper()
	sql := "SELECT table_name FROM information_schema.tables WHERE table_schema = 'sbtest'"
	if s.name == "postgres" {
		sql = "SELECT tablename FROM pg_tables WHERE schemaname = 'public'"
	}
	out := map[string]bool{}
	for _, r := range s.query(t, sql) {
		out[r[0]] = true
	}
	return out
}

func pgStatements(s *server) func(t *testing.T) int64 {
	return func(t *testing.T) int64 {
		return s.scalar(t, `SELECT coalesce(sum(calls), 0) FROM pg_stat_statements st JOIN pg_database d ON d.oid = st.dbid
			WHERE d.datname = 'sbtest' AND st.query NOT LIKE '%pg_stat%' AND st.query NOT LIKE '%pg_settings%'`)
	}
}

func mariadbStatements(s *server) func(t *testing.T) int64 {
	return func(t *testing.T) int64 {
		var total int64
		for _, r := range s.query(t, "SHOW GLOBAL STATUS WHERE Variable_name IN ('Com_select','Com_insert','Com_update','Com_delete','Com_begin','Com_commit')") {
			n, _ := strconv.ParseInt(r[1], 10, 64)
			total += n
		}
		return total
	}
}

// encbench runs the command line in-process and returns exit code and output.
func encbench(ctx context.Context, args ...string) (int, string, string) {
	var out, errOut bytes.Buffer
	code := cli.Execute(ctx, args, &out, &errOut)
	return code, out.String(), errOut.String()
}

// outcome is how an encbench command ended.
type outcome struct {
	code     int
	out, err string
}

// background runs encbench args; its outcome arrives on the channel.
func background(args ...string) <-chan outcome {
	done := make(chan outcome, 1)
	go func() {
		code, so, se := encbench(context.Background(), args...)
		done <- outcome{code, so, se}
	}()
	return done
}

// await waits for a command that must end within limit. Past it, the
// test fails with every goroutine's stack (where the command waits: the
// hang the caller exists to catch), after release lets the command end.
func await(t *testing.T, done <-chan outcome, limit time.Duration, release func(), what string) outcome {
	t.Helper()
	select {
	case o := <-done:
		return o
	case <-time.After(limit):
	}
	var stacks strings.Builder
	_ = pprof.Lookup("goroutine").WriteTo(&stacks, 2)
	release()
	o := <-done
	t.Fatalf("%s was still running after %v:\n%s\n%s\ngoroutines while it waited:\n%s", what, limit, o.out, o.err, stacks.String())
	return o
}

func mustRun(t *testing.T, args ...string) string {
	t.Helper()
	code, out, errOut := encbench(context.Background(), args...)
	if code != 0 {
		t.Fatalf("encbench %s: exit %d\n%s\n%s", strings.Join(args, " "), code, out, errOut)
	}
	return out
}

// runJSON runs encbench run with --json and returns the result document.
func runJSON(t *testing.T, args ...string) *result.Result {
	t.Helper()
	path := filepath.Join(t.TempDir(), "result.json")
	mustRun(t, append([]string{"run", "--json", path}, args...)...)
	r, err := result.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func decode(t *testing.T, line string, v any) {
	t.Helper()
	if err := json.Unmarshal([]byte(line), v); err != nil {
		t.Fatalf("decoding %q: %v", line, err)
	}
}
