package script

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"golang.org/x/sync/errgroup"

	"github.com/encbench/encbench/internal/encryption/colenc"
	"github.com/encbench/encbench/internal/engine"
	"github.com/encbench/encbench/internal/errs"
	colenclayer "github.com/encbench/encbench/internal/layer/colenc"
	"github.com/encbench/encbench/internal/workload"
)

// accountsPerScale, tellersPerScale: pgbench -i's rows per scale unit.
const (
	accountsPerScale = 100000
	tellersPerScale  = 10
	loadBatch        = 1000
)

// pgCol is a column of pgbench -i's tables; typ "" is the id type.
type pgCol struct{ name, typ string }

// pgbenchSchema is pgbench 15's tables (initCreateTables).
var pgbenchSchema = map[string][]pgCol{
	"pgbench_history":  {{"tid", "INTEGER"}, {"bid", "INTEGER"}, {"aid", ""}, {"delta", "INTEGER"}, {"mtime", "timestamp"}, {"filler", "CHAR(22)"}},
	"pgbench_tellers":  {{"tid", "INTEGER NOT NULL PRIMARY KEY"}, {"bid", "INTEGER"}, {"tbalance", "INTEGER"}, {"filler", "CHAR(84)"}},
	"pgbench_accounts": {{"aid", " NOT NULL PRIMARY KEY"}, {"bid", "INTEGER"}, {"abalance", "INTEGER"}, {"filler", "CHAR(84)"}},
	"pgbench_branches": {{"bid", "INTEGER NOT NULL PRIMARY KEY"}, {"bbalance", "INTEGER"}, {"filler", "CHAR(88)"}},
}

// loader writes rows of one table, encrypting the columns --encrypt names.
type loader struct {
	table  string
	cols   []pgCol
	fields []*colenc.Field // per column; nil: plaintext
	lit    func([]byte) string
}

// Prepare makes what --init says: pgbench -i's four tables at --scale
// (pgbench 15's initialization steps d, t, g, p and v: tables, rows,
// primary keys, vacuum), the columns --encrypt names stored encrypted, or
// nothing but encbench's marker table with none.
func (w *Workload) Prepare(ctx context.Context, env workload.Env) error {
	admin, err := env.Connect(ctx)
	if err != nil {
		return err
	}
	defer admin.Close()
	if _, ok := admin.(engine.Documents); ok {
		return errs.Usage("%s runs SQL scripts on PostgreSQL, MySQL or MariaDB, not on a document store", w.name)
	}
	tables := w.Tables()
	if err := w.checkEncryptedTables(); err != nil {
		return err
	}
	var cipher *colenc.Cipher
	if w.enc != nil && len(tables) > 0 {
		c, created, err := colenc.OpenForPrepare(w.o.Keys)
		if err != nil {
			return err
		}
		if created {
			fmt.Fprintf(env.Log, "Created column encryption keys: master key %s, keyset %s (mode 0600)\n", w.o.Keys.MasterKey, w.o.Keys.Resolved().Keyset)
		}
		cipher = c
	}
	suffix, err := workload.StartTables(ctx, env, admin, tables)
	if err != nil {
		return err
	}
	if len(tables) == 0 {
		fmt.Fprintf(env.Log, "Nothing to make (--init none): the scripts run on the tables they name\n")
		return nil
	}
	if err := workload.Own(ctx, admin, w.name, tables); err != nil {
		return err
	}
	d := env.Target.Engine.Dialect()
	binary := func(int) string { return "" }
	if cipher != nil {
		cd, err := colenclayer.SQLFor(env.Target.Engine.Kind())
		if err != nil {
			return err
		}
		binary = cd.BinaryType
	}
	fmt.Fprintf(env.Log, "Creating pgbench's tables (scale %d)...\n", w.o.Scale)
	for _, t := range tables {
		if err := admin.Exec(ctx, w.createSQL(t, d, binary, suffix)); err != nil {
			return fmt.Errorf("creating %s: %w", t, err)
		}
	}
	scale := int64(w.o.Scale)
	newLoader := func(table string) (*loader, error) { return w.loaderFor(table, cipher, d) }
	if err := loadRange(ctx, admin, newLoader, "pgbench_branches", 1, scale, func(i int64) []any { return []any{i, int64(0), nil} }); err != nil {
		return err
	}
	if err := loadRange(ctx, admin, newLoader, "pgbench_tellers", 1, tellersPerScale*scale, func(i int64) []any {
		return []any{i, (i-1)/tellersPerScale + 1, int64(0), nil}
	}); err != nil {
		return err
	}
	n := accountsPerScale * scale
	fmt.Fprintf(env.Log, "Inserting %d rows into 'pgbench_accounts'...\n", n)
	loaders := int64(max(1, env.Threads))
	g, gctx := errgroup.WithContext(ctx)
	for l := int64(0); l < loaders; l++ {
		lo, hi := 1+n*l/loaders, n*(l+1)/loaders
		g.Go(func() error {
			c, err := env.Connect(gctx)
			if err != nil {
				return err
			}
			defer c.Close()
			return loadRange(gctx, c, newLoader, "pgbench_accounts", lo, hi, func(i int64) []any {
				return []any{i, (i-1)/accountsPerScale + 1, int64(0), ""}
			})
		})
	}
	if err := g.Wait(); err != nil {
		return fmt.Errorf("loading pgbench_accounts: %w", err)
	}
	if cipher != nil {
		if err := cipher.RecordRndUsesAndWarn(w.o.Keys, env.Log); err != nil {
			return err
		}
	}
	if d.AfterLoad != "" {
		for _, t := range tables {
			if err := admin.Exec(ctx, fmt.Sprintf(d.AfterLoad, t)); err != nil {
				return fmt.Errorf("after loading %s: %w", t, err)
			}
		}
	}
	return nil
}

// checkEncryptedTables refuses --encrypt of a column prepare would make
// but not of pgbench's tables.
func (w *Workload) checkEncryptedTables() error {
	if w.enc == nil || w.o.Init != "pgbench" {
		return nil
	}
	for _, c := range w.enc.columns() {
		found := false
		for _, pc := range pgbenchSchema[c.table] {
			found = found || pc.name == c.name
		}
		if !found {
			return errs.Usage("--encrypt %s.%s: prepare pgbench makes pgbench_accounts, _branches, _tellers and _history and their columns; encbench encrypts only tables it makes", c.table, c.name)
		}
	}
	return nil
}

// createSQL is one of pgbench's tables, its encrypted columns binary.
func (w *Workload) createSQL(table string, d engine.Dialect, binary func(int) string, suffix string) string {
	// pgbench -i switches aid to bigint from scale 20,000.
	id := "INTEGER"
	if w.o.Scale >= 20000 {
		id = "BIGINT"
	}
	var defs []string
	for _, c := range pgbenchSchema[table] {
		typ := c.typ
		switch {
		case typ == "":
			typ = id
		case strings.HasPrefix(typ, " "):
			typ = id + typ
		case typ == "timestamp":
			typ = d.Timestamp
		}
		if s := w.enc[table][c.name]; s != "" {
			typ = binary(255) + strings.TrimPrefix(typ, strings.Fields(typ)[0])
		}
		defs = append(defs, c.name+" "+typ)
	}
	return "CREATE TABLE " + table + " (" + strings.Join(defs, ", ") + ") " + suffix
}

func (w *Workload) loaderFor(table string, cipher *colenc.Cipher, d engine.Dialect) (*loader, error) {
	l := &loader{table: table, cols: pgbenchSchema[table], lit: d.BytesLiteral}
	l.fields = make([]*colenc.Field, len(l.cols))
	for i, c := range l.cols {
		if s := w.enc[table][c.name]; s != "" && cipher != nil {
			f, err := cipher.Field(column{table, c.name, s}.ref())
			if err != nil {
				return nil, err
			}
			l.fields[i] = f
		}
	}
	return l, nil
}

// loadRange inserts rows lo..hi in multi-row INSERTs; row gives a row's
// values (int64, string or nil for NULL) for the table's first columns.
func loadRange(ctx context.Context, c engine.Conn, newLoader func(string) (*loader, error), table string, lo, hi int64, row func(int64) []any) error {
	l, err := newLoader(table)
	if err != nil {
		return err
	}
	names := make([]string, len(row(lo)))
	for k := range names {
		names[k] = l.cols[k].name
	}
	into := "INSERT INTO " + table + " (" + strings.Join(names, ", ") + ") VALUES "
	var b strings.Builder
	for start := lo; start <= hi; start += loadBatch {
		b.Reset()
		b.WriteString(into)
		for i := start; i <= min(hi, start+loadBatch-1); i++ {
			if i > start {
				b.WriteString(", ")
			}
			b.WriteByte('(')
			for k, v := range row(i) {
				if k > 0 {
					b.WriteString(", ")
				}
				s, err := l.literal(k, v)
				if err != nil {
					return err
				}
				b.WriteString(s)
			}
			b.WriteByte(')')
		}
		if err := c.Exec(ctx, b.String()); err != nil {
			return fmt.Errorf("loading %s: %w", table, err)
		}
	}
	return nil
}

// literal is a value in SQL: encrypted where its column is.
func (l *loader) literal(k int, v any) (string, error) {
	if v == nil {
		return "NULL", nil
	}
	var pt colenc.Value
	var plain string
	switch x := v.(type) {
	case int64:
		pt, plain = colenc.Int(x), strconv.FormatInt(x, 10)
	case string:
		pt, plain = colenc.Text(x), "'"+strings.ReplaceAll(x, "'", "''")+"'"
	}
	if l.fields[k] == nil {
		return plain, nil
	}
	ct, err := l.fields[k].Encrypt(nil, pt)
	if err != nil {
		return "", fmt.Errorf("encrypting %s.%s: %w", l.table, l.cols[k].name, err)
	}
	return l.lit(ct), nil
}

// Cleanup drops the tables prepare made, and only those.
func (w *Workload) Cleanup(ctx context.Context, env workload.Env) error {
	return workload.Cleanup(ctx, env, w.Tables())
}
