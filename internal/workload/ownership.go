package workload

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/encbench/encbench/internal/engine"
	"github.com/encbench/encbench/internal/errs"
)

// OwnershipTable records every table encbench created, so that prepare and
// cleanup never touch a table somebody else owns.
const OwnershipTable = "encbench_owned"

// Tables lists the tables of the connection's current schema.
func Tables(ctx context.Context, c engine.Conn, d engine.Dialect) (map[string]bool, error) {
	rows, err := c.Query(ctx, d.ListTables)
	if err != nil {
		return nil, fmt.Errorf("listing tables: %w", err)
	}
	out := map[string]bool{}
	for _, r := range rows {
		out[strings.ToLower(r[0])] = true
	}
	return out, nil
}

// Owned returns the tables encbench recorded as its own, with their workload.
func Owned(ctx context.Context, c engine.Conn, d engine.Dialect) (map[string]string, error) {
	tables, err := Tables(ctx, c, d)
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	if !tables[OwnershipTable] {
		return out, nil
	}
	rows, err := c.Query(ctx, "SELECT table_name, workload FROM "+OwnershipTable)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", OwnershipTable, err)
	}
	for _, r := range rows {
		out[r[0]] = r[1]
	}
	return out, nil
}

// CheckPrepare refuses to prepare over tables encbench did not create, or
// over its own earlier tables, unless force is set. With force it drops them.
func CheckPrepare(ctx context.Context, c engine.Conn, d engine.Dialect, want []string, force bool) error {
	tables, err := Tables(ctx, c, d)
	if err != nil {
		return err
	}
	owned, err := Owned(ctx, c, d)
	if err != nil {
		return err
	}
	var foreign, mine, refresh []string
	for _, t := range want {
		if !tables[t] {
			continue
		}
		if _, ok := owned[t]; ok && t == MarkerTable {
			// Every family's prepare writes the marker anew; another
			// family's data set may share the schema.
			refresh = append(refresh, t)
		} else if ok {
			mine = append(mine, t)
		} else {
			foreign = append(foreign, t)
		}
	}
	if !force {
		if len(foreign) > 0 {
			return errs.Usage("refusing to prepare: table(s) %s exist and were not created by encbench; use another database, drop them yourself, or pass --force to replace them", strings.Join(foreign, ", "))
		}
		if len(mine) > 0 {
			return errs.Usage("table(s) %s are already prepared: run cleanup first, or pass --force to recreate them", strings.Join(mine, ", "))
		}
	}
	mine = append(mine, refresh...)
	for _, t := range append(mine, foreign...) {
		if err := c.Exec(ctx, "DROP TABLE "+t); err != nil {
			return fmt.Errorf("dropping %s: %w", t, err)
		}
	}
	if err := c.Exec(ctx, "CREATE TABLE IF NOT EXISTS "+OwnershipTable+
		" (table_name VARCHAR(64) NOT NULL PRIMARY KEY, workload VARCHAR(64) NOT NULL, created_at VARCHAR(40) NOT NULL)"); err != nil {
		return fmt.Errorf("creating %s: %w", OwnershipTable, err)
	}
	for _, t := range mine {
		if err := c.Exec(ctx, fmt.Sprintf("DELETE FROM %s WHERE table_name = '%s'", OwnershipTable, t)); err != nil {
			return fmt.Errorf("updating %s: %w", OwnershipTable, err)
		}
	}
	return nil
}

// Own records tables as created by encbench for workload. CheckPrepare has
// created the ownership table, so parallel loaders do not race to create it.
func Own(ctx context.Context, c engine.Conn, workloadName string, names []string) error {
	now := time.Now().UTC().Format(time.RFC3339)
	for _, n := range names {
		if err := c.Exec(ctx, fmt.Sprintf("DELETE FROM %s WHERE table_name = '%s'", OwnershipTable, n)); err != nil {
			return fmt.Errorf("recording ownership of %s: %w", n, err)
		}
		if err := c.Exec(ctx, fmt.Sprintf("INSERT INTO %s VALUES ('%s', '%s', '%s')", OwnershipTable, n, workloadName, now)); err != nil {
			return fmt.Errorf("recording ownership of %s: %w", n, err)
		}
	}
	return nil
}

// Disown forgets tables, and drops the ownership table once it is empty.
func Disown(ctx context.Context, c engine.Conn, d engine.Dialect, names []string) error {
	tables, err := Tables(ctx, c, d)
	if err != nil || !tables[OwnershipTable] {
		return err
	}
	for _, n := range names {
		if err := c.Exec(ctx, fmt.Sprintf("DELETE FROM %s WHERE table_name = '%s'", OwnershipTable, n)); err != nil {
			return fmt.Errorf("updating %s: %w", OwnershipTable, err)
		}
	}
	left, err := c.Query(ctx, "SELECT count(*) FROM "+OwnershipTable)
	if err != nil {
		return fmt.Errorf("reading %s: %w", OwnershipTable, err)
	}
	if len(left) == 1 && left[0][0] == "0" {
		return c.Exec(ctx, "DROP TABLE "+OwnershipTable)
	}
	return nil
}

// DropOwned drops those of names that encbench owns and returns the ones it
// left alone because somebody else created them.
func DropOwned(ctx context.Context, c engine.Conn, d engine.Dialect, names []string, log func(string)) ([]string, error) {
	tables, err := Tables(ctx, c, d)
	if err != nil {
		return nil, err
	}
	owned, err := Owned(ctx, c, d)
	if err != nil {
		return nil, err
	}
	var dropped, skipped []string
	for _, n := range names {
		if !tables[n] {
			continue
		}
		if _, ok := owned[n]; !ok {
			skipped = append(skipped, n)
			continue
		}
		log(fmt.Sprintf("Dropping table '%s'...", n))
		if err := c.Exec(ctx, "DROP TABLE IF EXISTS "+n); err != nil {
			return skipped, fmt.Errorf("dropping %s: %w", n, err)
		}
		dropped = append(dropped, n)
	}
	var stale []string
	for n := range owned {
		if !tables[n] {
			stale = append(stale, n)
		}
	}
	return skipped, Disown(ctx, c, d, append(dropped, stale...))
}

// Cleanup drops the named tables (with the marker table) or, on a document
// store, collections - only those encbench created - and says which it left.
func Cleanup(ctx context.Context, env Env, names []string) error {
	c, err := env.Connect(ctx)
	if err != nil {
		return err
	}
	defer c.Close()
	log := func(s string) { fmt.Fprintln(env.Log, s) }
	kind := "table"
	var skipped []string
	if docs, ok := c.(engine.Documents); ok {
		kind = "collection"
		skipped, err = DropOwnedDocs(ctx, docs, names, log)
	} else {
		skipped, err = DropOwned(ctx, c, env.Target.Engine.Dialect(), slices.Concat(names, []string{MarkerTable}), log)
	}
	for _, s := range skipped {
		fmt.Fprintf(env.Log, "Leaving %s '%s' alone: encbench did not create it\n", kind, s)
	}
	return err
}

// StartTables begins every SQL prepare: the table options (with TDE, the
// server's own syntax, or a usage error before anything is written), the
// refusal to overwrite tables encbench did not create, and the marker
// table. It returns what follows CREATE TABLE (...).
func StartTables(ctx context.Context, env Env, c engine.Conn, tables []string) (string, error) {
	d := env.Target.Engine.Dialect()
	suffix, err := env.TableSuffix(ctx, c)
	if err != nil {
		return "", err
	}
	if err := CheckPrepare(ctx, c, d, append(slices.Clone(tables), MarkerTable), env.Force); err != nil {
		return "", err
	}
	fmt.Fprintf(env.Log, "Creating table '%s' (a random marker string that the at-rest proof looks for in the server's files)...\n", MarkerTable)
	if _, err := WriteMarker(ctx, c, d, suffix); err != nil {
		return "", err
	}
	return suffix, nil
}
