package mysql

import (
	"database/sql/driver"
	"encoding/binary"
	"fmt"
	"net"

	gomysql "github.com/go-sql-driver/mysql"
)

// The client/server protocol's framing: a 3-byte length, a sequence number,
// then the payload; a payload of maxPayload bytes continues in the next
// packet (MySQL internals, "MySQL Packets"; MariaDB, "0 - Packet").
const maxPayload = 1<<24 - 1

// Reply headers.
const (
	iOK          = 0x00
	iLocalInFile = 0xfb
	iEOF         = 0xfe
	iERR         = 0xff
)

// errMalformed marks a reply encbench cannot parse: the session's framing
// is lost, so the connection counts as lost and the runner reconnects.
var errMalformed = fmt.Errorf("malformed reply from the server: %w", driver.ErrBadConn)

// wire reads and writes packets on the connection the driver set up. Reads
// go through one buffer: a packet's payload stays valid until the next read.
type wire struct {
	nc   net.Conn
	buf  []byte
	r, w int
	// joined holds a payload that arrived split over several packets.
	joined []byte
	out    []byte
	seq    byte
	// broken is the transport or framing error that ended the session.
	broken error
}

func newWire(nc net.Conn) wire {
	return wire{nc: nc, buf: make([]byte, 16<<10), out: make([]byte, 0, 1<<10)}
}

// fail records why the session ended; later calls return it at once.
func (c *wire) fail(err error) error {
	if c.broken == nil {
		c.broken = err
	}
	return err
}

// fill makes at least n unread bytes available in buf[r:w].
func (c *wire) fill(n int) error {
	if c.w-c.r >= n {
		return nil
	}
	if len(c.buf)-c.r < n {
		if n > len(c.buf) {
			grown := make([]byte, max(n, 2*len(c.buf)))
			c.w = copy(grown, c.buf[c.r:c.w])
			c.buf = grown
		} else {
			c.w = copy(c.buf, c.buf[c.r:c.w])
		}
		c.r = 0
	}
	for c.w-c.r < n {
		m, err := c.nc.Read(c.buf[c.w:])
		c.w += m
		if err != nil {
			return c.fail(fmt.Errorf("reading from the server: %w", err))
		}
	}
	return nil
}

// readOne reads one packet; more says the payload continues in the next.
func (c *wire) readOne() (payload []byte, more bool, err error) {
	if err := c.fill(4); err != nil {
		return nil, false, err
	}
	h := c.buf[c.r : c.r+4]
	n := int(h[0]) | int(h[1])<<8 | int(h[2])<<16
	if h[3] != c.seq {
		return nil, false, c.fail(fmt.Errorf("packet %d arrived where %d was due: %w", h[3], c.seq, errMalformed))
	}
	c.seq++
	if err := c.fill(4 + n); err != nil {
		return nil, false, err
	}
	payload = c.buf[c.r+4 : c.r+4+n]
	c.r += 4 + n
	return payload, n == maxPayload, nil
}

// readPacket reads one whole payload, joining split packets.
func (c *wire) readPacket() ([]byte, error) {
	p, more, err := c.readOne()
	if err != nil || !more {
		return p, err
	}
	c.joined = append(c.joined[:0], p...)
	for more {
		if p, more, err = c.readOne(); err != nil {
			return nil, err
		}
		c.joined = append(c.joined, p...)
	}
	return c.joined, nil
}

// command starts a new command: the header's room, then its code.
func (c *wire) command(code byte) error {
	if c.broken != nil {
		return c.broken
	}
	if c.r != c.w {
		return c.fail(fmt.Errorf("%d unread bytes before a command: %w", c.w-c.r, errMalformed))
	}
	c.r, c.w = 0, 0
	c.seq = 0
	c.out = append(c.out[:0], 0, 0, 0, 0, code)
	return nil
}

// send writes the command built in out, split into packets if it is long.
func (c *wire) send() error {
	n := len(c.out) - 4
	if n < maxPayload {
		c.out[0], c.out[1], c.out[2], c.out[3] = byte(n), byte(n>>8), byte(n>>16), c.seq
		c.seq++
		return c.write(c.out)
	}
	body := c.out[4:]
	for {
		k := min(len(body), maxPayload)
		hdr := []byte{byte(k), byte(k >> 8), byte(k >> 16), c.seq}
		c.seq++
		if err := c.write(append(hdr, body[:k]...)); err != nil {
			return err
		}
		body = body[k:]
		if k < maxPayload {
			return nil
		}
	}
}

func (c *wire) write(b []byte) error {
	if _, err := c.nc.Write(b); err != nil {
		return c.fail(fmt.Errorf("writing to the server: %w", err))
	}
	return nil
}

// lenEnc reads a length-encoded integer: its value, its size in bytes, and
// whether it is the NULL marker (0xfb). size 0 means p is too short.
func lenEnc(p []byte) (v uint64, size int, null bool) {
	if len(p) == 0 {
		return 0, 0, false
	}
	switch b := p[0]; {
	case b < 0xfb:
		return uint64(b), 1, false
	case b == 0xfb:
		return 0, 1, true
	case b == 0xfc && len(p) >= 3:
		return uint64(binary.LittleEndian.Uint16(p[1:])), 3, false
	case b == 0xfd && len(p) >= 4:
		return uint64(p[1]) | uint64(p[2])<<8 | uint64(p[3])<<16, 4, false
	case b == 0xfe && len(p) >= 9:
		return binary.LittleEndian.Uint64(p[1:]), 9, false
	}
	return 0, 0, false
}

// lenEncBytes reads a length-encoded string; nil with size 1 is NULL.
func lenEncBytes(p []byte) (s []byte, size int, ok bool) {
	v, n, null := lenEnc(p)
	if n == 0 {
		return nil, 0, false
	}
	if null {
		return nil, 1, true
	}
	if uint64(len(p)-n) < v {
		return nil, 0, false
	}
	end := n + int(v)
	return p[n:end:end], end, true
}

func appendLenEnc(b []byte, v uint64) []byte {
	switch {
	case v < 0xfb:
		return append(b, byte(v))
	case v <= 0xffff:
		return append(b, 0xfc, byte(v), byte(v>>8))
	case v <= 0xffffff:
		return append(b, 0xfd, byte(v), byte(v>>8), byte(v>>16))
	}
	return binary.LittleEndian.AppendUint64(append(b, 0xfe), v)
}

// serverError turns an ERR packet into the driver's error type, which the
// engine's error classification and callers' errors.As already know.
func serverError(p []byte) error {
	if len(p) < 3 || p[0] != iERR {
		return errMalformed
	}
	me := &gomysql.MySQLError{Number: binary.LittleEndian.Uint16(p[1:3])}
	rest := p[3:]
	if len(rest) >= 6 && rest[0] == '#' {
		copy(me.SQLState[:], rest[1:6])
		rest = rest[6:]
	}
	me.Message = string(rest)
	return me
}

// okStatus reads the server status flags of an OK packet (or of an EOF
// packet's replacement, an OK with header 0xfe).
func okStatus(p []byte) (uint16, error) {
	_, n1, _ := lenEnc(p[1:])
	if n1 == 0 {
		return 0, errMalformed
	}
	_, n2, _ := lenEnc(p[1+n1:])
	if n2 == 0 || len(p) < 1+n1+n2+2 {
		return 0, errMalformed
	}
	return binary.LittleEndian.Uint16(p[1+n1+n2:]), nil
}
