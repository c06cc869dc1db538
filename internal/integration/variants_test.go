package integration

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/encbench/encbench/internal/sandbox"
)

// variantSandbox starts one sandbox variant for the length of a test.
func variantSandbox(t *testing.T, engine, variant string, extra ...string) string {
	t.Helper()
	dir, err := os.MkdirTemp(fx.dir, engine+"-"+strings.NewReplacer("+", "-", ":", "_", ",", "_", "=", "-").Replace(variant)+"-")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	args := append([]string{"sandbox", "up", "--engine", engine, "--dir", dir, "--variant", variant, "--buffer-pool", "128M"}, extra...)
	mustRun(t, args...)
	t.Cleanup(func() { _ = sandbox.Down(dir) })
	mustRun(t, "prepare", "oltp_read_write", "--sandbox", dir, "--tables", "2", "--table-size", "500", "--threads", "2")
	return dir
}

func runVariant(t *testing.T, dir string, extra ...string) (int, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "r.json")
	args := append([]string{"run", "oltp_read_write", "--sandbox", dir, "--tables", "2", "--table-size", "500", "--threads", "3",
		"--time", "0", "--events", "60", "--json", path}, extra...)
	code, _, errOut := encbench(context.Background(), args...)
	return code, errOut + "|" + path
}

// TestVariantsProveThemselves starts every sandbox variant of both engines
// and checks the proof each run records, from the server's side.
func TestVariantsProveThemselves(t *testing.T) {
	servers(t)
	cases := []struct {
		engine, variant string
		tls, tde        bool
	}{
		{"postgres", "plain", false, false},
		{"postgres", "tls", true, false},
		{"mariadb", "plain", false, false},
		{"mariadb", "tls", true, false},
		{"mariadb", "tde", false, true},
		{"mariadb", "tls+tde", true, true},
	}
	for _, c := range cases {
		t.Run(c.engine+"/"+c.variant, func(t *testing.T) {
			dir := variantSandbox(t, c.engine, c.variant)
			code, out := runVariant(t, dir)
			errOut, path, _ := strings.Cut(out, "|")
			if code != 0 {
				t.Fatalf("run on %s: exit %d: %s", c.variant, code, errOut)
			}
			r := readResult(t, path)
			v := r.Variant.Verified
			if r.Variant.Name != c.variant || !v.OK {
				t.Errorf("variant %q verified=%v, want %q verified", r.Variant.Name, v.OK, c.variant)
			}
			wantTLS := 0
			if c.tls {
				wantTLS = 3
			}
			if v.TLS.Connections != 3 || v.TLS.TLSConnections != wantTLS {
				t.Errorf("server saw %d of %d connections encrypted, want %d of 3", v.TLS.TLSConnections, v.TLS.Connections, wantTLS)
			}
			if c.tls && (len(v.TLS.Versions) == 0 || len(v.TLS.Ciphers) == 0) {
				t.Errorf("TLS version and cipher not recorded: %+v", v.TLS)
			}
			if c.engine != "mariadb" {
				return
			}
			p := v.TDE
			if p == nil || p.Marker == nil {
				t.Fatalf("no at-rest proof with a marker scan: %+v", p)
			}
			if c.tde && (p.Encrypted != p.Tables || p.Tables != 3 || p.Marker.Occurrences != 0) {
				t.Errorf("tde: %d of %d tables encrypted, marker seen %d times; want all encrypted and no marker", p.Encrypted, p.Tables, p.Marker.Occurrences)
			}
			if !c.tde && (p.Encrypted != 0 || p.Marker.Occurrences == 0) {
				t.Errorf("plaintext: %d tables encrypted, marker seen %d times; want none encrypted and the marker found", p.Encrypted, p.Marker.Occurrences)
			}
			if r.Regime == nil || r.Regime.DataBytes <= 0 || r.Regime.BufferPoolBytes != 128<<20 {
				t.Errorf("regime not recorded: %+v", r.Regime)
			}
		})
	}
}

// TestTLSVariantRefusesPlaintext: a TLS sandbox takes no plaintext client,
// a wrong CA fails verification, and a plaintext server asked for TLS fails.
func TestTLSVariantRefusesPlaintext(t *testing.T) {
	servers(t)
	pg := variantSandbox(t, "postgres", "tls", "--tls-version", "1.3")
	my := variantSandbox(t, "mariadb", "tls", "--cert-key", "rsa", "--tls-version", "1.2")
	otherCA := filepath.Join(pg, "tls", "ca.pem")
	for _, c := range []struct {
		name string
		dir  string
		args []string
		want string
	}{
		{"postgres plaintext", pg, []string{"--tls", "disable"}, "no encryption"},
		{"mariadb plaintext", my, []string{"--tls", "disable"}, "cannot connect"},
		{"mariadb wrong CA", my, []string{"--tls-ca", otherCA}, "unknown authority"},
		{"postgres plain server asked for TLS", fx.servers[0].info.Dir, []string{"--tls", "require"}, "refused TLS"},
		{"mariadb plain server asked for TLS", fx.servers[1].info.Dir, []string{"--tls", "verify-full", "--tls-ca", otherCA}, "does not support TLS"},
	} {
		code, out := runVariant(t, c.dir, c.args...)
		errOut, _, _ := strings.Cut(out, "|")
		lines := strings.Split(strings.TrimSpace(errOut), "\n")
		last := lines[len(lines)-1]
		if code != 1 || !strings.Contains(last, c.want) {
			t.Errorf("%s: exit %d, %q; want exit 1 mentioning %q", c.name, code, errOut, c.want)
		}
	}
	code, out := runVariant(t, my)
	if code != 0 {
		t.Fatalf("verified TLS run failed: %s", out)
	}
	_, path, _ := strings.Cut(out, "|")
	r := readResult(t, path)
	if r.Variant.Verified.TLS.Versions["TLSv1.2"] != 3 {
		t.Errorf("--tls-version 1.2 sandbox negotiated %v", r.Variant.Verified.TLS.Versions)
	}
}

func TestTDEInputErrors(t *testing.T) {
	servers(t)
	dir := t.TempDir()
	good := filepath.Join(dir, "good.key")
	if err := os.WriteFile(good, []byte("1;"+strings.Repeat("ab", 32)+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	open := filepath.Join(dir, "open.key")
	if err := os.WriteFile(open, []byte("1;"+strings.Repeat("ab", 32)+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(dir, "bad.key")
	if err := os.WriteFile(bad, []byte("one;not-hex\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, want string
		args       []string
	}{
		{"world-readable key file", "readable by group or others", []string{"--engine", "mariadb", "--variant", "tde", "--tde-key-file", open}},
		{"wrong key file", "is not", []string{"--engine", "mariadb", "--variant", "tde", "--tde-key-file", bad}},
		{"missing key file", "cannot use TDE key file", []string{"--engine", "mariadb", "--variant", "tde", "--tde-key-file", filepath.Join(dir, "none.key")}},
		{"postgres tde", "pg_tde", []string{"--engine", "postgres", "--variant", "tde"}},
		{"unknown variant", "unknown --variant", []string{"--engine", "mariadb", "--variant", "tlz"}},
	} {
		args := append([]string{"sandbox", "up", "--dir", filepath.Join(fx.dir, "bad-"+strings.ReplaceAll(c.name, " ", "-"))}, c.args...)
		code, _, errOut := encbench(context.Background(), args...)
		if code != 2 || !strings.Contains(errOut, c.want) || strings.Count(strings.TrimSpace(errOut), "\n") > 0 {
			t.Errorf("%s: exit %d, %q; want exit 2, one line mentioning %q", c.name, code, errOut, c.want)
		}
	}
	// A server without encryption cannot be asked to prepare encrypted tables.
	code, _, errOut := encbench(context.Background(), "prepare", "oltp_point_select", "--sandbox", fx.servers[1].info.Dir, "--tables", "1", "--table-size", "10", "--tde")
	if code != 2 || !strings.Contains(errOut, "no key management plugin") {
		t.Errorf("prepare --tde on a plain MariaDB: exit %d, %q", code, errOut)
	}
	// A TDE sandbox with the user's own (good) key file works.
	dirTDE := variantSandbox(t, "mariadb", "tde", "--tde-key-file", good)
	if code, out := runVariant(t, dirTDE); code != 0 {
		t.Errorf("TDE sandbox with a given key file: %s", out)
	}
}

// TestTLSLayerOptionsAreProved: a sandbox named by the layers' syntax
// (tls1.2 with a cipher suite and an RSA-4096 certificate) runs them, and
// a run named by the same variant proves each from the handshake and the
// server's view: the key of the certificate the server presented, the
// version and the cipher suite; a run that expects another key fails.
func TestTLSLayerOptionsAreProved(t *testing.T) {
	servers(t)
	const v = "tls1.2:cert=rsa-4096,cipher=ECDHE-RSA-AES128-GCM-SHA256"
	for _, eng := range []string{"postgres", "mariadb"} {
		dir := variantSandbox(t, eng, v)
		code, out := runVariant(t, dir, "--variant", v)
		if code != 0 {
			t.Fatalf("%s: %s", eng, out)
		}
		_, path, _ := strings.Cut(out, "|")
		p := readResult(t, path).Variant.Verified.TLS
		if p.ServerKey != "rsa-4096" || len(p.Versions) != 1 || len(p.Ciphers) != 1 || p.TLSConnections != p.Connections {
			t.Errorf("%s: proof %+v, want every connection TLS 1.2 with one cipher, an rsa-4096 certificate", eng, p)
		}
		code, out = runVariant(t, dir, "--variant", "tls:cert=ecdsa-p256")
		if errOut, _, _ := strings.Cut(out, "|"); code != 1 || !strings.Contains(errOut, "presented one with rsa-4096") {
			t.Errorf("%s: expecting ecdsa-p256 of an rsa-4096 server: exit %d, %s", eng, code, errOut)
		}
	}
}

// TestMutualTLSIsProved: a sandbox named tls:client-cert=on admits only
// clients with a certificate of its CA (PostgreSQL cert authentication,
// MariaDB REQUIRE X509), and a run named so proves from the server's view
// that every connection presented one; a run that asks for mutual TLS of
// a server that does not require it fails.
func TestMutualTLSIsProved(t *testing.T) {
	servers(t)
	for _, eng := range []string{"postgres", "mariadb"} {
		dir := variantSandbox(t, eng, "tls:client-cert=on")
		code, out := runVariant(t, dir, "--variant", "tls:client-cert=on")
		if code != 0 {
			t.Fatalf("%s: %s", eng, out)
		}
		_, path, _ := strings.Cut(out, "|")
		if p := readResult(t, path).Variant.Verified.TLS; p.ClientCerts != p.Connections || p.Connections == 0 {
			t.Errorf("%s: proof %+v, want a client certificate on every connection", eng, p)
		}
		plain := variantSandbox(t, eng, "tls")
		code, out = runVariant(t, plain, "--variant", "tls:client-cert=on")
		if errOut, _, _ := strings.Cut(out, "|"); code != 1 || !strings.Contains(errOut, "mutual TLS was asked for") {
			t.Errorf("%s: mutual TLS asked of a server that does not require it: exit %d, %s", eng, code, errOut)
		}
	}
}

// TestTLS13SuiteIsTheServersChoice: in TLS 1.3 the server chooses the
// suite, so a sandbox named tls1.3:cipher=SUITE accepts only that one (its
// OpenSSL configuration), and a run's proof shows it from the server's
// view.
func TestTLS13SuiteIsTheServersChoice(t *testing.T) {
	servers(t)
	const suite = "TLS_CHACHA20_POLY1305_SHA256"
	for _, eng := range []string{"postgres", "mariadb"} {
		dir := variantSandbox(t, eng, "tls1.3:cipher="+suite)
		code, out := runVariant(t, dir, "--variant", "tls1.3:cipher="+suite)
		if code != 0 {
			t.Fatalf("%s: %s", eng, out)
		}
		_, path, _ := strings.Cut(out, "|")
		if p := readResult(t, path).Variant.Verified.TLS; p.Ciphers[suite] != p.Connections || p.Connections == 0 {
			t.Errorf("%s: proof %+v, want every connection on %s", eng, p, suite)
		}
	}
}
