// Package mysql is the MySQL and MariaDB engine, on go-sql-driver/mysql used
// at the driver level: one owned connection, server-side prepared statements,
// no database/sql pool in the way.
package mysql

import (
	"context"
	"database/sql/driver"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/url"
	"strconv"
	"strings"
	"time"

	gomysql "github.com/go-sql-driver/mysql"

	"github.com/encbench/encbench/internal/engine"
	"github.com/encbench/encbench/internal/engine/netconn"
	"github.com/encbench/encbench/internal/errs"
	"github.com/encbench/encbench/internal/tlsconf"
)

func init() {
	engine.Register(Engine{})
	// The driver logs lost connections to stderr itself; encbench reports
	// each error once, in its own words, and counts it.
	_ = gomysql.SetLogger(log.New(io.Discard, "", 0))
}

// Engine implements engine.Engine for MySQL and MariaDB.
type Engine struct{}

func (Engine) Kind() string      { return "mysql" }
func (Engine) Schemes() []string { return []string{"mysql", "mariadb"} }

func (Engine) Dialect() engine.Dialect {
	return engine.Dialect{
		Name:                      "mysql",
		AutoIncID:                 "INTEGER NOT NULL AUTO_INCREMENT",
		TableOptions:              "/*! ENGINE = innodb */",
		InsertAutoIncExplicitZero: true,
		ListTables:                "SHOW TABLES",
		TLSProofSource:            "SHOW SESSION STATUS Ssl_version/Ssl_cipher",
		Timestamp:                 "DATETIME(6)",
		AfterLoad:                 "ANALYZE TABLE %s",
		TableSize: "SELECT TABLE_ROWS, DATA_LENGTH, INDEX_LENGTH FROM information_schema.TABLES " +
			"WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = '%s'",
		SetIsolation:  "SET SESSION TRANSACTION ISOLATION LEVEL %s",
		ShowIsolation: "SHOW SESSION VARIABLES WHERE Variable_name IN ('transaction_isolation', 'tx_isolation')", // MySQL 8, MariaDB < 11.1
		BinaryType:    func(n int) string { return fmt.Sprintf("VARBINARY(%d)", n) },
		Explain:       "EXPLAIN FORMAT=JSON ",
		ListAgg:       func(expr string) string { return "GROUP_CONCAT(" + expr + " SEPARATOR ',')" },
		// 1 MiB (MariaDB's default): 50,000 identifiers of 20 digits.
		ListAggSetup: "SET SESSION group_concat_max_len = 1048576",
		BytesParams:  "SET SESSION character_set_client = binary",
		Substring:    func(expr string, from, n int) string { return fmt.Sprintf("SUBSTRING(%s, %d, %d)", expr, from, n) },
		BytesLiteral: func(b []byte) string { return "X'" + hex.EncodeToString(b) + "'" },
	}
}

func (Engine) Validate(u *url.URL, tls engine.TLSOptions) error {
	if u.Host == "" && u.Query().Get("socket") == "" {
		return errs.Usage("DSN %s has no host: use mysql://user@127.0.0.1:3306/db", engine.Redact(u))
	}
	if v := u.Query().Get("tls"); v != "" {
		return errs.Usage("DSN sets tls=%s: drop it from the DSN and use --tls", v)
	}
	return nil
}

func config(t engine.Target) (*gomysql.Config, error) {
	u := t.URL
	cfg := gomysql.NewConfig()
	if u.User != nil {
		cfg.User = u.User.Username()
		cfg.Passwd, _ = u.User.Password()
	}
	cfg.DBName = strings.TrimPrefix(u.Path, "/")
	if sock := u.Query().Get("socket"); sock != "" {
		cfg.Net, cfg.Addr = "unix", sock
	} else {
		host, port := u.Hostname(), u.Port()
		if port == "" {
			port = "3306"
		}
		cfg.Net, cfg.Addr = "tcp", net.JoinHostPort(host, port)
	}
	cfg.Timeout = 10 * time.Second
	cfg.DialFunc = t.Dial(dialFor(t))
	cfg.CheckConnLiveness = false
	cfg.InterpolateParams = false
	cfg.AllowNativePasswords = true
	tc, err := tlsconf.Client(t.TLS, u.Hostname(), t.Probe)
	if err != nil {
		return nil, err
	}
	if tc != nil {
		cfg.TLS = tc
	} else {
		cfg.TLSConfig = "false"
	}
	return cfg, nil
}

func (Engine) Connect(ctx context.Context, t engine.Target) (engine.Conn, error) {
	cfg, err := config(t)
	if err != nil {
		return nil, err
	}
	connector, err := gomysql.NewConnector(cfg)
	if err != nil {
		return nil, errs.Usage("invalid MySQL DSN %s: %w", t.Redacted(), engine.Scrub(err, t.URL))
	}
	dc, err := connector.Connect(ctx)
	if err != nil {
		return nil, engine.ConnectError(t, err)
	}
	return &conn{dc: dc}, nil
}

func (Engine) ServerInfo(ctx context.Context, c engine.Conn) (engine.ServerInfo, error) {
	rows, err := c.Query(ctx, `SHOW GLOBAL VARIABLES WHERE Variable_name IN
		('version','version_comment','innodb_buffer_pool_size','innodb_flush_log_at_trx_commit',
		 'sync_binlog','have_ssl','innodb_encrypt_tables','innodb_doublewrite','max_connections',
		 'innodb_encrypt_log','innodb_encrypt_temporary_tables','innodb_flush_method','tls_version','require_secure_transport')`)
	if err != nil {
		return engine.ServerInfo{}, fmt.Errorf("reading server variables: %w", err)
	}
	info := engine.ServerInfo{Settings: map[string]string{}}
	for _, r := range rows {
		info.Settings[r[0]] = r[1]
	}
	info.Version = strings.TrimSpace(info.Settings["version_comment"] + " " + info.Settings["version"])
	if strings.Contains(strings.ToLower(info.Settings["version"]), "mariadb") {
		info.Version = "MariaDB " + info.Settings["version"]
	}
	return info, nil
}

// ClassifyError follows sysbench's --mysql-ignore-errors default
// ClassifyError maps MySQL error numbers to the error policy's kinds.
func (Engine) ClassifyError(err error) engine.ServerError {
	var me *gomysql.MySQLError
	if errors.As(err, &me) {
		e := engine.ServerError{Kind: engine.ErrServer, Code: strconv.Itoa(int(me.Number))}
		switch me.Number {
		case 1020: // ER_CHECKREAD: the record changed since it was read
			e.Kind = engine.ErrSerialization
		case 1213:
			e.Kind = engine.ErrDeadlock
		case 1205:
			e.Kind = engine.ErrLockTimeout
		case 1062:
			e.Kind = engine.ErrUniqueViolation
		case 1927, 1053, 2006, 2013, 4031:
			e.Kind = engine.ErrConnLost
		}
		return e
	}
	if errors.Is(err, driver.ErrBadConn) || errors.Is(err, gomysql.ErrInvalidConn) || engine.TransportLost(err) {
		return engine.ServerError{Kind: engine.ErrConnLost}
	}
	return engine.ServerError{Kind: engine.ErrFatal}
}

// ServerTime is the server's clock, for generators starting together.
func (Engine) ServerTime(ctx context.Context, c engine.Conn) (time.Time, error) {
	return engine.QueryTime(ctx, c, "SELECT UNIX_TIMESTAMP(NOW(6))")
}

// DefaultIgnoredErrors is sysbench's --mysql-ignore-errors default.
func (Engine) DefaultIgnoredErrors() []string { return []string{"1213", "1020", "1205"} }

type conn struct {
	dc driver.Conn
}

func (c *conn) Exec(ctx context.Context, sql string) error {
	_, err := c.dc.(driver.ExecerContext).ExecContext(ctx, sql, nil)
	return err
}

func (c *conn) Query(ctx context.Context, sql string) ([][]string, error) {
	rows, err := c.dc.(driver.QueryerContext).QueryContext(ctx, sql, nil)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	dest := make([]driver.Value, len(rows.Columns()))
	var out [][]string
	for {
		if err := rows.Next(dest); err != nil {
			if errors.Is(err, io.EOF) {
				return out, nil
			}
			return nil, err
		}
		row := make([]string, len(dest))
		for i, v := range dest {
			switch x := v.(type) {
			case nil:
			case []byte:
				row[i] = string(x)
			default:
				row[i] = fmt.Sprint(x)
			}
		}
		out = append(out, row)
	}
}

func (c *conn) Prepare(ctx context.Context, sql string) (engine.Stmt, error) {
	st, err := c.dc.(driver.ConnPrepareContext).PrepareContext(ctx, sql)
	if err != nil {
		return nil, fmt.Errorf("preparing %q: %w", sql, err)
	}
	n := st.NumInput()
	s := &stmt{st: st, values: make([]driver.Value, n)}
	s.query = isQuery(sql)
	return s, nil
}

func isQuery(sql string) bool {
	f := strings.ToUpper(strings.Fields(sql)[0])
	return f == "SELECT" || f == "SHOW" || f == "WITH"
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
	return st, nil
}

func (c *conn) Close() error { return c.dc.Close() }

type stmt struct {
	st     driver.Stmt
	query  bool
	values []driver.Value
	dest   []driver.Value
	out    [][]byte
	num    [][]byte
}

func (s *stmt) bind(args []engine.Arg) {
	for i := range args {
		switch {
		case args[i].Null:
			s.values[i] = nil
		case args[i].Str != nil:
			s.values[i] = args[i].Str
		default:
			s.values[i] = args[i].Int
		}
	}
}

// Exec uses the binary protocol; rows are read and dropped without copying.
func (s *stmt) Exec(args []engine.Arg) error {
	s.bind(args)
	if !s.query {
		//lint:ignore SA1019 the context-free call avoids a watcher per statement
		_, err := s.st.Exec(s.values) //nolint:staticcheck
		return err
	}
	return s.rows(nil)
}

// Query hands rows over as bytes: integers formatted into reused buffers.
func (s *stmt) Query(args []engine.Arg, row func([][]byte) error) error {
	s.bind(args)
	return s.rows(row)
}

func (s *stmt) rows(row func([][]byte) error) error {
	// QueryContext would copy the arguments into NamedValues and back on
	// every call; with no context to watch, the plain form is the same.
	//lint:ignore SA1019 hot path, see above
	rows, err := s.st.Query(s.values)
	if err != nil {
		return err
	}
	defer rows.Close()
	// A prepared statement's columns never change: ask the driver once,
	// since Columns builds a fresh slice of names on every call.
	if s.dest == nil {
		s.dest = make([]driver.Value, len(rows.Columns()))
		s.out = make([][]byte, len(s.dest))
		s.num = make([][]byte, len(s.dest))
	}
	for {
		if err := rows.Next(s.dest); err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
		if row == nil {
			continue
		}
		for i, v := range s.dest {
			switch x := v.(type) {
			case nil:
				s.out[i] = nil
			case []byte:
				s.out[i] = x
			case int64:
				s.num[i] = strconv.AppendInt(s.num[i][:0], x, 10)
				s.out[i] = s.num[i]
			case float64:
				s.num[i] = strconv.AppendFloat(s.num[i][:0], x, 'f', -1, 64)
				s.out[i] = s.num[i]
			default:
				s.num[i] = fmt.Append(s.num[i][:0], x)
				s.out[i] = s.num[i]
			}
		}
		if err := row(s.out); err != nil {
			return err
		}
	}
}

// dialFor picks raw-read sockets for runner workers (see netconn.DialRaw).
func dialFor(t engine.Target) engine.DialFunc {
	if t.Worker {
		return netconn.DialRaw
	}
	return netconn.Dial
}
