package integration

import "testing"

// A sandbox's --set settings are written after encbench's own, so the
// server runs with the user's value.
func TestServerSettingsWin(t *testing.T) {
	for _, s := range servers(t) {
		sql, want := "SHOW GLOBAL VARIABLES LIKE 'max_prepared_stmt_count'", "100001"
		if s.name == "postgres" {
			sql, want = "SHOW max_connections", "301"
		}
		rows := s.query(t, sql)
		if len(rows) != 1 || rows[0][len(rows[0])-1] != want {
			t.Errorf("%s: %s = %v, want %s", s.name, sql, rows, want)
		}
	}
}
