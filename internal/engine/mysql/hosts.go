package mysql

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"

	gomysql "github.com/go-sql-driver/mysql"

	"github.com/encbench/encbench/internal/engine"
	"github.com/encbench/encbench/internal/errs"
)

// go-sql-driver/mysql dials one address. A MySQL/MariaDB DSN may list
// several (mysql://u@a:3306,b:3307/db), each tried in order as libpq tries
// a PostgreSQL host list, with libpq's target_session_attrs choosing
// among them by the server's read_only setting (a MySQL or MariaDB
// replica is read only; the primary is not):
//
//	any             the first server that accepts the connection
//	read-write      the first with read_only off  (primary: the same)
//	read-only       the first with read_only on   (standby: the same)
//	prefer-standby  the first read-only one, else the first that connected
//
// These are libpq's words (PostgreSQL documentation 34.1.2) so a user
// names the choice once for both engines; on MySQL and MariaDB "standby"
// can only mean "read only", since a replica's own status needs a
// privilege (REPLICA MONITOR) a benchmark account should not need.
var sessionAttrs = map[string]string{
	"any": "any", "read-write": "rw", "primary": "rw", "read-only": "ro", "standby": "ro", "prefer-standby": "prefer-ro",
}

const attrsParam = "target_session_attrs"

// hosts splits the DSN's host list; a unix socket is one host.
func hosts(u *url.URL) []string {
	if u.Query().Get("socket") != "" || u.Host == "" {
		return []string{u.Host}
	}
	return strings.Split(u.Host, ",")
}

// checkHosts is Validate's part for host lists.
func checkHosts(u *url.URL) error {
	attrs := u.Query().Get(attrsParam)
	if _, ok := sessionAttrs[attrs]; attrs != "" && !ok {
		return errs.Usage("DSN sets %s=%s: use any, read-write, primary, read-only, standby or prefer-standby", attrsParam, attrs)
	}
	if u.Query().Get("socket") != "" {
		return nil
	}
	for _, h := range hosts(u) {
		if h == "" {
			return errs.Usage("DSN %s has an empty host in its host list: write mysql://user@host1:3306,host2:3306/db", engine.Redact(u))
		}
	}
	return nil
}

// hostTarget is t narrowed to one host of its list.
func hostTarget(t engine.Target, host string) engine.Target {
	u := *t.URL
	u.Host = host
	t.URL = &u
	return t
}

// connectAny connects to the host list's first server that serves the
// session t's target_session_attrs asks for, and says which host it is.
func connectAny(ctx context.Context, t engine.Target) (*conn, string, error) {
	list := hosts(t.URL)
	want := sessionAttrs[t.URL.Query().Get(attrsParam)]
	if len(list) == 1 && (want == "" || want == "any") {
		c, err := connectOne(ctx, hostTarget(t, list[0]))
		return c, list[0], err
	}
	var (
		fallback     *conn
		fallbackHost string
		failures     []string
	)
	for _, h := range list {
		c, err := connectOne(ctx, hostTarget(t, h))
		if err != nil {
			failures = append(failures, fmt.Sprintf("%s: %v", h, err))
			if ctx.Err() != nil {
				break
			}
			continue
		}
		if want == "" || want == "any" {
			return c, h, nil
		}
		ro, err := readOnly(ctx, c)
		if err != nil {
			c.Close()
			failures = append(failures, fmt.Sprintf("%s: %v", h, err))
			continue
		}
		switch {
		case ro && (want == "ro" || want == "prefer-ro"), !ro && want == "rw":
			if fallback != nil {
				fallback.Close()
			}
			return c, h, nil
		case want == "prefer-ro" && fallback == nil:
			fallback, fallbackHost = c, h
		default:
			c.Close()
			failures = append(failures, fmt.Sprintf("%s: read_only is %v", h, ro))
		}
	}
	if fallback != nil {
		return fallback, fallbackHost, nil
	}
	if want == "" || want == "any" {
		return nil, "", fmt.Errorf("no host of %s answered: %s", strings.Join(list, ","), strings.Join(failures, "; "))
	}
	return nil, "", fmt.Errorf("no host of %s serves %s=%s: %s", strings.Join(list, ","), attrsParam,
		t.URL.Query().Get(attrsParam), strings.Join(failures, "; "))
}

func readOnly(ctx context.Context, c *conn) (bool, error) {
	rows, err := c.Query(ctx, "SELECT @@global.read_only")
	if err != nil {
		return false, fmt.Errorf("reading read_only: %w", err)
	}
	if len(rows) != 1 || len(rows[0]) != 1 {
		return false, errors.New("reading read_only: no row")
	}
	return rows[0][0] == "1" || strings.EqualFold(rows[0][0], "ON"), nil
}

// connectOne connects to the single host t names.
func connectOne(ctx context.Context, t engine.Target) (*conn, error) {
	cfg, err := config(t)
	if err != nil {
		return nil, err
	}
	connector, err := gomysql.NewConnector(cfg)
	if err != nil {
		return nil, errs.Usage("invalid MySQL DSN %s: %w", t.Redacted(), engine.Scrub(err, t.URL))
	}
	dc, err := connector.Connect(ctx)
	if err != nil {
		return nil, err
	}
	s, err := takeOver(dc)
	if err != nil {
		dc.Close()
		return nil, err
	}
	return newConn(dc, s), nil
}
