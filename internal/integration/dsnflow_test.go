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

// A suite on a DSN target records its data set; a later suite with the
// same data parameters reuses it (no reload, checked on the server), one
// with other parameters is refused in one line, and cleanup: true removes
// it at the end.
func TestDSNSuiteReusesItsDataSet(t *testing.T) {
	s := servers(t)[1] // MariaDB, used only by its DSN
	dir := t.TempDir()
	write := func(name, data, extra string) string {
		file := filepath.Join(dir, name+".yaml")
		text := "name: " + name + "\ntargets:\n  - name: mine\n    dsn: '" + s.info.DSN + "'\nvariants: [plain, aa]\n" +
			"workloads:\n  - name: oltp_point_select\nthreads: [1]\ntime: 1\nwarmup: 0\nrepetitions: 2\nprecision: 0\n" +
			"data: {" + data + "}\n" + extra
		if err := os.WriteFile(file, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		return file
	}
	defer encbench(t.Context(), "cleanup", "oltp_point_select", "--dsn", s.info.DSN, "--tables", "1")
	run := func(file, out string) (int, string) {
		code, so, se := encbench(t.Context(), "suite", "run", file, "--out", filepath.Join(dir, out), "--no-report")
		return code, so + se
	}
	if code, out := run(write("first", "tables: 1, table-size: 300", ""), "o1"); code != 0 || !strings.Contains(out, "preparing mine") {
		t.Fatalf("first suite: exit %d\n%s", code, out)
	}
	prepared := s.query(t, "SELECT prepared_at, params FROM encbench_dataset WHERE family = 'oltp'")
	if len(prepared) != 1 || !strings.Contains(prepared[0][1], "--table-size=300") {
		t.Fatalf("data set record: %q", prepared)
	}
	code, out := run(write("second", "table-size: 300, tables: 1", ""), "o2")
	if code != 0 || !strings.Contains(out, "reusing the oltp data set on mine") {
		t.Fatalf("second suite, same data: exit %d\n%s", code, out)
	}
	if again := s.query(t, "SELECT prepared_at FROM encbench_dataset WHERE family = 'oltp'"); len(again) != 1 || again[0][0] != prepared[0][0] {
		t.Errorf("the data set was prepared again: %q then %q", prepared, again)
	}
	code, out = run(write("third", "tables: 1, table-size: 400", ""), "o3")
	if code != 2 || !strings.Contains(out, "holds a oltp data set") || !strings.Contains(out, "recreate_data: true") {
		t.Fatalf("other data: exit %d\n%s", code, out)
	}
	if code, out = run(write("fourth", "tables: 1, table-size: 400", "recreate_data: true\ncleanup: true\n"), "o4"); code != 0 {
		t.Fatalf("recreate and clean up: exit %d\n%s", code, out)
	}
	if tables := s.tables(t); tables["encbench_dataset"] || tables["sbtest1"] {
		t.Errorf("cleanup: true left tables behind: %v", tables)
	}
}
