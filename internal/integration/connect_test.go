package integration

import (
	"strconv"
	"strings"
	"testing"
)

// TestConnectWorkload runs the R2 cycle on TLS sandboxes of both engines and
// on the plain fixture servers, and checks every part was timed and the TLS
// handshakes were seen with their version and cipher.
func TestConnectWorkload(t *testing.T) {
	servers(t)
	for _, engine := range []string{"postgres", "mariadb"} {
		t.Run(engine+"-tls", func(t *testing.T) {
			dir := variantSandbox(t, engine, "tls")
			mustRun(t, "prepare", "connect", "--sandbox", dir, "--connect-rows", "50")
			r := runJSON(t, "connect", "--sandbox", dir, "--connect-rows", "50", "--connections", "40", "--tls-resumption")
			for _, item := range []string{"connect", "first_query", "connect_first_query", "reused_query", "tls_handshake"} {
				it, ok := r.Parts[item]
				if !ok || it.N != 40 || it.Mean <= 0 {
					t.Errorf("item %s: %+v (present %v)", item, it, ok)
				}
			}
			if r.Parts["tls_handshake"].Mean > r.Parts["connect"].Mean {
				t.Errorf("handshake (%.3f ms) longer than the whole connect (%.3f ms)", r.Parts["tls_handshake"].Mean, r.Parts["connect"].Mean)
			}
			if r.Notes["tls_handshakes"] != 40 {
				t.Errorf("notes: %v", r.Notes)
			}
			version, cipher := false, false
			for k := range r.Notes {
				version = version || strings.HasPrefix(k, "tls_version TLS 1.")
				cipher = cipher || strings.HasPrefix(k, "tls_cipher TLS_")
			}
			group := false
			for k := range r.Notes {
				group = group || strings.HasPrefix(k, "tls_group ")
			}
			if !version || !cipher || !group {
				t.Errorf("no negotiated version, cipher or key exchange group recorded: %v", r.Notes)
			}
			t.Logf("%s: resumed %d of 40 handshakes", engine, r.Notes["tls_resumed"])
		})
	}
	for _, s := range fx.servers {
		t.Run(s.name+"-plain", func(t *testing.T) {
			mustRun(t, "prepare", "connect", "--dsn", s.info.DSN, "--connect-rows", "20", "--force")
			defer mustRun(t, "cleanup", "connect", "--dsn", s.info.DSN)
			r := runJSON(t, "connect", "--dsn", s.info.DSN, "--connect-rows", "20", "--connections", "25", "--threads", "2")
			if r.Totals.Transactions != 25 || r.Parts["connect"].N != 25 {
				t.Errorf("transactions %d, connect items %d", r.Totals.Transactions, r.Parts["connect"].N)
			}
			if _, ok := r.Parts["tls_handshake"]; ok || r.Notes["tls_handshakes"] != 0 {
				t.Errorf("a plain run recorded TLS handshakes: %v", r.Notes)
			}
			// pgx and go-sql-driver connect when the client is made: no
			// client to build apart.
			if code, _, errOut := encbench(t.Context(), "run", "connect", "--dsn", s.info.DSN, "--connect-client", "lazy", "--connections", "1"); code != 2 || !strings.Contains(errOut, "connects when its client is made") {
				t.Errorf("--connect-client lazy on %s: exit %d\n%s", s.name, code, errOut)
			}
		})
	}
}

// TestReconnectPerTxn checks that every transaction opens a connection of
// its own, as MariaDB's own connection counter sees it.
func TestReconnectPerTxn(t *testing.T) {
	for _, s := range servers(t) {
		if s.name != "mariadb" {
			continue
		}
		mustRun(t, "prepare", "oltp_point_select", "--dsn", s.info.DSN, "--tables", "1", "--table-size", "200", "--force")
		defer mustRun(t, "cleanup", "oltp_point_select", "--dsn", s.info.DSN, "--tables", "1")
		connections := func() int64 {
			rows := s.query(t, "SHOW GLOBAL STATUS LIKE 'Connections'")
			n, _ := strconv.ParseInt(rows[0][1], 10, 64)
			return n
		}
		before := connections()
		r := runJSON(t, "oltp_point_select", "--dsn", s.info.DSN, "--tables", "1", "--table-size", "200",
			"--threads", "2", "--time", "0", "--events", "60", "--reconnect-per-txn")
		opened := connections() - before
		if r.Totals.Transactions != 60 || r.Workload.Params["reconnect_per_txn"] != true {
			t.Fatalf("transactions %d params %v", r.Totals.Transactions, r.Workload.Params)
		}
		if opened < 60 {
			t.Fatalf("the server saw %d new connections for 60 transactions", opened)
		}
	}
}
