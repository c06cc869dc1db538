package suiterun

import (
	"slices"
	"testing"

	"github.com/encbench/encbench/internal/suite"
)

func TestFreshServers(t *testing.T) {
	// The quick suite's shape: PostgreSQL's variants share one server,
	// MariaDB's tde runs on a server of its own.
	servers := map[string]string{"pg-plain": "pg", "pg-tls": "pg", "my-plain": "my", "my-tls": "my", "my-tde": "my-tde"}
	serverOf := func(c suite.Cell) string { return servers[c.Setup] }
	cell := func(target, setup string) suite.Cell { return suite.Cell{Target: target, Setup: setup} }
	both := []suite.Cell{cell("pg", "pg-plain"), cell("pg", "pg-tls"), cell("my", "my-plain"), cell("my", "my-tls"), cell("my", "my-tde")}
	mariadb := both[2:]
	served := map[string]int{}
	if got := freshServers(both, serverOf, 1, served); len(got) != 0 {
		t.Fatalf("first block: restarted %v, want none (started for this run)", got)
	}
	got := freshServers(both, serverOf, 2, served)
	if !slices.Equal(got, []string{"my", "my-tde"}) {
		t.Fatalf("repetition 2: restarted %v, want MariaDB's two servers once each and not PostgreSQL's shared one", got)
	}
	if got := freshServers(both, serverOf, 2, served); len(got) != 0 {
		t.Fatalf("a second block of repetition 2 restarted %v", got)
	}
	// A group running ahead restarts only its own servers; PostgreSQL's
	// shared server is never restarted.
	if got := freshServers(mariadb, serverOf, 3, served); !slices.Equal(got, []string{"my", "my-tde"}) || served["pg"] != 0 {
		t.Fatalf("MariaDB ahead at 3: restarted %v, PostgreSQL's instance %d", got, served["pg"])
	}
	// With a server per variant (servers: own), PostgreSQL's restart too,
	// from the repetition after the one they first ran.
	servers["pg-tls"] = "pg-tls"
	if got := freshServers(both, serverOf, 3, served); len(got) != 0 {
		t.Fatalf("own servers first seen at 3: restarted %v", got)
	}
	if got := freshServers(both, serverOf, 4, served); !slices.Equal(got, []string{"pg", "pg-tls", "my", "my-tde"}) {
		t.Fatalf("own servers at 4: restarted %v, want every server once", got)
	}
}
