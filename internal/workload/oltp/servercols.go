package oltp

import (
	"context"
	"fmt"
	"strings"

	"github.com/encbench/encbench/internal/engine"
	"github.com/encbench/encbench/internal/errs"
	"github.com/encbench/encbench/internal/layer"
)

// The non-key text columns a server-side column layer encrypts, with
// their declared lengths (oltp_common.lua's CHAR(120) and CHAR(60)).
var textColumns = [...]struct {
	name  string
	chars int
}{{"c", 120}, {"pad", 60}}

// UseServerColumns makes the workload's statements write c and pad
// through the layer's encrypting function and read them through its
// decrypting one; prepare converts the loaded columns in place.
func (w *Workload) UseServerColumns(l layer.ServerColumns) error {
	if isEnc(w.name) {
		return errs.Usage("%s encrypts its columns in the client (--encrypt); %s encrypts them on the server: run one of them, or oltp_* for %s", w.name, l.Spec().Layer, l.Spec().Layer)
	}
	w.server = l
	return nil
}

// ServerColumns are every table's c and pad.
func (w *Workload) ServerColumns() []layer.Column {
	var out []layer.Column
	for _, t := range w.tableNames() {
		for _, c := range textColumns {
			out = append(out, layer.Column{Table: t, Name: c.name, Chars: c.chars})
		}
	}
	return out
}

// serverSQL is a statement with c and pad read and written through the
// server-side layer, if there is one: the server then decrypts before it
// sorts, groups or returns, so each statement means what sysbench's does.
func (w *Workload) serverSQL(sql string) string {
	l := w.server
	if l == nil {
		return sql
	}
	r := strings.NewReplacer(
		"SELECT id, k, c, pad FROM", "SELECT id, k, "+l.Read("c")+" AS c, "+l.Read("pad")+" AS pad FROM",
		"SELECT DISTINCT c FROM", "SELECT DISTINCT "+l.Read("c")+" AS c FROM",
		"SELECT c FROM", "SELECT "+l.Read("c")+" AS c FROM",
		"SET c=?", "SET c="+l.Write("?"),
		"VALUES (?, ?, ?, ?)", "VALUES (?, ?, "+l.Write("?")+", "+l.Write("?")+")",
		"(k, c, pad) VALUES (?, ?, ?)", "(k, c, pad) VALUES (?, "+l.Write("?")+", "+l.Write("?")+")",
	)
	return r.Replace(sql)
}

// startServerSession runs the layer's session statements (its key) on a
// connection before anything else.
func (w *Workload) startServerSession(ctx context.Context, c engine.Conn) error {
	if w.server == nil {
		return nil
	}
	stmts, err := w.server.SessionSetup()
	if err != nil {
		return err
	}
	for _, s := range stmts {
		if err := c.Exec(ctx, s); err != nil {
			return fmt.Errorf("%s: starting the session: %w", w.server.Spec().Layer, err)
		}
	}
	return nil
}

// convertServerColumns encrypts table n's loaded c and pad in place.
func (w *Workload) convertServerColumns(ctx context.Context, c engine.Conn, n int) error {
	if w.server == nil {
		return nil
	}
	if err := w.startServerSession(ctx, c); err != nil {
		return err
	}
	for _, col := range textColumns {
		for _, s := range w.server.Convert(layer.Column{Table: tableName(n), Name: col.name, Chars: col.chars}) {
			if err := c.Exec(ctx, s); err != nil {
				return fmt.Errorf("%s: encrypting %s.%s: %w", w.server.Spec().Layer, tableName(n), col.name, err)
			}
		}
	}
	return nil
}
