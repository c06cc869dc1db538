package engine

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"testing"
)

// TestCertKeyNamesAsVariantsDo: a certificate's key is named as tls:cert=
// names it, so a run's expectation and what it saw compare directly.
func TestCertKeyNamesAsVariantsDo(t *testing.T) {
	ec, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	r, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	for want, key := range map[string]any{"ecdsa-p256": &ec.PublicKey, "rsa-2048": &r.PublicKey} {
		if got := CertKey(&x509.Certificate{PublicKey: key}); got != want {
			t.Errorf("%s named %s", want, got)
		}
	}
}
