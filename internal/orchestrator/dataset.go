package orchestrator

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/encbench/encbench/internal/engine"
	"github.com/encbench/encbench/internal/spec"
	"github.com/encbench/encbench/internal/workload"
)

// DataSetTable records, per workload family, the parameters of the data
// set prepare made on the server, so a later suite (or --resume) can tell
// its own data set from one it would have to make again.
const DataSetTable = "encbench_dataset"

// recordBound bounds all of one read or update of the data set record, a
// handful of statements on a table of a few rows: a server that stops
// answering meanwhile fails it instead of holding the suite's pre-flight
// or a prepare's end forever (SetUpStatementTimeout, for loading and
// indexing, would be two hours).
const recordBound = 30 * time.Second

// boundRecord is ctx bounded by recordBound.
func boundRecord(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, recordBound)
}

// recordFailed says that the server stopped answering when ctx's bound
// passed, and returns err unchanged otherwise.
func recordFailed(ctx context.Context, what string, err error) error {
	if err == nil || !errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return err
	}
	return fmt.Errorf("the server stopped answering: %s took longer than %v: %w", what, recordBound, err)
}

// DataSet is what one family's prepare made.
type DataSet struct {
	Family     string
	Params     string
	PreparedAt string
}

// DataParams is the prepare spec's data parameters, as sorted name=value
// pairs: the flags whose kind is data (the workload's options that shape
// its tables, --tde and the seed), never where the server is or how the
// load runs.
func DataParams(s spec.Spec) string {
	ch := s.DataChanged()
	var out []string
	for _, k := range slices.Sorted(maps.Keys(ch)) {
		out = append(out, "--"+k+"="+ch[k])
	}
	return strings.Join(out, " ")
}

// ReadDataSet returns the data set the spec's family has on its server
// (nil: none recorded, or a server without SQL tables).
func ReadDataSet(ctx context.Context, s spec.Spec, reg *workload.Registry) (*DataSet, error) {
	ctx, cancel := boundRecord(ctx)
	defer cancel()
	ds, err := readDataSet(ctx, s, reg)
	return ds, recordFailed(ctx, "reading the data set record ("+DataSetTable+")", err)
}

func readDataSet(ctx context.Context, s spec.Spec, reg *workload.Registry) (*DataSet, error) {
	r, err := Resolve(s, reg, nil)
	if err != nil {
		return nil, err
	}
	fam, err := reg.Lookup(s.Workload)
	if err != nil {
		return nil, err
	}
	c, err := r.Target.Engine.Connect(ctx, r.Target)
	if err != nil {
		return nil, engine.ConnectError(r.Target, err)
	}
	defer c.Close()
	if _, ok := c.(engine.Documents); ok {
		return nil, nil
	}
	tables, err := workload.Tables(ctx, c, r.Target.Engine.Dialect())
	if err != nil || !tables[DataSetTable] {
		return nil, err
	}
	rows, err := c.Query(ctx, fmt.Sprintf("SELECT params, prepared_at FROM %s WHERE family = '%s'", DataSetTable, fam.Name()))
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", DataSetTable, err)
	}
	if len(rows) == 0 {
		return nil, nil
	}
	return &DataSet{Family: fam.Name(), Params: rows[0][0], PreparedAt: rows[0][1]}, nil
}

// recordDataSet notes what a prepare just made (after the workload's own
// prepare, which created the ownership table this table is listed in).
func recordDataSet(ctx context.Context, r *Resolved, family string) (err error) {
	ctx, cancel := boundRecord(ctx)
	defer cancel()
	defer func() { err = recordFailed(ctx, "recording the data set ("+DataSetTable+")", err) }()
	c, err := sqlConn(ctx, r)
	if c == nil {
		return err
	}
	defer c.Close()
	if err := c.Exec(ctx, "CREATE TABLE IF NOT EXISTS "+DataSetTable+
		" (family VARCHAR(64) NOT NULL PRIMARY KEY, params VARCHAR(4000) NOT NULL, prepared_at VARCHAR(40) NOT NULL)"); err != nil {
		return fmt.Errorf("creating %s: %w", DataSetTable, err)
	}
	if err := workload.Own(ctx, c, "dataset", []string{DataSetTable}); err != nil {
		return err
	}
	if err := c.Exec(ctx, fmt.Sprintf("DELETE FROM %s WHERE family = '%s'", DataSetTable, family)); err != nil {
		return fmt.Errorf("updating %s: %w", DataSetTable, err)
	}
	params := strings.ReplaceAll(DataParams(r.Spec), "'", "''")
	now := time.Now().UTC().Format(time.RFC3339)
	if err := c.Exec(ctx, fmt.Sprintf("INSERT INTO %s VALUES ('%s', '%s', '%s')", DataSetTable, family, params, now)); err != nil {
		return fmt.Errorf("updating %s: %w", DataSetTable, err)
	}
	return nil
}

// forgetDataSet removes a family's record after its cleanup, and the
// table once no family is left in it.
func forgetDataSet(ctx context.Context, r *Resolved, family string) (err error) {
	ctx, cancel := boundRecord(ctx)
	defer cancel()
	defer func() { err = recordFailed(ctx, "forgetting the data set ("+DataSetTable+")", err) }()
	c, err := sqlConn(ctx, r)
	if c == nil {
		return err
	}
	defer c.Close()
	d := r.Target.Engine.Dialect()
	tables, err := workload.Tables(ctx, c, d)
	if err != nil || !tables[DataSetTable] {
		return err
	}
	if err := c.Exec(ctx, fmt.Sprintf("DELETE FROM %s WHERE family = '%s'", DataSetTable, family)); err != nil {
		return fmt.Errorf("updating %s: %w", DataSetTable, err)
	}
	rows, err := c.Query(ctx, "SELECT count(*) FROM "+DataSetTable)
	if err != nil || len(rows) == 0 || rows[0][0] != "0" {
		return err
	}
	if err := c.Exec(ctx, "DROP TABLE "+DataSetTable); err != nil {
		return fmt.Errorf("dropping %s: %w", DataSetTable, err)
	}
	return workload.Disown(ctx, c, d, []string{DataSetTable})
}

// sqlConn connects to the spec's server; nil (and no error) for a document
// store, which keeps no data set record.
func sqlConn(ctx context.Context, r *Resolved) (engine.Conn, error) {
	c, err := r.Target.Engine.Connect(ctx, r.Target)
	if err != nil {
		return nil, engine.ConnectError(r.Target, err)
	}
	if _, ok := c.(engine.Documents); ok {
		c.Close()
		return nil, nil
	}
	return c, nil
}
