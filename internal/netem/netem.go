// Package netem puts an emulated network between encbench and a server:
// a Toxiproxy TCP proxy on loopback (github.com/Shopify/toxiproxy/v2,
// embedded as a library) whose toxics delay every chunk of data in both
// directions and, if asked, limit the bandwidth. On loopback a round trip
// costs microseconds; TLS's cost at connection set-up is mostly round
// trips, so it is understated there. The proxy accepts on loopback, so
// TCP's own handshake is delayed by the dialer (DelayHandshake).
package netem

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"runtime"
	"strings"
	"time"

	toxiproxy "github.com/Shopify/toxiproxy/v2"
	"github.com/Shopify/toxiproxy/v2/toxics"
	"github.com/rs/zerolog"
	"golang.org/x/sys/unix"
)

// Options describe the emulated path.
type Options struct {
	// RTT is the round-trip time added: half of it delays each direction.
	RTT time.Duration `json:"rtt_ms"`
	// Jitter varies each chunk's delay uniformly by up to +-Jitter/2 per
	// direction (chunks keep their order).
	Jitter time.Duration `json:"jitter_ms,omitempty"`
	// BandwidthKBps limits each direction (0: unlimited).
	BandwidthKBps int64 `json:"bandwidth_kbps,omitempty"`
	// CutAfter cuts every connection once it has been open this long: the
	// proxy drops the client's next message and closes both sides, as a
	// middlebox resetting the flow or a server-side abort would (0: never).
	CutAfter time.Duration `json:"cut_after_ms,omitempty"`
}

// On says whether the options ask for a proxy at all.
func (o Options) On() bool { return o.RTT > 0 || o.Jitter > 0 || o.BandwidthKBps > 0 || o.CutAfter > 0 }

// Check refuses options a path cannot have.
func (o Options) Check() error {
	switch {
	case o.RTT < 0 || o.Jitter < 0 || o.BandwidthKBps < 0 || o.CutAfter < 0:
		return fmt.Errorf("--net-delay, --net-jitter, --net-bandwidth and --net-cut-after cannot be negative")
	case o.Jitter > o.RTT:
		return fmt.Errorf("--net-jitter %v is larger than --net-delay %v: a delay cannot go below zero", o.Jitter, o.RTT)
	case o.RTT > time.Second:
		return fmt.Errorf("--net-delay %v is more than a second: give the added round-trip time, for example 2ms", o.RTT)
	}
	return nil
}

// Via names the proxy in results; it follows go.mod's version.
const Via = "toxiproxy v2.5.0 (github.com/Shopify/toxiproxy/v2, embedded)"

// Link is a running proxy: connect to Addr instead of the server. A host
// list (a replicated server's members) gets a proxy for each host, with
// the same toxics, and Addr lists their addresses in the same order.
type Link struct {
	Addr    string
	Options Options
	proxies []*toxiproxy.Proxy
	// procsPrev and procsSet: GOMAXPROCS before and after KeepProcs.
	procsPrev, procsSet int
}

// KeepProcs raises GOMAXPROCS by n for the link's life. Each delayed
// chunk waits in nanosleep, which holds its goroutine's P until the
// scheduler takes it back (up to 10 ms in a quiet program), and a run's
// workers hold their own Ps in their raw reads: without a P for each pipe
// that may be waiting, the pipes' delays queue behind one another (14 ms
// a round trip at +2 ms and 8 threads, seen here). Close restores the
// count unless something changed it since.
func (l *Link) KeepProcs(n int) {
	if n <= 0 || l.procsSet != 0 {
		return
	}
	l.procsPrev = runtime.GOMAXPROCS(0)
	l.procsSet = l.procsPrev + n
	runtime.GOMAXPROCS(l.procsSet)
}

// delayToxic is Toxiproxy's latency toxic at microsecond resolution (its
// own counts whole milliseconds, and a LAN round trip is a fraction of
// one). Each chunk leaves Delay (+- Jitter) after it arrived, so chunks in
// flight overlap as on a real link.
type delayToxic struct {
	DelayUs  int64 `json:"delay_us"`
	JitterUs int64 `json:"jitter_us"`
}

func (t *delayToxic) delay() time.Duration {
	d := t.DelayUs
	if t.JitterUs > 0 {
		d += rand.Int64N(2*t.JitterUs+1) - t.JitterUs
	}
	return time.Duration(d) * time.Microsecond
}

// Pipe forwards chunks after their delay; an interrupt (the toxic being
// replaced or the link closing) passes the chunk on at once.
func (t *delayToxic) Pipe(stub *toxics.ToxicStub) {
	var last time.Time
	for {
		select {
		case <-stub.Interrupt:
			return
		case c := <-stub.Input:
			if c == nil {
				stub.Close()
				return
			}
			due := c.Timestamp.Add(t.delay())
			if due.Before(last) {
				due = last // jitter must not reorder the byte stream
			}
			last = due
			sleepUntil(due)
			stub.Output <- c
		}
	}
}

// sleepUntil blocks the goroutine's thread in nanosleep: Go's own timers
// wake about a millisecond late here, which would floor a 0.5 ms round
// trip at 2 ms; the kernel's high-resolution timers keep it within tens
// of microseconds, and no CPU is spent spinning. Delays are at most half a
// second (Options.Check), so an interrupt waits at most that.
func sleepUntil(due time.Time) {
	d := time.Until(due)
	if d <= 0 {
		return
	}
	ts := unix.NsecToTimespec(d.Nanoseconds())
	for unix.Nanosleep(&ts, &ts) == unix.EINTR {
	}
}

// cutToxic passes chunks on until the connection has lived AfterMs, then
// drops the next chunk and closes the stream: the client's request never
// reaches the server and the client reads end-of-stream. Toxiproxy's own
// reset_peer toxic cannot do this: it holds back a connection's first
// chunk until it resets, so no connection would ever open.
type cutToxic struct {
	AfterMs int64 `json:"after_ms"`
}

func (t *cutToxic) Pipe(stub *toxics.ToxicStub) {
	deadline := time.Now().Add(time.Duration(t.AfterMs) * time.Millisecond)
	for {
		select {
		case <-stub.Interrupt:
			return
		case c := <-stub.Input:
			if c == nil || time.Now().After(deadline) {
				stub.Close()
				return
			}
			stub.Output <- c
		}
	}
}

const (
	delayToxicName = "encbench_delay"
	cutToxicName   = "encbench_cut"
)

func init() {
	// Toxiproxy finds toxics by name in its own registry.
	toxics.Register(delayToxicName, new(delayToxic))
	toxics.Register(cutToxicName, new(cutToxic))
}

// Start listens on a free loopback port for each host of upstream
// (host:port, or a comma-separated list of them) and forwards to it
// through the toxics the options ask for.
func Start(upstream string, o Options) (*Link, error) {
	if err := o.Check(); err != nil {
		return nil, err
	}
	server := toxiproxy.NewServer(toxiproxy.NewMetricsContainer(nil), zerolog.New(io.Discard))
	l := &Link{Options: o}
	var addrs []string
	for i, host := range strings.Split(upstream, ",") {
		p := toxiproxy.NewProxy(server, fmt.Sprintf("encbench%d", i), "127.0.0.1:0", host)
		if err := p.Start(); err != nil {
			l.Close()
			return nil, fmt.Errorf("starting the network emulation proxy to %s: %w", host, err)
		}
		l.proxies = append(l.proxies, p)
		addrs = append(addrs, p.Listen)
	}
	l.Addr = strings.Join(addrs, ",")
	if o.CutAfter > 0 {
		if err := l.add(cutToxicName, "upstream", cutToxic{AfterMs: o.CutAfter.Milliseconds()}); err != nil {
			return nil, err
		}
	}
	half := o.RTT / 2
	for _, stream := range []string{"upstream", "downstream"} {
		if o.RTT > 0 || o.Jitter > 0 {
			if err := l.add(delayToxicName, stream, delayToxic{DelayUs: half.Microseconds(), JitterUs: (o.Jitter / 2).Microseconds()}); err != nil {
				return nil, err
			}
		}
		if o.BandwidthKBps > 0 {
			if err := l.add("bandwidth", stream, map[string]int64{"rate": o.BandwidthKBps}); err != nil {
				return nil, err
			}
		}
	}
	return l, nil
}

func (l *Link) add(kind, stream string, attributes any) error {
	body, err := json.Marshal(map[string]any{"type": kind, "stream": stream, "name": kind + "_" + stream, "attributes": attributes})
	if err != nil {
		return err
	}
	for _, p := range l.proxies {
		if _, err := p.Toxics.AddToxicJson(bytes.NewReader(body)); err != nil {
			l.Close()
			return fmt.Errorf("adding the %s toxic: %w", kind, err)
		}
	}
	return nil
}

// DialFunc is a socket dialer, as engine.DialFunc.
type DialFunc = func(ctx context.Context, network, address string) (net.Conn, error)

// DelayHandshake makes d's connections take one RTT longer to open: the
// proxy on loopback accepts at once, so TCP's handshake (SYN, SYN-ACK)
// would cross no delay at all, and every connection would lack the round
// trip a real network adds before its first byte. The dialer waits it out
// after the local connect returns, as the kernel would wait for the
// SYN-ACK; a context that ends first ends the dial.
func (l *Link) DelayHandshake(d DialFunc) DialFunc {
	if l.Options.RTT <= 0 {
		return d
	}
	return func(ctx context.Context, network, address string) (net.Conn, error) {
		c, err := d(ctx, network, address)
		if err != nil {
			return nil, err
		}
		t := time.NewTimer(l.Options.RTT)
		defer t.Stop()
		select {
		case <-t.C:
			return c, nil
		case <-ctx.Done():
			c.Close()
			return nil, fmt.Errorf("connecting through the emulated network: %w", context.Cause(ctx))
		}
	}
}

// Close stops the proxy and every connection through it.
func (l *Link) Close() {
	for _, p := range l.proxies {
		p.Stop()
	}
	if l.procsSet != 0 && runtime.GOMAXPROCS(0) == l.procsSet {
		runtime.GOMAXPROCS(l.procsPrev)
	}
	l.procsSet = 0
}

// Port is the (first) proxy's port.
func (l *Link) Port() string {
	_, port, _ := net.SplitHostPort(l.proxies[0].Listen)
	return port
}
