// Package mysql is the MySQL and MariaDB engine: go-sql-driver/mysql
// connects and authenticates (every plugin, TLS), then encbench speaks the
// protocol itself on that session (conn.go): one owned connection,
// server-side prepared statements, no database/sql pool in the way.
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
	"github.com/encbench/encbench/internal/engine/tlsconf"
	"github.com/encbench/encbench/internal/errs"
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
		TLSProofSource:            "SHOW SESSION STATUS Ssl_version/Ssl_cipher, SHOW GRANTS' REQUIRE",
		Timestamp:                 "DATETIME(6)",
		AfterLoad:                 "ANALYZE TABLE %s",
		TableSize: "SELECT TABLE_ROWS, DATA_LENGTH, INDEX_LENGTH FROM information_schema.TABLES " +
			"WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = '%s'",
		SetIsolation:  "SET SESSION TRANSACTION ISOLATION LEVEL %s",
		ShowIsolation: "SHOW SESSION VARIABLES WHERE Variable_name IN ('transaction_isolation', 'tx_isolation')", // MySQL 8, MariaDB < 11.1
		Explain:       "EXPLAIN FORMAT=JSON ",
		BytesLiteral:  func(b []byte) string { return "X'" + hex.EncodeToString(b) + "'" },
	}
}

func (Engine) Validate(u *url.URL, tls engine.TLSOptions) error {
	if u.Host == "" && u.Query().Get("socket") == "" {
		return errs.Usage("DSN %s has no host: use mysql://user@127.0.0.1:3306/db", engine.Redact(u))
	}
	if v := u.Query().Get("tls"); v != "" {
		return errs.Usage("DSN sets tls=%s: drop it from the DSN and use --tls", v)
	}
	return checkHosts(u)
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
	ctx, cancel := engine.BoundConnect(ctx)
	defer cancel()
	c, _, err := connectAny(ctx, t)
	if err != nil {
		var usage *errs.UsageError
		if errors.As(err, &usage) {
			return nil, err
		}
		return nil, engine.ConnectFailed(ctx, t, err)
	}
	return c, nil
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

// dialFor picks raw-read sockets for runner workers (see netconn.DialRaw).
func dialFor(t engine.Target) engine.DialFunc {
	if t.Worker {
		return netconn.DialRaw
	}
	return netconn.Dial
}
