package netconn

import (
	"context"
	"net"
	"sync"
	"sync/atomic"
)

// Traffic is what crossed one connection's socket, or a run's.
type Traffic struct {
	BytesIn, BytesOut, RoundTrips int64
}

// Sub is t's growth since u.
func (t Traffic) Sub(u Traffic) Traffic {
	return Traffic{BytesIn: t.BytesIn - u.BytesIn, BytesOut: t.BytesOut - u.BytesOut, RoundTrips: t.RoundTrips - u.RoundTrips}
}

// Add is t and u together.
func (t Traffic) Add(u Traffic) Traffic {
	return Traffic{BytesIn: t.BytesIn + u.BytesIn, BytesOut: t.BytesOut + u.BytesOut, RoundTrips: t.RoundTrips + u.RoundTrips}
}

// counts is what crossed a socket (TLS records included): bytes each way,
// and round trips, a read that returns data after at least one write
// since the previous read (a pipelined request of several messages is
// one). Atomics: pgconn's background reader and the worker may read at
// different times, and a Meter reads them from the controller.
type counts struct {
	in, out, trips atomic.Int64
	wrote          atomic.Bool
	// meter, set before the connection is handed out, learns of its close.
	meter *Meter
}

func (k *counts) received(n int) {
	k.in.Add(int64(n))
	if k.wrote.Load() && k.wrote.Swap(false) {
		k.trips.Add(1)
	}
}

func (k *counts) sent(n int) {
	k.out.Add(int64(n))
	k.wrote.Store(true)
}

// Traffic is the socket's counts so far.
func (k *counts) Traffic() Traffic {
	return Traffic{BytesIn: k.in.Load(), BytesOut: k.out.Load(), RoundTrips: k.trips.Load()}
}

func (k *counts) retire() {
	if k.meter != nil {
		k.meter.retire(k)
	}
}

// Counted counts what crosses a connection that is not one of netconn's
// sockets (the MongoDB driver's own): the same counts, in a wrapper.
type Counted struct {
	net.Conn
	counts
	closeOnce sync.Once
}

// Count wraps d's connections in Counted.
func Count(d func(ctx context.Context, network, address string) (net.Conn, error)) func(ctx context.Context, network, address string) (net.Conn, error) {
	return func(ctx context.Context, network, address string) (net.Conn, error) {
		c, err := d(ctx, network, address)
		if err != nil {
			return nil, err
		}
		return &Counted{Conn: c}, nil
	}
}

func (c *Counted) Read(b []byte) (int, error) {
	n, err := c.Conn.Read(b)
	if n > 0 {
		c.received(n)
	}
	return n, err
}

func (c *Counted) Write(b []byte) (int, error) {
	n, err := c.Conn.Write(b)
	if n > 0 {
		c.sent(n)
	}
	return n, err
}

func (c *Counted) Close() error {
	c.closeOnce.Do(c.retire)
	return c.Conn.Close()
}

// NetConn is the wrapped connection.
func (c *Counted) NetConn() net.Conn { return c.Conn }

// Meter adds up the traffic of every connection a run dialed: the open
// ones read when asked, the closed ones as they were when they closed. It
// takes its lock once per connection and per reading, never per read or
// write: a worker's hot path only touches its own socket's counters.
type Meter struct {
	mu     sync.Mutex
	live   map[*counts]struct{}
	closed Traffic
}

// NewMeter returns a meter with nothing counted.
func NewMeter() *Meter { return &Meter{live: map[*counts]struct{}{}} }

// Dial wraps d so that the sockets it opens are counted by m; a
// connection that is not a counted socket (under its wrappers) is left
// uncounted.
func (m *Meter) Dial(d func(ctx context.Context, network, address string) (net.Conn, error)) func(ctx context.Context, network, address string) (net.Conn, error) {
	return func(ctx context.Context, network, address string) (net.Conn, error) {
		c, err := d(ctx, network, address)
		if err != nil {
			return nil, err
		}
		if k := countsOf(c); k != nil {
			m.mu.Lock()
			k.meter = m
			m.live[k] = struct{}{}
			m.mu.Unlock()
		}
		return c, nil
	}
}

// Total is everything counted so far.
func (m *Meter) Total() Traffic {
	m.mu.Lock()
	defer m.mu.Unlock()
	t := m.closed
	for k := range m.live {
		t = t.Add(k.Traffic())
	}
	return t
}

func (m *Meter) retire(k *counts) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.live[k]; ok {
		delete(m.live, k)
		m.closed = m.closed.Add(k.Traffic())
	}
}

// SocketTraffic reads the counts of the counted socket under c, through
// TLS and any wrapper that gives its connection (NetConn); false when
// there is none.
func SocketTraffic(c net.Conn) (Traffic, bool) {
	if k := countsOf(c); k != nil {
		return k.Traffic(), true
	}
	return Traffic{}, false
}

func countsOf(c net.Conn) *counts {
	for c != nil {
		switch v := c.(type) {
		case *Conn:
			return &v.counts
		case *Counted:
			return &v.counts
		case interface{ NetConn() net.Conn }:
			c = v.NetConn()
		default:
			return nil
		}
	}
	return nil
}
