// Package tls is the in-transit layer: the client's connection to the
// server encrypted and authenticated with TLS.
package tls

import (
	"errors"

	"github.com/encbench/encbench/internal/encryption/certs"
	"github.com/encbench/encbench/internal/layer"
)

func init() { layer.Register(Layer{}) }

// Layer describes TLS.
type Layer struct{}

func (Layer) Name() string { return "tls" }
func (Layer) Summary() string {
	return "TLS on the client's connections: a sandbox gets a certificate of its own CA, and the client verifies it (verify-full)"
}
func (Layer) Where() layer.Where { return layer.InTransit }
func (Layer) Options() []layer.Option {
	return []layer.Option{
		{Key: "version", Values: []string{"1.2", "1.3"}, Help: "pin the protocol version (default: the highest both sides offer)"},
		{Key: "cipher", Help: "a TLS 1.2 cipher suite by its OpenSSL name, for example ECDHE-ECDSA-AES128-GCM-SHA256 (with version=1.2)"},
		{Key: "client-cert", Values: []string{"on"}, Help: "mutual TLS: a sandbox requires a client certificate of its CA (PostgreSQL cert authentication, MariaDB REQUIRE X509), and the run proves from the server's view that every connection presented one"},
		{Key: "cert", Values: certs.Algorithms(), Help: "the key of a sandbox's certificates, whose signature every handshake makes and verifies (default ecdsa-p256); a run reports the key of the certificate its server presented"},
	}
}
func (Layer) Aliases() []layer.Alias {
	return []layer.Alias{{Name: "tls1.2", Options: map[string]string{"version": "1.2"}}, {Name: "tls1.3", Options: map[string]string{"version": "1.3"}}}
}
func (Layer) Engines() []string { return []string{"postgres", "mariadb", "mongodb"} }

// Check: a cipher names a TLS 1.2 suite, so it needs version 1.2 (in
// TLS 1.3 the server chooses among its own suites).
func (Layer) Check(opts map[string]string) error {
	if opts["cipher"] != "" && opts["version"] != "1.2" {
		return errors.New("cipher= names a TLS 1.2 cipher suite: give version=1.2 (or use tls1.2:cipher=...)")
	}
	return nil
}
