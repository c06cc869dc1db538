package netconn

import (
	"context"
	"errors"
	"io"
	"net"
	"os"
	"runtime"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// listen accepts one connection on loopback and hands it to serve.
func listen(t *testing.T, serve func(net.Conn)) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	go func() {
		c, err := l.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		serve(c)
	}()
	return l.Addr().String()
}

func dialers() map[string]func(context.Context, string, string) (net.Conn, error) {
	return map[string]func(context.Context, string, string) (net.Conn, error){"Dial": Dial, "DialRaw": DialRaw}
}

func TestRoundTripThenEOF(t *testing.T) {
	for name, dial := range dialers() {
		t.Run(name, func(t *testing.T) {
			addr := listen(t, func(c net.Conn) {
				buf := make([]byte, 5)
				if _, err := io.ReadFull(c, buf); err == nil {
					_, _ = c.Write(append([]byte("got "), buf...))
				}
			})
			c, err := dial(context.Background(), "tcp", addr)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			if n, err := c.Write([]byte("hello")); n != 5 || err != nil {
				t.Fatalf("Write = %d, %v", n, err)
			}
			got, err := io.ReadAll(c)
			if err != nil {
				t.Fatalf("reading until the server closes: %v", err)
			}
			if string(got) != "got hello" {
				t.Fatalf("read %q, want %q", got, "got hello")
			}
			if n, err := c.Read(nil); n != 0 || err != nil {
				t.Fatalf("Read(nil) = %d, %v, want 0, nil", n, err)
			}
		})
	}
}

// A write to a connection the server has closed fails with an error: no
// SIGPIPE ends or interrupts the process.
func TestWriteToClosedPeerIsAnError(t *testing.T) {
	for name, dial := range dialers() {
		t.Run(name, func(t *testing.T) {
			addr := listen(t, func(net.Conn) {})
			c, err := dial(context.Background(), "tcp", addr)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			if _, err := io.ReadAll(c); err != nil {
				t.Fatalf("waiting for the server to close: %v", err)
			}
			var werr error
			for i := 0; i < 100 && werr == nil; i++ {
				_, werr = c.Write(make([]byte, 64<<10))
				time.Sleep(time.Millisecond)
			}
			var op *net.OpError
			if !errors.As(werr, &op) {
				t.Fatalf("writing after the peer closed: %v, want a *net.OpError", werr)
			}
		})
	}
}

// Close wakes a read blocked in the kernel, which then reports the
// connection closed; the descriptor is closed only once that read has
// returned (refs), so it cannot be reused under the read.
func TestCloseUnblocksRead(t *testing.T) {
	for name, dial := range dialers() {
		t.Run(name, func(t *testing.T) {
			hold := make(chan struct{})
			defer close(hold)
			addr := listen(t, func(net.Conn) { <-hold })
			c, err := dial(context.Background(), "tcp", addr)
			if err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() {
				_, err := c.Read(make([]byte, 16))
				done <- err
			}()
			time.Sleep(50 * time.Millisecond)
			c.Close()
			select {
			case err := <-done:
				if !errors.Is(err, net.ErrClosed) {
					t.Fatalf("blocked read after Close: %v, want net.ErrClosed", err)
				}
				if !c.(*Conn).fdClosed.Load() {
					t.Error("the descriptor is still open after the last call returned")
				}
			case <-time.After(5 * time.Second):
				t.Fatal("Close did not wake the blocked read")
			}
		})
	}
}

// A read deadline turns into the socket's receive timeout.
func TestReadDeadline(t *testing.T) {
	hold := make(chan struct{})
	defer close(hold)
	addr := listen(t, func(net.Conn) { <-hold })
	c, err := Dial(context.Background(), "tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.SetReadDeadline(time.Now().Add(50 * time.Millisecond)); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, err = c.Read(make([]byte, 16))
	if !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("read past its deadline: %v, want a deadline error", err)
	}
	if waited := time.Since(start); waited < 40*time.Millisecond || waited > 5*time.Second {
		t.Fatalf("read gave up after %v, want about 50ms", waited)
	}
}

// interruptedRead blocks a read on a socket whose peer never answers, on a
// thread of its own, while that thread is sent SIGURG (the Go runtime's
// preemption signal; its handler ignores one it did not ask for) every
// 2 ms, as the runtime itself does to a busy program. It returns how long
// the read took and its error, or fails the test after limit.
func interruptedRead(t *testing.T, c *Conn, limit time.Duration) (time.Duration, error) {
	t.Helper()
	tid := make(chan int, 1)
	done := make(chan error, 1)
	start := time.Now()
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		tid <- unix.Gettid()
		_, err := c.Read(make([]byte, 16))
		done <- err
	}()
	thread, pid := <-tid, unix.Getpid()
	tick := time.NewTicker(2 * time.Millisecond)
	defer tick.Stop()
	giveUp := time.After(limit)
	for {
		select {
		case err := <-done:
			return time.Since(start), err
		case <-tick.C:
			_ = unix.Tgkill(pid, thread, unix.SIGURG)
		case <-giveUp:
			c.Close()
			<-done
			t.Fatalf("the read was still blocked after %v of signals", limit)
			return 0, nil
		}
	}
}

func TestSignalsDoNotResetTheReadDeadline(t *testing.T) {
	for name, dial := range dialers() {
		t.Run(name, func(t *testing.T) {
			hold := make(chan struct{})
			defer close(hold)
			addr := listen(t, func(net.Conn) { <-hold })
			nc, err := dial(context.Background(), "tcp", addr)
			if err != nil {
				t.Fatal(err)
			}
			defer nc.Close()
			if err := nc.SetReadDeadline(time.Now().Add(300 * time.Millisecond)); err != nil {
				t.Fatal(err)
			}
			took, err := interruptedRead(t, nc.(*Conn), 5*time.Second)
			if !errors.Is(err, os.ErrDeadlineExceeded) || took < 250*time.Millisecond {
				t.Fatalf("read ended after %v with %v, want the deadline's error after 300ms", took, err)
			}
		})
	}
}

// A raw worker socket without a deadline still bounds each read (60 s in
// use; 300 ms here), counted from the read's first interruption.
func TestSignalsDoNotResetARawReadsBound(t *testing.T) {
	hold := make(chan struct{})
	defer close(hold)
	addr := listen(t, func(net.Conn) { <-hold })
	nc, err := DialRaw(context.Background(), "tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	c := nc.(*Conn)
	c.perRead = 300 * time.Millisecond
	if err := c.SetReadDeadline(time.Time{}); err != nil {
		t.Fatal(err)
	}
	took, err := interruptedRead(t, c, 5*time.Second)
	if !errors.Is(err, os.ErrDeadlineExceeded) || took > 2*time.Second {
		t.Fatalf("read ended after %v with %v, want the per-read bound's error", took, err)
	}
}

// A call on a closed Conn never reaches the descriptor number, which the
// kernel gives to the next socket opened: pgconn writes a Terminate and
// sets deadlines on a connection after giving it up, and those once landed
// on a fresh connection that had reused the number.
func TestClosedConnLeavesAReusedDescriptorAlone(t *testing.T) {
	got := make(chan []byte, 2)
	serve := func(c net.Conn) {
		b, _ := io.ReadAll(c)
		got <- b
	}
	stale, err := Dial(context.Background(), "tcp", listen(t, serve))
	if err != nil {
		t.Fatal(err)
	}
	// The second listener first: after the Close, the next socket made,
	// the dial's, takes the lowest free number, the closed one.
	freshAddr := listen(t, serve)
	staleFD := stale.(*Conn).fd
	stale.Close()
	fresh, err := net.Dial("tcp", freshAddr)
	if err != nil {
		t.Fatal(err)
	}
	defer fresh.Close()
	raw, err := fresh.(*net.TCPConn).SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	freshFD := -1
	if err := raw.Control(func(fd uintptr) { freshFD = int(fd) }); err != nil {
		t.Fatal(err)
	}
	if freshFD != staleFD {
		t.Skipf("the new socket got descriptor %d, not the closed one's %d", freshFD, staleFD)
	}
	if _, err := stale.Write([]byte("X")); !errors.Is(err, net.ErrClosed) {
		t.Errorf("Write after Close: %v, want net.ErrClosed", err)
	}
	if err := stale.SetDeadline(time.Now().Add(-time.Second)); !errors.Is(err, net.ErrClosed) {
		t.Errorf("SetDeadline after Close: %v, want net.ErrClosed", err)
	}
	if _, err := fresh.Write([]byte("ok")); err != nil {
		t.Fatalf("the fresh connection was shut by the stale one: %v", err)
	}
	fresh.Close()
	for range 2 {
		select {
		case b := <-got:
			if len(b) > 0 && string(b) != "ok" {
				t.Errorf("a server read %q", b)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("a server never saw its connection end")
		}
	}
}

// TestTrafficCountsBytesAndRoundTrips: three requests, the second sent in
// two writes and answered in two reads, are three round trips; the bytes
// are what crossed the socket each way.
func TestTrafficCountsBytesAndRoundTrips(t *testing.T) {
	addr := listen(t, func(c net.Conn) {
		buf := make([]byte, 64)
		for _, want := range []int{4, 6, 4} {
			if _, err := io.ReadFull(c, buf[:want]); err != nil {
				return
			}
			if want == 6 {
				_, _ = c.Write([]byte("two "))
				time.Sleep(20 * time.Millisecond) // a second read for one reply
				_, _ = c.Write([]byte("parts"))
				continue
			}
			_, _ = c.Write([]byte("reply"))
		}
	})
	nc, err := DialRaw(context.Background(), "tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	c := nc.(*Conn)
	buf := make([]byte, 64)
	exchange := func(writes []string, reply int) {
		for _, w := range writes {
			if _, err := c.Write([]byte(w)); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := io.ReadFull(c, buf[:reply]); err != nil {
			t.Fatal(err)
		}
	}
	exchange([]string{"ping"}, 5)
	exchange([]string{"pi", "ngpi"}, 9)
	exchange([]string{"ping"}, 5)
	got := c.Traffic()
	if got != (Traffic{BytesIn: 19, BytesOut: 14, RoundTrips: 3}) {
		t.Fatalf("traffic %+v, want 19 bytes in, 14 out, 3 round trips", got)
	}
}

// TestMeterAddsUpOpenAndClosedSockets: a meter counts every socket its
// dialer opened, netconn's and wrapped ones alike, and keeps a closed
// socket's counts as they were at its close.
func TestMeterAddsUpOpenAndClosedSockets(t *testing.T) {
	pong := func(c net.Conn) {
		buf := make([]byte, 4)
		for {
			if _, err := io.ReadFull(c, buf); err != nil {
				return
			}
			_, _ = c.Write([]byte("pong!"))
		}
	}
	m := NewMeter()
	var d net.Dialer
	dialers := []func(context.Context, string, string) (net.Conn, error){m.Dial(Dial), m.Dial(Count(d.DialContext))}
	var conns []net.Conn
	for _, dial := range dialers {
		c, err := dial(context.Background(), "tcp", listen(t, pong))
		if err != nil {
			t.Fatal(err)
		}
		conns = append(conns, c)
		buf := make([]byte, 5)
		for range 2 {
			if _, err := c.Write([]byte("ping")); err != nil {
				t.Fatal(err)
			}
			if _, err := io.ReadFull(c, buf); err != nil {
				t.Fatal(err)
			}
		}
	}
	want := Traffic{BytesIn: 20, BytesOut: 16, RoundTrips: 4}
	if got := m.Total(); got != want {
		t.Fatalf("two open sockets: %+v, want %+v", got, want)
	}
	for _, c := range conns {
		c.Close()
		c.Close() // a second close counts nothing twice
	}
	if got := m.Total(); got != want {
		t.Fatalf("after closing them: %+v, want %+v", got, want)
	}
	if got, _ := SocketTraffic(conns[1]); got != (Traffic{BytesIn: 10, BytesOut: 8, RoundTrips: 2}) {
		t.Errorf("the wrapped socket's own counts: %+v", got)
	}
}
