package serverconf

import "testing"

func TestCheck(t *testing.T) {
	for _, ok := range []string{"innodb_doublewrite=0", "work_mem=8MB", "pg_stat_statements.track=all", "x=a b"} {
		if err := Check(ok); err != nil {
			t.Errorf("%q refused: %v", ok, err)
		}
	}
	for _, bad := range []string{"", "noequals", "=1", "a=", "1a=2", "a b=1", "a=1\n[client]", "a=1\rb=2", "a;b=1"} {
		if err := Check(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}
