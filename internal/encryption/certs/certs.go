// Package certs makes the certificate authority and the server and client
// certificates a TLS sandbox uses, with Go's crypto/x509.
package certs

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"time"

	"github.com/encbench/encbench/internal/fsx"
)

// Key algorithms a sandbox can use, by their names in variants
// (tls:cert=NAME).
const (
	ECDSAP256 = "ecdsa-p256"
	RSA2048   = "rsa-2048"
	RSA4096   = "rsa-4096"
)

// Algorithms are the key algorithms, the default first.
func Algorithms() []string { return []string{ECDSAP256, RSA2048, RSA4096} }

// Canonical is an algorithm's name, from it or the older --cert-key
// spellings (ecdsa, rsa); "" is the default.
func Canonical(alg string) (string, error) {
	switch alg {
	case "", "ecdsa", ECDSAP256:
		return ECDSAP256, nil
	case "rsa", RSA2048:
		return RSA2048, nil
	case RSA4096:
		return RSA4096, nil
	}
	return "", fmt.Errorf("unknown certificate key %q: use ecdsa-p256, rsa-2048 or rsa-4096", alg)
}

// Files are the PEM files written into a directory.
type Files struct {
	CA, ServerCert, ServerKey, ClientCert, ClientKey string
}

// Options shape the certificates.
type Options struct {
	Algorithm string
	// Validity of every certificate; NotBefore is an hour back for clock skew.
	Validity time.Duration
	// NotAfter, when set, overrides Validity (tests use it for expired CAs).
	NotAfter time.Time
	// Hosts go into the server certificate's subject alternative names.
	Hosts []string
}

// Write creates a CA and server and client certificates signed by it in dir.
// Private keys are written 0600.
func Write(dir string, o Options) (Files, error) {
	alg, err := Canonical(o.Algorithm)
	if err != nil {
		return Files{}, err
	}
	o.Algorithm = alg
	if o.Validity == 0 {
		o.Validity = 365 * 24 * time.Hour
	}
	if len(o.Hosts) == 0 {
		o.Hosts = []string{"127.0.0.1", "::1", "localhost"}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return Files{}, fmt.Errorf("creating %s: %w", dir, err)
	}
	f := Files{
		CA:         filepath.Join(dir, "ca.pem"),
		ServerCert: filepath.Join(dir, "server-cert.pem"),
		ServerKey:  filepath.Join(dir, "server-key.pem"),
		ClientCert: filepath.Join(dir, "client-cert.pem"),
		ClientKey:  filepath.Join(dir, "client-key.pem"),
	}
	notBefore := time.Now().Add(-time.Hour)
	notAfter := notBefore.Add(o.Validity)
	if !o.NotAfter.IsZero() {
		notAfter = o.NotAfter
	}
	caKey, err := newKey(o.Algorithm)
	if err != nil {
		return Files{}, err
	}
	caTmpl := &x509.Certificate{
		SerialNumber:          serial(),
		Subject:               pkix.Name{CommonName: "encbench sandbox CA"},
		NotBefore:             notBefore,
		NotAfter:              notAfter,
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageCRLSign,
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, caKey.Public(), caKey)
	if err != nil {
		return Files{}, fmt.Errorf("signing CA certificate: %w", err)
	}
	caCert, err := x509.ParseCertificate(caDER)
	if err != nil {
		return Files{}, fmt.Errorf("parsing CA certificate: %w", err)
	}
	if err := writePEM(f.CA, "CERTIFICATE", caDER, 0o644); err != nil {
		return Files{}, err
	}
	server := leafTemplate("encbench sandbox server", x509.ExtKeyUsageServerAuth, notBefore, notAfter)
	for _, h := range o.Hosts {
		if ip := net.ParseIP(h); ip != nil {
			server.IPAddresses = append(server.IPAddresses, ip)
		} else {
			server.DNSNames = append(server.DNSNames, h)
		}
	}
	if err := leaf(f.ServerCert, f.ServerKey, server, caCert, caKey, o.Algorithm); err != nil {
		return Files{}, err
	}
	client := leafTemplate("sbtest", x509.ExtKeyUsageClientAuth, notBefore, notAfter)
	if err := leaf(f.ClientCert, f.ClientKey, client, caCert, caKey, o.Algorithm); err != nil {
		return Files{}, err
	}
	return f, nil
}

func leafTemplate(cn string, usage x509.ExtKeyUsage, notBefore, notAfter time.Time) *x509.Certificate {
	return &x509.Certificate{
		SerialNumber: serial(),
		Subject:      pkix.Name{CommonName: cn},
		NotBefore:    notBefore,
		NotAfter:     notAfter,
		KeyUsage:     x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment,
		ExtKeyUsage:  []x509.ExtKeyUsage{usage},
	}
}

func leaf(certPath, keyPath string, tmpl, ca *x509.Certificate, caKey crypto.Signer, alg string) error {
	key, err := newKey(alg)
	if err != nil {
		return err
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, key.Public(), caKey)
	if err != nil {
		return fmt.Errorf("signing %s: %w", tmpl.Subject.CommonName, err)
	}
	if err := writePEM(certPath, "CERTIFICATE", der, 0o644); err != nil {
		return err
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return fmt.Errorf("encoding key: %w", err)
	}
	return writePEM(keyPath, "PRIVATE KEY", keyDER, 0o600)
}

func newKey(alg string) (crypto.Signer, error) {
	switch alg {
	case ECDSAP256:
		return ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	case RSA2048:
		return rsa.GenerateKey(rand.Reader, 2048)
	case RSA4096:
		return rsa.GenerateKey(rand.Reader, 4096)
	}
	return nil, fmt.Errorf("unknown key algorithm %q: use ecdsa-p256, rsa-2048 or rsa-4096", alg)
}

func serial() *big.Int {
	n, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 120))
	if err != nil {
		return big.NewInt(time.Now().UnixNano())
	}
	return n
}

// writePEM writes with the final mode from the first byte: an existing
// file is replaced, never rewritten in place under its old mode.
func writePEM(path, typ string, der []byte, mode os.FileMode) error {
	return fsx.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}), mode)
}
