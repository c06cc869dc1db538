package script

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/encbench/encbench/internal/engine"
	"github.com/encbench/encbench/internal/workload"
)

// recConn records what each statement was sent; its statements answer
// one row, as a \gset wants.
type recConn struct {
	engine.Conn
	sent [][]int64
}

type recStmt struct {
	c    *recConn
	sql  string
	cols []string
}

func (c *recConn) Prepare(_ context.Context, sql string) (engine.Stmt, error) {
	return &recStmt{c: c, sql: sql, cols: []string{"v"}}, nil
}
func (c *recConn) Query(context.Context, string) ([][]string, error) { return [][]string{{"1"}}, nil }
func (c *recConn) Close() error                                      { return nil }
func (s *recStmt) Columns() []string                                 { return s.cols }
func (s *recStmt) Exec(args []engine.Arg) error {
	var row []int64
	for _, a := range args {
		row = append(row, a.Int)
	}
	s.c.sent = append(s.c.sent, row)
	return nil
}
func (s *recStmt) Query(args []engine.Arg, row func([][]byte) error) error {
	if err := s.Exec(args); err != nil {
		return err
	}
	return row([][]byte{[]byte("42")})
}

func newTestWorker(t *testing.T, text string) (*worker, *recConn) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "t.sql")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	fam := Family{name: "script"}
	o := workload.DefaultOptions(fam, "script").(*Options)
	o.Files, o.Seed = []string{path}, 7
	w, err := fam.New("script", o)
	if err != nil {
		t.Fatal(err)
	}
	conn := &recConn{}
	wk, err := w.NewWorker(context.Background(), workload.WorkerEnv{Conn: conn, Dialect: engine.Dialect{Name: "pgsql"}, Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	return wk.(*worker), conn
}

// A transaction tried again after a conflict sends what it sent the first
// time (pgbench's --max-tries); the next one draws anew.
func TestRetrySendsTheSameDraws(t *testing.T) {
	k, conn := newTestWorker(t, "\\set a random(1, 1000000000)\n\\set b random(1, 1000000000)\nSELECT :a, :b;\n")
	var c workload.Counters
	for _, step := range []func() error{func() error { return k.Event(&c) }, func() error { return k.Abort(true) },
		func() error { return k.Event(&c) }, func() error { return k.Event(&c) }} {
		if err := step(); err != nil {
			t.Fatal(err)
		}
	}
	var selects [][]int64
	for _, s := range conn.sent {
		if len(s) == 2 {
			selects = append(selects, s)
		}
	}
	if len(selects) != 3 || !slices.Equal(selects[0], selects[1]) || slices.Equal(selects[1], selects[2]) {
		t.Errorf("first try, retry, next transaction sent %v", selects)
	}
}

// \gset stores the row's columns; \if takes the branch they select, and
// a branch that ran skips the rest of its chain.
func TestGsetAndIfChooseTheBranch(t *testing.T) {
	k, conn := newTestWorker(t, `SELECT 1 AS v \gset
\if :v = 41
SELECT 1, 1, 1;
\elif :v = 42
SELECT 2, 2;
\elif :v > 0
SELECT 3, 3, 3, 3;
\else
SELECT 4;
\endif
`)
	var c workload.Counters
	if err := k.Event(&c); err != nil {
		t.Fatal(err)
	}
	if len(conn.sent) != 2 {
		t.Errorf("sent %v", conn.sent)
	}
	if c.Reads != 2 || c.Parts[0] <= 0 || c.Parts[2] <= 0 || c.Parts[1] != 0 || c.Parts[3] != 0 || c.Parts[4] != 0 {
		t.Errorf("counters %+v", c)
	}
}
