package integration

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/encbench/encbench/internal/result"
)

func readResult(t *testing.T, path string) *result.Result {
	t.Helper()
	r, err := result.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestForeignTablesAreLeftAlone: encbench never drops or overwrites a table
// it did not create, unless told to with --force.
func TestForeignTablesAreLeftAlone(t *testing.T) {
	for _, s := range servers(t) {
		t.Run(s.name, func(t *testing.T) {
			dsn := s.info.DSN
			s.exec(t, "CREATE TABLE sbtest3 (id INTEGER PRIMARY KEY, note VARCHAR(20))")
			s.exec(t, "INSERT INTO sbtest3 VALUES (1, 'precious')")
			defer s.exec(t, "DROP TABLE IF EXISTS sbtest3")

			code, _, errOut := encbench(context.Background(), "prepare", "oltp_read_only", "--dsn", dsn, "--tables", "3", "--table-size", "10")
			if code != 2 || !strings.Contains(errOut, "sbtest3") || !strings.Contains(errOut, "not created by encbench") {
				t.Fatalf("prepare over a foreign table: exit %d, %q", code, errOut)
			}
			if strings.Count(strings.TrimSpace(errOut), "\n") != 0 {
				t.Errorf("error is not one line: %q", errOut)
			}
			if s.tables(t)["sbtest1"] {
				t.Error("prepare created tables although it refused")
			}
			mustRun(t, "prepare", "oltp_read_only", "--dsn", dsn, "--tables", "2", "--table-size", "10")
			out := mustRun(t, "cleanup", "oltp_read_only", "--dsn", dsn, "--tables", "3")
			if !strings.Contains(out, "Leaving table 'sbtest3' alone") {
				t.Errorf("cleanup did not say it left sbtest3 alone:\n%s", out)
			}
			if n := s.scalar(t, "SELECT count(*) FROM sbtest3 WHERE note = 'precious'"); n != 1 {
				t.Error("cleanup touched a table encbench did not create")
			}
			if tb := s.tables(t); tb["sbtest1"] || tb["sbtest2"] {
				t.Error("cleanup left encbench's own tables")
			}
		})
	}
}

func TestBadInputGivesOneClearLine(t *testing.T) {
	srv := servers(t)
	closed, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	deadPort := strconv.Itoa(closed.Addr().(*net.TCPAddr).Port)
	closed.Close()
	var my *server
	for _, s := range srv {
		if s.name == "mariadb" {
			my = s
		}
	}
	my.exec(t, "CREATE USER IF NOT EXISTS 'pwuser'@'127.0.0.1' IDENTIFIED BY 'right-one'")
	wrongPw := fmt.Sprintf("mysql://pwuser:Wr0ngPassw0rd@127.0.0.1:%d/sbtest", my.info.Port)

	cases := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"unknown workload", []string{"run", "oltp_nothing", "--dsn", srv[0].info.DSN}, 2, "unknown workload"},
		{"unknown option", []string{"run", "oltp_point_select", "--no-such-option"}, 2, "unknown flag"},
		{"unknown command", []string{"benchmark"}, 2, "unknown command"},
		{"bad scheme", []string{"run", "oltp_point_select", "--dsn", "oracle://u@127.0.0.1/db"}, 2, "unknown DSN scheme"},
		{"no dsn", []string{"run", "oltp_point_select"}, 2, "--sandbox"},
		{"tpcc flag on oltp", []string{"run", "oltp_point_select", "--warehouses", "5", "--dsn", srv[0].info.DSN}, 2, "--warehouses does not apply to oltp_point_select"},
		{"ycsb flag on tpcc", []string{"run", "tpcc", "--recordcount", "5", "--dsn", srv[0].info.DSN}, 2, "--recordcount does not apply to tpcc"},
		{"colenc flag on oltp", []string{"prepare", "oltp_point_select", "--encrypt-columns", "50", "--dsn", srv[0].info.DSN}, 2, "--encrypt-columns does not apply to oltp_point_select"},
		{"unreachable postgres", []string{"run", "oltp_point_select", "--dsn", "postgres://u:s3cretpw@127.0.0.1:" + deadPort + "/db"}, 1, "cannot connect"},
		{"unreachable mysql", []string{"run", "oltp_point_select", "--dsn", "mysql://u:s3cretpw@127.0.0.1:" + deadPort + "/db"}, 1, "cannot connect"},
		{"wrong password", []string{"run", "oltp_point_select", "--dsn", wrongPw}, 1, "Access denied"},
		{"missing binaries", []string{"sandbox", "up", "--engine", "mariadb", "--dir", t.TempDir() + "/x", "--bin-dir", "/nonexistent"}, 2, "has no mariadbd"},
		{"unknown sandbox engine", []string{"sandbox", "up", "--engine", "oracle", "--dir", t.TempDir()}, 2, "unknown sandbox engine"},
		{"no sandbox", []string{"sandbox", "down", "--dir", t.TempDir()}, 2, "no sandbox"},
		{"time and events zero", []string{"run", "oltp_point_select", "--dsn", srv[0].info.DSN, "--time", "0"}, 2, "--events"},
	}
	for _, c := range cases {
		code, out, errOut := encbench(context.Background(), c.args...)
		if code != c.code {
			t.Errorf("%s: exit %d, want %d (stderr %q)", c.name, code, c.code, errOut)
		}
		msg := strings.TrimSpace(errOut)
		if !strings.Contains(msg, c.want) || strings.Contains(msg, "\n") {
			t.Errorf("%s: stderr %q, want one line mentioning %q", c.name, errOut, c.want)
		}
		for _, secret := range []string{"s3cretpw", "Wr0ngPassw0rd"} {
			if strings.Contains(out+errOut, secret) {
				t.Errorf("%s: output shows the password", c.name)
			}
		}
		if strings.Contains(errOut, "goroutine") || strings.Contains(errOut, "panic") {
			t.Errorf("%s: stack trace in %q", c.name, errOut)
		}
	}
}

// TestSandboxLifecycle starts a sandbox through the CLI, as a user would,
// and checks that down leaves no server process behind.
func TestSandboxLifecycle(t *testing.T) {
	servers(t)
	for _, e := range []string{"postgres", "mariadb"} {
		t.Run(e, func(t *testing.T) {
			dir := filepath.Join(fx.dir, "lifecycle-"+e)
			out := mustRun(t, "sandbox", "up", "--engine", e, "--dir", dir, "--server-cpus", "0")
			var info struct {
				Engine, Version, DSN, Dir string
				PID, Port                 int
			}
			decode(t, strings.TrimSpace(out), &info)
			if info.PID == 0 || info.Port == 0 || !strings.HasPrefix(info.DSN, map[string]string{"postgres": "postgres://", "mariadb": "mysql://"}[e]) {
				t.Fatalf("sandbox up printed %q", out)
			}
			if !strings.Contains(info.Version, map[string]string{"postgres": "PostgreSQL", "mariadb": "MariaDB"}[e]) {
				t.Errorf("version %q", info.Version)
			}
			mustRun(t, "prepare", "oltp_point_select", "--sandbox", dir, "--table-size", "100")
			r := runJSON(t, "oltp_point_select", "--sandbox", dir, "--table-size", "100", "--time", "0", "--events", "10")
			if r.Totals.Transactions != 10 || r.Engine.Version == "" || r.CPU.ServerS == nil || r.CPU.ServerCPUs != "0" {
				t.Errorf("sandbox run: %d transactions, server %q, server CPU %v, placement %q", r.Totals.Transactions, r.Engine.Version, r.CPU.ServerS, r.CPU.ServerCPUs)
			}
			status, _ := os.ReadFile(fmt.Sprintf("/proc/%d/status", info.PID))
			if !strings.Contains(string(status), "Cpus_allowed_list:\t0\n") {
				t.Errorf("server not pinned to CPU 0:\n%s", status)
			}
			mustRun(t, "sandbox", "down", "--dir", dir)
			if processAlive(info.PID) {
				t.Fatalf("server %d still running after sandbox down", info.PID)
			}
			if p := processesMentioning(dir); len(p) > 0 {
				t.Fatalf("processes left behind: %v", p)
			}
		})
	}
}

func processAlive(pid int) bool {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	s := string(data)
	i := strings.LastIndex(s, ")")
	return i+2 < len(s) && s[i+2] != 'Z'
}

func processesMentioning(dir string) []string {
	var out []string
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || !processAlive(pid) {
			continue
		}
		cmd, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if strings.Contains(string(cmd), dir) {
			out = append(out, strings.ReplaceAll(string(cmd), "\x00", " "))
		}
	}
	return out
}
