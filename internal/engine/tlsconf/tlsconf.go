// Package tlsconf turns encbench's TLS options into a crypto/tls client
// configuration, the same way for every engine.
package tlsconf

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"os"
	"sort"
	"strings"

	"github.com/encbench/encbench/internal/engine"
	"github.com/encbench/encbench/internal/errs"
)

// Client returns the client configuration for opts, or nil for "disable".
// serverName is the host the client dials, checked in verify-full mode. A
// probe, when given, sees every handshake and may offer session resumption.
func Client(opts engine.TLSOptions, serverName string, probe *engine.TLSProbe) (*tls.Config, error) {
	cfg, err := client(opts, serverName)
	if cfg == nil || err != nil || probe == nil {
		return cfg, err
	}
	cfg.ClientSessionCache = probe.SessionCache
	verify := cfg.VerifyConnection
	cfg.VerifyConnection = func(cs tls.ConnectionState) error {
		if verify != nil {
			if err := verify(cs); err != nil {
				return err
			}
		}
		probe.Observe(cs)
		return nil
	}
	return cfg, nil
}

func client(opts engine.TLSOptions, serverName string) (*tls.Config, error) {
	if opts.Mode == engine.TLSDisable || opts.Mode == "" {
		return nil, nil
	}
	cfg := &tls.Config{MinVersion: tls.VersionTLS12}
	switch opts.Version {
	case "1.2":
		cfg.MaxVersion = tls.VersionTLS12
	case "1.3":
		cfg.MinVersion = tls.VersionTLS13
	}
	if opts.Cipher != "" {
		id, err := CipherID(opts.Cipher)
		if err != nil {
			return nil, err
		}
		if isTLS13(id) {
			// Go's client offers every TLS 1.3 suite and the server
			// chooses: a sandbox pinned to one accepts only it, and the
			// run's proof checks what was negotiated.
			cfg.MinVersion = tls.VersionTLS13
		} else {
			cfg.CipherSuites = []uint16{id}
			cfg.MaxVersion = tls.VersionTLS12 // TLS 1.3 suites cannot be chosen
		}
	}
	if opts.CertFile != "" {
		pair, err := tls.LoadX509KeyPair(opts.CertFile, opts.KeyFile)
		if err != nil {
			return nil, errs.Usage("cannot load client certificate %s / key %s: %w", opts.CertFile, opts.KeyFile, err)
		}
		cfg.Certificates = []tls.Certificate{pair}
	}
	var pool *x509.CertPool
	if opts.CAFile != "" {
		pem, err := os.ReadFile(opts.CAFile)
		if err != nil {
			return nil, errs.Usage("cannot read --tls-ca file: %w", err)
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
		if opts.ServerName != "" {
			// Connected through a proxy: verify the server's own name.
			cfg.ServerName = opts.ServerName
		}
	default:
		return nil, errs.Usage("unknown TLS mode %q", opts.Mode)
	}
	return cfg, nil
}

// openSSLNames maps the TLS 1.2 suites servers are configured with (OpenSSL
// names) to Go's; Go's own (IANA) names are accepted as well.
var openSSLNames = map[string]string{
	"ECDHE-ECDSA-AES128-GCM-SHA256": "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256",
	"ECDHE-ECDSA-AES256-GCM-SHA384": "TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384",
	"ECDHE-RSA-AES128-GCM-SHA256":   "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256",
	"ECDHE-RSA-AES256-GCM-SHA384":   "TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384",
	"ECDHE-ECDSA-CHACHA20-POLY1305": "TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256",
	"ECDHE-RSA-CHACHA20-POLY1305":   "TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256",
	"ECDHE-ECDSA-AES128-SHA256":     "TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256",
	"ECDHE-RSA-AES128-SHA256":       "TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA256",
}

// isTLS13 says a suite is one of TLS 1.3's (RFC 8446, B.4).
func isTLS13(id uint16) bool {
	for _, s := range tls.CipherSuites() {
		if s.ID == id {
			return len(s.SupportedVersions) == 1 && s.SupportedVersions[0] == tls.VersionTLS13
		}
	}
	return false
}

// IsTLS13Suite says a cipher suite name is a TLS 1.3 suite's.
func IsTLS13Suite(name string) bool {
	id, err := CipherID(name)
	return err == nil && isTLS13(id)
}

// CipherID resolves a TLS 1.2 suite name (OpenSSL or IANA spelling).
func CipherID(name string) (uint16, error) {
	iana := name
	if v, ok := openSSLNames[name]; ok {
		iana = v
	}
	for _, s := range append(tls.CipherSuites(), tls.InsecureCipherSuites()...) {
		if s.Name == iana {
			return s.ID, nil
		}
	}
	known := make([]string, 0, len(openSSLNames))
	for k := range openSSLNames {
		known = append(known, k)
	}
	sort.Strings(known)
	return 0, errs.Usage("unknown --tls-cipher %q: use a TLS 1.2 suite such as %s", name, strings.Join(known, ", "))
}

// OpenSSLName is the server-side spelling of a suite name.
func OpenSSLName(name string) string {
	for k, v := range openSSLNames {
		if v == name {
			return k
		}
	}
	return name
}
