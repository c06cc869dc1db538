// Package engine defines what a database engine must offer encbench and keeps
// the registry that maps DSN schemes to engines, so callers never switch on
// an engine name.
package engine

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"maps"
	"net/url"
	"os"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/encbench/encbench/internal/errs"
)

// TLS modes, named as libpq names them.
const (
	TLSDisable    = "disable"
	TLSRequire    = "require"
	TLSVerifyCA   = "verify-ca"
	TLSVerifyFull = "verify-full"
)

// TLSOptions is how the client asks for transport encryption. Mode is always
// explicit: drivers that default to "prefer" would otherwise encrypt a run that
// claims to be plaintext.
type TLSOptions struct {
	Mode     string `json:"mode"`
	CAFile   string `json:"ca_file,omitempty"`
	CertFile string `json:"cert_file,omitempty"`
	KeyFile  string `json:"key_file,omitempty"`
	// Version pins the protocol: "1.2", "1.3" or "" for either.
	Version string `json:"version,omitempty"`
	// Cipher is a TLS 1.2 suite in OpenSSL's spelling, as servers take it.
	Cipher string `json:"cipher,omitempty"`
	// ServerName, when set, is the name verify-full checks instead of the
	// DSN's host (a connection through the network emulation's proxy).
	ServerName string `json:"server_name,omitempty"`
	// ServerKey, when set, is the key the server's certificate must have
	// (CertKey's names: ecdsa-p256, rsa-2048, rsa-4096); a run proves it.
	ServerKey string `json:"server_key,omitempty"`
	// ClientAuth says the server must see a client certificate on every
	// connection (mutual TLS); a run proves it from the server's view.
	ClientAuth bool `json:"client_auth,omitempty"`
}

// TLSOn is an alias of verify-full, the safe choice for a remote server.
const TLSOn = "on"

// Arg is one statement parameter: NULL if Null, else an integer unless
// Str is non-nil. Str goes to binary columns (BYTEA, VARBINARY) as raw bytes.
type Arg struct {
	Int  int64
	Str  []byte
	Null bool
}

// ByBytes orders arguments by their bytes, as a server orders binary
// values: an IN list sent in this order spares the server its sort.
func ByBytes(x, y Arg) int { return bytes.Compare(x.Str, y.Str) }

// SetSession runs one of a dialect's session statements on a connection,
// if the dialect has one (stmt ""): why says what it is for, in errors.
func SetSession(ctx context.Context, conn Conn, stmt, why string) error {
	if stmt == "" {
		return nil
	}
	if err := conn.Exec(ctx, stmt); err != nil {
		return fmt.Errorf("setting the session %s: %w", why, err)
	}
	return nil
}

// Stmt is a server-side prepared statement owned by one connection.
type Stmt interface {
	// Exec runs the statement and reads (and discards) every row it returns.
	Exec(args []Arg) error
	// Query runs the statement and hands each row to row: values in text
	// form (raw bytes for binary columns), nil for NULL, valid only during
	// the call.
	Query(args []Arg, row func(values [][]byte) error) error
}

// Described is a statement that knows the names of its result's columns,
// as the server described them when it was prepared (a script's \gset
// names variables after them).
type Described interface {
	Columns() []string
}

// SessionTLS is the server's own view of one connection's transport.
type SessionTLS struct {
	Encrypted bool   `json:"encrypted"`
	Version   string `json:"version,omitempty"`
	Cipher    string `json:"cipher,omitempty"`
	// ClientCert says the server verified a client certificate for the
	// session (PostgreSQL's pg_stat_ssl.client_dn; on MariaDB, an account
	// that requires X509 admits no session without one).
	ClientCert bool `json:"client_cert,omitempty"`
}

// LazyConnector is an engine whose driver separates building a client
// from connecting it (MongoDB's): NewClient returns before any server is
// reached, and the client's first operation discovers the server or the
// replica set and connects.
type LazyConnector interface {
	NewClient(ctx context.Context, t Target) (Conn, error)
}

// Conn is one pinned connection. It is not safe for concurrent use: a worker
// owns it. Hot-path calls (Stmt.Exec) use no context so drivers start no
// watcher goroutines per statement; callers bound runs by time between events.
type Conn interface {
	// Exec runs SQL text (DDL, data loading) and discards any rows.
	Exec(ctx context.Context, sql string) error
	// Query runs SQL text and returns every row as strings (NULL as "").
	Query(ctx context.Context, sql string) ([][]string, error)
	// Prepare prepares sql written with '?' placeholders.
	Prepare(ctx context.Context, sql string) (Stmt, error)
	// TLSState asks the server how this session is transported.
	TLSState(ctx context.Context) (SessionTLS, error)
	Close() error
}

// Dialect holds the SQL differences workloads need.
type Dialect struct {
	// Name is sysbench's driver name: "mysql" or "pgsql".
	Name string
	// AutoIncID is the column type of an auto-increment integer key.
	AutoIncID string
	// TableOptions follows CREATE TABLE (...), for example an ENGINE clause.
	TableOptions string
	// InsertAutoIncExplicitZero: MySQL assigns the next value for id=0.
	InsertAutoIncExplicitZero bool
	// ListTables returns the table names of the connection's current schema.
	ListTables string
	// TLSProofSource names where the server's view of a session's TLS is read.
	TLSProofSource string
	// Timestamp is the column type of a date and time without zone.
	Timestamp string
	// SetIsolation is a statement with one %s for the isolation level
	// ("READ COMMITTED", ...) that applies to the session's transactions.
	SetIsolation string
	// SerializableScans is a session statement a SERIALIZABLE session runs so
	// that its conflict checks do not depend on the planner's choice of scan
	// ("" when none is needed). PostgreSQL's serializable snapshot isolation
	// takes a predicate lock on the whole relation for a sequential scan,
	// and its planner scans a table of one page (TPC-C's warehouse and
	// district at one warehouse): every transaction that reads such a table
	// then conflicts with every one that writes it, until the table grows
	// and an index takes over - at a different moment on each server.
	// PostgreSQL's manual (13.2.3, "Serializable Isolation Level") advises
	// encouraging index scans; enable_seqscan = off does it for the session.
	SerializableScans string
	// ShowIsolation reads the session's isolation level: the last column
	// of its first row, as "read committed" or "REPEATABLE-READ".
	ShowIsolation string
	// AfterLoad is a statement with one %s for a table just loaded: it
	// refreshes the planner's statistics and, on PostgreSQL, the visibility
	// map (VACUUM, as pgbench's initialisation does), so index-only scans do
	// not visit the heap and autovacuum does not do it mid-run instead.
	AfterLoad string
	// Explain prefixes a statement to get the server's plan of it.
	Explain string
	// BytesLiteral writes bytes as a literal (for EXPLAIN of a statement
	// with binary arguments).
	BytesLiteral func(b []byte) string
	// TableSize is a query with one %s for a table of the current schema
	// returning its row count as the server's statistics have it, the
	// bytes of its data and of its indexes, from the server's own size
	// functions.
	TableSize string
}

// ServerInfo describes the server a target points at.
type ServerInfo struct {
	Version  string            `json:"version"`
	Settings map[string]string `json:"settings,omitempty"`
}

// Target is a parsed, validated DSN plus the TLS choice for it.
type Target struct {
	Engine Engine
	URL    *url.URL
	TLS    TLSOptions
	// Probe, when set, watches the TLS handshakes of new connections.
	Probe *TLSProbe
	// Worker marks a benchmark worker's own connection: engines may use
	// I/O that assumes the goroutine has a thread and P to itself.
	Worker bool
	// WrapDial, when set, wraps the socket dialer the engine would use
	// (beneath TLS), for a connection that must pass through something of
	// the caller's: a delay, or a test's slowed writes.
	WrapDial func(DialFunc) DialFunc
	// tlsParams are the DSN's TLS parameters, taken out of URL (WithTLS).
	tlsParams url.Values
}

// ConnectTimeout bounds a connection's set-up (TCP, TLS, authentication
// and the engine's first statements) when the caller's context allows
// longer: a server that accepts but never answers (stopped, overloaded)
// ends the attempt with an error instead of holding it.
const ConnectTimeout = 10 * time.Second

// SetUpStatementTimeout bounds a set-up statement (loading, indexing,
// vacuuming, proving, settling) whose context has no deadline of its own:
// long enough for any index build a benchmark data set needs, and still a
// bound, so a server that stops answering in the middle of a prepare fails
// it instead of holding it forever.
const SetUpStatementTimeout = 2 * time.Hour

// SetUpDeadline is ctx's deadline, or SetUpStatementTimeout from now.
func SetUpDeadline(ctx context.Context) time.Time {
	if dl, ok := ctx.Deadline(); ok {
		return dl
	}
	return time.Now().Add(SetUpStatementTimeout)
}

// DefaultReconnectTimeout is how long a worker tries to reconnect after
// losing its connection, and the most any wait for the server may take
// (--reconnect-timeout's default).
const DefaultReconnectTimeout = 10 * time.Second

// BoundConnect returns ctx bounded by ConnectTimeout, unless ctx ends sooner.
func BoundConnect(ctx context.Context) (context.Context, context.CancelFunc) {
	if dl, ok := ctx.Deadline(); ok && time.Until(dl) <= ConnectTimeout {
		return context.WithCancel(ctx)
	}
	return context.WithTimeout(ctx, ConnectTimeout)
}

// Redacted is the DSN without its password, safe for logs and results.
func (t Target) Redacted() string { return Redact(t.URL) }

// Engine is one database engine family.
type Engine interface {
	// Kind is the engine's name in results ("postgres", "mysql").
	Kind() string
	// Schemes are the DSN schemes it accepts.
	Schemes() []string
	Dialect() Dialect
	// Validate checks a DSN's shape and options without connecting.
	Validate(u *url.URL, tls TLSOptions) error
	Connect(ctx context.Context, t Target) (Conn, error)
	ServerInfo(ctx context.Context, c Conn) (ServerInfo, error)
	// ClassifyError says what a failed statement's error means to the
	// runner's error policy, with the server's own code.
	ClassifyError(err error) ServerError
	// DefaultIgnoredErrors is what --ignore-errors means when not given:
	// the errors sysbench's driver for this engine ignores.
	DefaultIgnoredErrors() []string
}

type registry struct {
	mu      sync.RWMutex
	engines map[string]Engine
}

// engines is the process-wide registry, filled by init functions of the
// engine packages; it is written only during package initialisation.
var engines = &registry{engines: map[string]Engine{}}

// Register makes an engine available for its DSN schemes. A scheme taken
// already is a programming error found at start-up, so it panics.
func Register(e Engine) {
	if err := engines.add(e); err != nil {
		panic(err)
	}
}

func (r *registry) add(e Engine) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, s := range e.Schemes() {
		if old, ok := r.engines[s]; ok {
			return fmt.Errorf("DSN scheme %q of engine %s is registered already by engine %s", s, e.Kind(), old.Kind())
		}
	}
	for _, s := range e.Schemes() {
		r.engines[s] = e
	}
	return nil
}

// Schemes lists every registered DSN scheme.
func Schemes() []string {
	engines.mu.RLock()
	defer engines.mu.RUnlock()
	out := make([]string, 0, len(engines.engines))
	for s := range engines.engines {
		out = append(out, s)
	}
	sort.Strings(out)
	return out
}

// keywordValue recognises libpq's keyword/value form ("host=db1 ...").
var keywordValue = regexp.MustCompile(`^\s*[A-Za-z_]+\s*=`)

// KeywordValueForm says whether s starts like libpq's keyword/value form,
// which engines with forms of their own must leave to PostgreSQL's.
func KeywordValueForm(s string) bool { return keywordValue.MatchString(s) }

// NativeDSN is an engine whose users also write DSNs in a form of their
// own (libpq's key=value, go-sql-driver's user@tcp(host)/db) or keep them
// in the environment (PG*): it turns them into its URL form.
type NativeDSN interface {
	// FromNative reads s ("" means: from the environment); ok is false
	// when s is not in the engine's form.
	FromNative(s string) (u *url.URL, ok bool, err error)
}

// parseDSN reads a URL DSN or an engine's native form.
func parseDSN(dsn string) (*url.URL, error) {
	if strings.Contains(dsn, "://") {
		u, err := url.Parse(dsn)
		if err != nil || u.Scheme == "" {
			return nil, errs.Usage("cannot parse DSN %s: expected scheme://user:password@host:port/database (percent-encode special characters in the password)", RedactDSN(dsn))
		}
		if misreadUserinfo(u) {
			return nil, errs.Usage("cannot parse DSN %s: the part before '@' has a '/', '?' or '#', so it reads as a path, query or fragment; percent-encode them in the user and password (%%2F, %%3F, %%23)", RedactDSN(dsn))
		}
		// A '#' ends a URL's query: what follows (often the rest of a
		// password=... value) would reach a driver outside any redaction.
		if u.Fragment != "" || strings.Contains(dsn, "#") {
			return nil, errs.Usage("cannot parse DSN %s: it has a '#', which ends the URL there; percent-encode it as %%23 in a password or option value", RedactDSN(dsn))
		}
		return u, nil
	}
	for _, e := range registered() {
		n, ok := e.(NativeDSN)
		if !ok {
			continue
		}
		u, ok, err := n.FromNative(dsn)
		if err != nil {
			return nil, err
		}
		if ok {
			// What the native form named must make a URL (no spaces in
			// a host, say): the URL is what engines and results use.
			if _, err := url.Parse(u.String()); err != nil {
				return nil, errs.Usage("cannot parse DSN %s: its host or options are not valid in a URL", Redact(&url.URL{Scheme: u.Scheme}))
			}
			return u, nil
		}
	}
	if dsn == "" {
		return nil, errs.Usage("no server given: pass --sandbox DIR (see encbench sandbox up) or --dsn, for example postgres://user@host:port/db, 'host=... dbname=...' or mysql://user@host:port/db")
	}
	return nil, errs.Usage("cannot parse DSN %s: use scheme://user:password@host:port/database, a libpq 'host=... dbname=...' string or user:password@tcp(host:port)/database", RedactDSN(dsn))
}

// registered lists each registered engine once, in scheme order.
func registered() []Engine {
	engines.mu.RLock()
	defer engines.mu.RUnlock()
	var out []Engine
	seen := map[string]bool{}
	for _, s := range slices.Sorted(maps.Keys(engines.engines)) {
		e := engines.engines[s]
		if !seen[e.Kind()] {
			seen[e.Kind()] = true
			out = append(out, e)
		}
	}
	return out
}

// ParseTarget parses a DSN in any accepted form, finds its engine and
// validates it.
func ParseTarget(dsn string, tls TLSOptions) (Target, error) {
	t, err := ParseDSN(dsn)
	if err != nil {
		return Target{}, err
	}
	return t.WithTLS(tls)
}

// ParseDSN parses a DSN once: its engine, and its URL with the TLS
// parameters it names (libpq's sslmode, sslrootcert, sslcert, sslkey, or
// the engine's own) set apart for WithTLS. Its TLS is the DSN's alone.
func ParseDSN(dsn string) (Target, error) {
	u, err := parseDSN(dsn)
	if err != nil {
		return Target{}, err
	}
	engines.mu.RLock()
	e, ok := engines.engines[u.Scheme]
	engines.mu.RUnlock()
	if !ok {
		return Target{}, errs.Usage("unknown DSN scheme %q: use one of %s", u.Scheme, strings.Join(Schemes(), ", "))
	}
	q := u.Query()
	all := maps.Clone(q)
	applyTLSParams(e, q, TLSOptions{})
	tlsParams := url.Values{}
	for k, v := range all {
		if _, kept := q[k]; !kept {
			tlsParams[k] = v
		}
	}
	u.RawQuery = q.Encode()
	return Target{Engine: e, URL: u, TLS: TLSOptions{Mode: TLSDisable}, tlsParams: tlsParams}, nil
}

// WithTLS is the target with the TLS the flags give, what they leave
// unset taken from the DSN's TLS parameters (flags win), checked.
func (t Target) WithTLS(tls TLSOptions) (Target, error) {
	tls = applyTLSParams(t.Engine, maps.Clone(t.tlsParams), tls)
	switch tls.Mode {
	case TLSOn:
		tls.Mode = TLSVerifyFull
	case TLSDisable, TLSRequire, TLSVerifyCA, TLSVerifyFull:
	default:
		return Target{}, errs.Usage("unknown --tls mode %q: use disable, require, verify-ca or verify-full", tls.Mode)
	}
	if (tls.Mode == TLSVerifyCA || tls.Mode == TLSVerifyFull) && tls.CAFile == "" {
		return Target{}, errs.Usage("--tls %s needs --tls-ca FILE (the CA that signed the server certificate)", tls.Mode)
	}
	if (tls.CertFile == "") != (tls.KeyFile == "") {
		return Target{}, errs.Usage("--tls-cert and --tls-key must be given together")
	}
	if tls.Version != "" && tls.Version != "1.2" && tls.Version != "1.3" {
		return Target{}, errs.Usage("unknown --tls-version %q: use 1.2 or 1.3", tls.Version)
	}
	if err := t.Engine.Validate(t.URL, tls); err != nil {
		return Target{}, err
	}
	u := *t.URL
	t.URL, t.TLS = &u, tls
	return t, nil
}

// URITLSReader is an engine whose DSNs spell TLS their own way (MongoDB's
// tls=true, tlsCAFile, ...); it moves those options from q into tls.
type URITLSReader interface {
	TLSFromURI(q url.Values, tls TLSOptions) TLSOptions
}

// applyTLSParams fills what the flags left unset from libpq-style DSN
// parameters (sslmode, sslrootcert, sslcert, sslkey) and the engine's own,
// for every engine, and removes them from q: flags win, and with neither
// TLS is off.
func applyTLSParams(e Engine, q url.Values, tls TLSOptions) TLSOptions {
	fill := func(dst *string, key string) {
		if *dst == "" {
			*dst = q.Get(key)
		}
		q.Del(key)
	}
	fill(&tls.Mode, "sslmode")
	fill(&tls.CAFile, "sslrootcert")
	fill(&tls.CertFile, "sslcert")
	fill(&tls.KeyFile, "sslkey")
	if r, ok := e.(URITLSReader); ok {
		tls = r.TLSFromURI(q, tls)
	}
	if tls.Mode == "" {
		tls.Mode = TLSDisable
	}
	return tls
}

// Redact returns the URL as a string with any password replaced.
func Redact(u *url.URL) string {
	if u == nil {
		return ""
	}
	c := *u
	c.Fragment, c.RawFragment = "", ""
	if c.Opaque != "" {
		c.Opaque = "(not shown)"
	}
	if c.User != nil {
		if _, has := c.User.Password(); has {
			c.User = url.UserPassword(c.User.Username(), "xxxxx")
		}
	}
	q := c.Query()
	// Only parameters known to hold no secret keep their values.
	for k := range q {
		if !shownParams[strings.ToLower(k)] {
			q.Set(k, "xxxxx")
		}
	}
	c.RawQuery = q.Encode()
	return c.String()
}

// validScheme: a URL scheme (RFC 3986 3.1) of a sane length; anything
// else before "://" may be part of a secret.
func validScheme(s string) bool {
	if s == "" || len(s) > 16 || !(s[0] >= 'a' && s[0] <= 'z' || s[0] >= 'A' && s[0] <= 'Z') {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '+' || r == '-' || r == '.') {
			return false
		}
	}
	return true
}

// shownParams are DSN parameters whose values redacted DSNs keep.
var shownParams = map[string]bool{
	"host": true, "port": true, "dbname": true, "sslmode": true, "sslrootcert": true, "sslcert": true, "sslkey": true,
	"application_name": true, "connect_timeout": true, "target_session_attrs": true, "socket": true, "tls": true,
	"tlscafile": true, "tlscertificatekeyfile": true, "authsource": true, "authmechanism": true, "replicaset": true,
	"directconnection": true, "charset": true, "collation": true, "parsetime": true, "loc": true, "timeout": true,
}

// misreadUserinfo: a user or password with an unencoded '/', '?' or '#'
// ends the authority early, and the secret lands in the path, query or
// fragment, where a redaction would not look for it; an '@' there is the
// sign (one that belongs there is written %40).
func misreadUserinfo(u *url.URL) bool {
	return u.Opaque != "" || strings.Contains(u.EscapedPath()+"?"+u.RawQuery+"#"+u.Fragment, "@")
}

// RedactDSN is a DSN safe to print in any form: parsed, without its
// password; unparseable, only its scheme.
func RedactDSN(dsn string) string {
	if strings.Contains(dsn, "://") {
		u, err := url.Parse(dsn)
		if err == nil && u.Scheme != "" && !misreadUserinfo(u) {
			return Redact(u)
		}
		if scheme, _, _ := strings.Cut(dsn, "://"); validScheme(scheme) {
			return scheme + "://(unreadable, not shown)"
		}
		return "(unreadable DSN, not shown)"
	}
	for _, e := range registered() {
		if n, ok := e.(NativeDSN); ok && dsn != "" {
			if u, ok, err := n.FromNative(dsn); ok && err == nil {
				return Redact(u)
			}
		}
	}
	return "(unreadable DSN, not shown)"
}

// ConnectError wraps a connection failure with a hint on how to fix it;
// the driver's message is scrubbed of the DSN's secrets (Scrub).
// ConnectFailed is ConnectError for an attempt made under ctx: a driver
// that gave up because ctx ended says so in its own words ("unexpected
// EOF" once the socket is shut), so the context's own error is added.
func ConnectFailed(ctx context.Context, t Target, err error) error {
	if cerr := ctx.Err(); cerr != nil && !errors.Is(err, cerr) {
		err = fmt.Errorf("%w (%w)", err, cerr)
	}
	return ConnectError(t, err)
}

func ConnectError(t Target, err error) error {
	err = errs.OneLine(err)
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, os.ErrDeadlineExceeded) {
		return fmt.Errorf("cannot connect to %s: the server did not complete the connection's set-up in time: %w (is it stopped or overloaded?)", t.Redacted(), Scrub(err, t.URL))
	}
	return fmt.Errorf("cannot connect to %s: %w (check that the server is running, the address and credentials, and --tls)", t.Redacted(), Scrub(err, t.URL))
}

// Scrub returns err with every password and option value of u removed from
// its message, for a driver error that may echo them; errors.Is and As
// still see the driver's error beneath.
func Scrub(err error, u *url.URL) error {
	if err == nil || u == nil {
		return err
	}
	var secrets []string
	// As written, percent-encoded, and as %q would quote it.
	add := func(v string) {
		q := strconv.Quote(v)
		secrets = append(secrets, v, url.QueryEscape(v), url.PathEscape(v), q[1:len(q)-1])
	}
	if u.User != nil {
		if pw, ok := u.User.Password(); ok {
			add(pw)
		}
	}
	for k, vs := range u.Query() {
		if shownParams[strings.ToLower(k)] {
			continue
		}
		for _, v := range vs {
			add(v)
		}
	}
	// Longest first, so that no secret is left half-replaced by a shorter one.
	slices.SortFunc(secrets, func(a, b string) int { return len(b) - len(a) })
	msg := err.Error()
	for _, s := range secrets {
		// A value of one or two characters is no secret, and replacing
		// it would garble the message.
		if len(s) > 2 {
			msg = strings.ReplaceAll(msg, s, "xxxxx")
		}
	}
	if msg == err.Error() {
		return err
	}
	return &scrubbed{msg: msg, err: err}
}

type scrubbed struct {
	msg string
	err error
}

func (s *scrubbed) Error() string { return s.msg }
func (s *scrubbed) Unwrap() error { return s.err }

// TableTDE is the server's view of one table's encryption at rest.
type TableTDE struct {
	Encrypted bool   `json:"encrypted"`
	Detail    string `json:"detail,omitempty"`
	// Settling is true while the server is still (re)encrypting it.
	Settling bool `json:"settling,omitempty"`
}

// AtRest is implemented by engines whose servers can encrypt tables.
type AtRest interface {
	// TDETableOption returns what follows CREATE TABLE (...) to store a table
	// encrypted on this server, or a usage error saying why it cannot.
	TDETableOption(ctx context.Context, c Conn) (string, error)
	// TDEState asks the server how each table is stored.
	TDEState(ctx context.Context, c Conn, tables []string) (map[string]TableTDE, error)
	// TDESource names where TDEState reads from.
	TDESource() string
}

// AtRestSettings is implemented by engines whose servers encrypt logs and
// temporary files by global settings, apart from the tables.
type AtRestSettings interface {
	// GlobalAtRest reads those settings, by name.
	GlobalAtRest(ctx context.Context, c Conn) (map[string]string, error)
}

// Sizer reports the data set size and the server's buffer cache, which
// decide whether a run is I/O-bound (where TDE costs) or in memory.
type Sizer interface {
	DataBytes(ctx context.Context, c Conn, tables []string) (int64, error)
	BufferPoolBytes(ctx context.Context, c Conn) (int64, error)
}

// QuoteList renders names as a SQL list of string literals, for IN (...).
// Names come from workloads, never from users; quotes are dropped anyway.
func QuoteList(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = "'" + strings.ReplaceAll(n, "'", "") + "'"
	}
	return strings.Join(q, ",")
}

// WithDatabase is dsn naming another database on the same server, as a
// URL DSN (a native form is converted), with every other part kept.
func WithDatabase(dsn, database string) (string, error) {
	u, err := parseDSN(dsn)
	if err != nil {
		return "", err
	}
	c := *u
	c.Path, c.RawPath = "/"+database, ""
	return c.String(), nil
}

// Database is the database a DSN names ("" when it names none).
func Database(dsn string) (string, error) {
	u, err := parseDSN(dsn)
	if err != nil {
		return "", err
	}
	return strings.TrimPrefix(u.Path, "/"), nil
}
