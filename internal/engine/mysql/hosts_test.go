package mysql

import (
	"net/url"
	"slices"
	"testing"
)

// TestHostLists: a DSN's host list is split in order, a socket is one
// host, and only libpq's six target_session_attrs words are taken.
func TestHostLists(t *testing.T) {
	u, _ := url.Parse("mysql://u:p@a:3306,b:3307,c:3308/db?target_session_attrs=prefer-standby")
	if got := hosts(u); !slices.Equal(got, []string{"a:3306", "b:3307", "c:3308"}) {
		t.Errorf("hosts %v", got)
	}
	if err := checkHosts(u); err != nil {
		t.Errorf("a good list refused: %v", err)
	}
	sock, _ := url.Parse("mysql://u@/db?socket=/run/mysqld.sock")
	if err := checkHosts(sock); err != nil || len(hosts(sock)) != 1 {
		t.Errorf("a socket: %v %v", hosts(sock), err)
	}
	for _, bad := range []string{"mysql://u@a:1,,b:2/db", "mysql://u@a:1,b:2/db?target_session_attrs=replica"} {
		b, _ := url.Parse(bad)
		if err := checkHosts(b); err == nil {
			t.Errorf("%s was taken", bad)
		}
	}
}
