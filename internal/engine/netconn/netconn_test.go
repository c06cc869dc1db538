package netconn

import (
	"context"
	"errors"
	"io"
	"net"
	"os"
	"testing"
	"time"
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
// connection closed.
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
