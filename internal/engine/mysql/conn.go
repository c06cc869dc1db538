package mysql

import (
	"context"
	"database/sql/driver"
	"encoding/binary"
	"fmt"
	"strings"
	"time"

	"github.com/encbench/encbench/internal/engine"
	"github.com/encbench/encbench/internal/engine/netconn"
)

// Commands encbench sends itself once the driver has authenticated.
const (
	comQuery       = 0x03
	comStmtPrepare = 0x16
	comStmtExecute = 0x17
)

// conn speaks the protocol itself on the session go-sql-driver set up, as
// the PostgreSQL engine does with pgproto3: a worker waits for one reply at
// a time, and the driver's per-statement work (database/sql's value
// conversions, a driver.Value per column of every row, parameter types
// re-sent with every execute) is what a benchmark client must not add.
type conn struct {
	dc           driver.Conn // kept for Close (COM_QUIT, the watcher goroutine)
	w            wire
	deprecateEOF bool
	cacheMeta    bool
	cols         []column
	text         [][]byte
}

func newConn(dc driver.Conn, s session) *conn {
	return &conn{dc: dc, w: newWire(s.nc), deprecateEOF: s.deprecateEOF, cacheMeta: s.cacheMeta}
}

// guard bounds a set-up call by ctx: its deadline (or, without one,
// engine.SetUpStatementTimeout) becomes the socket's, and cancellation
// shuts the socket (the session is then lost). Hot-path statements carry
// none.
func (c *conn) guard(ctx context.Context) func(error) error {
	_ = c.w.nc.SetDeadline(engine.SetUpDeadline(ctx))
	stop := func() bool { return false }
	if ctx.Done() != nil {
		stop = context.AfterFunc(ctx, func() { _ = c.w.nc.SetDeadline(time.Now()) })
	}
	return func(err error) error {
		stop()
		_ = c.w.nc.SetDeadline(time.Time{})
		if err != nil && ctx.Err() != nil && c.w.broken != nil {
			return fmt.Errorf("%w: %w", ctx.Err(), err)
		}
		return err
	}
}

func (c *conn) query(sql string, row func([]byte) error) error {
	if err := c.w.command(comQuery); err != nil {
		return err
	}
	c.w.out = append(c.w.out, sql...)
	if err := c.w.send(); err != nil {
		return err
	}
	return c.reply(&c.cols, row)
}

func (c *conn) Exec(ctx context.Context, sql string) error {
	done := c.guard(ctx)
	return done(c.query(sql, nil))
}

func (c *conn) Query(ctx context.Context, sql string) ([][]string, error) {
	done := c.guard(ctx)
	var out [][]string
	err := c.query(sql, func(p []byte) error {
		if len(c.text) != len(c.cols) {
			c.text = make([][]byte, len(c.cols))
		}
		if err := textRow(p, c.text); err != nil {
			return c.w.fail(err)
		}
		r := make([]string, len(c.text))
		for i, v := range c.text {
			r[i] = string(v)
		}
		out = append(out, r)
		return nil
	})
	if err = done(err); err != nil {
		return nil, err
	}
	return out, nil
}

func (c *conn) Prepare(ctx context.Context, sql string) (engine.Stmt, error) {
	done := c.guard(ctx)
	s, err := c.prepare(sql)
	if err = done(err); err != nil {
		return nil, fmt.Errorf("preparing %q: %w", sql, err)
	}
	return s, nil
}

// prepare sends COM_STMT_PREPARE and reads its reply: the statement's id,
// its parameter and column counts, then their definitions.
func (c *conn) prepare(sql string) (*stmt, error) {
	if err := c.w.command(comStmtPrepare); err != nil {
		return nil, err
	}
	c.w.out = append(c.w.out, sql...)
	if err := c.w.send(); err != nil {
		return nil, err
	}
	p, err := c.w.readPacket()
	if err != nil {
		return nil, err
	}
	if len(p) > 0 && p[0] == iERR {
		return nil, serverError(p)
	}
	if len(p) < 12 || p[0] != iOK {
		return nil, c.w.fail(errMalformed)
	}
	s := &stmt{c: c, id: binary.LittleEndian.Uint32(p[1:])}
	ncols, nparams := int(binary.LittleEndian.Uint16(p[5:])), int(binary.LittleEndian.Uint16(p[7:]))
	if err := c.readColumns(nparams, nil); err != nil {
		return nil, err
	}
	if err := c.readStmtColumns(ncols, s); err != nil {
		return nil, err
	}
	s.types = make([]byte, nparams)
	s.onRow = s.deliver
	return s, nil
}

func (c *conn) TLSState(ctx context.Context) (engine.SessionTLS, error) {
	rows, err := c.Query(ctx, "SHOW SESSION STATUS WHERE Variable_name IN ('Ssl_version','Ssl_cipher')")
	if err != nil {
		return engine.SessionTLS{}, fmt.Errorf("reading session Ssl_cipher: %w", err)
	}
	var st engine.SessionTLS
	for _, r := range rows {
		switch r[0] {
		case "Ssl_version":
			st.Version = r[1]
		case "Ssl_cipher":
			st.Cipher = r[1]
		}
	}
	st.Encrypted = st.Cipher != ""
	if st.Encrypted {
		// MariaDB shows no session's client certificate, but an account
		// that requires one (REQUIRE X509, SUBJECT or ISSUER) admits no
		// session without a verified one.
		grants, err := c.Query(ctx, "SHOW GRANTS")
		if err != nil {
			return st, fmt.Errorf("reading the account's TLS requirement: %w", err)
		}
		for _, g := range grants {
			if len(g) > 0 && requiresClientCert(g[0]) {
				st.ClientCert = true
			}
		}
	}
	return st, nil
}

// requiresClientCert says a GRANT line requires a client certificate.
func requiresClientCert(grant string) bool {
	_, req, ok := strings.Cut(strings.ToUpper(grant), " REQUIRE ")
	return ok && (strings.Contains(req, "X509") || strings.Contains(req, "SUBJECT") || strings.Contains(req, "ISSUER"))
}

// Close lets the driver say goodbye (COM_QUIT) and end its goroutine.
func (c *conn) Close() error { return c.dc.Close() }

// stmt is a server-side prepared statement run over the binary protocol.
type stmt struct {
	c    *conn
	id   uint32
	cols []column
	// names are the result's column names, as prepare described them.
	names []string
	// types are the parameter types the server holds for the statement
	// (0: none sent yet). libmysqlclient sends them only when they change,
	// and so does encbench: the server then skips setting them up again.
	types []byte
	rows  rowDecoder
	// onRow is deliver bound once, so a Query allocates no closure.
	onRow   func([]byte) error
	userRow func([][]byte) error
}

// execute sends COM_STMT_EXECUTE with args in the binary protocol.
func (s *stmt) execute(args []engine.Arg) error {
	w := &s.c.w
	if len(args) != len(s.types) {
		return fmt.Errorf("the statement takes %d parameters, not %d", len(s.types), len(args))
	}
	if err := w.command(comStmtExecute); err != nil {
		return err
	}
	b := binary.LittleEndian.AppendUint32(w.out, s.id)
	b = append(b, 0, 1, 0, 0, 0) // no cursor; iteration count 1
	if len(args) > 0 {
		nulls := len(b)
		for range (len(args) + 7) / 8 {
			b = append(b, 0)
		}
		changed := false
		for i := range args {
			t := paramType(args[i], s.types[i])
			if args[i].Null {
				b[nulls+i/8] |= 1 << (i % 8)
			}
			if t != s.types[i] {
				changed = true
				s.types[i] = t
			}
		}
		if changed {
			b = append(b, 1)
			for _, t := range s.types {
				b = append(b, t, 0) // signed
			}
		} else {
			b = append(b, 0)
		}
		for i := range args {
			switch {
			case args[i].Null:
			case args[i].Str != nil:
				b = append(appendLenEnc(b, uint64(len(args[i].Str))), args[i].Str...)
			default:
				b = binary.LittleEndian.AppendUint64(b, uint64(args[i].Int))
			}
		}
	}
	w.out = b
	return w.send()
}

// paramType is the type to bind an argument as; a NULL keeps the type
// already bound, since the NULL bitmap alone marks it.
func paramType(a engine.Arg, bound byte) byte {
	switch {
	case a.Null && bound != 0:
		return bound
	case a.Null:
		return typeNull
	case a.Str != nil:
		return typeString
	}
	return typeLonglong
}

// Exec runs the statement; rows, if any, are read and dropped undecoded.
func (s *stmt) Exec(args []engine.Arg) error {
	return s.run(args, nil)
}

// Query hands rows over as text values: integers and dates formatted into
// reused buffers, strings as slices of the read buffer.
func (s *stmt) Query(args []engine.Arg, row func([][]byte) error) error {
	s.userRow = row
	err := s.run(args, s.onRow)
	s.userRow = nil
	return err
}

func (s *stmt) deliver(p []byte) error {
	if err := s.rows.decode(p, s.cols); err != nil {
		return s.c.w.fail(err)
	}
	return s.userRow(s.rows.out)
}

func (s *stmt) run(args []engine.Arg, row func([]byte) error) error {
	if err := s.execute(args); err != nil {
		return err
	}
	err := s.c.reply(&s.cols, row)
	if err != nil && s.c.w.broken == nil {
		// After an error reply, bind the types again next time rather
		// than rely on what the server kept of a failed execute.
		clear(s.types)
	}
	return err
}

var _ engine.Trafficker = (*conn)(nil)

// Traffic is what crossed the connection's socket (engine.Trafficker).
func (c *conn) Traffic() (netconn.Traffic, bool) { return netconn.SocketTraffic(c.w.nc) }

// readStmtColumns reads a prepared statement's result columns with their
// names.
func (c *conn) readStmtColumns(n int, s *stmt) error {
	for range n {
		p, err := c.w.readPacket()
		if err != nil {
			return err
		}
		name, col, err := readColumnNamed(p)
		if err != nil {
			return c.w.fail(err)
		}
		s.cols = append(s.cols, col)
		s.names = append(s.names, string(name))
	}
	if n > 0 && !c.deprecateEOF {
		if _, err := c.w.readPacket(); err != nil {
			return err
		}
	}
	return nil
}

// Columns are the names of the statement's result columns
// (engine.Described).
func (s *stmt) Columns() []string { return s.names }
