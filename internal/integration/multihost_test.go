package integration

import (
	"context"
	"net/url"
	"strings"
	"testing"
)

// TestMultiHostPostgresDSN: a DSN that lists hosts is tried as libpq
// tries it, in both of its forms: a first host that is down gives way to
// the next; target_session_attrs=standby refuses a primary, naming each
// host and why; prefer-standby settles for the primary.
func TestMultiHostPostgresDSN(t *testing.T) {
	for _, s := range servers(t) {
		if s.name != "postgres" {
			continue
		}
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
		keyValue := "host=127.0.0.1," + u.Hostname() + " port=1," + u.Port() + " user=" + u.User.Username() + " password=" + pw + " dbname=" + strings.TrimPrefix(u.Path, "/")
		for _, dsn := range []string{multi.String(), keyValue} {
			r := runJSON(t, "oltp_point_select", "--dsn", dsn, "--time", "1", "--tables", "1", "--table-size", "100")
			if r.Totals.Transactions == 0 {
				t.Errorf("%s: no transaction through the second host", dsn)
			}
		}
		standby := multi
		standby.RawQuery = "target_session_attrs=standby"
		code, _, errOut := encbench(t.Context(), "run", "oltp_point_select", "--dsn", standby.String(), "--time", "1")
		if code != 1 || !strings.Contains(errOut, "127.0.0.1:1") || !strings.Contains(errOut, "not in hot standby mode") || strings.Count(strings.TrimSpace(errOut), "\n") != 0 {
			t.Errorf("standby wanted, primary given: exit %d\n%s", code, errOut)
		}
		prefer := multi
		prefer.RawQuery = "target_session_attrs=prefer-standby"
		if r := runJSON(t, "oltp_point_select", "--dsn", prefer.String(), "--time", "1", "--tables", "1", "--table-size", "100"); r.Totals.Transactions == 0 {
			t.Error("prefer-standby with a primary alone ran nothing")
		}
	}
}
