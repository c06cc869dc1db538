package integration

import (
	"context"
	"testing"

	"github.com/encbench/encbench/internal/engine"
	"github.com/encbench/encbench/internal/workload"
)

// TestPointSelectAllocatesNothing runs oltp_point_select's worker in this
// process, on a worker connection of each engine, and counts heap
// allocations per event: the hot path (argument binding, the statement's
// send and its reply's read, the row's decoding) must allocate nothing.
func TestPointSelectAllocatesNothing(t *testing.T) {
	for _, s := range servers(t) {
		t.Run(s.name, func(t *testing.T) {
			dsn := s.info.DSN
			mustRun(t, "prepare", "oltp_point_select", "--dsn", dsn, "--tables", "1", "--table-size", "1000", "--force")
			defer mustRun(t, "cleanup", "oltp_point_select", "--dsn", dsn, "--tables", "1")
			for _, name := range []string{"oltp_point_select", "oltp_read_only"} {
				if got := allocsPerEvent(t, dsn, name); got > 0 {
					t.Errorf("%s allocates %.2f times per event on %s, want 0", name, got, s.name)
				}
			}
		})
	}
}

func allocsPerEvent(t *testing.T, dsn, name string) float64 {
	t.Helper()
	ctx := context.Background()
	target, err := engine.ParseTarget(dsn, engine.TLSOptions{Mode: engine.TLSDisable})
	if err != nil {
		t.Fatal(err)
	}
	target.Worker = true
	fam, err := workload.Default().Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	opts := workload.DefaultOptions(fam, name)
	if err := workload.FlagSet(opts, name).Parse([]string{"--tables=1", "--table-size=1000"}); err != nil {
		t.Fatal(err)
	}
	wl, err := fam.New(name, opts)
	if err != nil {
		t.Fatal(err)
	}
	conn, err := target.Engine.Connect(ctx, target)
	if err != nil {
		t.Fatal(err)
	}
	w, err := wl.NewWorker(ctx, workload.WorkerEnv{Conn: conn, Dialect: target.Engine.Dialect(), Target: target, Threads: 1})
	if err != nil {
		conn.Close()
		t.Fatal(err)
	}
	defer w.Close()
	var c workload.Counters
	var runErr error
	event := func() {
		if err := w.Event(&c); err != nil && runErr == nil {
			runErr = err
		}
	}
	for range 100 { // buffers reach their size
		event()
	}
	got := testing.AllocsPerRun(1000, event)
	if runErr != nil {
		t.Fatalf("%s event: %v", name, runErr)
	}
	return got
}
