package engine

import (
	"context"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/rsa"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net"
	"strings"
	"sync"
	"time"
)

// DialFunc opens a transport connection, as the drivers take it.
type DialFunc func(ctx context.Context, network, address string) (net.Conn, error)

// TLSProbe watches the handshake of the connections a Target opens: when
// the TCP connection was up, when the server's certificate was checked,
// what was negotiated and whether the session was resumed. The connect
// workload uses it; each worker owns one. Drivers that open monitoring
// connections in the background (MongoDB) call it concurrently, hence the lock.
type TLSProbe struct {
	mu sync.Mutex
	// SessionCache, when set, offers TLS session resumption to the server.
	SessionCache tls.ClientSessionCache
	Dialed       time.Time
	Handshook    time.Time
	Version      uint16
	Cipher       uint16
	Resumed      bool
	Group        tls.CurveID
	Retried      bool
	// ServerKey is the key of the certificate the server presented
	// (CertKey's names).
	ServerKey string
	// Dials and Handshakes count since Reset, HandshakeTime adds each
	// handshake's time (from its socket's dial): a host list's connect
	// may reach several servers before it keeps one.
	Dials, Handshakes int
	HandshakeTime     time.Duration
	// ResumedN and RetriedN count the handshakes since Reset that were
	// resumed or took a HelloRetryRequest.
	ResumedN, RetriedN int
}

// Reset forgets the previous connection's handshake.
func (p *TLSProbe) Reset() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.Dialed, p.Handshook, p.Version, p.Cipher, p.Resumed = time.Time{}, time.Time{}, 0, 0, false
	p.Group, p.Retried, p.ServerKey = 0, false, ""
	p.Dials, p.Handshakes, p.HandshakeTime, p.ResumedN, p.RetriedN = 0, 0, 0, 0, 0
}

// Wrap records when dial's connection is up.
func (p *TLSProbe) Wrap(dial DialFunc) DialFunc {
	return func(ctx context.Context, network, address string) (net.Conn, error) {
		c, err := dial(ctx, network, address)
		p.mu.Lock()
		p.Dialed = time.Now()
		p.Dials++
		p.mu.Unlock()
		return c, err
	}
}

// Observe records a finished handshake; tls.Config.VerifyConnection calls
// it for full and resumed handshakes alike.
func (p *TLSProbe) Observe(cs tls.ConnectionState) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.Handshook = time.Now()
	if !p.Dialed.IsZero() {
		p.Handshakes++
		p.HandshakeTime += p.Handshook.Sub(p.Dialed)
	}
	p.Version, p.Cipher, p.Resumed = cs.Version, cs.CipherSuite, cs.DidResume
	p.Group, p.Retried = cs.CurveID, cs.HelloRetryRequest
	if cs.DidResume {
		p.ResumedN++
	}
	if cs.HelloRetryRequest {
		p.RetriedN++
	}
	if len(cs.PeerCertificates) > 0 {
		p.ServerKey = CertKey(cs.PeerCertificates[0])
	}
}

// CertKey names a certificate's public key as variants do (ecdsa-p256,
// rsa-2048, rsa-4096, ...): what a handshake signs with and verifies.
func CertKey(c *x509.Certificate) string {
	switch k := c.PublicKey.(type) {
	case *rsa.PublicKey:
		return fmt.Sprintf("rsa-%d", k.N.BitLen())
	case *ecdsa.PublicKey:
		return "ecdsa-" + strings.ToLower(strings.ReplaceAll(k.Curve.Params().Name, "-", ""))
	case ed25519.PublicKey:
		return "ed25519"
	}
	return strings.ToLower(c.PublicKeyAlgorithm.String())
}

// AddDialWrap wraps t's dialer in f, outside any wrapper t already has:
// a run's meter around a delay line around the engine's socket.
func (t *Target) AddDialWrap(f func(DialFunc) DialFunc) {
	inner := t.WrapDial
	t.WrapDial = func(d DialFunc) DialFunc {
		if inner != nil {
			d = inner(d)
		}
		return f(d)
	}
}

// Dial returns the dial function for t: d, wrapped by t's WrapDial and
// then by its probe, if any.
func (t Target) Dial(d DialFunc) DialFunc {
	if t.WrapDial != nil {
		d = t.WrapDial(d)
	}
	if t.Probe == nil {
		return d
	}
	return t.Probe.Wrap(d)
}

// Handshake is a snapshot of what the probe saw last.
type Handshake struct {
	Dialed, Handshook time.Time
	Version, Cipher   uint16
	Resumed           bool
	// Group is the key exchange group; Retried says the server answered
	// the client's key shares with a HelloRetryRequest for another group,
	// which costs TLS 1.3 a round trip.
	Group   tls.CurveID
	Retried bool
	// ServerKey is the key of the server's certificate (CertKey).
	ServerKey string
	// Dials, Handshakes, HandshakeTime, ResumedN and RetriedN are the
	// totals since Reset.
	Dials, Handshakes  int
	HandshakeTime      time.Duration
	ResumedN, RetriedN int
}

// Last returns the latest handshake the probe saw.
func (p *TLSProbe) Last() Handshake {
	p.mu.Lock()
	defer p.mu.Unlock()
	return Handshake{Dialed: p.Dialed, Handshook: p.Handshook, Version: p.Version, Cipher: p.Cipher, Resumed: p.Resumed,
		Group: p.Group, Retried: p.Retried, ServerKey: p.ServerKey, Dials: p.Dials, Handshakes: p.Handshakes, HandshakeTime: p.HandshakeTime,
		ResumedN: p.ResumedN, RetriedN: p.RetriedN}
}
