// Package postgres is the PostgreSQL engine, on pgx's low-level pgconn so a
// statement costs one round trip and no per-row decoding.
package postgres

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/encbench/encbench/internal/engine"
	"github.com/encbench/encbench/internal/engine/netconn"
	"github.com/encbench/encbench/internal/errs"
	"github.com/encbench/encbench/internal/tlsconf"
)

func init() { engine.Register(Engine{}) }

// Engine implements engine.Engine for PostgreSQL and protocol-compatible servers.
type Engine struct{}

func (Engine) Kind() string      { return "postgres" }
func (Engine) Schemes() []string { return []string{"postgres", "postgresql"} }

func (Engine) Dialect() engine.Dialect {
	return engine.Dialect{
		Name:           "pgsql",
		AutoIncID:      "SERIAL",
		ListTables:     "SELECT tablename FROM pg_tables WHERE schemaname = current_schema()",
		TLSProofSource: "pg_stat_ssl",
	}
}

// Validate checks the DSN's shape; ParseTarget has already taken its TLS
// parameters, so encbench alone sets the mode and "off" is provably off.
func (Engine) Validate(u *url.URL, _ engine.TLSOptions) error {
	if u.Host == "" && u.Query().Get("host") == "" {
		return errs.Usage("DSN %s has no host: use postgres://user@127.0.0.1:5432/db", engine.Redact(u))
	}
	return nil
}

func (Engine) Connect(ctx context.Context, t engine.Target) (engine.Conn, error) {
	u := *t.URL
	q := u.Query()
	// TLS is configured below from t.TLS; pgx's own fallbacks stay off.
	q.Set("sslmode", "disable")
	u.RawQuery = q.Encode()
	cfg, err := pgconn.ParseConfig(u.String())
	if err != nil {
		return nil, errs.Usage("invalid PostgreSQL DSN %s: %v", t.Redacted(), err)
	}
	tc, err := tlsconf.Client(t.TLS, cfg.Host)
	if err != nil {
		return nil, err
	}
	cfg.TLSConfig = tc
	cfg.Fallbacks = nil
	cfg.DialFunc = netconn.Dial
	pc, err := pgconn.ConnectConfig(ctx, cfg)
	if err != nil {
		return nil, engine.ConnectError(t, err)
	}
	return &conn{pc: pc}, nil
}

func (Engine) ServerInfo(ctx context.Context, c engine.Conn) (engine.ServerInfo, error) {
	rows, err := c.Query(ctx, `SELECT name, setting || coalesce(unit, '') FROM pg_settings
		WHERE name IN ('server_version','shared_buffers','fsync','synchronous_commit','ssl','max_connections','wal_level','full_page_writes')`)
	if err != nil {
		return engine.ServerInfo{}, fmt.Errorf("reading server settings: %w", err)
	}
	info := engine.ServerInfo{Settings: map[string]string{}}
	for _, r := range rows {
		info.Settings[r[0]] = r[1]
	}
	info.Version = "PostgreSQL " + info.Settings["server_version"]
	return info, nil
}

// ClassifyError follows sysbench's pgsql driver: deadlocks, serialization
// failures and duplicate keys restart the event.
func (Engine) ClassifyError(err error) engine.ErrorClass {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		switch pe.Code {
		case "40P01", "40001", "23505":
			return engine.ErrIgnorable
		case "57P01", "57P02", "57P03":
			return engine.ErrConnLost
		}
		return engine.ErrFatal
	}
	var ne net.Error
	if errors.As(err, &ne) || pgconn.SafeToRetry(err) || strings.Contains(err.Error(), "conn closed") {
		return engine.ErrConnLost
	}
	return engine.ErrFatal
}

type conn struct {
	pc    *pgconn.PgConn
	stmts int
}

func (c *conn) Exec(ctx context.Context, sql string) error {
	_, err := c.pc.Exec(ctx, sql).ReadAll()
	return err
}

func (c *conn) Query(ctx context.Context, sql string) ([][]string, error) {
	res, err := c.pc.Exec(ctx, sql).ReadAll()
	if err != nil {
		return nil, err
	}
	var out [][]string
	for _, r := range res {
		for _, row := range r.Rows {
			s := make([]string, len(row))
			for i, v := range row {
				s[i] = string(v)
			}
			out = append(out, s)
		}
	}
	return out, nil
}

// Prepare rewrites '?' placeholders to $n and prepares a named statement.
func (c *conn) Prepare(ctx context.Context, sql string) (engine.Stmt, error) {
	var b strings.Builder
	n := 0
	for _, r := range sql {
		if r == '?' {
			n++
			b.WriteString("$" + strconv.Itoa(n))
			continue
		}
		b.WriteRune(r)
	}
	c.stmts++
	name := "encbench_" + strconv.Itoa(c.stmts)
	desc, err := c.pc.Prepare(ctx, name, b.String(), nil)
	if err != nil {
		return nil, fmt.Errorf("preparing %q: %w", sql, err)
	}
	s := &stmt{pc: c.pc, desc: desc, values: make([][]byte, n), bufs: make([][]byte, n)}
	for i := range s.bufs {
		s.bufs[i] = make([]byte, 0, 24)
	}
	return s, nil
}

func (c *conn) TLSState(ctx context.Context) (engine.SessionTLS, error) {
	rows, err := c.Query(ctx, "SELECT ssl::text, coalesce(version,''), coalesce(cipher,'') FROM pg_stat_ssl WHERE pid = pg_backend_pid()")
	if err != nil {
		return engine.SessionTLS{}, fmt.Errorf("reading pg_stat_ssl: %w", err)
	}
	if len(rows) != 1 {
		return engine.SessionTLS{}, fmt.Errorf("pg_stat_ssl has no row for this session")
	}
	return engine.SessionTLS{Encrypted: rows[0][0] == "true", Version: rows[0][1], Cipher: rows[0][2]}, nil
}

func (c *conn) Close() error { return c.pc.Close(context.Background()) }

type stmt struct {
	pc     *pgconn.PgConn
	desc   *pgconn.StatementDescription
	values [][]byte
	bufs   [][]byte
}

// Exec sends parameters in text format from reused buffers.
func (s *stmt) Exec(args []engine.Arg) error {
	for i := range args {
		if args[i].Str != nil {
			s.values[i] = args[i].Str
			continue
		}
		s.bufs[i] = strconv.AppendInt(s.bufs[i][:0], args[i].Int, 10)
		s.values[i] = s.bufs[i]
	}
	// The description from Prepare spares a Describe round of messages.
	rr := s.pc.ExecStatement(context.Background(), s.desc, s.values, nil, nil)
	for rr.NextRow() {
	}
	_, err := rr.Close()
	return err
}
