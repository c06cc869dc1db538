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
