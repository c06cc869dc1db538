package postgres

import (
	"net"
	"net/url"
	"os"
	"strings"

	"github.com/encbench/encbench/internal/engine"
	"github.com/encbench/encbench/internal/errs"
)

// envKeys are libpq's environment variables for the keywords encbench
// carries (PostgreSQL documentation 34.15, Environment Variables).
var envKeys = map[string]string{
	"host": "PGHOST", "hostaddr": "PGHOSTADDR", "port": "PGPORT", "dbname": "PGDATABASE",
	"user": "PGUSER", "password": "PGPASSWORD", "sslmode": "PGSSLMODE", "sslrootcert": "PGSSLROOTCERT",
	"sslcert": "PGSSLCERT", "sslkey": "PGSSLKEY", "application_name": "PGAPPNAME", "connect_timeout": "PGCONNECT_TIMEOUT",
}

// FromNative reads libpq's keyword/value strings ("host=db1 user=bench
// dbname=x"), with PG* environment variables for keywords it lacks; ""
// is a DSN from the environment alone when PGHOST or PGDATABASE is set.
func (Engine) FromNative(s string) (*url.URL, bool, error) {
	if s == "" && os.Getenv("PGHOST") == "" && os.Getenv("PGDATABASE") == "" {
		return nil, false, nil
	}
	if s != "" && !engine.KeywordValueForm(s) {
		return nil, false, nil
	}
	kv, err := parseConninfo(s)
	if err != nil {
		return nil, true, err
	}
	for k, env := range envKeys {
		if _, ok := kv[k]; !ok {
			if v := os.Getenv(env); v != "" {
				kv[k] = v
			}
		}
	}
	return conninfoURL(kv), true, nil
}

// parseConninfo splits keyword = value pairs; a value may be single-quoted,
// with \' and \\ escapes (PostgreSQL documentation 34.1.1.1).
func parseConninfo(s string) (map[string]string, error) {
	out := map[string]string{}
	i := 0
	skip := func() {
		for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r') {
			i++
		}
	}
	for {
		skip()
		if i >= len(s) {
			return out, nil
		}
		start := i
		for i < len(s) && s[i] != '=' && s[i] != ' ' && s[i] != '\t' {
			i++
		}
		key := s[start:i]
		skip()
		if i >= len(s) || s[i] != '=' || key == "" {
			return nil, errs.Usage("cannot read the key=value DSN: expected keyword = value at byte %d", start+1)
		}
		i++
		skip()
		var val strings.Builder
		if i < len(s) && s[i] == '\'' {
			i++
			closed := false
			for i < len(s) {
				c := s[i]
				if c == '\\' && i+1 < len(s) {
					val.WriteByte(s[i+1])
					i += 2
					continue
				}
				if c == '\'' {
					i++
					closed = true
					break
				}
				val.WriteByte(c)
				i++
			}
			if !closed {
				return nil, errs.Usage("cannot read the key=value DSN: the value of %s has no closing quote", keywordName(key))
			}
		} else {
			for i < len(s) && s[i] != ' ' && s[i] != '\t' && s[i] != '\n' {
				if s[i] == '\\' && i+1 < len(s) {
					i++
				}
				val.WriteByte(s[i])
				i++
			}
			// "user= password=x" reads as a user named "password=x" (as
			// in libpq); a typo that would show a secret as a user name.
			if engine.KeywordValueForm(val.String()) {
				return nil, errs.Usage("cannot read the key=value DSN: the value of %s looks like another keyword; write an empty value as ''", keywordName(key))
			}
		}
		// A quote or backslash out of place can swallow the next keyword
		// into this value, and a password with it into, say, a user name
		// that output shows.
		if key != "password" && strings.Contains(strings.ToLower(val.String()), "password") {
			return nil, errs.Usage("cannot read the key=value DSN: the value of %s holds the word password: a quote or backslash out of place? Quote values with spaces as 'value'", keywordName(key))
		}
		out[key] = val.String()
	}
}

// conninfoURL is the postgres:// form of keyword/value settings; keywords
// without a place in the URL stay as query parameters, which pgx reads.
func conninfoURL(kv map[string]string) *url.URL {
	u := &url.URL{Scheme: "postgres", Path: "/" + kv["dbname"]}
	q := url.Values{}
	host := kv["host"]
	if host == "" {
		host = kv["hostaddr"]
	}
	switch {
	case host == "":
	case strings.HasPrefix(host, "/") || strings.Contains(host, ","):
		q.Set("host", host)
		if p := kv["port"]; p != "" {
			q.Set("port", p)
		}
	default:
		u.Host = host
		if p := kv["port"]; p != "" {
			u.Host = net.JoinHostPort(host, p)
		}
	}
	if user, ok := kv["user"]; ok {
		if pw, ok := kv["password"]; ok {
			u.User = url.UserPassword(user, pw)
		} else {
			u.User = url.User(user)
		}
	}
	for k, v := range kv {
		switch k {
		case "host", "hostaddr", "port", "user", "password", "dbname":
		default:
			q.Set(k, v)
		}
	}
	u.RawQuery = q.Encode()
	return u
}

// keywordName is a keyword safe to name in an error: a known one, or
// "a keyword" (an unknown one may be a mistyped secret).
func keywordName(k string) string {
	if _, ok := envKeys[k]; ok {
		return k
	}
	return "a keyword"
}
