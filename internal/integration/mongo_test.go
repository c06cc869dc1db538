package integration

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/encbench/encbench/internal/encryption/certs"
	"github.com/encbench/encbench/internal/sandbox"
)

// mongoServer starts a mongodb sandbox (FerretDB, built by `make ferretdb`)
// of the variant, plain or tls, for the length of a test.
func mongoServer(t *testing.T, variant string) *sandbox.Info {
	t.Helper()
	o := sandbox.Options{Engine: "mongodb", Variant: variant}
	if err := sandbox.Check(o); err != nil {
		if os.Getenv("ENCBENCH_REQUIRE_SERVERS") == "1" {
			t.Fatalf("no mongodb sandbox: %v", err)
		}
		t.Skipf("no mongodb sandbox: %v", err)
	}
	o.Dir = filepath.Join(t.TempDir(), "mongodb")
	info, err := sandbox.Up(t.Context(), o)
	if err != nil {
		t.Fatalf("starting FerretDB: %v", err)
	}
	t.Cleanup(func() { _ = sandbox.Down(o.Dir) })
	return info
}

// sandboxURI is a URI to the sandbox with its benchmark account and the
// given query: the TLS options a test sets by hand.
func sandboxURI(info *sandbox.Info, query string) string {
	return fmt.Sprintf("mongodb://sbtest:%s@127.0.0.1:%d/sbtest?authMechanism=SCRAM-SHA-256&%s", info.Password, info.Port, query)
}

// TestMongoConnectWorkload runs the connect workload against the MongoDB
// sandbox (FerretDB) with TLS off and on, and checks authentication, TLS
// verification and errors.
func TestMongoConnectWorkload(t *testing.T) {
	dir := t.TempDir()
	t.Run("plain", func(t *testing.T) {
		info := mongoServer(t, "plain")
		if !strings.HasPrefix(info.Version, "FerretDB v1.24.") {
			t.Errorf("the sandbox does not name the FerretDB build it runs: %q", info.Version)
		}
		dsn := sandboxURI(info, "tls=false")
		mustRun(t, "prepare", "connect", "--dsn", dsn, "--connect-rows", "50")
		r := runJSON(t, "connect", "--dsn", dsn, "--connect-rows", "50", "--connections", "30", "--server-pid", strconv.Itoa(info.PID))
		if r.Parts["connect"].N != 30 || r.Parts["reused_query"].N != 30 || r.Notes["tls_handshakes"] != 0 {
			t.Fatalf("items %v notes %v", r.Parts, r.Notes)
		}
		if !strings.Contains(r.Engine.Version, "FerretDB v1.24") || !strings.Contains(r.Engine.Version, "not mongod") || r.Engine.Kind != "mongodb" {
			t.Errorf("result does not say it ran on FerretDB: %q", r.Engine.Version)
		}
		if r.CPU.ServerS == nil || *r.CPU.ServerS <= 0 {
			t.Errorf("FerretDB's CPU was not measured as a server's: %+v", r.CPU)
		}
		// SCRAM is required: no password, or a wrong one, is refused.
		anon := fmt.Sprintf("mongodb://127.0.0.1:%d/sbtest?tls=false", info.Port)
		if code, _, errOut := encbench(context.Background(), "run", "connect", "--dsn", anon, "--connections", "1"); code != 1 || !strings.Contains(errOut, "requires authentication") {
			t.Errorf("unauthenticated: exit %d %q", code, errOut)
		}
		wrongPw := fmt.Sprintf("mongodb://sbtest:nottheone@127.0.0.1:%d/sbtest?tls=false", info.Port)
		if code, _, errOut := encbench(context.Background(), "run", "connect", "--dsn", wrongPw, "--connections", "1"); code == 0 || strings.Contains(errOut, "nottheone") {
			t.Errorf("wrong password: exit %d %q", code, errOut)
		}
		if r.Variant.Verified.TLS.TLSConnections != 0 {
			t.Errorf("plain run saw TLS: %+v", r.Variant.Verified.TLS)
		}
		// Prepare refuses to overwrite, cleanup removes what it made.
		if code, _, errOut := encbench(context.Background(), "prepare", "connect", "--dsn", dsn); code != 2 || !strings.Contains(errOut, "already prepared") {
			t.Errorf("second prepare: exit %d %s", code, errOut)
		}
		mustRun(t, "cleanup", "connect", "--dsn", dsn)
		ycsbA(t, dsn)
		// An SQL workload is refused in one line.
		code, _, errOut := encbench(context.Background(), "run", "oltp_point_select", "--dsn", dsn)
		if code == 0 || strings.Count(strings.TrimSpace(errOut), "\n") > 0 || !strings.Contains(errOut, "SQL workloads need") {
			t.Errorf("SQL workload on MongoDB: exit %d %q", code, errOut)
		}
	})
	t.Run("tls", func(t *testing.T) {
		info := mongoServer(t, "tls")
		dsn := sandboxURI(info, "tls=true&tlsCAFile="+info.CA)
		mustRun(t, "prepare", "connect", "--dsn", dsn, "--connect-rows", "50")
		r := runJSON(t, "connect", "--dsn", dsn, "--connect-rows", "50", "--connections", "30", "--tls-version", "1.2")
		// Each new client handshakes on its monitor's connection and on
		// its pool's: every one is counted, and timed once where they
		// overlap (never longer than the connect).
		if r.Parts["tls_handshake"].N != 30 || r.Notes["tls_handshakes"] < 30 || r.Notes["tls_version TLS 1.2"] != r.Notes["tls_handshakes"] ||
			r.Parts["tls_handshake"].Mean > r.Parts["connect"].Mean {
			t.Fatalf("items %v notes %v", r.Parts, r.Notes)
		}
		// R2's split: the client built apart, its first query waiting for
		// the discovery and the connection.
		lazy := runJSON(t, "connect", "--dsn", dsn, "--connect-rows", "50", "--connections", "30", "--tls-version", "1.2", "--connect-client", "lazy")
		if c, f := lazy.Parts["connect"], lazy.Parts["first_query"]; c.N != 30 || f.Mean <= c.Mean || f.Mean < r.Parts["tls_handshake"].Mean || lazy.Notes["tls_handshakes"] < 30 {
			t.Errorf("lazy client: connect %+v, first query %+v, notes %v", c, f, lazy.Notes)
		}
		if p := r.Variant.Verified.TLS; p.TLSConnections != 1 || p.Versions["TLS 1.2"] != 1 {
			t.Errorf("TLS proof: %+v", p)
		}
		ycsbA(t, dsn)
		// Verification: a CA that did not sign the server's certificate is refused.
		other, err := certs.Write(filepath.Join(dir, "other"), certs.Options{Hosts: []string{"127.0.0.1"}})
		if err != nil {
			t.Fatal(err)
		}
		wrong := sandboxURI(info, "tls=true&tlsCAFile="+other.CA)
		code, _, errOut := encbench(context.Background(), "run", "connect", "--dsn", wrong, "--connections", "1")
		if code != 1 || !strings.Contains(errOut, "certificate") {
			t.Errorf("wrong CA: exit %d %q", code, errOut)
		}
		// TLS mismatch: a plaintext client against the TLS server fails clearly.
		plain := sandboxURI(info, "tls=false&serverSelectionTimeoutMS=2000")
		code, _, errOut = encbench(context.Background(), "run", "connect", "--dsn", plain, "--connections", "1")
		if code != 1 || !strings.Contains(errOut, "cannot connect") {
			t.Errorf("plaintext against TLS: exit %d %q", code, errOut)
		}
	})
	t.Run("unreachable", func(t *testing.T) {
		code, _, errOut := encbench(context.Background(), "run", "connect", "--dsn", "mongodb://127.0.0.1:1/x?serverSelectionTimeoutMS=500", "--connections", "1")
		if code != 1 || !strings.Contains(errOut, "cannot connect") || strings.Count(strings.TrimSpace(errOut), "\n") > 0 {
			t.Errorf("unreachable server: exit %d %q", code, errOut)
		}
		// A seed list is a replica set the driver discovers: none of its
		// members answers, and the error names each.
		code, _, errOut = encbench(context.Background(), "run", "connect", "--dsn", "mongodb://127.0.0.1:1,127.0.0.1:2/x?serverSelectionTimeoutMS=500", "--connections", "1")
		if code != 1 || !strings.Contains(errOut, "127.0.0.1:1") || !strings.Contains(errOut, "127.0.0.1:2") || strings.Count(strings.TrimSpace(errOut), "\n") > 0 {
			t.Errorf("unreachable seed list: exit %d %q", code, errOut)
		}
	})
	t.Run("bad input", func(t *testing.T) {
		for _, c := range []struct{ dsn, want string }{
			{"mongodb://", "has no host"},
			{"mongodb://127.0.0.1:1/x?tls=maybe", "unknown --tls mode"},
			{"mongodb://127.0.0.1:1/x?target_session_attrs=standby", "readPreference"},
		} {
			code, _, errOut := encbench(context.Background(), "run", "connect", "--dsn", c.dsn, "--connections", "1")
			if code != 2 || !strings.Contains(errOut, c.want) || strings.Count(strings.TrimSpace(errOut), "\n") > 0 {
				t.Errorf("%s: exit %d %q", c.dsn, code, errOut)
			}
		}
	})
}

// ycsbA loads usertable and runs YCSB workload A on the MongoDB server.
func ycsbA(t *testing.T, dsn string) {
	t.Helper()
	mustRun(t, "prepare", "ycsb_a", "--dsn", dsn, "--recordcount", "200", "--threads", "2")
	r := runJSON(t, "ycsb_a", "--dsn", dsn, "--recordcount", "200", "--operationcount", "300", "--threads", "2")
	if r.Totals.Transactions != 300 || r.Parts["READ"].N+r.Parts["UPDATE"].N != 300 || r.Parts["UPDATE"].N == 0 {
		t.Errorf("ycsb_a on MongoDB: %d operations, items %v", r.Totals.Transactions, r.Parts)
	}
	mustRun(t, "cleanup", "ycsb_a", "--dsn", dsn)
}
