package integration

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/encbench/encbench/internal/encryption/certs"
)

// launcherDir holds the MongoDB wire-protocol test server (mongo-java-server
// behind the project's launcher), built by `make mongo-test-server`.
const launcherDir = "../../tools/mongo-test-server/target"

// mongoServer starts the test server on a free loopback port, with TLS when
// files are given, and returns its address. Closing its stdin stops it.
func mongoServer(t *testing.T, files *certs.Files) string {
	t.Helper()
	jar := filepath.Join(launcherDir, "mongo-test-server-1.jar")
	java, err := exec.LookPath("java")
	if _, serr := os.Stat(jar); serr != nil || err != nil {
		if os.Getenv("ENCBENCH_REQUIRE_SERVERS") == "1" {
			t.Fatalf("MongoDB test server not built (%v, %v): run make mongo-test-server", serr, err)
		}
		t.Skip("MongoDB test server not built: run make mongo-test-server")
	}
	args := []string{"-cp", jar + string(os.PathListSeparator) + filepath.Join(launcherDir, "lib", "*"), "encbench.MongoTestServer", "--port", "0"}
	if files != nil {
		args = append(args, "--tls-cert", files.ServerCert, "--tls-key", files.ServerKey)
	}
	cmd := exec.Command(java, args...)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		stdin.Close()
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
	})
	line := make(chan string, 1)
	go func() {
		r := bufio.NewReader(stdout)
		l, _ := r.ReadString('\n')
		line <- strings.TrimSpace(l)
		_, _ = io.Copy(io.Discard, r)
	}()
	select {
	case l := <-line:
		addr, ok := strings.CutPrefix(l, "listening ")
		if !ok {
			t.Fatalf("MongoDB test server said %q", l)
		}
		return addr
	case <-time.After(60 * time.Second):
		t.Fatal("MongoDB test server did not start within 60 s")
	}
	return ""
}

// TestMongoConnectWorkload runs the connect workload against the MongoDB
// test server with TLS off and on, and checks TLS verification and errors.
func TestMongoConnectWorkload(t *testing.T) {
	dir := t.TempDir()
	files, err := certs.Write(dir, certs.Options{Hosts: []string{"127.0.0.1", "localhost"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Run("plain", func(t *testing.T) {
		dsn := "mongodb://" + mongoServer(t, nil) + "/encbench?tls=false"
		mustRun(t, "prepare", "connect", "--dsn", dsn, "--connect-rows", "50")
		r := runJSON(t, "connect", "--dsn", dsn, "--connect-rows", "50", "--connections", "30")
		if r.Parts["connect"].N != 30 || r.Parts["reused_query"].N != 30 || r.Notes["tls_handshakes"] != 0 {
			t.Fatalf("items %v notes %v", r.Parts, r.Notes)
		}
		if !strings.Contains(r.Engine.Version, "test server") || r.Engine.Kind != "mongodb" {
			t.Errorf("result does not say it ran on the test server: %q", r.Engine.Version)
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
		addr := mongoServer(t, &files)
		dsn := fmt.Sprintf("mongodb://%s/encbench?tls=true&tlsCAFile=%s", addr, files.CA)
		mustRun(t, "prepare", "connect", "--dsn", dsn, "--connect-rows", "50")
		r := runJSON(t, "connect", "--dsn", dsn, "--connect-rows", "50", "--connections", "30", "--tls-version", "1.2")
		if r.Parts["tls_handshake"].N != 30 || r.Notes["tls_handshakes"] != 30 || r.Notes["tls_version TLS 1.2"] != 30 {
			t.Fatalf("items %v notes %v", r.Parts, r.Notes)
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
		wrong := fmt.Sprintf("mongodb://%s/encbench?tls=true&tlsCAFile=%s", addr, other.CA)
		code, _, errOut := encbench(context.Background(), "run", "connect", "--dsn", wrong, "--connections", "1")
		if code != 1 || !strings.Contains(errOut, "certificate") {
			t.Errorf("wrong CA: exit %d %q", code, errOut)
		}
		// TLS mismatch: a plaintext client against the TLS server fails clearly.
		plain := fmt.Sprintf("mongodb://%s/encbench?tls=false&serverSelectionTimeoutMS=2000", addr)
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
	})
	t.Run("bad input", func(t *testing.T) {
		for _, c := range []struct{ dsn, want string }{
			{"mongodb://", "has no host"},
			{"mongodb://127.0.0.1:1/x?tls=maybe", "unknown --tls mode"},
			{"mongodb://a:1,b:2/x", "several hosts"},
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
