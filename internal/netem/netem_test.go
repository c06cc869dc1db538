package netem

import (
	"bufio"
	"bytes"
	"io"
	"net"
	"strings"
	"testing"
	"time"
)

// echo serves one loopback echo server for the test's lifetime.
func echo(t *testing.T) string {
	t.Helper()
	return serve(t, func(c net.Conn) { _, _ = io.Copy(c, c) })
}

// serve runs handle on each connection to a loopback listener, for the
// test's lifetime, and returns its address.
func serve(t *testing.T, handle func(net.Conn)) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() { defer c.Close(); handle(c) }()
		}
	}()
	return ln.Addr().String()
}

// dialThrough starts a link to a fresh echo server and connects to it.
func dialThrough(t *testing.T, o Options) net.Conn {
	t.Helper()
	link, err := Start(echo(t), o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(link.Close)
	c, err := net.Dial("tcp", link.Addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// roundTrip sends a line and reads it back.
func roundTrip(t *testing.T, c net.Conn, r *bufio.Reader) time.Duration {
	t.Helper()
	start := time.Now()
	if _, err := c.Write([]byte("ping\n")); err != nil {
		t.Fatal(err)
	}
	if _, err := r.ReadString('\n'); err != nil {
		t.Fatal(err)
	}
	return time.Since(start)
}

// TestDelayAddsTheRoundTrip: through the link every round trip takes at
// least the added RTT (a lower bound the emulation guarantees; the upper
// depends on the machine and is not asserted).
func TestDelayAddsTheRoundTrip(t *testing.T) {
	c := dialThrough(t, Options{RTT: 30 * time.Millisecond})
	r := bufio.NewReader(c)
	for i := 0; i < 5; i++ {
		if d := roundTrip(t, c, r); d < 30*time.Millisecond {
			t.Fatalf("round trip %d took %v through a +30ms link", i, d)
		}
	}
}

// TestJitterKeepsTheStreamInOrder: with jitter larger than the gap
// between writes, the bytes still arrive whole and in order.
func TestJitterKeepsTheStreamInOrder(t *testing.T) {
	c := dialThrough(t, Options{RTT: 4 * time.Millisecond, Jitter: 4 * time.Millisecond})
	var sent bytes.Buffer
	done := make(chan []byte)
	go func() {
		got := make([]byte, 0, 4000)
		buf := make([]byte, 512)
		for len(got) < 4000 {
			n, err := c.Read(buf)
			if err != nil {
				break
			}
			got = append(got, buf[:n]...)
		}
		done <- got
	}()
	for i := 0; i < 1000; i++ {
		b := []byte{byte(i), byte(i >> 8), byte(i * 7), byte(i * 13)}
		sent.Write(b)
		if _, err := c.Write(b); err != nil {
			t.Fatal(err)
		}
	}
	select {
	case got := <-done:
		if !bytes.Equal(got, sent.Bytes()) {
			t.Fatalf("stream through a jittered link differs after %d bytes", commonPrefix(got, sent.Bytes()))
		}
	case <-time.After(30 * time.Second):
		t.Fatal("echo through the link did not complete")
	}
}

func commonPrefix(a, b []byte) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}

// TestBandwidthLimits: 64 KB each way at 64 KB/s takes at least most of
// a second.
func TestBandwidthLimits(t *testing.T) {
	c := dialThrough(t, Options{BandwidthKBps: 64})
	start := time.Now()
	go func() { _, _ = c.Write(make([]byte, 64<<10)) }()
	if _, err := io.ReadFull(c, make([]byte, 64<<10)); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d < 700*time.Millisecond {
		t.Fatalf("64 KB echoed through a 64 KB/s link in %v", d)
	}
}

func TestOptionsCheck(t *testing.T) {
	for _, bad := range []Options{{RTT: -time.Millisecond}, {RTT: time.Millisecond, Jitter: 2 * time.Millisecond}, {RTT: 2 * time.Second}} {
		if bad.Check() == nil {
			t.Errorf("%+v accepted", bad)
		}
	}
	if (Options{}).On() || !(Options{BandwidthKBps: 1}).On() {
		t.Error("On")
	}
}

// A cut connection works until it has lived CutAfter; then its next
// message is dropped and the client reads end-of-stream. A new connection
// works again.
func TestCutAfterEndsOldConnectionsOnly(t *testing.T) {
	link, err := Start(echo(t), Options{CutAfter: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(link.Close)
	dial := func() (net.Conn, *bufio.Reader) {
		c, err := net.Dial("tcp", link.Addr)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		return c, bufio.NewReader(c)
	}
	c, r := dial()
	roundTrip(t, c, r)
	time.Sleep(400 * time.Millisecond)
	_, _ = c.Write([]byte("lost\n"))
	_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
	if line, err := r.ReadString('\n'); err == nil {
		t.Fatalf("a connection past its cut read %q", line)
	} else if ne, ok := err.(net.Error); ok && ne.Timeout() {
		t.Fatal("the cut connection was left hanging instead of closed")
	}
	c2, r2 := dial()
	roundTrip(t, c2, r2)
	if err := (Options{CutAfter: -time.Second}).Check(); err == nil {
		t.Error("a negative --net-cut-after was accepted")
	}
}

// TestHostListGetsAProxyPerHost: a host list's link lists a proxy for
// each host, in order, each forwarding to its own host with the delay.
func TestHostListGetsAProxyPerHost(t *testing.T) {
	named := func(name string) string {
		return serve(t, func(c net.Conn) { _, _ = c.Write([]byte(name + "\n")) })
	}
	link, err := Start(named("a")+","+named("b"), Options{RTT: 10 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer link.Close()
	addrs := strings.Split(link.Addr, ",")
	if len(addrs) != 2 {
		t.Fatalf("link %s, want two addresses", link.Addr)
	}
	for i, want := range []string{"a", "b"} {
		c, err := net.Dial("tcp", addrs[i])
		if err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		got, err := bufio.NewReader(c).ReadString('\n')
		c.Close()
		if err != nil || strings.TrimSpace(got) != want {
			t.Errorf("proxy %d reached %q (%v), want %s", i, got, err, want)
		}
		if d := time.Since(start); d < 5*time.Millisecond {
			t.Errorf("proxy %d answered in %v, without the delay's half", i, d)
		}
	}
}
