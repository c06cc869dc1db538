// Package tls is the in-transit layer: the client's connection to the
// server encrypted and authenticated with TLS.
package tls

import (
	"errors"
	"slices"
	"strings"

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
		{Key: "cipher", Help: "with version=1.2, a TLS 1.2 cipher suite by its OpenSSL name (for example ECDHE-ECDSA-AES128-GCM-SHA256), offered by the client alone; with version=1.3, one of " + strings.Join(TLS13Suites, ", ") + ", the only suite a sandbox's server accepts (in TLS 1.3 the server chooses)"},
		{Key: "client-cert", Values: []string{"on"}, Help: "mutual TLS: a sandbox requires a client certificate of its CA (PostgreSQL cert authentication, MariaDB REQUIRE X509), and the run proves from the server's view that every connection presented one"},
		{Key: "cert", Values: certs.Algorithms(), Help: "the key of a sandbox's certificates, whose signature every handshake makes and verifies (default ecdsa-p256); a run reports the key of the certificate its server presented"},
	}
}
func (Layer) Aliases() []layer.Alias {
	return []layer.Alias{{Name: "tls1.2", Options: map[string]string{"version": "1.2"}}, {Name: "tls1.3", Options: map[string]string{"version": "1.3"}}}
}
func (Layer) Engines() []string { return []string{"postgres", "mariadb", "mongodb"} }

// TLS13Suites are the TLS 1.3 cipher suites (RFC 8446, B.4) that both Go's
// client and OpenSSL's servers implement.
var TLS13Suites = []string{"TLS_AES_128_GCM_SHA256", "TLS_AES_256_GCM_SHA384", "TLS_CHACHA20_POLY1305_SHA256"}

// Check: a cipher needs its version pinned, since TLS 1.2 and 1.3 name
// their suites apart: an OpenSSL TLS 1.2 name with 1.2, a TLS 1.3 suite
// with 1.3.
func (Layer) Check(opts map[string]string) error {
	c := opts["cipher"]
	switch {
	case c == "":
	case opts["version"] == "1.3" && !slices.Contains(TLS13Suites, c):
		return errors.New("with version=1.3, cipher= is one of " + strings.Join(TLS13Suites, ", "))
	case opts["version"] == "1.2" && slices.Contains(TLS13Suites, c):
		return errors.New(c + " is a TLS 1.3 suite: give version=1.3 (tls1.3:cipher=" + c + ")")
	case opts["version"] == "":
		return errors.New("cipher= needs the version pinned: tls1.2:cipher=NAME (an OpenSSL TLS 1.2 name) or tls1.3:cipher=" + TLS13Suites[0] + " (a TLS 1.3 suite)")
	}
	return nil
}

// Rank: TLS comes first in a variant's name.
func (Layer) Rank() int { return 1 }

// Settings are the TLS layer's options, typed.
type Settings struct {
	// Version pins the protocol ("", "1.2" or "1.3").
	Version string
	// Cipher is a TLS 1.2 suite by its OpenSSL name or a TLS 1.3 suite.
	Cipher string
	// Cert is a sandbox's certificate key ("": the default).
	Cert string
	// ClientCert is mutual TLS.
	ClientCert bool
}

// Of reads the tls layer among a variant's specs.
func Of(specs []layer.Spec) (Settings, bool) {
	s, ok := layer.Find(specs, "tls")
	if !ok {
		return Settings{}, false
	}
	o := s.Options
	return Settings{Version: o["version"], Cipher: o["cipher"], Cert: o["cert"], ClientCert: o["client-cert"] == "on"}, true
}

// Spec is the layer with these settings.
func (s Settings) Spec() layer.Spec {
	opts := map[string]string{}
	for k, v := range map[string]string{"version": s.Version, "cipher": s.Cipher, "cert": s.Cert} {
		if v != "" {
			opts[k] = v
		}
	}
	if s.ClientCert {
		opts["client-cert"] = "on"
	}
	if len(opts) == 0 {
		opts = nil
	}
	return layer.Spec{Layer: "tls", Options: opts}
}

// ServerChoosesCipher says the settings pin a TLS 1.3 suite, which only
// the server can choose: its server must be configured for it.
func (s Settings) ServerChoosesCipher() bool { return slices.Contains(TLS13Suites, s.Cipher) }

// ServerSpec: a server offers TLS whatever version or TLS 1.2 suite a
// client then asks for, so its name is the layer without options (its
// certificate key, client certificates and TLS 1.3 suite are set apart,
// by the sandbox's own options).
func (Layer) ServerSpec(layer.Spec) layer.Spec { return layer.Spec{Layer: "tls"} }
