package tpcc

import (
	"context"
	"github.com/encbench/encbench/internal/engine/mysql"
	"slices"
	"testing"

	"github.com/encbench/encbench/internal/engine"
	"github.com/encbench/encbench/internal/workload"
)

// sessionConn records what a worker runs on its session: config and
// isolation queries answered, statements prepared as stubs.
type sessionConn struct {
	engine.Conn
	d     engine.Dialect
	execs []string
}

func (c *sessionConn) Query(_ context.Context, sql string) ([][]string, error) {
	if sql == c.d.ShowIsolation {
		return [][]string{{"transaction_isolation", "SERIALIZABLE"}}, nil
	}
	return [][]string{{"1", "0", ""}}, nil // warehouses, level, key check
}

func (c *sessionConn) Exec(_ context.Context, sql string) error {
	c.execs = append(c.execs, sql)
	return nil
}

func (c *sessionConn) Prepare(context.Context, string) (engine.Stmt, error) { return &stubStmt{}, nil }

// A terminal's session takes parameters as bytes where the dialect says so
// (at every level, plain included), gets the isolation asked for and, when
// serializable, the dialect's statement that keeps conflict checks off
// whole relations; not at another isolation.
func TestWorkerSessionSetup(t *testing.T) {
	bytes := "SET SESSION character_set_client = binary" // MySQL's, from the column layer
	d := engine.Dialect{
		SetIsolation: "SET SESSION TRANSACTION ISOLATION LEVEL %s", ShowIsolation: "SHOW ISOLATION", SerializableScans: "SET enable_seqscan = off"}
	for iso, want := range map[string][]string{
		"serializable":    {bytes, "SET SESSION TRANSACTION ISOLATION LEVEL SERIALIZABLE", d.SerializableScans},
		"repeatable-read": {bytes, "SET SESSION TRANSACTION ISOLATION LEVEL REPEATABLE READ"},
		"default":         {bytes},
	} {
		conn := &sessionConn{d: d}
		w := &Workload{o: Options{Warehouses: 1, Isolation: iso}, s: newSchema(), delivered: newDeliveredHints(1)}
		wk, err := w.NewWorker(context.Background(), workload.WorkerEnv{Conn: conn, Dialect: d, Target: engine.Target{Engine: mysql.Engine{}}, Threads: 1})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(conn.execs, want) {
			t.Errorf("%s: session statements %q, want %q", iso, conn.execs, want)
		}
		if iso == "serializable" && !wk.(*worker).snapshotPerTx {
			t.Error("a serializable session reads one snapshot per transaction")
		}
	}
}

// A transaction a conflict rolled back is tried again with its own input
// (--retry-input same, pgbench's rule) or as the same type with new input
// (new, OLTPBench's), and its latency counts from the first try.
func TestRetryInput(t *testing.T) {
	for _, mode := range []string{retrySame, retryNew} {
		w := &Workload{o: Options{Warehouses: 1, RetryInput: mode}, s: newSchema(), delivered: newDeliveredHints(1)}
		d := engine.Dialect{}
		wk, err := w.NewWorker(context.Background(), workload.WorkerEnv{Conn: &sessionConn{d: d}, Dialect: d, Target: engine.Target{Engine: mysql.Engine{}}, Threads: 1})
		if err != nil {
			t.Fatal(err)
		}
		k := wk.(*worker)
		changed := 0
		for range 50 {
			k.next()
			first, start := k.in, k.start
			first.lines = slices.Clone(first.lines)
			k.retry = true
			k.next()
			if k.in.typ != first.typ || k.start != start {
				t.Fatalf("%s: a retry of type %d ran type %d, or restarted its clock", mode, first.typ, k.in.typ)
			}
			if k.in.d != first.d || k.in.cid != first.cid || !slices.Equal(k.in.lines, first.lines) || k.in.amount != first.amount {
				changed++
			}
		}
		if (mode == retrySame) != (changed == 0) || (mode == retryNew && changed < 40) {
			t.Errorf("--retry-input %s: %d of 50 retries had new input", mode, changed)
		}
	}
}
