package engine_test

import (
	"context"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/encbench/encbench/internal/engine"
)

// FuzzParseTarget: no DSN makes the parser panic, and a parsed DSN's
// redacted form parses again with its password replaced.
func FuzzParseTarget(f *testing.F) {
	for _, s := range []string{
		"postgres://u:pw@127.0.0.1:5432/db?sslmode=disable", "mysql://u:pw@h:3306/db", "mongodb://u:pw@h/db?tls=true&tlsInsecure=true",
		"host=db1 user=bench password=pw dbname=x", "host='a b' password='p\\'w'", "u:pw@tcp(127.0.0.1:3306)/db?x=1",
		"u@unix(/s)/db", "postgres://bench:12345/pw@db/x", "", "://", "host=", "a=b=c", "postgres://[::1]:5432/db",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, dsn string) {
		_ = engine.RedactDSN(dsn)
		tg, err := engine.ParseTarget(dsn, engine.TLSOptions{Mode: engine.TLSDisable})
		if err != nil || tg.URL.User == nil {
			return
		}
		if pw, ok := tg.URL.User.Password(); ok && pw != "xxxxx" {
			again, err := url.Parse(tg.Redacted())
			if err != nil {
				t.Fatalf("%q: redacted form %q does not parse: %v", dsn, tg.Redacted(), err)
			}
			if got, _ := again.User.Password(); got != "xxxxx" {
				t.Errorf("%q: redacted form %q keeps password %q", dsn, tg.Redacted(), got)
			}
		}
	})
}

// FuzzPasswordNeverShown writes an alphanumeric password into each DSN
// form encbench reads, around fuzzed parts, and checks that neither the
// redacted form nor a parse error shows it, nor (for DSNs that name a
// closed loopback port) a driver's connect error: a password cut by a
// '#', or a MongoDB option value the driver echoes. What the same DSN shows with
// another password of the same length is the baseline: text that appears
// there too (a database name, the scheme) is not the password.
func FuzzPasswordNeverShown(f *testing.F) {
	f.Add(uint8(0), "bench", "S3cr3tPw", "db1", "x")
	f.Add(uint8(1), "bench", "pw12345x", "db1", "my db")
	f.Add(uint8(2), "bench", "S3cr3tPw", "127.0.0.1:3306", "sbtest")
	f.Add(uint8(3), "u", "0000000", "", "")
	f.Add(uint8(4), "bench", "Zq9Secret", "", "tail")
	f.Add(uint8(5), "bench", "Zq9Secret", "", "")
	f.Fuzz(func(t *testing.T, form uint8, user, pw, host, db string) {
		if len(pw) < 6 || strings.IndexFunc(pw, func(r rune) bool {
			return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9')
		}) >= 0 {
			return
		}
		shown := func(pw string) string {
			var dsn string
			connect := false
			switch form % 6 {
			case 0:
				dsn = "postgres://" + user + ":" + pw + "@" + host + "/" + db
			case 1:
				dsn = "host=" + host + " user=" + user + " password='" + pw + "' dbname=" + db
			case 2:
				dsn = user + ":" + pw + "@tcp(" + host + ")/" + db
			case 3:
				dsn = "mysql://" + url.UserPassword(user, pw).String() + "@" + host + "/" + db
			case 4:
				dsn, connect = "postgres://"+url.PathEscape(user)+"@127.0.0.1:1/db?connect_timeout=1&password="+pw+"#"+db, true
			case 5:
				dsn, connect = "mongodb://127.0.0.1:1/db?serverSelectionTimeoutMS=20&connectTimeoutMS="+pw+url.QueryEscape(db), true
			}
			out := engine.RedactDSN(dsn)
			tg, err := engine.ParseTarget(dsn, engine.TLSOptions{Mode: engine.TLSDisable})
			if err != nil {
				return out + "\x00" + err.Error()
			}
			out += "\x00" + tg.Redacted()
			if connect {
				ctx, cancel := context.WithTimeout(context.Background(), time.Second)
				defer cancel()
				if c, err := tg.Engine.Connect(ctx, tg); err != nil {
					out += "\x00" + err.Error()
				} else {
					c.Close()
				}
			}
			return out
		}
		got, baseline := shown(pw), shown(strings.Repeat("Q", len(pw)))
		if strings.Contains(got, pw) && !strings.Contains(baseline, pw) {
			t.Errorf("the password %q is shown: %s", pw, got)
		}
	})
}
