package oltp

import (
	"context"
	"fmt"
	"strconv"

	"golang.org/x/sync/errgroup"

	"github.com/encbench/encbench/internal/engine"
	"github.com/encbench/encbench/internal/randgen"
	"github.com/encbench/encbench/internal/workload"
)

const (
	cTemplate   = "###########-###########-###########-###########-###########-###########-###########-###########-###########-###########"
	padTemplate = "###########-###########-###########-###########-###########"
	// insertBatch rows go in one multi-row INSERT, as sysbench's bulk insert.
	insertBatch = 1000
)

// Tables are sbtest1..sbtestN.
func (w *Workload) Tables() []string {
	if isEnc(w.name) {
		return w.encTables()
	}
	return w.tableNames()
}

func (w *Workload) tableNames() []string {
	out := make([]string, w.opts.Tables)
	for i := range out {
		out[i] = tableName(i + 1)
	}
	return out
}

// Prepare creates and loads the tables (see loadTables).
func (w *Workload) Prepare(ctx context.Context, env workload.Env) error {
	if isEnc(w.name) {
		return w.prepareEnc(ctx, env)
	}
	d := env.Target.Engine.Dialect()
	admin, err := env.Connect(ctx)
	if err != nil {
		return err
	}
	defer admin.Close()
	suffix, err := workload.StartTables(ctx, env, admin, w.tableNames())
	if err != nil {
		return err
	}
	return w.loadTables(ctx, env, "", func(ctx context.Context, c engine.Conn, src *randgen.Source, n int) error {
		return w.createTable(ctx, c, d, src, n, suffix, env)
	})
}

// loadTables creates and loads the tables in parallel: thread t takes
// tables t+1, t+1+threads, ... exactly as oltp_common.lua's cmd_prepare.
func (w *Workload) loadTables(ctx context.Context, env workload.Env, note string, create func(context.Context, engine.Conn, *randgen.Source, int) error) error {
	threads := min(env.Threads, w.opts.Tables)
	g, gctx := errgroup.WithContext(ctx)
	for t := 0; t < threads; t++ {
		g.Go(func() error {
			c, err := env.Connect(gctx)
			if err != nil {
				return err
			}
			defer c.Close()
			src := randgen.New(w.opts.Rand, uint64(1000+t))
			for i := t + 1; i <= w.opts.Tables; i += threads {
				fmt.Fprintf(env.Log, "Creating table 'sbtest%d'%s...\n", i, note)
				if err := workload.Own(gctx, c, w.name, []string{tableName(i)}); err != nil {
					return err
				}
				if err := create(gctx, c, src, i); err != nil {
					return fmt.Errorf("preparing sbtest%d: %w", i, err)
				}
			}
			return nil
		})
	}
	return g.Wait()
}

func (w *Workload) createTable(ctx context.Context, c engine.Conn, d engine.Dialect, src *randgen.Source, n int, suffix string, env workload.Env) error {
	o := w.opts
	idDef := "INTEGER NOT NULL"
	if o.AutoInc {
		idDef = d.AutoIncID
	}
	idIndex := "PRIMARY KEY"
	if o.Secondary {
		idIndex = "KEY xid"
		if d.Name == "pgsql" {
			idIndex = "UNIQUE" // PostgreSQL has no inline KEY; a unique index plays xid's part
		}
	}
	ddl := fmt.Sprintf("CREATE TABLE sbtest%d(\n  id %s,\n  k INTEGER DEFAULT '0' NOT NULL,\n  c CHAR(120) DEFAULT '' NOT NULL,\n  pad CHAR(60) DEFAULT '' NOT NULL,\n  %s (id)\n) %s",
		n, idDef, idIndex, suffix)
	if err := c.Exec(ctx, ddl); err != nil {
		return err
	}
	size := o.TableSize
	if w.name == "oltp_insert" && !o.AutoInc {
		size = 0 // oltp_insert.lua loads nothing when ids come from the client
	}
	if size > 0 {
		fmt.Fprintf(env.Log, "Inserting %d records into 'sbtest%d'\n", size, n)
	}
	head := fmt.Sprintf("INSERT INTO sbtest%d(k, c, pad) VALUES", n)
	if !o.AutoInc {
		head = fmt.Sprintf("INSERT INTO sbtest%d(id, k, c, pad) VALUES", n)
	}
	buf := make([]byte, 0, insertBatch*220)
	var cv, pv []byte
	for i := 1; i <= size; i++ {
		if len(buf) == 0 {
			buf = append(buf, head...)
		} else {
			buf = append(buf, ',')
		}
		buf, cv, pv = appendRow(buf, cv, pv, src, o, i)
		if i%insertBatch == 0 || i == size {
			if err := c.Exec(ctx, string(buf)); err != nil {
				return err
			}
			buf = buf[:0]
		}
	}
	if w.server != nil {
		fmt.Fprintf(env.Log, "Encrypting c and pad of 'sbtest%d' on the server (%s)...\n", n, w.server.Spec())
		if err := w.convertServerColumns(ctx, c, n); err != nil {
			return err
		}
	}
	if o.CreateSecondary {
		fmt.Fprintf(env.Log, "Creating a secondary index on 'sbtest%d'...\n", n)
		if err := c.Exec(ctx, fmt.Sprintf("CREATE INDEX k_%d ON sbtest%d(k)", n, n)); err != nil {
			return err
		}
	}
	return nil
}

// Cleanup drops the workload's tables, but only those encbench created.
func (w *Workload) Cleanup(ctx context.Context, env workload.Env) error {
	return workload.Cleanup(ctx, env, w.Tables())
}

// drawRow draws one row's c, pad and k in oltp_common.lua's order.
func drawRow(src *randgen.Source, cv, pv []byte, tableSize int) (c, pad []byte, k int64) {
	cv = src.FillTemplate(cv, cTemplate)
	pv = src.FillTemplate(pv, padTemplate)
	return cv, pv, int64(src.Default(1, uint32(tableSize)))
}

// appendRow appends one VALUES tuple as oltp_common.lua builds it:
// (k, 'c', 'pad'), with the id first when ids come from the client.
func appendRow(buf, cv, pv []byte, src *randgen.Source, o Options, id int) (row, c, pad []byte) {
	cv, pv, k := drawRow(src, cv, pv, o.TableSize)
	buf = append(buf, '(')
	if !o.AutoInc {
		buf = strconv.AppendInt(buf, int64(id), 10)
		buf = append(buf, ", "...)
	}
	buf = strconv.AppendInt(buf, k, 10)
	buf = append(buf, ", '"...)
	buf = append(buf, cv...)
	buf = append(buf, "', '"...)
	buf = append(buf, pv...)
	buf = append(buf, "')"...)
	return buf, cv, pv
}
