package integration

import (
	"context"
	"net/url"
	"strings"
	"testing"
)

// TestMultiHostDSN: a DSN that lists hosts is tried as libpq tries it,
// on PostgreSQL in both of libpq's forms and on MariaDB in the URL form
// (the MySQL engine's host lists): a first host that is down gives way
// to the next; target_session_attrs=standby refuses a primary, naming
// each host and why; prefer-standby settles for the primary.
func TestMultiHostDSN(t *testing.T) {
	for _, s := range servers(t) {
		if s.name != "postgres" && s.name != "mariadb" {
			continue
		}
		t.Run(s.name, func(t *testing.T) {
			data := []string{"--sandbox", s.info.Dir, "--tables", "1", "--table-size", "100"}
			t.Cleanup(func() { encbench(context.Background(), append([]string{"cleanup", "oltp_point_select"}, data...)...) })
			mustRun(t, append([]string{"prepare", "oltp_point_select", "--force"}, data...)...)
			u, err := url.Parse(s.info.DSN)
			if err != nil {
				t.Fatal(err)
			}
			pw, _ := u.User.Password()
			multi := *u
			multi.Host = "127.0.0.1:1," + u.Host
			dsns := []string{multi.String()}
			notStandby := "not in hot standby mode"
			if s.name == "postgres" {
				dsns = append(dsns, "host=127.0.0.1,"+u.Hostname()+" port=1,"+u.Port()+" user="+u.User.Username()+" password="+pw+" dbname="+strings.TrimPrefix(u.Path, "/"))
			} else {
				notStandby = "read_only is false"
			}
			for _, dsn := range dsns {
				r := runJSON(t, "oltp_point_select", "--dsn", dsn, "--time", "1", "--tables", "1", "--table-size", "100")
				if r.Totals.Transactions == 0 {
					t.Errorf("%s: no transaction through the second host", dsn)
				}
			}
			standby := multi
			standby.RawQuery = "target_session_attrs=standby"
			code, _, errOut := encbench(t.Context(), "run", "oltp_point_select", "--dsn", standby.String(), "--time", "1")
			if code != 1 || !strings.Contains(errOut, "127.0.0.1:1") || !strings.Contains(errOut, notStandby) || strings.Count(strings.TrimSpace(errOut), "\n") != 0 {
				t.Errorf("standby wanted, primary given: exit %d\n%s", code, errOut)
			}
			prefer := multi
			prefer.RawQuery = "target_session_attrs=prefer-standby"
			if r := runJSON(t, "oltp_point_select", "--dsn", prefer.String(), "--time", "1", "--tables", "1", "--table-size", "100"); r.Totals.Transactions == 0 {
				t.Error("prefer-standby with a primary alone ran nothing")
			}
			bad := multi
			bad.RawQuery = "target_session_attrs=replica"
			if code, _, errOut := encbench(t.Context(), "run", "oltp_point_select", "--dsn", bad.String(), "--time", "1"); code != 2 || !strings.Contains(errOut, "target_session_attrs") {
				t.Errorf("an unknown target_session_attrs: exit %d\n%s", code, errOut)
			}
		})
	}
}
