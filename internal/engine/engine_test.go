package engine_test

import (
	"context"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/encbench/encbench/internal/engine"
	_ "github.com/encbench/encbench/internal/engine/mongo"
	_ "github.com/encbench/encbench/internal/engine/mysql"
	_ "github.com/encbench/encbench/internal/engine/postgres"
	"github.com/encbench/encbench/internal/errs"
)

var off = engine.TLSOptions{Mode: engine.TLSDisable}

func TestParseTargetFindsEngineByScheme(t *testing.T) {
	for dsn, kind := range map[string]string{
		"postgres://u@127.0.0.1:5432/db":   "postgres",
		"postgresql://u@127.0.0.1:5432/db": "postgres",
		"mysql://u@127.0.0.1:3306/db":      "mysql",
		"mariadb://u@127.0.0.1:3306/db":    "mysql",
	} {
		tg, err := engine.ParseTarget(dsn, off)
		if err != nil {
			t.Fatalf("%s: %v", dsn, err)
		}
		if tg.Engine.Kind() != kind {
			t.Errorf("%s: engine %s, want %s", dsn, tg.Engine.Kind(), kind)
		}
	}
}

func TestParseTargetRejectsBadInputAsUsage(t *testing.T) {
	cases := []struct {
		dsn  string
		tls  engine.TLSOptions
		want string
	}{
		{"", off, "no server given"},
		{"oracle://u@h/db", off, "unknown DSN scheme"},
		{"127.0.0.1:5432", off, "cannot parse DSN"},
		{"postgres://u@h/db", engine.TLSOptions{Mode: "prefer"}, "unknown --tls mode"},
		{"postgres://u@h/db", engine.TLSOptions{Mode: engine.TLSVerifyFull}, "needs --tls-ca"},
		{"postgres://u@h/db?sslmode=prefer", engine.TLSOptions{}, "unknown --tls mode \"prefer\""},
		{"mysql://u@h/db?tls=true", off, "drop it from the DSN"},
		{"postgres://u@h/db", engine.TLSOptions{Mode: engine.TLSRequire, CertFile: "c.pem"}, "together"},
	}
	for _, c := range cases {
		_, err := engine.ParseTarget(c.dsn, c.tls)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want one mentioning %q", c.dsn, err, c.want)
			continue
		}
		if errs.ExitCode(err) != 2 {
			t.Errorf("%q: exit code %d, want 2", c.dsn, errs.ExitCode(err))
		}
	}
}

// TLS settings come from the flags first, then libpq-style DSN parameters
// (for every engine), and TLS is off when neither says anything.
func TestTLSFromDSN(t *testing.T) {
	tg, err := engine.ParseTarget("mysql://u@h:3306/db?sslmode=verify-full&sslrootcert=/ca.pem", engine.TLSOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if tg.TLS.Mode != engine.TLSVerifyFull || tg.TLS.CAFile != "/ca.pem" || tg.URL.RawQuery != "" {
		t.Fatalf("DSN TLS not taken over: %+v, query %q", tg.TLS, tg.URL.RawQuery)
	}
	tg, err = engine.ParseTarget("postgres://u@h/db?sslmode=verify-full&sslrootcert=/ca.pem", off)
	if err != nil || tg.TLS.Mode != engine.TLSDisable {
		t.Fatalf("--tls disable should win over the DSN: %+v %v", tg.TLS, err)
	}
	tg, err = engine.ParseTarget("postgres://u@h/db", engine.TLSOptions{})
	if err != nil || tg.TLS.Mode != engine.TLSDisable {
		t.Fatalf("no TLS setting should mean disable, got %+v %v", tg.TLS, err)
	}
	tg, err = engine.ParseTarget("postgres://u@h/db", engine.TLSOptions{Mode: engine.TLSOn, CAFile: "/ca.pem"})
	if err != nil || tg.TLS.Mode != engine.TLSVerifyFull {
		t.Fatalf("--tls on should mean verify-full, got %+v %v", tg.TLS, err)
	}
}

func TestRedactHidesPasswords(t *testing.T) {
	tg, err := engine.ParseTarget("postgres://bob:s3cret@127.0.0.1:5432/db?password=other", off)
	if err != nil {
		t.Fatal(err)
	}
	r := tg.Redacted()
	if strings.Contains(r, "s3cret") || strings.Contains(r, "other") {
		t.Fatalf("redacted DSN %q still shows a password", r)
	}
	if !strings.Contains(r, "bob") {
		t.Fatalf("redacted DSN %q lost the user name", r)
	}
	_, err = engine.ParseTarget("oracle://bob:s3cret@h/db", off)
	if err == nil || strings.Contains(err.Error(), "s3cret") {
		t.Fatalf("error %v shows the password", err)
	}
}

func TestMongoTLSFromURI(t *testing.T) {
	tg, err := engine.ParseTarget("mongodb://u:p@127.0.0.1:27017/db?tls=true&tlsCAFile=/ca.pem&tlsCertificateKeyFile=/client.pem&appname=x", engine.TLSOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if tg.TLS.Mode != engine.TLSVerifyFull || tg.TLS.CAFile != "/ca.pem" || tg.TLS.CertFile != "/client.pem" || tg.TLS.KeyFile != "/client.pem" {
		t.Fatalf("%+v", tg.TLS)
	}
	if q := tg.URL.Query(); q.Has("tls") || q.Has("tlsCAFile") || q.Get("appname") != "x" {
		t.Fatalf("URI left with %v", q)
	}
	tg, err = engine.ParseTarget("mongodb://127.0.0.1/db?tls=false", engine.TLSOptions{})
	if err != nil || tg.TLS.Mode != engine.TLSDisable {
		t.Fatalf("%+v %v", tg.TLS, err)
	}
	if _, err := engine.ParseTarget("mongodb://127.0.0.1/db?tls=maybe", engine.TLSOptions{}); err == nil {
		t.Fatal("tls=maybe accepted")
	}
}

func TestParseTargetReadsNativeForms(t *testing.T) {
	t.Setenv("PGHOST", "")
	t.Setenv("PGDATABASE", "")
	t.Setenv("PGPASSWORD", "")
	cases := []struct{ dsn, kind, redacted string }{
		{"host=db1 user=bench password=S3CRET dbname=x", "postgres", "postgres://bench:xxxxx@db1/x"},
		{"host=db1 port=5433 user=bench dbname='my db' application_name='a \\'b'", "postgres", "postgres://bench@db1:5433/my%20db?application_name=a+%27b"},
		{"host=/var/run/postgresql dbname=x", "postgres", "postgres:///x?host=%2Fvar%2Frun%2Fpostgresql"},
		{"bench:S3CRET@tcp(127.0.0.1:3306)/sbtest", "mysql", "mysql://bench:xxxxx@127.0.0.1:3306/sbtest"},
		{"bench@unix(/run/mysqld/mysqld.sock)/sbtest", "mysql", "mysql://bench@/sbtest?socket=%2Frun%2Fmysqld%2Fmysqld.sock"},
	}
	for _, c := range cases {
		tg, err := engine.ParseTarget(c.dsn, off)
		if err != nil {
			t.Fatalf("%s: %v", c.dsn, err)
		}
		if tg.Engine.Kind() != c.kind || tg.Redacted() != c.redacted {
			t.Errorf("%s: %s %s, want %s %s", c.dsn, tg.Engine.Kind(), tg.Redacted(), c.kind, c.redacted)
		}
		if strings.Contains(engine.RedactDSN(c.dsn), "S3CRET") {
			t.Errorf("RedactDSN(%q) shows the password", c.dsn)
		}
	}
}

func TestParseTargetReadsPGEnvironment(t *testing.T) {
	t.Setenv("PGHOST", "db9")
	t.Setenv("PGUSER", "env_user")
	t.Setenv("PGDATABASE", "envdb")
	t.Setenv("PGPASSWORD", "S3CRET")
	tg, err := engine.ParseTarget("", off)
	if err != nil {
		t.Fatal(err)
	}
	if tg.Redacted() != "postgres://env_user:xxxxx@db9/envdb" {
		t.Errorf("from the environment: %s", tg.Redacted())
	}
	tg, err = engine.ParseTarget("dbname=other", off)
	if err != nil || tg.Redacted() != "postgres://env_user:xxxxx@db9/other" {
		t.Errorf("keyword form over the environment: %v %v", tg.Redacted(), err)
	}
}

func TestBadDSNsNeverEchoThePassword(t *testing.T) {
	for _, dsn := range []string{
		"host=db1 user=bench password=S3CRET dbname='x",
		"postgres://bench:12345/S3CRET@db/x",
		"host db1 password=S3CRET",
		"bench:S3CRET@db1",
	} {
		_, err := engine.ParseTarget(dsn, off)
		if err == nil {
			t.Errorf("%q was accepted", dsn)
			continue
		}
		if strings.Contains(err.Error(), "S3CRET") || strings.Contains(engine.RedactDSN(dsn), "S3CRET") {
			t.Errorf("%q: the error or redacted form shows the password: %v / %s", dsn, err, engine.RedactDSN(dsn))
		}
		if errs.ExitCode(err) != 2 {
			t.Errorf("%q: exit code %d, want 2", dsn, errs.ExitCode(err))
		}
	}
}

func TestNoDSNNamesSandbox(t *testing.T) {
	t.Setenv("PGHOST", "")
	t.Setenv("PGDATABASE", "")
	_, err := engine.ParseTarget("", off)
	if err == nil || !strings.Contains(err.Error(), "--sandbox") || !strings.Contains(err.Error(), "--dsn") {
		t.Errorf("no DSN: %v", err)
	}
}

type dupEngine struct{ engine.Engine }

func (dupEngine) Kind() string      { return "dup" }
func (dupEngine) Schemes() []string { return []string{"postgres"} }

func TestRegisterRefusesATakenScheme(t *testing.T) {
	defer func() {
		if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), `"postgres"`) {
			t.Errorf("registering a second postgres engine: %v", r)
		}
	}()
	engine.Register(dupEngine{})
}

// Finding 9: a MongoDB URI's tlsInsecure=true does not weaken an explicit
// --tls verify-full; without the flag it still means "do not verify".
func TestMongoURICannotOverrideTLSFlag(t *testing.T) {
	uri := "mongodb://127.0.0.1:27017/db?tls=true&tlsInsecure=true&tlsCAFile=/ca.pem"
	tg, err := engine.ParseTarget(uri, engine.TLSOptions{Mode: engine.TLSVerifyFull})
	if err != nil {
		t.Fatal(err)
	}
	if tg.TLS.Mode != engine.TLSVerifyFull {
		t.Errorf("--tls verify-full became %s through the URI", tg.TLS.Mode)
	}
	tg, err = engine.ParseTarget(uri, engine.TLSOptions{})
	if err != nil || tg.TLS.Mode != engine.TLSRequire {
		t.Errorf("URI alone: %s %v", tg.TLS.Mode, err)
	}
}

// MongoDB's option names match whatever their case, as the driver matches
// them: TLSINSECURE=true is tlsInsecure=true, not an unknown option while
// the driver runs TLS without checks.
func TestMongoTLSOptionsMatchAnyCase(t *testing.T) {
	for uri, want := range map[string]string{
		"mongodb://127.0.0.1/db?TLS=true&TLSINSECURE=true":  engine.TLSRequire,
		"mongodb://127.0.0.1/db?Tls=TRUE&TLSCAFILE=/ca.pem": engine.TLSVerifyFull,
		"mongodb://127.0.0.1/db?SSL=false":                  engine.TLSDisable,
	} {
		tg, err := engine.ParseTarget(uri, engine.TLSOptions{})
		if err != nil || tg.TLS.Mode != want {
			t.Errorf("%s: %+v %v, want mode %s", uri, tg.TLS, err, want)
			continue
		}
		for k := range tg.URL.Query() {
			if strings.HasPrefix(strings.ToLower(k), "tls") || strings.EqualFold(k, "ssl") {
				t.Errorf("%s: %s left in the URI for the driver", uri, k)
			}
		}
	}
	if _, err := engine.ParseTarget("mongodb://127.0.0.1/db?tls=true&TLS=false&tlsCAFile=/ca.pem", engine.TLSOptions{}); err == nil {
		t.Error("tls=true and TLS=false together were accepted")
	}
}

// The DSN forms that once leaked a secret print none, in the parse error
// or in the driver's.
func TestDSNSecretsNeverInErrors(t *testing.T) {
	for _, dsn := range []string{
		"postgres://bench@127.0.0.1:1/db?password=Zq9#Secret7",
		"postgres://bench@127.0.0.1:1/db?password=Zq9Secret7&connect_timeout=1",
		"mongodb://127.0.0.1:1/db?connectTimeoutMS=Zq9Secret7",
		"mongodb://bench:Zq9Secret7@127.0.0.1:1/db?maxPoolSize=Zq9Secret7",
		"mysql://bench@127.0.0.1:1/db?readTimeout=Zq9Secret7",
	} {
		msg := engine.RedactDSN(dsn)
		tg, err := engine.ParseTarget(dsn, engine.TLSOptions{Mode: engine.TLSDisable})
		if err != nil {
			msg += " | " + err.Error()
		} else {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			if c, err := tg.Engine.Connect(ctx, tg); err != nil {
				msg += " | " + err.Error()
			} else {
				c.Close()
			}
			cancel()
		}
		if strings.Contains(msg, "Secret7") {
			t.Errorf("%s shows its secret: %s", dsn, msg)
		}
	}
}

// TestAddDialWrapGoesOutside: a wrapper added later wraps the ones the
// target already had, so a run's meter sees the socket a delay line gave.
func TestAddDialWrapGoesOutside(t *testing.T) {
	var order []string
	wrap := func(name string) func(engine.DialFunc) engine.DialFunc {
		return func(d engine.DialFunc) engine.DialFunc {
			return func(ctx context.Context, network, address string) (net.Conn, error) {
				c, err := d(ctx, network, address)
				order = append(order, name)
				return c, err
			}
		}
	}
	var tg engine.Target
	tg.AddDialWrap(wrap("inner"))
	tg.AddDialWrap(wrap("outer"))
	base := func(context.Context, string, string) (net.Conn, error) { return nil, nil }
	if _, err := tg.WrapDial(base)(context.Background(), "tcp", "x"); err != nil {
		t.Fatal(err)
	}
	if strings.Join(order, ",") != "inner,outer" {
		t.Errorf("wrappers ran %v, want inner then outer", order)
	}
}
