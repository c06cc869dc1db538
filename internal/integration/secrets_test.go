package integration

import (
	"context"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPasswordsNeverShown (issue 17, finding 6): a password in a DSN, in
// every form encbench reads (URL, libpq key=value, go-sql-driver's, an
// unparseable one), never appears in the output or in any file a run or a
// suite writes, whether it succeeds or fails.
func TestPasswordsNeverShown(t *testing.T) {
	const secret = "S3cr3t-Pw-77"
	var pg *server
	for _, s := range servers(t) {
		if s.name == "postgres" {
			pg = s
		}
	}
	u, err := url.Parse(pg.info.DSN)
	if err != nil {
		t.Fatal(err)
	}
	// The benchmark user's password is the secret for this test's runs.
	pg.exec(t, "ALTER ROLE sbtest PASSWORD '"+secret+"'")
	defer pg.exec(t, "ALTER ROLE sbtest PASSWORD '"+pg.info.Password+"'")
	withPw := *u
	withPw.User = url.UserPassword(u.User.Username(), secret)
	kv := "host=" + u.Hostname() + " port=" + u.Port() + " user=" + u.User.Username() + " password=" + secret + " dbname=" + strings.TrimPrefix(u.Path, "/")
	dir := t.TempDir()
	var out strings.Builder
	run := func(wantOK bool, args ...string) {
		code, o, e := encbench(context.Background(), args...)
		out.WriteString(o + e)
		if (code == 0) != wantOK {
			t.Errorf("encbench %s: exit %d\n%s", strings.Join(args, " "), code, e)
		}
	}
	common := []string{"--tables", "1", "--table-size", "500"}
	run(true, append([]string{"prepare", "oltp_point_select", "--dsn", withPw.String(), "--force"}, common...)...)
	run(true, append([]string{"run", "oltp_point_select", "--dsn", withPw.String(), "--time", "1", "--json", filepath.Join(dir, "url.json"), "--report-interval", "1"}, common...)...)
	run(true, append([]string{"run", "oltp_point_select", "--dsn", kv, "--time", "1", "--json", filepath.Join(dir, "kv.json")}, common...)...)
	for _, bad := range []string{
		"host=db1 user=bench password=" + secret + " dbname='x",
		"postgres://bench:12345/" + secret + "@db/x",
		"bench:" + secret + "@tcp(127.0.0.1:1)/sbtest",
		"postgres://bench:" + secret + "@127.0.0.1:1/sbtest",
		"host db1 password=" + secret,
	} {
		run(false, append([]string{"run", "oltp_point_select", "--dsn", bad, "--time", "1", "--json", filepath.Join(dir, "bad.json")}, common...)...)
	}
	suiteFile := filepath.Join(dir, "s.yaml")
	yaml := "name: secrets\ntargets:\n  - name: pg\n    dsn: " + withPw.String() + "\nvariants: [plain]\nworkloads:\n  - name: oltp_point_select\nthreads: [1]\ntime: 1\nwarmup: 0\nrepetitions: 1\ndata: {tables: 1, table-size: 500}\n"
	if err := os.WriteFile(suiteFile, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	run(true, append([]string{"cleanup", "oltp_point_select", "--dsn", kv}, common[:2]...)...)
	// The suite directory keeps a copy of the suite file (0600, to resume):
	// the user's own input, left out of the search below.
	run(true, "suite", "run", suiteFile, "--out", filepath.Join(dir, "suite"))
	// Suites leave a DSN target's tables in place; this test does not.
	run(true, append([]string{"cleanup", "oltp_point_select", "--dsn", kv}, common[:2]...)...)
	if strings.Contains(out.String(), secret) {
		t.Errorf("the output shows the password:\n%s", out.String())
	}
	files := 0
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || p == suiteFile || filepath.Base(p) == "suite.yaml" {
			return err
		}
		files++
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if strings.Contains(string(data), secret) {
			t.Errorf("%s holds the password", p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 6 {
		t.Errorf("only %d files written: the runs did not produce what this test reads", files)
	}
}
