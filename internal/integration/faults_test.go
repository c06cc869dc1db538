package integration

import (
	"context"
	"strings"
	"testing"
	"time"
)

// TestSessionsKilledMidTPCC terminates every worker session twice during
// a TPC-C run (as an administrator or a failover would): the workers
// reconnect and go on, the run ends normally and counts its reconnects,
// and afterwards all twelve TPC-C consistency conditions hold, so nothing
// half-done was kept (the server rolled the cut transactions back).
func TestSessionsKilledMidTPCC(t *testing.T) {
	for _, s := range servers(t) {
		t.Run(s.name, func(t *testing.T) {
			opts := []string{"--dsn", s.info.DSN}
			mustRun(t, append([]string{"prepare", "tpcc", "--threads", "2", "--force"}, opts...)...)
			defer mustRun(t, append([]string{"cleanup", "tpcc"}, opts...)...)
			killed := make(chan int, 2)
			go func() {
				defer close(killed)
				for range 2 {
					time.Sleep(2 * time.Second)
					killed <- killWorkerSessions(t, s)
				}
			}()
			r := runJSON(t, append([]string{"tpcc", "--threads", "4", "--time", "6"}, opts...)...)
			n := 0
			for k := range killed {
				n += k
			}
			if n == 0 {
				t.Fatal("no worker session was found to kill: the test proved nothing")
			}
			if r.Totals.Reconnects == 0 || r.Partial || r.Totals.Transactions == 0 {
				t.Errorf("after %d sessions were killed: reconnects %d, partial %v, transactions %d", n, r.Totals.Reconnects, r.Partial, r.Totals.Transactions)
			}
			out := mustRun(t, append([]string{"check", "tpcc"}, opts...)...)
			if strings.Count(out, " ok ") != 12 || strings.Contains(out, "FAILED") {
				t.Errorf("consistency after killed sessions:\n%s", out)
			}
			t.Logf("%s: %d sessions killed, %d reconnects, %d transactions", s.name, n, r.Totals.Reconnects, r.Totals.Transactions)
		})
	}
}

// killWorkerSessions ends every session of the benchmark user from the
// server's side and returns how many it ended.
func killWorkerSessions(t *testing.T, s *server) int {
	ctx := context.Background()
	if s.name == "postgres" {
		rows, err := s.admin.Query(ctx, "SELECT pid FROM pg_stat_activity WHERE usename = 'sbtest' AND pid <> pg_backend_pid()")
		if err != nil {
			t.Errorf("listing sessions: %v", err)
			return 0
		}
		for _, r := range rows {
			_ = s.admin.Exec(ctx, "SELECT pg_terminate_backend("+r[0]+")")
		}
		return len(rows)
	}
	rows, err := s.admin.Query(ctx, "SELECT id FROM information_schema.PROCESSLIST WHERE user = 'sbtest'")
	if err != nil {
		t.Errorf("listing sessions: %v", err)
		return 0
	}
	for _, r := range rows {
		_ = s.admin.Exec(ctx, "KILL CONNECTION "+r[0])
	}
	return len(rows)
}
