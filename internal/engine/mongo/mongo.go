// Package mongo is the MongoDB engine (mongo-driver v2). It runs the
// document workloads (connect, ycsb); SQL workloads are refused.
package mongo

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/encbench/encbench/internal/engine"
	"github.com/encbench/encbench/internal/engine/netconn"
	"github.com/encbench/encbench/internal/engine/tlsconf"
	"github.com/encbench/encbench/internal/errs"
)

func init() { engine.Register(Engine{}) }

// ferretdbField is what FerretDB adds to buildInfo: results measured on it
// say so, since its timings are not mongod's.
const ferretdbField = "ferretdbVersion"

// Engine is MongoDB.
type Engine struct{}

func (Engine) Kind() string      { return "mongodb" }
func (Engine) Schemes() []string { return []string{"mongodb"} }

func (Engine) Dialect() engine.Dialect {
	return engine.Dialect{Name: "mongodb",
		TLSProofSource: "the client's TLS handshake (MongoDB reports no per-connection TLS state)"}
}

func (Engine) Validate(u *url.URL, _ engine.TLSOptions) error {
	if u.Host == "" {
		return errs.Usage("MongoDB URI %s has no host: use mongodb://user:pass@127.0.0.1:27017/db?tls=false", engine.Redact(u))
	}
	if u.Query().Has("target_session_attrs") {
		return errs.Usage("target_session_attrs is libpq's choice among hosts; a MongoDB URI says readPreference=secondary (or primary, secondaryPreferred, nearest) and the driver discovers the replica set")
	}
	return nil
}

// dialer adapts a dial function to the driver's ContextDialer.
type dialer engine.DialFunc

func (d dialer) DialContext(ctx context.Context, network, address string) (net.Conn, error) {
	return d(ctx, network, address)
}

func database(u *url.URL) string {
	if db := strings.TrimPrefix(u.Path, "/"); db != "" {
		return db
	}
	return "encbench"
}

// Connect creates a client and waits until it can run a command: for
// MongoDB "connected" means a ready client, as drivers hand it out.
func (e Engine) Connect(ctx context.Context, t engine.Target) (engine.Conn, error) {
	c, err := e.NewClient(ctx, t)
	if err != nil {
		return nil, err
	}
	pctx, cancel := engine.BoundConnect(ctx)
	defer cancel()
	if err := c.(*conn).db.RunCommand(pctx, bson.D{{Key: "ping", Value: 1}}).Err(); err != nil {
		_ = c.Close()
		return nil, engine.ConnectFailed(pctx, t, err)
	}
	return c, nil
}

var _ engine.LazyConnector = Engine{}

// NewClient builds the driver's client without waiting for it
// (engine.LazyConnector): mongo.Connect returns at once and its monitors
// connect in the background, so the first operation waits for the
// server's (or the replica set's) discovery and its own connection, as
// R2's pymongo client did.
func (Engine) NewClient(ctx context.Context, t engine.Target) (engine.Conn, error) {
	probe := t.Probe
	if probe == nil {
		probe = &engine.TLSProbe{}
	}
	// A seed list (or a replicaSet= URI) is a replica set the driver
	// discovers, verifying each member under its own name; one host
	// without replicaSet is a direct connection to that server.
	q := t.URL.Query()
	discover := strings.Contains(t.URL.Host, ",") || q.Has("replicaSet")
	serverName := t.URL.Hostname()
	if discover {
		serverName = ""
	}
	tc, err := tlsconf.Client(t.TLS, serverName, probe)
	if err != nil {
		return nil, err
	}
	var nd net.Dialer
	// The driver's sockets are counted (netconn.Count) and pass through
	// the target's wrappers (a delay, a run's traffic meter) like the
	// other engines'.
	t.Probe = probe
	opts := options.Client().ApplyURI(t.URL.String()).
		SetMaxPoolSize(1).
		SetServerMonitoringMode(options.ServerMonitoringModePoll).
		SetDialer(dialer(t.Dial(netconn.Count(nd.DialContext))))
	if !discover && !q.Has("directConnection") {
		opts.SetDirect(true)
	}
	// A bad address or TLS mismatch fails within 10 s unless the URI says otherwise.
	if q := t.URL.Query(); !q.Has("serverSelectionTimeoutMS") {
		opts.SetServerSelectionTimeout(10 * time.Second)
	}
	if q := t.URL.Query(); !q.Has("connectTimeoutMS") {
		opts.SetConnectTimeout(10 * time.Second)
	}
	if tc != nil {
		opts.SetTLSConfig(tc)
	}
	client, err := mongo.Connect(opts)
	if err != nil {
		return nil, errs.Usage("invalid MongoDB URI %s: %w", t.Redacted(), engine.Scrub(err, t.URL))
	}
	return &conn{client: client, db: client.Database(database(t.URL)), probe: probe, tls: tc != nil}, nil
}

func (Engine) ServerInfo(ctx context.Context, c engine.Conn) (engine.ServerInfo, error) {
	mc, ok := c.(*conn)
	if !ok {
		return engine.ServerInfo{}, fmt.Errorf("not a MongoDB connection")
	}
	var bi bson.M
	if err := mc.client.Database("admin").RunCommand(ctx, bson.D{{Key: "buildInfo", Value: 1}}).Decode(&bi); err != nil {
		return engine.ServerInfo{}, fmt.Errorf("reading buildInfo: %w", err)
	}
	info := engine.ServerInfo{Version: fmt.Sprintf("MongoDB %v", bi["version"]), Settings: map[string]string{}}
	if fv, ok := bi[ferretdbField]; ok {
		info.Version = fmt.Sprintf("FerretDB %v (MongoDB %v wire protocol), not mongod: its timings are not MongoDB's", fv, bi["version"])
		info.Settings["ferretdb"] = fmt.Sprint(fv)
	}
	info.Settings["tls"] = fmt.Sprint(mc.tls)
	return info, nil
}

// ClassifyError maps MongoDB's codes and labels to the error policy's
// kinds: a TransientTransactionError (a write conflict) may be retried.
func (Engine) ClassifyError(err error) engine.ServerError {
	if mongo.IsNetworkError(err) {
		return engine.ServerError{Kind: engine.ErrConnLost}
	}
	var se mongo.ServerError
	if !errors.As(err, &se) {
		return engine.ServerError{Kind: engine.ErrFatal}
	}
	e := engine.ServerError{Kind: engine.ErrServer}
	var ce mongo.CommandError
	if errors.As(err, &ce) {
		e.Code = strconv.Itoa(int(ce.Code))
	}
	switch {
	case se.HasErrorLabel("TransientTransactionError") || se.HasErrorCode(112):
		e.Kind = engine.ErrSerialization
	case mongo.IsDuplicateKeyError(err):
		e.Kind = engine.ErrUniqueViolation
	case se.HasErrorCode(11600) || se.HasErrorCode(91) || se.HasErrorCode(189):
		e.Kind = engine.ErrConnLost // interrupted at shutdown, shutting down, stepping down
	}
	if e.Code == "" {
		if codes := errorCodes(err); len(codes) > 0 {
			e.Code = strconv.Itoa(codes[0])
		}
	}
	return e
}

// errorCodes are a write error's codes (a WriteException carries them
// per write, not as a CommandError).
func errorCodes(err error) []int {
	var we mongo.WriteException
	if !errors.As(err, &we) {
		return nil
	}
	var out []int
	for _, w := range we.WriteErrors {
		out = append(out, w.Code)
	}
	if we.WriteConcernError != nil {
		out = append(out, we.WriteConcernError.Code)
	}
	return out
}

// DefaultIgnoredErrors: write conflicts, as the SQL drivers' deadlocks.
func (Engine) DefaultIgnoredErrors() []string { return []string{"serialization"} }

// conn is one MongoDB client with a single pooled connection.
type conn struct {
	client *mongo.Client
	db     *mongo.Database
	probe  *engine.TLSProbe
	tls    bool
}

var errNoSQL = errs.Usage("MongoDB runs the connect and ycsb workloads; SQL workloads need a postgres:// or mysql:// target")

func (c *conn) Exec(context.Context, string) error                   { return errNoSQL }
func (c *conn) Query(context.Context, string) ([][]string, error)    { return nil, errNoSQL }
func (c *conn) Prepare(context.Context, string) (engine.Stmt, error) { return nil, errNoSQL }
func (c *conn) Close() error                                         { return c.client.Disconnect(context.Background()) }

// TLSState is the client's view: MongoDB has no per-connection TLS state
// to ask for, so the handshake the client made is the evidence.
func (c *conn) TLSState(context.Context) (engine.SessionTLS, error) {
	h := c.probe.Last()
	if !c.tls || h.Version == 0 {
		return engine.SessionTLS{}, nil
	}
	return engine.SessionTLS{Encrypted: true, Version: tls.VersionName(h.Version), Cipher: tls.CipherSuiteName(h.Cipher)}, nil
}

func (c *conn) Collections(ctx context.Context) ([]string, error) {
	names, err := c.db.ListCollectionNames(ctx, bson.D{})
	if err != nil {
		return nil, fmt.Errorf("listing collections: %w", err)
	}
	return names, nil
}

func (c *conn) Drop(ctx context.Context, name string) error {
	if err := c.db.Collection(name).Drop(ctx); err != nil {
		return fmt.Errorf("dropping %s: %w", name, err)
	}
	return nil
}

func (c *conn) InsertMany(ctx context.Context, name string, docs []any) error {
	if _, err := c.db.Collection(name).InsertMany(ctx, docs); err != nil {
		return fmt.Errorf("inserting into %s: %w", name, err)
	}
	return nil
}

func (c *conn) FindByID(ctx context.Context, name string, id any) (bool, error) {
	err := c.db.Collection(name).FindOne(ctx, bson.D{{Key: "_id", Value: id}}).Err()
	if errors.Is(err, mongo.ErrNoDocuments) {
		return false, nil
	}
	return err == nil, err
}

func (c *conn) UpdateByID(ctx context.Context, name string, id any, set map[string]any) error {
	if _, err := c.db.Collection(name).UpdateByID(ctx, id, bson.D{{Key: "$set", Value: set}}); err != nil {
		return fmt.Errorf("updating %s: %w", name, err)
	}
	return nil
}

func (c *conn) InsertOne(ctx context.Context, name string, doc any) error {
	if _, err := c.db.Collection(name).InsertOne(ctx, doc); err != nil {
		return fmt.Errorf("inserting into %s: %w", name, err)
	}
	return nil
}

func (c *conn) ScanFrom(ctx context.Context, name string, start any, n int) (int, error) {
	cur, err := c.db.Collection(name).Find(ctx, bson.D{{Key: "_id", Value: bson.D{{Key: "$gte", Value: start}}}},
		options.Find().SetSort(bson.D{{Key: "_id", Value: 1}}).SetLimit(int64(n)))
	if err != nil {
		return 0, fmt.Errorf("scanning %s: %w", name, err)
	}
	defer cur.Close(ctx)
	read := 0
	for cur.Next(ctx) {
		read++
	}
	return read, cur.Err()
}

func (c *conn) Count(ctx context.Context, name string) (int64, error) {
	n, err := c.db.Collection(name).CountDocuments(ctx, bson.D{})
	if err != nil {
		return 0, fmt.Errorf("counting %s: %w", name, err)
	}
	return n, nil
}

// TLSFromURI reads MongoDB's spelling: tls=true|false, tlsCAFile, tlsCertificateKeyFile
// (certificate and key in one file), tlsInsecure. Option names match
// whatever their case, as the driver matches them (TLS=true is tls=true).
func (Engine) TLSFromURI(q url.Values, tls engine.TLSOptions) engine.TLSOptions {
	// Flags win: the URI's tlsInsecure cannot weaken an explicit --tls.
	flagMode := tls.Mode != ""
	// take removes every spelling of an option and returns its value; two
	// different values are refused below, as an invalid mode.
	take := func(name string) (string, bool) {
		var v string
		clash := false
		for k, vs := range q {
			if strings.EqualFold(k, name) {
				for _, x := range vs {
					clash = clash || v != "" && x != v
					v = x
				}
				q.Del(k)
			}
		}
		return v, clash
	}
	clashes := false
	fill := func(dst *string, key string) {
		v, clash := take(key)
		clashes = clashes || clash
		if *dst == "" {
			*dst = v
		}
	}
	for _, key := range []string{"tls", "ssl"} {
		v, clash := take(key)
		clashes = clashes || clash
		if v != "" && tls.Mode == "" {
			switch strings.ToLower(v) {
			case "true":
				tls.Mode = engine.TLSVerifyFull
			case "false":
				tls.Mode = engine.TLSDisable
			default:
				tls.Mode = key + "=" + v // rejected below with the valid modes
			}
		}
	}
	insecure, clash1 := take("tlsInsecure")
	allowInvalid, clash2 := take("tlsAllowInvalidCertificates")
	clashes = clashes || clash1 || clash2
	if strings.EqualFold(insecure, "true") || strings.EqualFold(allowInvalid, "true") {
		if tls.Mode == engine.TLSVerifyFull && !flagMode {
			tls.Mode = engine.TLSRequire
		}
	}
	fill(&tls.CAFile, "tlsCAFile")
	var keyFile string
	fill(&keyFile, "tlsCertificateKeyFile")
	if keyFile != "" && tls.CertFile == "" {
		tls.CertFile, tls.KeyFile = keyFile, keyFile
	}
	if clashes && !flagMode {
		tls.Mode = "(a TLS option given twice with different values)"
	}
	return tls
}
