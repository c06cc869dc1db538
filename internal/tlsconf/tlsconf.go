// Package tlsconf turns encbench's TLS options into a crypto/tls client
// configuration, the same way for every engine.
package tlsconf

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"os"

	"github.com/encbench/encbench/internal/engine"
	"github.com/encbench/encbench/internal/errs"
)

// Client returns the client configuration for opts, or nil for "disable".
// serverName is the host the client dials, checked in verify-full mode.
func Client(opts engine.TLSOptions, serverName string) (*tls.Config, error) {
	if opts.Mode == engine.TLSDisable || opts.Mode == "" {
		return nil, nil
	}
	cfg := &tls.Config{MinVersion: tls.VersionTLS12}
	if opts.CertFile != "" {
		pair, err := tls.LoadX509KeyPair(opts.CertFile, opts.KeyFile)
		if err != nil {
			return nil, errs.Usage("cannot load client certificate %s / key %s: %v", opts.CertFile, opts.KeyFile, err)
		}
		cfg.Certificates = []tls.Certificate{pair}
	}
	var pool *x509.CertPool
	if opts.CAFile != "" {
		pem, err := os.ReadFile(opts.CAFile)
		if err != nil {
			return nil, errs.Usage("cannot read --tls-ca file: %v", err)
		}
		pool = x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, errs.Usage("--tls-ca %s holds no PEM certificate", opts.CAFile)
		}
	}
	switch opts.Mode {
	case engine.TLSRequire:
		cfg.InsecureSkipVerify = true
	case engine.TLSVerifyCA:
		// Chain must verify; the host name is deliberately not checked.
		cfg.InsecureSkipVerify = true
		cfg.VerifyConnection = func(cs tls.ConnectionState) error {
			if len(cs.PeerCertificates) == 0 {
				return fmt.Errorf("server sent no certificate")
			}
			inter := x509.NewCertPool()
			for _, c := range cs.PeerCertificates[1:] {
				inter.AddCert(c)
			}
			_, err := cs.PeerCertificates[0].Verify(x509.VerifyOptions{Roots: pool, Intermediates: inter})
			if err != nil {
				return fmt.Errorf("server certificate not signed by --tls-ca: %w", err)
			}
			return nil
		}
	case engine.TLSVerifyFull:
		cfg.RootCAs = pool
		cfg.ServerName = serverName
	default:
		return nil, errs.Usage("unknown TLS mode %q", opts.Mode)
	}
	return cfg, nil
}
