package integration

import (
	"testing"

	"github.com/encbench/encbench/internal/sandbox"
)

// TestQuiesceVacuums: between cells a PostgreSQL sandbox vacuums and
// analyzes the benchmark database, so dead rows a write cell left do not
// slow the next reads measured on it, and autovacuum (off in a suite's
// sandboxes) has nothing to start inside one (InnoDB purges on its own;
// the suite waits for it).
func TestQuiesceVacuums(t *testing.T) {
	for _, s := range servers(t) {
		if s.name != "postgres" {
			continue
		}
		s.exec(t, "DROP TABLE IF EXISTS quiesce_probe")
		s.exec(t, "CREATE TABLE quiesce_probe (id INTEGER PRIMARY KEY) WITH (autovacuum_enabled = false)")
		defer s.exec(t, "DROP TABLE quiesce_probe")
		s.exec(t, "INSERT INTO quiesce_probe SELECT generate_series(1, 1000)")
		s.exec(t, "DELETE FROM quiesce_probe WHERE id % 2 = 0")
		const vacuums = "SELECT vacuum_count FROM pg_stat_user_tables WHERE relname = 'quiesce_probe'"
		const analyzes = "SELECT analyze_count FROM pg_stat_user_tables WHERE relname = 'quiesce_probe'"
		if v, a := s.scalar(t, vacuums), s.scalar(t, analyzes); v != 0 || a != 0 {
			t.Fatalf("vacuumed %d and analyzed %d times before Quiesce", v, a)
		}
		if err := sandbox.Quiesce(t.Context(), s.info); err != nil {
			t.Fatal(err)
		}
		if v, a := s.scalar(t, vacuums), s.scalar(t, analyzes); v != 1 || a != 1 {
			t.Errorf("Quiesce vacuumed %d and analyzed %d times, want once each", v, a)
		}
	}
}
