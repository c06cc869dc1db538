package integration

import (
	"strings"
	"testing"
)

// TestLockWaitsCountedWhereTheEngineCountsThem: eight threads updating
// four rows wait on each other's row locks. MariaDB's InnoDB counts the
// waits, read through the DSN like any user's server; PostgreSQL keeps no
// count, so its result has none rather than a zero.
func TestLockWaitsCountedWhereTheEngineCountsThem(t *testing.T) {
	for _, s := range servers(t) {
		t.Run(s.name, func(t *testing.T) {
			args := []string{"--dsn", s.info.DSN, "--tables", "1", "--table-size", "4"}
			mustRun(t, append([]string{"prepare", "oltp_update_non_index", "--force"}, args...)...)
			defer mustRun(t, append([]string{"cleanup", "oltp_update_non_index"}, args...)...)
			r := runJSON(t, append([]string{"oltp_update_non_index", "--threads", "8", "--time", "0", "--events", "2000"}, args...)...)
			switch s.name {
			case "mariadb":
				w := r.LockWaits
				if w == nil || w.Waits <= 0 || w.WaitsPerTxn <= 0 || !strings.Contains(w.Source, "Innodb_row_lock_waits") {
					t.Fatalf("lock waits on MariaDB: %+v", w)
				}
				t.Logf("MariaDB: %d lock waits (%.3f per transaction), %.1f ms", w.Waits, w.WaitsPerTxn, w.WaitMs)
			default:
				if r.LockWaits != nil {
					t.Errorf("%s counts no lock waits, yet the result has %+v", s.name, r.LockWaits)
				}
			}
		})
	}
}
