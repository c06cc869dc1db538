package postgres

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"

	"github.com/jackc/pgx/v5/pgproto3"
)

// maxMessage bounds a backend message's length: PostgreSQL's own limit on
// a field is 1 GB, so a longer length is a corrupt stream, not a reply.
const maxMessage = 1<<30 + 1<<20

// errMalformed is a reply that does not parse as the protocol says.
var errMalformed = errors.New("malformed message from the server")

// backendReader reads the server's messages straight from the socket into
// a buffer of its own, as type and body, without pgproto3's chunk reader,
// pgconn's background reader and its lock, and a decoded message per reply
// (a worker's replies are a BindComplete, a few data rows, a
// CommandComplete and a ReadyForQuery). It is used once pgconn has let go
// of the socket with nothing buffered (PgConn.SyncConn succeeded); when it
// could not, fe is the frontend pgconn built, which may hold bytes or have
// a read in flight, and messages come through it instead (see takeOver).
type backendReader struct {
	nc   net.Conn
	buf  []byte
	r, w int
	fe   *pgproto3.Frontend
	enc  []byte
}

func newBackendReader(nc net.Conn, fe *pgproto3.Frontend) *backendReader {
	return &backendReader{nc: nc, fe: fe, buf: make([]byte, 8192)}
}

// next returns the next message's type and body; the body is valid until
// the next call.
func (b *backendReader) next() (byte, []byte, error) {
	if b.fe != nil {
		return b.throughFrontend()
	}
	if err := b.fill(5); err != nil {
		return 0, nil, err
	}
	typ := b.buf[b.r]
	n := int(binary.BigEndian.Uint32(b.buf[b.r+1:]))
	if n < 4 || n > maxMessage {
		return 0, nil, fmt.Errorf("%w: message %q of length %d", errMalformed, typ, n)
	}
	if err := b.fill(1 + n); err != nil {
		return 0, nil, err
	}
	body := b.buf[b.r+5 : b.r+1+n : b.r+1+n]
	b.r += 1 + n
	return typ, body, nil
}

// fill reads until need bytes are buffered past r.
func (b *backendReader) fill(need int) error {
	if b.w-b.r >= need {
		return nil
	}
	if b.r == b.w {
		b.r, b.w = 0, 0
	} else if b.r+need > len(b.buf) {
		b.w = copy(b.buf, b.buf[b.r:b.w])
		b.r = 0
	}
	if need > len(b.buf) {
		grown := make([]byte, max(need, 2*len(b.buf)))
		b.w = copy(grown, b.buf[b.r:b.w])
		b.buf, b.r = grown, 0
	}
	for b.w-b.r < need {
		n, err := b.nc.Read(b.buf[b.w:])
		b.w += n
		if err != nil && b.w-b.r < need {
			if errors.Is(err, io.EOF) {
				return io.ErrUnexpectedEOF
			}
			return err
		}
	}
	return nil
}

// throughFrontend is next over pgconn's frontend, re-encoding each message
// it decoded: only on a connection pgconn could not settle.
func (b *backendReader) throughFrontend() (byte, []byte, error) {
	msg, err := b.fe.Receive()
	if err != nil {
		return 0, nil, err
	}
	if b.enc, err = msg.Encode(b.enc[:0]); err != nil {
		return 0, nil, fmt.Errorf("re-encoding %T: %w", msg, err)
	}
	return b.enc[0], b.enc[5:], nil
}

// dataRow splits a DataRow's body into its values (nil for NULL), reusing
// vals; the values point into body.
func dataRow(body []byte, vals [][]byte) ([][]byte, error) {
	if len(body) < 2 {
		return nil, fmt.Errorf("%w: short data row", errMalformed)
	}
	n := int(binary.BigEndian.Uint16(body))
	vals = vals[:0]
	p := 2
	for range n {
		if len(body)-p < 4 {
			return nil, fmt.Errorf("%w: data row ends inside a value's length", errMalformed)
		}
		l := int(int32(binary.BigEndian.Uint32(body[p:])))
		p += 4
		if l < 0 {
			vals = append(vals, nil)
			continue
		}
		if len(body)-p < l {
			return nil, fmt.Errorf("%w: data row ends inside a value", errMalformed)
		}
		vals = append(vals, body[p:p+l:p+l])
		p += l
	}
	return vals, nil
}
