package tlsconf

import (
	"crypto/tls"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/encbench/encbench/internal/encryption/certs"
	"github.com/encbench/encbench/internal/engine"
)

// serve runs a loopback TLS server with the certificates in f.
func serve(t *testing.T, f certs.Files) string {
	t.Helper()
	pair, err := tls.LoadX509KeyPair(f.ServerCert, f.ServerKey)
	if err != nil {
		t.Fatal(err)
	}
	l, err := tls.Listen("tcp", "127.0.0.1:0", &tls.Config{Certificates: []tls.Certificate{pair}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			_ = c.(*tls.Conn).Handshake()
			c.Close()
		}
	}()
	return l.Addr().String()
}

func handshake(addr string, opts engine.TLSOptions) error {
	cfg, err := Client(opts, "127.0.0.1", nil)
	if err != nil {
		return err
	}
	c, err := tls.DialWithDialer(&net.Dialer{Timeout: 5 * time.Second}, "tcp", addr, cfg)
	if err != nil {
		return err
	}
	return c.Close()
}

func TestVerificationModes(t *testing.T) {
	good, err := certs.Write(t.TempDir(), certs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	other, err := certs.Write(t.TempDir(), certs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	expired, err := certs.Write(t.TempDir(), certs.Options{NotAfter: time.Now().Add(-time.Minute)})
	if err != nil {
		t.Fatal(err)
	}
	addr, expiredAddr := serve(t, good), serve(t, expired)
	for _, c := range []struct {
		name string
		addr string
		opts engine.TLSOptions
		want string // "" for success
	}{
		{"verify-full", addr, engine.TLSOptions{Mode: engine.TLSVerifyFull, CAFile: good.CA}, ""},
		{"verify-ca", addr, engine.TLSOptions{Mode: engine.TLSVerifyCA, CAFile: good.CA}, ""},
		{"require skips verification", addr, engine.TLSOptions{Mode: engine.TLSRequire}, ""},
		{"wrong CA", addr, engine.TLSOptions{Mode: engine.TLSVerifyFull, CAFile: other.CA}, "unknown authority"},
		{"wrong CA, verify-ca", addr, engine.TLSOptions{Mode: engine.TLSVerifyCA, CAFile: other.CA}, "not signed by --tls-ca"},
		{"expired CA", expiredAddr, engine.TLSOptions{Mode: engine.TLSVerifyFull, CAFile: expired.CA}, "expired"},
		{"TLS 1.2 pinned", addr, engine.TLSOptions{Mode: engine.TLSRequire, Version: "1.2", Cipher: "ECDHE-ECDSA-AES128-GCM-SHA256"}, ""},
	} {
		err := handshake(c.addr, c.opts)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s: error %v, want one mentioning %q", c.name, err, c.want)
		}
	}
}

func TestBadFilesAndNames(t *testing.T) {
	if _, err := Client(engine.TLSOptions{Mode: engine.TLSVerifyFull, CAFile: "/nonexistent/ca.pem"}, "h", nil); err == nil {
		t.Error("a missing CA file was accepted")
	}
	if _, err := Client(engine.TLSOptions{Mode: engine.TLSRequire, Cipher: "ROT13"}, "h", nil); err == nil {
		t.Error("an unknown cipher was accepted")
	}
	if id, err := CipherID("TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256"); err != nil || id == 0 {
		t.Errorf("IANA name not accepted: %v", err)
	}
}

// TestTLS13SuiteLeavesTheChoiceToTheServer: a TLS 1.3 suite pins the
// version and restricts nothing (Go cannot), a TLS 1.2 one restricts the
// offer and caps the version.
func TestTLS13SuiteLeavesTheChoiceToTheServer(t *testing.T) {
	cfg, err := client(engine.TLSOptions{Mode: engine.TLSRequire, Cipher: "TLS_CHACHA20_POLY1305_SHA256"}, "h")
	if err != nil || cfg.MinVersion != tls.VersionTLS13 || cfg.CipherSuites != nil {
		t.Errorf("TLS 1.3 suite: %+v %v", cfg, err)
	}
	cfg, err = client(engine.TLSOptions{Mode: engine.TLSRequire, Cipher: "ECDHE-RSA-AES128-GCM-SHA256"}, "h")
	if err != nil || cfg.MaxVersion != tls.VersionTLS12 || len(cfg.CipherSuites) != 1 {
		t.Errorf("TLS 1.2 suite: %+v %v", cfg, err)
	}
	if !IsTLS13Suite("TLS_AES_256_GCM_SHA384") || IsTLS13Suite("ECDHE-RSA-AES128-GCM-SHA256") {
		t.Error("IsTLS13Suite")
	}
}
