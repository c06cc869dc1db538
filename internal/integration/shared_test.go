package integration

import (
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// asNobody runs a command as the unprivileged local user nobody, as
// another user of a shared machine would, and returns its output and
// whether it succeeded.
func asNobody(t *testing.T, env []string, name string, args ...string) (string, bool) {
	t.Helper()
	cmd := exec.Command("runuser", append([]string{"-u", "nobody", "--", "env"}, append(env, append([]string{name}, args...)...)...)...)
	cmd.Dir = "/"
	out, err := cmd.CombinedOutput()
	return strings.TrimSpace(string(out)), err == nil
}

// TestSandboxesClosedToOtherUsers: another local user gets into neither
// sandbox without its password, and even with the benchmark user's
// password reads no file and runs no program through the server.
func TestSandboxesClosedToOtherUsers(t *testing.T) {
	srv := servers(t)
	if os.Geteuid() != 0 {
		t.Skip("needs root to act as another local user")
	}
	if _, err := user.Lookup("nobody"); err != nil {
		t.Skip("no user nobody")
	}
	for _, s := range srv {
		t.Run(s.name, func(t *testing.T) {
			port := strconv.Itoa(s.info.Port)
			if out, ok := asNobody(t, nil, "cat", filepath.Join(s.info.Dir, "sandbox.json")); ok || !strings.Contains(out, "Permission denied") {
				t.Errorf("another user read the sandbox's state file (passwords): %q", out)
			}
			// PostgreSQL's Socket names the directory, MariaDB's the socket.
			sockDir := s.info.Socket
			if st, err := os.Stat(sockDir); err == nil && !st.IsDir() {
				sockDir = filepath.Dir(sockDir)
			}
			if _, ok := asNobody(t, nil, "ls", sockDir); ok {
				t.Errorf("another user entered the socket directory %s", sockDir)
			}
			switch s.name {
			case "postgres":
				for _, u := range []string{"postgres", "sbtest"} {
					for _, host := range []string{"127.0.0.1", s.info.Socket} {
						out, ok := asNobody(t, nil, "psql", "-w", "-X", "-h", host, "-p", port, "-U", u, "-d", "sbtest", "-c", "SELECT 1")
						if ok || !(strings.Contains(out, "password") || strings.Contains(out, "Permission denied")) {
							t.Errorf("psql as %s over %s without a password: ok=%v %q", u, host, ok, out)
						}
					}
				}
				pw := []string{"PGPASSWORD=" + s.info.Password, "PGSSLMODE=disable"}
				psql := func(sql string) (string, bool) {
					return asNobody(t, pw, "psql", "-w", "-X", "-v", "ON_ERROR_STOP=1", "-h", "127.0.0.1", "-p", port, "-U", "sbtest", "-d", "sbtest", "-c", sql)
				}
				if out, ok := psql("SELECT 1"); !ok {
					t.Fatalf("the benchmark user's password does not let psql in: %q", out)
				}
				for _, sql := range []string{
					"CREATE TEMP TABLE t(a text); COPY t FROM PROGRAM 'id'",
					"CREATE TEMP TABLE t(a text); COPY t FROM '" + filepath.Join(s.info.DataDir, "postgresql.conf") + "'",
					"SELECT pg_read_file('postgresql.conf')",
					"ALTER SYSTEM SET log_min_messages = 'debug5'",
					"CREATE ROLE intruder SUPERUSER",
				} {
					if out, ok := psql(sql); ok {
						t.Errorf("the benchmark user ran %q: %s", sql, out)
					}
				}
			case "mariadb":
				for _, u := range []string{"root", "sbtest"} {
					out, ok := asNobody(t, nil, "mariadb", "--no-defaults", "--skip-ssl", "-h", "127.0.0.1", "-P", port, "-u", u, "-e", "SELECT 1")
					if ok || !strings.Contains(out, "Access denied") {
						t.Errorf("mariadb as %s without a password: ok=%v %q", u, ok, out)
					}
				}
				sql := func(q string) (string, bool) {
					return asNobody(t, []string{"MYSQL_PWD=" + s.info.Password}, "mariadb", "--no-defaults", "--skip-ssl", "-N", "-h", "127.0.0.1", "-P", port, "-u", "sbtest", "sbtest", "-e", q)
				}
				if out, ok := sql("SELECT 1"); !ok {
					t.Fatalf("the benchmark user's password does not let mariadb in: %q", out)
				}
				if out, _ := sql("SELECT LOAD_FILE('" + filepath.Join(s.info.Dir, "my.cnf") + "') IS NULL"); out != "1" {
					t.Errorf("LOAD_FILE of the sandbox's my.cnf returned something: %q", out)
				}
				for _, q := range []string{
					"SELECT 1 INTO OUTFILE '/tmp/encbench-intruder.txt'",
					"CREATE USER intruder IDENTIFIED BY 'x'",
					"SET GLOBAL general_log = 1",
				} {
					if out, ok := sql(q); ok {
						t.Errorf("the benchmark user ran %q: %s", q, out)
					}
				}
				if out, _ := sql("SHOW GRANTS"); strings.Contains(out, "FILE") || strings.Contains(out, "SUPER") || strings.Contains(out, "ALL PRIVILEGES ON *.*") {
					t.Errorf("the benchmark user holds a global privilege it needs not: %s", out)
				}
				if got := s.query(t, "SELECT @@secure_file_priv")[0][0]; !strings.HasPrefix(got, s.info.Dir) {
					t.Errorf("secure_file_priv is %q, not inside the sandbox", got)
				}
			}
		})
	}
}
