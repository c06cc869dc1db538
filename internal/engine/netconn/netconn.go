// Package netconn provides a net.Conn over a blocking socket. A benchmark
// worker waits for one reply at a time; letting the thread block in read(2),
// as sysbench's threads do, costs less CPU than Go's netpoller round trip
// (EAGAIN, park, epoll_wait, wake, read again) on every statement.
package netconn

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Dial connects with Go's dialer (so ctx and timeouts apply), then takes
// over a duplicate of the socket in blocking mode and closes Go's copy.
func Dial(ctx context.Context, network, address string) (net.Conn, error) {
	var d net.Dialer
	c, err := d.DialContext(ctx, network, address)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	sc, ok := c.(syscall.Conn)
	if !ok {
		return nil, fmt.Errorf("%s connection exposes no socket", network)
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return nil, fmt.Errorf("reaching the socket: %w", err)
	}
	fd, dupErr := -1, error(nil)
	if err := raw.Control(func(f uintptr) { fd, dupErr = unix.FcntlInt(f, unix.F_DUPFD_CLOEXEC, 0) }); err != nil {
		return nil, fmt.Errorf("reaching the socket: %w", err)
	}
	if dupErr != nil {
		return nil, fmt.Errorf("duplicating the socket: %w", dupErr)
	}
	if err := unix.SetNonblock(fd, false); err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("making the socket blocking: %w", err)
	}
	return &Conn{fd: fd, local: c.LocalAddr(), remote: c.RemoteAddr()}, nil
}

// Conn is a blocking socket. Reads and writes may run concurrently with each
// other (pgx reads in the background during large writes); Close unblocks them.
type Conn struct {
	fd     int
	raw    bool
	local  net.Addr
	remote net.Addr
	// refs counts the calls using fd now; refClosed is set in it once
	// Close has been called. The descriptor is closed by whichever of
	// Close and those calls finishes last (fdClosed makes that once), so a
	// call that comes after Close (pgconn's asyncClose writes a Terminate
	// and sets deadlines on a connection it gave up) finds the socket
	// closed instead of reaching a descriptor the kernel has since given to
	// another connection: a stale Terminate or shutdown once landed on a
	// fresh connection that reused the number.
	refs     atomic.Int64
	fdClosed atomic.Bool
	// readBy and writeBy are the deadlines (monotonic nanoseconds since
	// epoch, 0 for none) that SO_RCVTIMEO and SO_SNDTIMEO were set from. The
	// kernel starts a socket timeout again from its full value on every
	// call, and a call the Go runtime's preemption signal (SIGURG, about
	// every 10 ms) interrupts returns EINTR: calling again with the same
	// timeout would never time out. After EINTR the remainder is set anew.
	readBy, writeBy atomic.Int64
	// perRead bounds each read of a raw socket that has no deadline.
	perRead time.Duration
	counts
}

// epoch anchors the monotonic deadlines above; time.Since reads the
// monotonic clock, so a wall-clock step cannot move a deadline.
var epoch = time.Now()

var errClosed = net.ErrClosed

// refClosed marks refs once Close has been called.
const refClosed = 1 << 62

// acquire takes a reference to fd for one call; false: the socket is closed.
func (c *Conn) acquire() bool {
	if c.refs.Add(1)&refClosed != 0 {
		c.release()
		return false
	}
	return true
}

// release drops a reference; the last one after Close closes fd.
func (c *Conn) release() {
	if c.refs.Add(-1) == refClosed && c.fdClosed.CompareAndSwap(false, true) {
		_ = unix.Close(c.fd)
	}
}

func (c *Conn) isClosed() bool { return c.refs.Load()&refClosed != 0 }

var ioEOF = io.EOF

// rawReadTimeout bounds a raw read: a goroutine blocked in one cannot be
// stopped for garbage collection, so a server that never answers must not
// hold it forever.
const rawReadTimeout = 60 * time.Second

// DialRaw is Dial for a benchmark worker that owns its thread (the runner
// gives each worker a P of its own): reads call read(2) without telling the
// Go scheduler, so sysmon never hands the worker's P to another thread
// while it waits for a reply, and the runtime's futex and nanosleep
// wake-ups per statement mostly go away. Reads give up after 60 s.
func DialRaw(ctx context.Context, network, address string) (net.Conn, error) {
	c, err := Dial(ctx, network, address)
	if err != nil {
		return nil, err
	}
	nc := c.(*Conn)
	nc.raw, nc.perRead = true, rawReadTimeout
	if err := nc.setTimeout(unix.SO_RCVTIMEO, nc.perRead); err != nil {
		nc.Close()
		return nil, err
	}
	return nc, nil
}

// read is recvfrom(2), as libpq and libmariadb receive: read(2) on a socket
// goes through the file layer first (fdget_pos, rw_verify_area,
// sock_read_iter), a few percent of a point select's client CPU in perf.
func (c *Conn) read(b []byte) (int, error) {
	if len(b) == 0 {
		return 0, nil
	}
	p := uintptr(unsafe.Pointer(&b[0]))
	var n uintptr
	var e syscall.Errno
	if c.raw {
		n, _, e = unix.RawSyscall6(unix.SYS_RECVFROM, uintptr(c.fd), p, uintptr(len(b)), 0, 0, 0)
	} else {
		n, _, e = unix.Syscall6(unix.SYS_RECVFROM, uintptr(c.fd), p, uintptr(len(b)), 0, 0, 0)
	}
	if e != 0 {
		return 0, e
	}
	return int(n), nil
}

func (c *Conn) Read(b []byte) (int, error) {
	if !c.acquire() {
		return 0, errClosed
	}
	defer c.release()
	var bound resumeBound
	for {
		n, err := c.read(b)
		switch {
		case err == nil && n == 0 && len(b) > 0:
			return 0, errEOF(c)
		case err == nil:
			c.received(n)
			return n, nil
		case errors.Is(err, unix.EINTR):
			if err := bound.rearm(c, unix.SO_RCVTIMEO, &c.readBy); err != nil {
				return 0, err
			}
			continue
		case errors.Is(err, unix.EAGAIN):
			return 0, os.ErrDeadlineExceeded
		case c.isClosed():
			return 0, errClosed
		}
		return 0, &net.OpError{Op: "read", Net: "tcp", Source: c.local, Addr: c.remote, Err: err}
	}
}

// write is sendto(2) (send without the file layer, as read is recvfrom),
// raw for a worker's socket: a request is small and the socket's buffer
// takes it without blocking. MSG_NOSIGNAL: a server gone away is an EPIPE
// error, not a SIGPIPE.
func (c *Conn) write(b []byte) (int, error) {
	p := uintptr(unsafe.Pointer(&b[0]))
	var n uintptr
	var e syscall.Errno
	if c.raw {
		n, _, e = unix.RawSyscall6(unix.SYS_SENDTO, uintptr(c.fd), p, uintptr(len(b)), unix.MSG_NOSIGNAL, 0, 0)
	} else {
		n, _, e = unix.Syscall6(unix.SYS_SENDTO, uintptr(c.fd), p, uintptr(len(b)), unix.MSG_NOSIGNAL, 0, 0)
	}
	if e != 0 {
		return 0, e
	}
	return int(n), nil
}

func (c *Conn) Write(b []byte) (int, error) {
	if !c.acquire() {
		return 0, errClosed
	}
	defer c.release()
	total := 0
	var bound resumeBound
	for total < len(b) {
		n, err := c.write(b[total:])
		if n > 0 {
			total += n
			c.sent(n)
		}
		switch {
		case err == nil:
		case errors.Is(err, unix.EINTR):
			if err := bound.rearm(c, unix.SO_SNDTIMEO, &c.writeBy); err != nil {
				return total, err
			}
		case errors.Is(err, unix.EAGAIN):
			return total, os.ErrDeadlineExceeded
		case c.isClosed():
			return total, errClosed
		default:
			return total, &net.OpError{Op: "write", Net: "tcp", Source: c.local, Addr: c.remote, Err: err}
		}
	}
	return total, nil
}

func errEOF(c *Conn) error {
	if c.isClosed() {
		return errClosed
	}
	return ioEOF
}

// Close shuts the socket down, which wakes a thread blocked in read; the
// descriptor is closed when the last call using it has returned.
func (c *Conn) Close() error {
	if !c.acquire() {
		return nil
	}
	for {
		r := c.refs.Load()
		if r&refClosed != 0 {
			c.release()
			return nil
		}
		if c.refs.CompareAndSwap(r, r|refClosed) {
			break
		}
	}
	_ = unix.Shutdown(c.fd, unix.SHUT_RDWR)
	c.release()
	c.retire()
	return nil
}

func (c *Conn) LocalAddr() net.Addr  { return c.local }
func (c *Conn) RemoteAddr() net.Addr { return c.remote }

// SetDeadline maps deadlines onto the socket's receive and send timeouts. A
// deadline already past (how drivers interrupt a call on cancellation) shuts
// the socket down: a blocked read cannot be woken any other way.
func (c *Conn) SetDeadline(t time.Time) error {
	if err := c.SetReadDeadline(t); err != nil {
		return err
	}
	return c.SetWriteDeadline(t)
}

// SetReadDeadline on a raw socket with a zero time keeps the 60 s bound
// per read (rawReadTimeout) rather than none: it is not stored as a
// deadline, so a read interrupted by a signal bounds itself from then on.
func (c *Conn) SetReadDeadline(t time.Time) error {
	if !c.acquire() {
		return errClosed
	}
	defer c.release()
	if t.IsZero() && c.raw {
		c.readBy.Store(0)
		return c.setTimeout(unix.SO_RCVTIMEO, c.perRead)
	}
	return c.deadline(unix.SO_RCVTIMEO, &c.readBy, t)
}
func (c *Conn) SetWriteDeadline(t time.Time) error {
	if !c.acquire() {
		return errClosed
	}
	defer c.release()
	return c.deadline(unix.SO_SNDTIMEO, &c.writeBy, t)
}

func (c *Conn) deadline(opt int, by *atomic.Int64, t time.Time) error {
	if t.IsZero() {
		by.Store(0)
		return c.setTimeout(opt, 0)
	}
	d := time.Until(t)
	if d <= 0 {
		by.Store(1) // any past instant: an interrupted call gives up
		return unix.Shutdown(c.fd, unix.SHUT_RDWR)
	}
	by.Store(int64(time.Since(epoch) + d))
	return c.setTimeout(opt, d)
}

func (c *Conn) setTimeout(opt int, d time.Duration) error {
	tv := unix.NsecToTimeval(d.Nanoseconds())
	if err := unix.SetsockoptTimeval(c.fd, unix.SOL_SOCKET, opt, &tv); err != nil {
		return fmt.Errorf("setting socket timeout: %w", err)
	}
	return nil
}

// resumeBound keeps one blocking call's bound across the EINTRs that
// interrupt it: before the call is made again, the socket's timeout is
// set to what is left of the deadline (or, on a raw socket with none, of
// rawReadTimeout counted from the first interruption), and a bound already
// passed ends the call with os.ErrDeadlineExceeded. Only interrupted calls
// pay for this, so the hot path reads no clock.
type resumeBound struct {
	interrupted bool
	since       time.Duration // first interruption, on a raw read without deadline
}

func (r *resumeBound) rearm(c *Conn, opt int, by *atomic.Int64) error {
	now := time.Since(epoch)
	var left time.Duration
	switch dl := by.Load(); {
	case dl != 0:
		left = time.Duration(dl) - now
	case c.raw && opt == unix.SO_RCVTIMEO:
		if !r.interrupted {
			r.interrupted, r.since = true, now
		}
		left = c.perRead - (now - r.since)
	default:
		return nil // no bound was asked for
	}
	if left <= 0 {
		return os.ErrDeadlineExceeded
	}
	return c.setTimeout(opt, left)
}
