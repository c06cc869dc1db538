// Package postgres is the PostgreSQL engine, on pgx's low-level pgconn so a
// statement costs one round trip and no per-row decoding.
package postgres

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/encbench/encbench/internal/engine"
	"github.com/encbench/encbench/internal/engine/netconn"
	"github.com/encbench/encbench/internal/engine/tlsconf"
	"github.com/encbench/encbench/internal/errs"
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
		Timestamp:      "TIMESTAMP",
		AfterLoad:      "VACUUM (ANALYZE) %s",
		TableSize: "SELECT GREATEST(reltuples, 0)::bigint, pg_table_size(oid), pg_indexes_size(oid) FROM pg_class " +
			"WHERE oid = to_regclass('%s')",
		SetIsolation:      "SET SESSION CHARACTERISTICS AS TRANSACTION ISOLATION LEVEL %s",
		SerializableScans: "SET enable_seqscan = off",
		ShowIsolation:     "SHOW transaction_isolation",
		Explain:           "EXPLAIN ",
		BytesLiteral:      func(b []byte) string { return `'\x` + hex.EncodeToString(b) + `'` },
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
	// TLS is configured below from t.TLS, so sslmode's fallbacks (TLS,
	// then plaintext) never arise: what remains in cfg.Fallbacks are the
	// DSN's other hosts (host=a,b,c or postgres://a:1,b:2/db), tried as
	// libpq tries them, target_session_attrs included (pgconn implements
	// any, read-write, read-only, primary, standby and prefer-standby).
	q.Set("sslmode", "disable")
	u.RawQuery = q.Encode()
	cfg, err := pgconn.ParseConfig(u.String())
	if err != nil {
		return nil, errs.Usage("invalid PostgreSQL DSN %s: %w", t.Redacted(), engine.Scrub(err, t.URL))
	}
	if cfg.TLSConfig, err = tlsconf.Client(t.TLS, cfg.Host, t.Probe); err != nil {
		return nil, err
	}
	for _, fb := range cfg.Fallbacks {
		// Each host is verified under its own name.
		if fb.TLSConfig, err = tlsconf.Client(t.TLS, fb.Host, t.Probe); err != nil {
			return nil, err
		}
	}
	cfg.DialFunc = pgconn.DialFunc(t.Dial(dialFor(t)))
	ctx, cancel := engine.BoundConnect(ctx)
	defer cancel()
	pc, err := pgconn.ConnectConfig(ctx, cfg)
	if err != nil {
		return nil, engine.ConnectFailed(ctx, t, err)
	}
	// pgconn authenticates and negotiates TLS; statements then go over
	// pgproto3 directly (see wire.go).
	hj, settled, err := takeOver(ctx, pc)
	if err != nil {
		return nil, engine.ConnectFailed(ctx, t, err)
	}
	return newConn(hj.Conn, hj.Frontend, settled), nil
}

// takeOver hijacks pc as pgconn's contract asks (PgConn.Hijack: "SyncConn
// should be called immediately before Hijack").
//
// Why it matters: a write of the start-up or authentication exchange that
// takes longer than 15 ms (pgconn's slow-write timer; on a busy machine the
// writing thread only has to lose its CPU) starts pgconn's background
// reader. When the server has answered before the write returns, that
// reader has already issued its next read on the socket when pgconn stops
// it, and that read takes the first reply that arrives after it. A frontend
// of encbench's own over the bare socket would then wait for a reply that
// pgconn's reader took (the hangs of issue 54).
//
// SyncConn pings until that reader has stopped and pgconn's buffers are
// empty, which it usually does at once without a ping; it then returns nil
// and, as its contract says, the socket is ready for direct use: settled,
// and encbench reads replies from the socket itself. Its pings are writes
// too, and on a machine slow enough that each of its ten is slow it gives
// up with a read still in flight; then encbench goes on reading through the
// frontend pgconn built (hj.Frontend, which reads through pgconn's
// background reader): a reply the in-flight read takes is handed to that
// frontend, and once that read returns the reader is stopped and reads go
// straight to the socket. No byte is lost and no reader is left, whatever
// the scheduling (TestTakeOverLosesNoReply slows every write). Only an
// error of the connection itself, such as ctx's end, fails it.
func takeOver(ctx context.Context, pc *pgconn.PgConn) (hj *pgconn.HijackedConn, settled bool, err error) {
	syncErr := pc.SyncConn(ctx)
	if syncErr != nil && (ctx.Err() != nil || pc.IsClosed()) {
		pc.Close(context.Background())
		return nil, false, fmt.Errorf("settling the connection before taking it over: %w", syncErr)
	}
	if hj, err = pc.Hijack(); err != nil {
		pc.Close(context.Background())
		return nil, false, fmt.Errorf("taking over the connection: %w", err)
	}
	return hj, syncErr == nil, nil
}

func (Engine) ServerInfo(ctx context.Context, c engine.Conn) (engine.ServerInfo, error) {
	rows, err := c.Query(ctx, `SELECT name, current_setting(name) FROM pg_settings
		WHERE name IN ('server_version','shared_buffers','fsync','synchronous_commit','ssl','max_connections','wal_level','full_page_writes','ssl_min_protocol_version','wal_sync_method','deadlock_timeout','autovacuum')`)
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

// ClassifyError maps SQLSTATEs to the error policy's kinds; class 08
// and the shutdown codes 57P01-57P03 mean the session is gone.
func (Engine) ClassifyError(err error) engine.ServerError {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		e := engine.ServerError{Kind: engine.ErrServer, Code: pe.Code}
		switch {
		case pe.Code == "40001":
			e.Kind = engine.ErrSerialization
		case pe.Code == "40P01":
			e.Kind = engine.ErrDeadlock
		case pe.Code == "55P03":
			e.Kind = engine.ErrLockTimeout
		case pe.Code == "23505":
			e.Kind = engine.ErrUniqueViolation
		case pe.Code == "57P01" || pe.Code == "57P02" || pe.Code == "57P03" || strings.HasPrefix(pe.Code, "08"):
			e.Kind = engine.ErrConnLost
		}
		return e
	}
	if engine.TransportLost(err) {
		return engine.ServerError{Kind: engine.ErrConnLost}
	}
	return engine.ServerError{Kind: engine.ErrFatal}
}

// ServerTime is the server's clock, for generators starting together.
func (Engine) ServerTime(ctx context.Context, c engine.Conn) (time.Time, error) {
	return engine.QueryTime(ctx, c, "SELECT extract(epoch FROM clock_timestamp())::text")
}

// DefaultIgnoredErrors are sysbench's pgsql driver's: deadlocks,
// serialization failures and duplicate keys restart the event.
func (Engine) DefaultIgnoredErrors() []string { return []string{"40P01", "40001", "23505"} }

// dialFor picks raw-read sockets for runner workers (see netconn.DialRaw).
func dialFor(t engine.Target) engine.DialFunc {
	if t.Worker {
		return netconn.DialRaw
	}
	return netconn.Dial
}

// WatchReplicas (engine.ReplicationReader): the primary reports every
// replica in pg_stat_replication, so one session of its own reads them.
func (e Engine) WatchReplicas(ctx context.Context, t engine.Target) (engine.ReplicaWatch, error) {
	c, err := e.Connect(ctx, t)
	if err != nil {
		return nil, err
	}
	return replicaWatch{c}, nil
}

var _ engine.ReplicationReader = Engine{}

type replicaWatch struct{ c engine.Conn }

func (w replicaWatch) Close() error { return w.c.Close() }
func (replicaWatch) GTID() bool     { return false }

// Read reads pg_stat_replication: each WAL sender's replica, how far its
// replay is behind, its last lags.
func (w replicaWatch) Read(ctx context.Context) ([]engine.ReplicaState, int64, error) {
	c := w.c
	rows, err := c.Query(ctx, `SELECT application_name, sync_state,
		coalesce(pg_wal_lsn_diff(pg_current_wal_lsn(), replay_lsn), 0)::bigint,
		coalesce(extract(epoch FROM write_lag) * 1e6, 0)::bigint, coalesce(extract(epoch FROM flush_lag) * 1e6, 0)::bigint,
		coalesce(extract(epoch FROM replay_lag) * 1e6, 0)::bigint, (state IS NULL)::text
		FROM pg_stat_replication ORDER BY application_name`)
	if err != nil {
		return nil, 0, fmt.Errorf("reading pg_stat_replication: %w", err)
	}
	lsn, err := c.Query(ctx, "SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0')::bigint")
	if err != nil || len(lsn) != 1 || len(lsn[0]) != 1 {
		return nil, 0, fmt.Errorf("reading the WAL position: %v", err)
	}
	pos, _ := strconv.ParseInt(lsn[0][0], 10, 64)
	var out []engine.ReplicaState
	for _, r := range rows {
		if len(r) != 7 {
			return nil, 0, fmt.Errorf("pg_stat_replication gave a row of %d columns, not 7", len(r))
		}
		if r[6] == "true" {
			// The view shows a replica's row but hides its columns from
			// accounts without the privilege: lags read as 0 would be a lie.
			return nil, 0, fmt.Errorf("pg_stat_replication hides the replicas' positions and lags from the benchmark account: grant it pg_read_all_stats")
		}
		var n [4]int64
		for i := range n {
			n[i], _ = strconv.ParseInt(r[2+i], 10, 64)
		}
		out = append(out, engine.ReplicaState{Name: r[0], SyncState: r[1], LagBytes: n[0],
			WriteLag: time.Duration(n[1]) * time.Microsecond, FlushLag: time.Duration(n[2]) * time.Microsecond, ReplayLag: time.Duration(n[3]) * time.Microsecond})
	}
	return out, pos, nil
}

func (replicaWatch) Source() string {
	return "pg_stat_replication on the primary (replay LSN behind pg_current_wal_lsn(); write, flush and replay lag)"
}
