package script

import (
	"context"
	"fmt"
	"strings"

	"golang.org/x/sync/errgroup"

	"github.com/encbench/encbench/internal/engine"
	"github.com/encbench/encbench/internal/errs"
	"github.com/encbench/encbench/internal/workload"
)

// accountsPerScale, tellersPerScale: pgbench -i's rows per scale unit.
const (
	accountsPerScale = 100000
	tellersPerScale  = 10
	loadBatch        = 1000
)

// Prepare makes what --init says: pgbench -i's four tables at --scale
// (pgbench 15's initialization steps d, t, g, p and v: tables, rows,
// primary keys, vacuum), or nothing but encbench's marker table with
// none.
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
	// pgbench -i switches aid to bigint from scale 20,000.
	aid := "INTEGER"
	if w.o.Scale >= 20000 {
		aid = "BIGINT"
	}
	ddl := []string{
		"CREATE TABLE pgbench_history (tid INTEGER, bid INTEGER, aid " + aid + ", delta INTEGER, mtime " + d.Timestamp + ", filler CHAR(22)) " + suffix,
		"CREATE TABLE pgbench_tellers (tid INTEGER NOT NULL PRIMARY KEY, bid INTEGER, tbalance INTEGER, filler CHAR(84)) " + suffix,
		"CREATE TABLE pgbench_accounts (aid " + aid + " NOT NULL PRIMARY KEY, bid INTEGER, abalance INTEGER, filler CHAR(84)) " + suffix,
		"CREATE TABLE pgbench_branches (bid INTEGER NOT NULL PRIMARY KEY, bbalance INTEGER, filler CHAR(88)) " + suffix,
	}
	fmt.Fprintf(env.Log, "Creating pgbench's tables (scale %d)...\n", w.o.Scale)
	for _, q := range ddl {
		if err := admin.Exec(ctx, q); err != nil {
			return fmt.Errorf("creating pgbench's tables: %w", err)
		}
	}
	scale := int64(w.o.Scale)
	if err := insertRows(ctx, admin, "pgbench_branches (bid, bbalance)", 1, scale, func(b *strings.Builder, i int64) {
		fmt.Fprintf(b, "(%d, 0)", i)
	}); err != nil {
		return err
	}
	if err := insertRows(ctx, admin, "pgbench_tellers (tid, bid, tbalance)", 1, tellersPerScale*scale, func(b *strings.Builder, i int64) {
		fmt.Fprintf(b, "(%d, %d, 0)", i, (i-1)/tellersPerScale+1)
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
			return insertRows(gctx, c, "pgbench_accounts (aid, bid, abalance, filler)", lo, hi, func(b *strings.Builder, i int64) {
				fmt.Fprintf(b, "(%d, %d, 0, '')", i, (i-1)/accountsPerScale+1)
			})
		})
	}
	if err := g.Wait(); err != nil {
		return fmt.Errorf("loading pgbench_accounts: %w", err)
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

// insertRows inserts rows lo..hi in multi-row INSERTs.
func insertRows(ctx context.Context, c engine.Conn, into string, lo, hi int64, row func(*strings.Builder, int64)) error {
	var b strings.Builder
	for start := lo; start <= hi; start += loadBatch {
		b.Reset()
		b.WriteString("INSERT INTO " + into + " VALUES ")
		for i := start; i <= min(hi, start+loadBatch-1); i++ {
			if i > start {
				b.WriteString(", ")
			}
			row(&b, i)
		}
		if err := c.Exec(ctx, b.String()); err != nil {
			return fmt.Errorf("loading %s: %w", strings.Fields(into)[0], err)
		}
	}
	return nil
}

// Cleanup drops the tables prepare made, and only those.
func (w *Workload) Cleanup(ctx context.Context, env workload.Env) error {
	return workload.Cleanup(ctx, env, w.Tables())
}
