package postgres

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/encbench/encbench/internal/engine"
	"github.com/encbench/encbench/internal/engine/netconn"
)

// conn speaks the protocol with pgx's pgproto3 on a connection pgconn has
// set up. A worker waits for one reply at a time, so pgconn's per-statement
// machinery (locking, a slow-write timer and a background reader for
// pipelined writes) is work a benchmark client need not pay for.
type conn struct {
	nc net.Conn
	// fe encodes and writes requests; replies are read by rd.
	fe    *pgproto3.Frontend
	rd    *backendReader
	vals  [][]byte
	stmts int
	// raw says which type OIDs travel as raw bytes in binary format (bytea
	// and extension types built on its send/receive, such as ore).
	raw map[uint32]bool
}

// newConn writes through fe, the frontend pgconn set the connection up
// with, and reads replies from the socket itself when settled says pgconn
// let go of it with nothing buffered, or else through fe (see takeOver).
func newConn(nc net.Conn, fe *pgproto3.Frontend, settled bool) *conn {
	var unsettled *pgproto3.Frontend
	if !settled {
		unsettled = fe
	}
	return &conn{nc: nc, fe: fe, rd: newBackendReader(nc, unsettled)}
}

// withDeadline bounds set-up calls by ctx: its deadline (or, without one,
// engine.SetUpStatementTimeout) becomes the socket's, and its cancellation
// shuts the socket (the session is then lost), as pgconn's own context
// watcher does. Hot-path statements carry none.
func (c *conn) withDeadline(ctx context.Context) func() {
	_ = c.nc.SetDeadline(engine.SetUpDeadline(ctx))
	stop := func() bool { return false }
	if ctx.Done() != nil {
		stop = context.AfterFunc(ctx, func() { _ = c.nc.SetDeadline(time.Now()) })
	}
	return func() {
		stop()
		_ = c.nc.SetDeadline(time.Time{})
	}
}

// drain reads replies until ReadyForQuery, handing data rows' values to
// row (which must copy what it keeps) and returning the first server error.
func (c *conn) drain(row func([][]byte)) error {
	var first error
	for {
		typ, body, err := c.rd.next()
		if err != nil {
			return fmt.Errorf("reading from the server: %w", err)
		}
		switch typ {
		case 'D':
			if row == nil {
				continue
			}
			if c.vals, err = dataRow(body, c.vals); err != nil {
				return err
			}
			row(c.vals)
		case 'E':
			if first == nil {
				first = serverError(body)
			}
		case 'Z':
			return first
		}
	}
}

// serverError is an ErrorResponse's body as pgconn's error type.
func serverError(body []byte) error {
	var m pgproto3.ErrorResponse
	if err := m.Decode(body); err != nil {
		return fmt.Errorf("%w: error response: %w", errMalformed, err)
	}
	return pgconn.ErrorResponseToPgError(&m)
}

func (c *conn) send(msgs ...pgproto3.FrontendMessage) error {
	for _, m := range msgs {
		c.fe.Send(m)
	}
	if err := c.fe.Flush(); err != nil {
		return fmt.Errorf("writing to the server: %w", err)
	}
	return nil
}

func (c *conn) Exec(ctx context.Context, sql string) error {
	defer c.withDeadline(ctx)()
	if err := c.send(&pgproto3.Query{String: sql}); err != nil {
		return ended(ctx, err)
	}
	return ended(ctx, c.drain(nil))
}

func (c *conn) Query(ctx context.Context, sql string) ([][]string, error) {
	defer c.withDeadline(ctx)()
	if err := c.send(&pgproto3.Query{String: sql}); err != nil {
		return nil, ended(ctx, err)
	}
	var out [][]string
	err := c.drain(func(values [][]byte) {
		row := make([]string, len(values))
		for i, v := range values {
			row[i] = string(v)
		}
		out = append(out, row)
	})
	return out, ended(ctx, err)
}

// ended adds why ctx ended to the error of a call it cut short (the socket
// says only "i/o timeout" or "unexpected EOF" once shut). The socket's
// deadline is ctx's, so its timeout can fire a moment before ctx reports
// its end; a timeout is the server not answering either way.
func ended(ctx context.Context, err error) error {
	if err == nil || ctx.Err() != nil && errors.Is(err, ctx.Err()) {
		return err
	}
	var ne net.Error
	switch {
	case ctx.Err() != nil && !errors.Is(ctx.Err(), context.DeadlineExceeded):
		return fmt.Errorf("%w (stopped: %w)", err, context.Cause(ctx))
	case ctx.Err() != nil:
		return fmt.Errorf("%w (the server did not answer in time: %w)", err, context.Cause(ctx))
	case errors.As(err, &ne) && ne.Timeout():
		return fmt.Errorf("%w (the server did not answer in time)", err)
	}
	return err
}

// Prepare rewrites '?' placeholders to $n and prepares a named statement.
func (c *conn) Prepare(ctx context.Context, sql string) (engine.Stmt, error) {
	text, n := numberPlaceholders(sql)
	c.stmts++
	name := "encbench_" + strconv.Itoa(c.stmts)
	defer c.withDeadline(ctx)()
	if err := c.send(&pgproto3.Parse{Name: name, Query: text}, &pgproto3.Describe{ObjectType: 'S', Name: name}, &pgproto3.Sync{}); err != nil {
		return nil, ended(ctx, err)
	}
	s := &stmt{c: c, bind: pgproto3.Bind{PreparedStatement: name, Parameters: make([][]byte, n)}, bufs: make([][]byte, n)}
	params, fields, names, err := c.describe()
	if err != nil {
		return nil, ended(ctx, fmt.Errorf("preparing %q: %w", sql, err))
	}
	s.names = names
	if err := c.learnRawTypes(ctx, append(params, fields...)); err != nil {
		return nil, ended(ctx, fmt.Errorf("preparing %q: %w", sql, err))
	}
	s.bind.ParameterFormatCodes = c.binaryCodes(params)
	s.bind.ResultFormatCodes = c.binaryCodes(fields)
	for i := range s.bufs {
		s.bufs[i] = make([]byte, 0, 24)
	}
	return s, nil
}

// byteaOID is PostgreSQL's bytea type: its values travel in binary format
// both ways, so ciphertext needs no hex encoding.
const byteaOID = 17

// firstUserOID is where types created by extensions start.
const firstUserOID = 16384

// describe reads Parse and Describe's replies: the parameter and result
// column types.
func (c *conn) describe() (params, fields []uint32, names []string, err error) {
	var first error
	for {
		typ, body, err := c.rd.next()
		if err != nil {
			return nil, nil, nil, fmt.Errorf("reading from the server: %w", err)
		}
		switch typ {
		case 't':
			var m pgproto3.ParameterDescription
			if err := m.Decode(body); err != nil {
				return nil, nil, nil, fmt.Errorf("%w: parameter description: %w", errMalformed, err)
			}
			params = append(params, m.ParameterOIDs...)
		case 'T':
			var m pgproto3.RowDescription
			if err := m.Decode(body); err != nil {
				return nil, nil, nil, fmt.Errorf("%w: row description: %w", errMalformed, err)
			}
			for _, f := range m.Fields {
				fields = append(fields, f.DataTypeOID)
				names = append(names, string(f.Name))
			}
		case 'E':
			if first == nil {
				first = serverError(body)
			}
		case 'Z':
			return params, fields, names, first
		}
	}
}

// learnRawTypes asks the server, once per type, whether an extension type
// is sent as bytea is (raw bytes): its send function is the internal
// byteasend (language 12 = internal) or the encbench_ore extension's
// wrapper of it.
func (c *conn) learnRawTypes(ctx context.Context, oids []uint32) error {
	if c.raw == nil {
		c.raw = map[uint32]bool{byteaOID: true}
	}
	var ask []string
	for _, o := range oids {
		if _, known := c.raw[o]; !known && o >= firstUserOID {
			c.raw[o] = false
			ask = append(ask, strconv.FormatUint(uint64(o), 10))
		}
	}
	if len(ask) == 0 {
		return nil
	}
	rows, err := c.Query(ctx, "SELECT t.oid FROM pg_type t JOIN pg_proc p ON p.oid = t.typsend WHERE ((p.prolang = 12 AND p.prosrc = 'byteasend') OR p.prosrc = 'ore_send') AND t.oid IN ("+strings.Join(ask, ",")+")")
	if err != nil {
		return fmt.Errorf("reading extension types: %w", err)
	}
	for _, r := range rows {
		o, err := strconv.ParseUint(r[0], 10, 32)
		if err == nil {
			c.raw[uint32(o)] = true
		}
	}
	return nil
}

// binaryCodes gives raw-byte types the binary format; nil (all text) when
// there are none.
func (c *conn) binaryCodes(oids []uint32) []int16 {
	var codes []int16
	for i, o := range oids {
		if c.raw[o] {
			if codes == nil {
				codes = make([]int16, len(oids))
			}
			codes[i] = 1
		}
	}
	return codes
}

func (c *conn) TLSState(ctx context.Context) (engine.SessionTLS, error) {
	rows, err := c.Query(ctx, "SELECT ssl::text, coalesce(version,''), coalesce(cipher,''), (client_dn IS NOT NULL)::text FROM pg_stat_ssl WHERE pid = pg_backend_pid()")
	if err != nil {
		return engine.SessionTLS{}, fmt.Errorf("reading pg_stat_ssl: %w", err)
	}
	if len(rows) != 1 {
		return engine.SessionTLS{}, errors.New("pg_stat_ssl has no row for this session")
	}
	return engine.SessionTLS{Encrypted: rows[0][0] == "true", Version: rows[0][1], Cipher: rows[0][2], ClientCert: rows[0][3] == "true"}, nil
}

// Close says goodbye to the server and closes the socket.
func (c *conn) Close() error {
	c.fe.Send(&pgproto3.Terminate{})
	_ = c.fe.Flush()
	return c.nc.Close()
}

type stmt struct {
	c    *conn
	bind pgproto3.Bind
	bufs [][]byte
	// names are the result's column names, as Describe gave them.
	names []string
}

// Columns are the statement's result column names (engine.Described).
func (s *stmt) Columns() []string { return s.names }

// Messages without fields, only ever read when encoded.
var (
	executeMsg = &pgproto3.Execute{}
	syncMsg    = &pgproto3.Sync{}
)

// Exec sends Bind, Execute and Sync in one write, parameters in text format
// from reused buffers (bytea raw), and reads the reply without decoding rows.
func (s *stmt) Exec(args []engine.Arg) error {
	if err := s.send(args); err != nil {
		return err
	}
	return s.c.drain(nil)
}

// Query is Exec handing each data row's values to row.
func (s *stmt) Query(args []engine.Arg, row func([][]byte) error) error {
	if err := s.send(args); err != nil {
		return err
	}
	var rowErr error
	err := s.c.drain(func(values [][]byte) {
		if rowErr == nil {
			rowErr = row(values)
		}
	})
	if err != nil {
		return err
	}
	return rowErr
}

func (s *stmt) send(args []engine.Arg) error {
	p := s.bind.Parameters
	for i := range args {
		switch {
		case args[i].Null:
			p[i] = nil
		case args[i].Str != nil:
			p[i] = args[i].Str
		default:
			s.bufs[i] = strconv.AppendInt(s.bufs[i][:0], args[i].Int, 10)
			p[i] = s.bufs[i]
		}
	}
	fe := s.c.fe
	fe.SendBind(&s.bind)
	fe.SendExecute(executeMsg)
	fe.SendSync(syncMsg)
	if err := fe.Flush(); err != nil {
		return fmt.Errorf("writing to the server: %w", err)
	}
	return nil
}

var _ engine.Trafficker = (*conn)(nil)

// Traffic is what crossed the connection's socket (engine.Trafficker).
func (c *conn) Traffic() (netconn.Traffic, bool) { return netconn.SocketTraffic(c.nc) }

// numberPlaceholders rewrites each '?' outside quotes, quoted identifiers,
// dollar quotes and comments to $1, $2, ... and counts them; a '?' inside
// a string literal stays as written.
func numberPlaceholders(sql string) (string, int) {
	var b strings.Builder
	n := 0
	for i := 0; i < len(sql); i++ {
		c := sql[i]
		switch {
		case c == '?':
			n++
			b.WriteString("$" + strconv.Itoa(n))
			continue
		case c == '\'' || c == '"':
			j := i + 1
			for j < len(sql) && (sql[j] != c || j+1 < len(sql) && sql[j+1] == c) {
				if sql[j] == c { // a doubled quote
					j++
				}
				j++
			}
			end := min(j+1, len(sql))
			b.WriteString(sql[i:end])
			i = end - 1
			continue
		case c == '-' && strings.HasPrefix(sql[i:], "--"):
			j := strings.IndexByte(sql[i:], '\n')
			if j < 0 {
				j = len(sql) - i
			}
			b.WriteString(sql[i : i+j])
			i += j - 1
			continue
		case c == '/' && strings.HasPrefix(sql[i:], "/*"):
			j := strings.Index(sql[i+2:], "*/")
			end := len(sql)
			if j >= 0 {
				end = i + 2 + j + 2
			}
			b.WriteString(sql[i:end])
			i = end - 1
			continue
		case c == '$' && (i == 0 || !isIdentByte(sql[i-1])):
			if tag := dollarQuote(sql[i:]); tag != "" {
				end := strings.Index(sql[i+len(tag):], tag)
				stop := len(sql)
				if end >= 0 {
					stop = i + len(tag) + end + len(tag)
				}
				b.WriteString(sql[i:stop])
				i = stop - 1
				continue
			}
		}
		b.WriteByte(c)
	}
	return b.String(), n
}

func isIdentByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c >= 0x80
}

// dollarQuote is the $tag$ that opens a dollar-quoted string, or "".
func dollarQuote(s string) string {
	j := 1
	if j < len(s) && s[j] >= '0' && s[j] <= '9' {
		return ""
	}
	for j < len(s) && isIdentByte(s[j]) {
		j++
	}
	if j < len(s) && s[j] == '$' {
		return s[:j+1]
	}
	return ""
}
