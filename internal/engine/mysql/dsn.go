package mysql

import (
	"net/url"
	"strings"

	gomysql "github.com/go-sql-driver/mysql"

	"github.com/encbench/encbench/internal/engine"
)

// FromNative reads go-sql-driver's own DSN form,
// user:password@tcp(host:port)/database?params, as users of that driver
// (and of Go MySQL tools) have it.
func (Engine) FromNative(s string) (*url.URL, bool, error) {
	// A leading keyword= is libpq's form, not this one.
	if s == "" || !strings.Contains(s, "/") || strings.Contains(s, "://") || engine.KeywordValueForm(s) {
		return nil, false, nil
	}
	cfg, err := gomysql.ParseDSN(s)
	if err != nil {
		return nil, false, nil
	}
	u := &url.URL{Scheme: "mysql", Path: "/" + cfg.DBName}
	if cfg.User != "" {
		if cfg.Passwd != "" {
			u.User = url.UserPassword(cfg.User, cfg.Passwd)
		} else {
			u.User = url.User(cfg.User)
		}
	}
	q := url.Values{}
	switch cfg.Net {
	case "unix":
		q.Set("socket", cfg.Addr)
	default:
		u.Host = cfg.Addr
	}
	for k, v := range cfg.Params {
		q.Set(k, v)
	}
	if cfg.TLSConfig != "" && cfg.TLSConfig != "false" {
		q.Set("tls", cfg.TLSConfig)
	}
	u.RawQuery = q.Encode()
	return u, true, nil
}
