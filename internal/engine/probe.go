package engine

import (
	"context"
	"crypto/tls"
	"net"
	"time"
)

// DialFunc opens a transport connection, as the drivers take it.
type DialFunc func(ctx context.Context, network, address string) (net.Conn, error)

// TLSProbe watches the handshake of the connections a Target opens: when
// the TCP connection was up, when the server's certificate was checked,
// what was negotiated and whether the session was resumed. The connect
// workload uses it; each worker owns one (it is not safe for concurrent use).
type TLSProbe struct {
	// SessionCache, when set, offers TLS session resumption to the server.
	SessionCache tls.ClientSessionCache
	Dialed       time.Time
	Handshook    time.Time
	Version      uint16
	Cipher       uint16
	Resumed      bool
}

// Reset forgets the previous connection's handshake.
func (p *TLSProbe) Reset() {
	p.Dialed, p.Handshook, p.Version, p.Cipher, p.Resumed = time.Time{}, time.Time{}, 0, 0, false
}

// Wrap records when dial's connection is up.
func (p *TLSProbe) Wrap(dial DialFunc) DialFunc {
	return func(ctx context.Context, network, address string) (net.Conn, error) {
		c, err := dial(ctx, network, address)
		p.Dialed = time.Now()
		return c, err
	}
}

// Observe records a finished handshake; tls.Config.VerifyConnection calls
// it for full and resumed handshakes alike.
func (p *TLSProbe) Observe(cs tls.ConnectionState) {
	p.Handshook = time.Now()
	p.Version, p.Cipher, p.Resumed = cs.Version, cs.CipherSuite, cs.DidResume
}

// Dial returns the dial function for t: d, wrapped by t's probe if any.
func (t Target) Dial(d DialFunc) DialFunc {
	if t.Probe == nil {
		return d
	}
	return t.Probe.Wrap(d)
}
