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
	// Dials and Handshakes count since Reset, HandshakeTime is the time
	// the handshakes took (each from its socket's dial; handshakes that
	// overlap count once): a host list's connect may reach several
	// servers before it keeps one.
	Dials, Handshakes int
	HandshakeTime     time.Duration
	// ResumedN and RetriedN count the handshakes since Reset that were
	// resumed or took a HelloRetryRequest.
	ResumedN, RetriedN int
	// spanStart and spanEnd are the handshakes' latest run of overlapping
	// intervals (a driver's monitor and pool connect at once), not yet
	// added to HandshakeTime: overlapping handshakes count once.
	spanStart, spanEnd time.Time
}

// Reset forgets the previous connection's handshake.
func (p *TLSProbe) Reset() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.Dialed, p.Handshook, p.Version, p.Cipher, p.Resumed = time.Time{}, time.Time{}, 0, 0, false
	p.Group, p.Retried, p.ServerKey = 0, false, ""
	p.Dials, p.Handshakes, p.HandshakeTime, p.ResumedN, p.RetriedN = 0, 0, 0, 0, 0
	p.spanStart, p.spanEnd = time.Time{}, time.Time{}
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
	p.spanHandshake(time.Now())
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

// spanHandshake records a handshake that ended at end, begun at the
// latest dial; the caller holds p.mu.
func (p *TLSProbe) spanHandshake(end time.Time) {
	p.Handshook = end
	start := p.Dialed
	if start.IsZero() {
		return
	}
	p.Handshakes++
	switch {
	case p.spanEnd.IsZero():
		p.spanStart, p.spanEnd = start, end
	case start.Before(p.spanEnd):
		// Overlaps the run before: the union's time, not the sum.
		p.spanStart = minTime(p.spanStart, start)
		p.spanEnd = end
	default:
		p.HandshakeTime += p.spanEnd.Sub(p.spanStart)
		p.spanStart, p.spanEnd = start, end
	}
}

func minTime(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
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
		Group: p.Group, Retried: p.Retried, ServerKey: p.ServerKey, Dials: p.Dials, Handshakes: p.Handshakes, HandshakeTime: p.HandshakeTime + p.spanEnd.Sub(p.spanStart),
		ResumedN: p.ResumedN, RetriedN: p.RetriedN}
}
