// Package tlsrepl is TLS on the replication links: the connection a
// replica keeps to its primary (PostgreSQL's WAL streaming), as distinct
// from the clients' connections (layer tls). A replicated sandbox started
// with it has each replica verify the primary's certificate
// (primary_conninfo with sslmode=verify-full), and a run proves it from
// the primary's view of every replication connection: PostgreSQL's
// pg_stat_replication joined with pg_stat_ssl, MariaDB's (and MySQL's)
// performance_schema status of each binlog dump thread. A MariaDB
// replicated sandbox also checks each replica's own status when it
// starts (Master_SSL_Allowed, Master_SSL_Verify_Server_Cert) and gives
// the replicas' account REQUIRE SSL.
package tlsrepl

import (
	"context"
	"fmt"
	"strings"

	"github.com/encbench/encbench/internal/errs"
	"github.com/encbench/encbench/internal/layer"
	"github.com/encbench/encbench/internal/proof"
)

func init() { layer.Register(Layer{}) }

// Layer describes TLS on the replication links.
type Layer struct{}

func (Layer) Name() string { return "tls-repl" }
func (Layer) Summary() string {
	return "TLS on the replication links: each replica's connection to its primary (PostgreSQL's WAL streaming with sslmode=verify-full, MariaDB's binlog replication with MASTER_SSL and the certificate verified), beside the clients' connections (tls)"
}
func (Layer) Where() layer.Where                 { return layer.InTransit }
func (Layer) Options() []layer.Option            { return nil }
func (Layer) Aliases() []layer.Alias             { return nil }
func (Layer) Engines() []string                  { return []string{"postgres", "mariadb"} }
func (Layer) Check(map[string]string) error      { return nil }
func (Layer) OnServer() bool                     { return true }
func (Layer) ServerSpec(s layer.Spec) layer.Spec { return s }

// Open picks the engine's view of its replication connections.
func (Layer) Open(s layer.Spec, engineKind string) (layer.Active, error) {
	switch engineKind {
	case "postgres":
		return active{spec: s, query: pgQuery, source: "pg_stat_replication joined with pg_stat_ssl on the primary",
			unreadable: "the benchmark account needs pg_read_all_stats"}, nil
	case "mysql", "mariadb":
		return active{spec: s, query: mysqlQuery, source: "performance_schema.threads and status_by_thread (Ssl_version, Ssl_cipher) of each binlog dump thread on the primary",
			unreadable: "the primary needs performance_schema=ON and the benchmark account SELECT on performance_schema and PROCESS"}, nil
	}
	return nil, errs.Usage("tls-repl runs on PostgreSQL's and MySQL/MariaDB's replication; a %s server's replication links are not set up or proved by encbench", engineKind)
}

// pgQuery lists each WAL sender's replica and how its connection is
// transported, as the primary sees it.
// An account without pg_read_all_stats sees each replica's row with its
// columns hidden (state NULL): the fifth column says so.
const pgQuery = "SELECT r.application_name, coalesce(s.ssl, false)::text, coalesce(s.version, ''), coalesce(s.cipher, ''), (r.state IS NULL)::text " +
	"FROM pg_stat_replication r LEFT JOIN pg_stat_ssl s ON s.pid = r.pid ORDER BY r.application_name"

// mysqlQuery lists each binlog dump thread (a replica's session on the
// primary: MariaDB's "Binlog Dump", MySQL's "Binlog Dump GTID") with the
// TLS version and cipher of its session (” for plaintext).
const mysqlQuery = "SELECT concat(t.PROCESSLIST_USER, '@', coalesce(t.PROCESSLIST_HOST, ''), '#', t.PROCESSLIST_ID), " +
	"if(coalesce(c.VARIABLE_VALUE, '') <> '', 'true', 'false'), coalesce(v.VARIABLE_VALUE, ''), coalesce(c.VARIABLE_VALUE, '') " +
	"FROM performance_schema.threads t " +
	"LEFT JOIN performance_schema.status_by_thread v ON v.THREAD_ID = t.THREAD_ID AND v.VARIABLE_NAME = 'Ssl_version' " +
	"LEFT JOIN performance_schema.status_by_thread c ON c.THREAD_ID = t.THREAD_ID AND c.VARIABLE_NAME = 'Ssl_cipher' " +
	"WHERE t.PROCESSLIST_COMMAND LIKE 'Binlog Dump%' ORDER BY t.PROCESSLIST_ID"

// hidden says the server showed a replication connection but not its
// transport (the account lacks the privilege to see it).
func hidden(rows [][]string) bool {
	for _, r := range rows {
		if len(r) > 4 && r[4] == "true" {
			return true
		}
	}
	return false
}

type active struct {
	spec   layer.Spec
	query  string
	source string
	// unreadable says what reading the proof needs, for a server whose
	// view the benchmark account cannot read.
	unreadable string
}

func (a active) Spec() layer.Spec { return a.spec }
func (a active) Leakage() string  { return "tls_repl" }

// Require: a server with no replica attached has no link to encrypt.
func (a active) Require(ctx context.Context, env layer.Env) error {
	rows, err := env.Session.Query(ctx, a.query)
	if err != nil {
		return errs.Usage("tls-repl: reading the primary's replication connections: %v (%s)", errs.OneLine(err), a.unreadable)
	}
	if len(rows) == 0 {
		return errs.Usage("tls-repl: the server has no replica attached (%s list none): give a primary with replicas (sandbox up --replicas N)", a.source)
	}
	if hidden(rows) {
		return errs.Usage("tls-repl: the server hides its replication connections' transport from the benchmark account (%s)", a.unreadable)
	}
	return nil
}

// Prove reads every replication connection's transport from the
// primary's view: each must be TLS.
func (a active) Prove(ctx context.Context, env layer.Env) (proof.LayerProof, error) {
	p := proof.LayerProof{Layer: a.spec.String(), Source: a.source, Leakage: a.Leakage(), Facts: map[string]string{}}
	rows, err := env.Session.Query(ctx, a.query)
	if err != nil {
		return p, fmt.Errorf("tls-repl: reading the replication connections: %w", err)
	}
	if hidden(rows) {
		return p, fmt.Errorf("tls-repl: the server hides its replication connections' transport from the benchmark account (%s)", a.unreadable)
	}
	var plain []string
	for _, r := range rows {
		p.Checked++
		if r[1] == "true" {
			p.Proven++
			p.Facts[r[0]] = r[2] + " " + r[3]
		} else {
			plain = append(plain, r[0])
		}
	}
	switch {
	case p.Checked == 0:
		return p, fmt.Errorf("tls-repl: no replica is attached to the server")
	case len(plain) > 0:
		return p, fmt.Errorf("tls-repl: the replication connections of %s are not encrypted", strings.Join(plain, ", "))
	}
	return p, nil
}
