package tpcc

import (
	"context"
	"fmt"
	colenclayer "github.com/encbench/encbench/internal/layer/colenc"
	"strings"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/encbench/encbench/internal/encryption/colenc"
	"github.com/encbench/encbench/internal/engine"
	"github.com/encbench/encbench/internal/errs"
	"github.com/encbench/encbench/internal/workload"
)

// TPC-C's fixed cardinalities (4.3.3.1).
const (
	items     = 100000
	districts = 10
	// maxOrderLines is O_OL_CNT's largest value (2.4.1.3: uniform 5..15).
	maxOrderLines = 15
	customers     = 3000 // per district
	orders        = 3000 // per district
	firstNewOrder = 2101 // orders from here on are undelivered
	batchRows     = 100
	chunk         = 10000 // item and stock rows per loader job
)

// keyCheck is a fixed value whose det ciphertext prepare stores, so a run
// with another keyset fails before it reads or writes anything.
const keyCheck = "encbench tpcc keyset check"

var keyCheckColumn = colenc.Column{Table: configTable, Name: "key_check", Scheme: colenc.Det}

// Prepare creates the tables and loads W warehouses over --threads loaders.
func (w *Workload) Prepare(ctx context.Context, env workload.Env) error {
	var cipher *colenc.Cipher
	if w.o.Level > 0 {
		c, created, err := colenc.OpenForPrepare(w.o.Keys)
		if err != nil {
			return err
		}
		if created {
			fmt.Fprintf(env.Log, "Created column encryption keys: master key %s, keyset %s (mode 0600)\n", w.o.Keys.MasterKey, w.o.Keys.Resolved().Keyset)
		}
		cipher = c
	}
	admin, err := env.Connect(ctx)
	if err != nil {
		return err
	}
	defer admin.Close()
	if _, ok := admin.(engine.Documents); ok {
		return errs.Usage("tpcc runs on SQL servers (PostgreSQL, MySQL/MariaDB), not on %s", env.Target.Engine.Kind())
	}
	d := env.Target.Engine.Dialect()
	cd, err := colenclayer.SQLFor(env.Target.Engine.Kind())
	if err != nil {
		return err
	}
	suffix, err := workload.StartTables(ctx, env, admin, w.Tables())
	if err != nil {
		return err
	}
	if err := workload.Own(ctx, admin, name, w.Tables()); err != nil {
		return err
	}
	for _, t := range w.s.tables {
		if err := admin.Exec(ctx, t.createSQL(d, cd, w.o.Level, suffix)); err != nil {
			return fmt.Errorf("creating %s: %w", t.name, err)
		}
	}
	check := "-"
	if cipher != nil {
		ct, err := cipher.Encrypt(keyCheckColumn, nil, colenc.Text(keyCheck))
		if err != nil {
			return err
		}
		check = fmt.Sprintf("%x", ct)
	}
	if err := admin.Exec(ctx, fmt.Sprintf("CREATE TABLE %s (warehouses INTEGER NOT NULL, encrypt_columns INTEGER NOT NULL, key_check VARCHAR(200) NOT NULL) %s", configTable, suffix)); err != nil {
		return fmt.Errorf("creating %s: %w", configTable, err)
	}
	if err := admin.Exec(ctx, fmt.Sprintf("INSERT INTO %s VALUES (%d, %d, '%s')", configTable, w.o.Warehouses, w.o.Level, check)); err != nil {
		return fmt.Errorf("writing %s: %w", configTable, err)
	}
	cols, business := w.s.encrypted(w.o.Level)
	fmt.Fprintf(env.Log, "Loading TPC-C with %d warehouse(s), %d of %d business columns encrypted (%d%% level), %d loaders...\n",
		w.o.Warehouses, len(cols), business, w.o.Level, max(1, env.Threads))
	start := time.Now()
	if err := w.load(ctx, env, cipher); err != nil {
		return err
	}
	if cipher != nil {
		if err := cipher.RecordRndUsesAndWarn(w.o.Keys, env.Log); err != nil {
			return err
		}
	}
	for _, t := range w.s.tables {
		for i, cols := range t.indexes {
			if err := admin.Exec(ctx, fmt.Sprintf("CREATE INDEX %s_i%d ON %s (%s)", t.name, i+1, t.name, cols)); err != nil {
				return fmt.Errorf("indexing %s: %w", t.name, err)
			}
		}
		if err := admin.Exec(ctx, fmt.Sprintf(d.AfterLoad, t.name)); err != nil {
			return fmt.Errorf("analyzing %s: %w", t.name, err)
		}
	}
	fmt.Fprintf(env.Log, "Loaded in %.1f s\n", time.Since(start).Seconds())
	return nil
}

// job is one unit of loading: a range of items or stock, a warehouse with
// its districts, or one district's customers or orders.
type job struct {
	kind       string
	w, d, from int
}

func (w *Workload) jobs() []job {
	var out []job
	for i := 1; i <= items; i += chunk {
		out = append(out, job{kind: "item", from: i})
	}
	for wh := 1; wh <= w.o.Warehouses; wh++ {
		out = append(out, job{kind: "warehouse", w: wh})
		for i := 1; i <= items; i += chunk {
			out = append(out, job{kind: "stock", w: wh, from: i})
		}
		for d := 1; d <= districts; d++ {
			out = append(out, job{kind: "customer", w: wh, d: d}, job{kind: "orders", w: wh, d: d})
		}
	}
	return out
}

func (w *Workload) load(ctx context.Context, env workload.Env, cipher *colenc.Cipher) error {
	jobs := make(chan job)
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() error {
		defer close(jobs)
		for _, j := range w.jobs() {
			select {
			case jobs <- j:
			case <-gctx.Done():
				return gctx.Err()
			}
		}
		return nil
	})
	for l := 0; l < max(1, env.Threads); l++ {
		g.Go(func() error {
			c, err := env.Connect(gctx)
			if err != nil {
				return err
			}
			defer c.Close()
			k, err := newCodec(w.s, w.o.Level, cipher)
			if err != nil {
				return err
			}
			ld := &loader{w: w, c: c, ctx: gctx, k: k, g: newRNG(w.seed, uint64(1000+l)),
				stmts: map[string]engine.Stmt{}, now: time.Now()}
			for j := range jobs {
				if err := ld.run(j); err != nil {
					return fmt.Errorf("loading %s: %w", j.kind, err)
				}
			}
			return nil
		})
	}
	return g.Wait()
}

// loader is one loading connection with its multi-row INSERT statements.
type loader struct {
	w     *Workload
	c     engine.Conn
	ctx   context.Context
	k     *codec
	g     rng
	stmts map[string]engine.Stmt
	rows  map[*table][]engine.Arg
	now   time.Time
}

func (l *loader) run(j job) error {
	if err := l.c.Exec(l.ctx, "BEGIN"); err != nil {
		return err
	}
	var err error
	switch j.kind {
	case "item":
		err = l.items(j.from)
	case "warehouse":
		err = l.warehouse(j.w)
	case "stock":
		err = l.stockRange(j.w, j.from)
	case "customer":
		err = l.customers(j.w, j.d)
	case "orders":
		err = l.orders(j.w, j.d)
	}
	if err == nil {
		err = l.flushAll()
	}
	if err != nil {
		_ = l.c.Exec(l.ctx, "ROLLBACK")
		return err
	}
	return l.c.Exec(l.ctx, "COMMIT")
}

// add queues one row (its arguments in column order) and sends a batch
// when it is full.
func (l *loader) add(t *table, args ...engine.Arg) error {
	if l.rows == nil {
		l.rows = map[*table][]engine.Arg{}
	}
	l.rows[t] = append(l.rows[t], args...)
	if len(l.rows[t]) >= batchRows*len(t.cols) {
		return l.flush(t)
	}
	return nil
}

func (l *loader) flush(t *table) error {
	args := l.rows[t]
	n := len(args) / len(t.cols)
	if n == 0 {
		return nil
	}
	key := fmt.Sprintf("%s/%d", t.name, n)
	st, ok := l.stmts[key]
	if !ok {
		names := make([]string, len(t.cols))
		for i, c := range t.cols {
			names[i] = c.name
		}
		one := "(" + strings.TrimSuffix(strings.Repeat("?,", len(t.cols)), ",") + ")"
		sql := fmt.Sprintf("INSERT INTO %s (%s) VALUES %s", t.name, strings.Join(names, ","), strings.TrimSuffix(strings.Repeat(one+",", n), ","))
		var err error
		if st, err = l.c.Prepare(l.ctx, sql); err != nil {
			return err
		}
		l.stmts[key] = st
	}
	l.rows[t] = args[:0]
	if err := st.Exec(args); err != nil {
		return fmt.Errorf("inserting into %s: %w", t.name, err)
	}
	return nil
}

func (l *loader) flushAll() error {
	for _, t := range l.w.s.tables {
		if err := l.flush(t); err != nil {
			return err
		}
	}
	return nil
}
