package engine_test

import (
	"strings"
	"testing"

	"github.com/encbench/encbench/internal/engine"
)

// FuzzParseTarget: no DSN makes the parser panic, a parsed one's redacted
// form hides a password the URL carried, and RedactDSN never shows the
// text after "password=" of a string it cannot parse.
func FuzzParseTarget(f *testing.F) {
	for _, s := range []string{
		"postgres://u:pw@127.0.0.1:5432/db?sslmode=disable", "mysql://u:pw@h:3306/db", "mongodb://u:pw@h/db?tls=true&tlsInsecure=true",
		"host=db1 user=bench password=pw dbname=x", "host='a b' password='p\\'w'", "u:pw@tcp(127.0.0.1:3306)/db?x=1",
		"u@unix(/s)/db", "postgres://bench:12345/pw@db/x", "", "://", "host=", "a=b=c", "postgres://[::1]:5432/db",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, dsn string) {
		red := engine.RedactDSN(dsn)
		tg, err := engine.ParseTarget(dsn, engine.TLSOptions{Mode: engine.TLSDisable})
		if err != nil {
			if i := strings.Index(dsn, "password="); i >= 0 {
				pw, _, _ := strings.Cut(dsn[i+len("password="):], " ")
				if len(pw) >= 4 && (strings.Contains(red, pw) || strings.Contains(err.Error(), pw)) {
					t.Errorf("%q: shows %q: %s / %v", dsn, pw, red, err)
				}
			}
			return
		}
		if tg.URL.User != nil {
			if pw, ok := tg.URL.User.Password(); ok && len(pw) >= 4 && strings.Contains(tg.Redacted(), pw) {
				t.Errorf("%q: redacted form %q shows the password", dsn, tg.Redacted())
			}
		}
	})
}
