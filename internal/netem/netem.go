// Package netem puts an emulated network between encbench and a server:
// a Toxiproxy TCP proxy on loopback (github.com/Shopify/toxiproxy/v2,
// embedded as a library) whose toxics delay every chunk of data in both
// directions and, if asked, limit the bandwidth. On loopback a round trip
// costs microseconds; TLS's cost at connection set-up is mostly round
// trips, so it is understated there.
package netem

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
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
}

// On says whether the options ask for a proxy at all.
func (o Options) On() bool { return o.RTT > 0 || o.Jitter > 0 || o.BandwidthKBps > 0 }

// Check refuses options a path cannot have.
func (o Options) Check() error {
	switch {
	case o.RTT < 0 || o.Jitter < 0 || o.BandwidthKBps < 0:
		return fmt.Errorf("--net-delay, --net-jitter and --net-bandwidth cannot be negative")
	case o.Jitter > o.RTT:
		return fmt.Errorf("--net-jitter %v is larger than --net-delay %v: a delay cannot go below zero", o.Jitter, o.RTT)
	case o.RTT > time.Second:
		return fmt.Errorf("--net-delay %v is more than a second: give the added round-trip time, for example 2ms", o.RTT)
	}
	return nil
}

// Via names the proxy in results; it follows go.mod's version.
const Via = "toxiproxy v2.5.0 (github.com/Shopify/toxiproxy/v2, embedded)"

// Link is a running proxy: connect to Addr instead of the server.
type Link struct {
	Addr    string
	Options Options
	proxy   *toxiproxy.Proxy
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

const delayToxicName = "encbench_delay"

func init() {
	// Toxiproxy finds toxics by name in its own registry.
	toxics.Register(delayToxicName, new(delayToxic))
}

// Start listens on a free loopback port and forwards to upstream
// (host:port) through the toxics the options ask for.
func Start(upstream string, o Options) (*Link, error) {
	if err := o.Check(); err != nil {
		return nil, err
	}
	server := toxiproxy.NewServer(toxiproxy.NewMetricsContainer(nil), zerolog.New(io.Discard))
	p := toxiproxy.NewProxy(server, "encbench", "127.0.0.1:0", upstream)
	if err := p.Start(); err != nil {
		return nil, fmt.Errorf("starting the network emulation proxy to %s: %w", upstream, err)
	}
	l := &Link{Addr: p.Listen, Options: o, proxy: p}
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
	if _, err := l.proxy.Toxics.AddToxicJson(bytes.NewReader(body)); err != nil {
		l.Close()
		return fmt.Errorf("adding the %s toxic: %w", kind, err)
	}
	return nil
}

// Close stops the proxy and every connection through it.
func (l *Link) Close() { l.proxy.Stop() }

// Port is the proxy's port.
func (l *Link) Port() string {
	_, port, _ := net.SplitHostPort(l.Addr)
	return port
}
