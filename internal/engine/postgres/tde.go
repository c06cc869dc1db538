package postgres

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/encbench/encbench/internal/engine"
	"github.com/encbench/encbench/internal/errs"
)

func hasPgTDE(ctx context.Context, c engine.Conn) (bool, error) {
	rows, err := c.Query(ctx, "SELECT count(*) FROM pg_extension WHERE extname = 'pg_tde'")
	if err != nil || len(rows) != 1 {
		return false, fmt.Errorf("looking for pg_tde: %w", err)
	}
	return rows[0][0] != "0", nil
}

// TDETableOption: only servers with the pg_tde extension (Percona Server for
// PostgreSQL 17+) can store a table encrypted.
func (Engine) TDETableOption(ctx context.Context, c engine.Conn) (string, error) {
	ok, err := hasPgTDE(ctx, c)
	if err != nil {
		return "", err
	}
	if !ok {
		return "", errs.Usage("this PostgreSQL server cannot encrypt tables: it has no pg_tde extension (Percona Server for PostgreSQL 17 or later provides it; CREATE EXTENSION pg_tde and set up a key first)")
	}
	return "USING tde_heap", nil
}

func (Engine) TDESource() string { return "pg_tde_is_encrypted() (no pg_tde: not encrypted)" }

func (Engine) TDEState(ctx context.Context, c engine.Conn, tables []string) (map[string]engine.TableTDE, error) {
	out := map[string]engine.TableTDE{}
	ok, err := hasPgTDE(ctx, c)
	if err != nil {
		return nil, err
	}
	for _, t := range tables {
		out[t] = engine.TableTDE{Detail: "server has no pg_tde"}
		if !ok {
			continue
		}
		rows, err := c.Query(ctx, fmt.Sprintf("SELECT pg_tde_is_encrypted('%s')::text", strings.ReplaceAll(t, "'", "")))
		if err != nil {
			return nil, fmt.Errorf("asking pg_tde about %s: %w", t, err)
		}
		enc := len(rows) == 1 && rows[0][0] == "true"
		out[t] = engine.TableTDE{Encrypted: enc, Detail: "pg_tde_is_encrypted=" + strconv.FormatBool(enc)}
	}
	return out, nil
}

func (Engine) DataBytes(ctx context.Context, c engine.Conn, tables []string) (int64, error) {
	rows, err := c.Query(ctx, "SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0) FROM pg_class c WHERE c.relkind = 'r' AND c.relname IN ("+engine.QuoteList(tables)+") AND pg_table_is_visible(c.oid)")
	if err != nil || len(rows) != 1 {
		return 0, fmt.Errorf("reading table sizes: %w", err)
	}
	return strconv.ParseInt(rows[0][0], 10, 64)
}

func (Engine) BufferPoolBytes(ctx context.Context, c engine.Conn) (int64, error) {
	rows, err := c.Query(ctx, "SELECT setting::bigint * current_setting('block_size')::bigint FROM pg_settings WHERE name = 'shared_buffers'")
	if err != nil || len(rows) != 1 {
		return 0, fmt.Errorf("reading shared_buffers: %w", err)
	}
	return strconv.ParseInt(rows[0][0], 10, 64)
}
