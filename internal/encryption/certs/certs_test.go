package certs

import (
	"crypto/tls"
	"crypto/x509"
	"os"
	"testing"
)

func TestWriteMakesAVerifiableChain(t *testing.T) {
	for _, alg := range []string{ECDSAP256, RSA2048} {
		dir := t.TempDir()
		f, err := Write(dir, Options{Algorithm: alg})
		if err != nil {
			t.Fatal(err)
		}
		pair, err := tls.LoadX509KeyPair(f.ServerCert, f.ServerKey)
		if err != nil {
			t.Fatal(err)
		}
		leaf, err := x509.ParseCertificate(pair.Certificate[0])
		if err != nil {
			t.Fatal(err)
		}
		caPEM, _ := os.ReadFile(f.CA)
		pool := x509.NewCertPool()
		pool.AppendCertsFromPEM(caPEM)
		for _, host := range []string{"127.0.0.1", "::1", "localhost"} {
			if _, err := leaf.Verify(x509.VerifyOptions{Roots: pool, DNSName: host}); err != nil {
				t.Errorf("%s: server certificate does not verify for %s: %v", alg, host, err)
			}
		}
		for _, key := range []string{f.ServerKey, f.ClientKey} {
			st, err := os.Stat(key)
			if err != nil || st.Mode().Perm() != 0o600 {
				t.Errorf("%s: key %s mode %v, want 0600", alg, key, st.Mode().Perm())
			}
		}
	}
	if _, err := Write(t.TempDir(), Options{Algorithm: "dsa"}); err == nil {
		t.Error("an unknown key algorithm was accepted")
	}
}

// Finding 10: an existing, world-readable key file is never rewritten in
// place (which would hold the new key under the old mode until a chmod):
// the key is written to a new file created 0600 and renamed over it.
func TestKeysReplaceAnExistingFileWithFinalMode(t *testing.T) {
	dir := t.TempDir()
	first, err := Write(dir, Options{Algorithm: ECDSAP256})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(first.ServerKey, 0o644); err != nil {
		t.Fatal(err)
	}
	before, _ := os.Stat(first.ServerKey)
	if _, err := Write(dir, Options{Algorithm: ECDSAP256}); err != nil {
		t.Fatal(err)
	}
	after, err := os.Stat(first.ServerKey)
	if err != nil {
		t.Fatal(err)
	}
	if os.SameFile(before, after) {
		t.Error("the key was rewritten in the old file, under its old mode 0644")
	}
	if after.Mode().Perm() != 0o600 {
		t.Errorf("key mode %v", after.Mode().Perm())
	}
}
