package postgres

import (
	"bytes"
	"errors"
	"io"
	"net"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgproto3"
)

// chunkedConn serves a byte stream in reads of at most size bytes.
type chunkedConn struct {
	net.Conn
	r    *bytes.Reader
	size int
}

func (c *chunkedConn) Read(b []byte) (int, error) {
	return c.r.Read(b[:min(len(b), c.size)])
}

func encode(t *testing.T, msgs ...pgproto3.BackendMessage) []byte {
	t.Helper()
	var out []byte
	for _, m := range msgs {
		var err error
		if out, err = m.Encode(out); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// Every message comes back whole and in order however the stream is cut
// into reads, one larger than the buffer included; a NULL value is nil
// and an empty one is not.
func TestBackendReaderReassemblesMessages(t *testing.T) {
	big := bytes.Repeat([]byte("x"), 20000)
	stream := encode(t, &pgproto3.BindComplete{},
		&pgproto3.DataRow{Values: [][]byte{[]byte("42"), nil, {}}},
		&pgproto3.DataRow{Values: [][]byte{big}},
		&pgproto3.CommandComplete{CommandTag: []byte("SELECT 2")},
		&pgproto3.ReadyForQuery{TxStatus: 'T'})
	for _, size := range []int{1, 3, 5, 7, 4096, 1 << 20} {
		rd := newBackendReader(&chunkedConn{r: bytes.NewReader(stream), size: size}, nil)
		var got []string
		for {
			typ, body, err := rd.next()
			if err != nil {
				t.Fatalf("reads of %d: %v", size, err)
			}
			got = append(got, string(typ))
			if typ == 'D' {
				vals, err := dataRow(body, nil)
				if err != nil {
					t.Fatalf("reads of %d: %v", size, err)
				}
				if len(vals) == 3 && (string(vals[0]) != "42" || vals[1] != nil || vals[2] == nil || len(vals[2]) != 0) {
					t.Errorf("reads of %d: row %q, want 42, NULL, empty", size, vals)
				}
				if len(vals) == 1 && !bytes.Equal(vals[0], big) {
					t.Errorf("reads of %d: the large value came back with %d bytes", size, len(vals[0]))
				}
			}
			if typ == 'Z' {
				break
			}
		}
		if strings.Join(got, "") != "2DDCZ" {
			t.Errorf("reads of %d: messages %q, want 2DDCZ", size, strings.Join(got, ""))
		}
	}
}

// A stream that ends inside a message, a length shorter than the length
// field itself, and a data row whose values overrun it are errors.
func TestBackendReaderRefusesMalformedReplies(t *testing.T) {
	whole := encode(t, &pgproto3.CommandComplete{CommandTag: []byte("UPDATE 1")})
	cases := map[string][]byte{
		"cut short":          whole[:len(whole)-2],
		"length below 4":     {'C', 0, 0, 0, 3},
		"length beyond 1 GB": {'C', 0x7f, 0xff, 0xff, 0xff},
	}
	for name, stream := range cases {
		rd := newBackendReader(&chunkedConn{r: bytes.NewReader(stream), size: 4096}, nil)
		_, _, err := rd.next()
		if err == nil {
			t.Errorf("%s: no error", name)
		}
		if name == "cut short" && !errors.Is(err, io.ErrUnexpectedEOF) {
			t.Errorf("%s: %v, want an unexpected EOF", name, err)
		}
	}
	for name, body := range map[string][]byte{
		"no count":             {0},
		"length cut":           {0, 1, 0, 0},
		"value beyond the row": {0, 1, 0, 0, 0, 9, 'a'},
	} {
		if _, err := dataRow(body, nil); !errors.Is(err, errMalformed) {
			t.Errorf("data row %s: %v, want malformed", name, err)
		}
	}
}

// Through pgconn's frontend (a connection pgconn could not settle) the
// messages read as they do from the socket.
func TestBackendReaderThroughFrontendReadsTheSame(t *testing.T) {
	stream := encode(t, &pgproto3.DataRow{Values: [][]byte{[]byte("a"), nil}},
		&pgproto3.ErrorResponse{Severity: "ERROR", Code: "40001", Message: "could not serialize"},
		&pgproto3.ReadyForQuery{TxStatus: 'E'})
	direct := newBackendReader(&chunkedConn{r: bytes.NewReader(stream), size: 4096}, nil)
	cc := &chunkedConn{r: bytes.NewReader(stream), size: 4096}
	viaFe := newBackendReader(cc, pgproto3.NewFrontend(cc, io.Discard))
	for i := range 3 {
		ta, ba, ea := direct.next()
		tb, bb, eb := viaFe.next()
		if ea != nil || eb != nil || ta != tb || !bytes.Equal(ba, bb) {
			t.Fatalf("message %d: direct %q %q %v, through the frontend %q %q %v", i, ta, ba, ea, tb, bb, eb)
		}
	}
}
