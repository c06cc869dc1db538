package integration

import (
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A wrong password on a DSN target stops the suite once, before anything
// is prepared: one line, not one per cell.
func TestDSNSuiteWrongPasswordStopsOnce(t *testing.T) {
	for _, s := range servers(t) {
		t.Run(s.name, func(t *testing.T) {
			u, err := url.Parse(s.info.DSN)
			if err != nil {
				t.Fatal(err)
			}
			u.User = url.UserPassword(u.User.Username(), "not-the-password")
			dir := t.TempDir()
			file := filepath.Join(dir, "s.yaml")
			text := "name: wrongpw\ntargets:\n  - name: mine\n    dsn: '" + u.String() + "'\nvariants: [plain, aa]\n" +
				"workloads:\n  - name: oltp_point_select\n  - name: oltp_read_only\nthreads: [1, 2]\ntime: 1\nwarmup: 0\nrepetitions: 2\nprecision: 0\n" +
				"data: {tables: 1, table-size: 100}\n"
			if err := os.WriteFile(file, []byte(text), 0o600); err != nil {
				t.Fatal(err)
			}
			out := filepath.Join(dir, "out")
			code, stdout, stderr := encbench(t.Context(), "suite", "run", file, "--out", out)
			all := stdout + stderr
			if code != 1 || strings.Count(all, "cannot connect") != 1 || !strings.Contains(all, "line 3: target mine, variant plain") {
				t.Fatalf("exit %d, want 1 and one connection error naming line 3:\n%s", code, all)
			}
			if strings.Contains(all, "not-the-password") {
				t.Errorf("the password is shown:\n%s", all)
			}
			if strings.Contains(all, "preparing mine") {
				t.Errorf("the suite prepared after a failed pre-flight:\n%s", all)
			}
		})
	}
}
