package integration

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/encbench/encbench/internal/engine"
	"github.com/encbench/encbench/internal/quiet"
)

// A server that stops answering before a run connects fails the run with
// one clear line within engine.ConnectTimeout, and one that stops in the
// middle of a connection's set-up (after the TCP connection is up, before
// the start-up or handshake reply) fails that connection within the same
// bound, for an admin connection and a worker's alike.
func TestFrozenServerFailsTheConnect(t *testing.T) {
	bound := engine.ConnectTimeout + 5*time.Second
	for _, s := range servers(t) {
		t.Run(s.name+"/before", func(t *testing.T) {
			if err := quiet.Freeze(s.info.PID); err != nil {
				t.Fatal(err)
			}
			defer quiet.Thaw(s.info.PID)
			start := time.Now()
			code, _, errOut := encbench(t.Context(), "run", "oltp_point_select", "--dsn", s.info.DSN, "--time", "2", "--table-size", "1000")
			took := time.Since(start)
			if code != 1 || !strings.Contains(errOut, "did not complete the connection's set-up in time") || took > bound ||
				strings.Count(strings.TrimSpace(errOut), "\n") > 0 {
				t.Errorf("exit %d after %v (bound %v):\n%s", code, took, bound, errOut)
			}
		})
		for _, worker := range []bool{false, true} {
			t.Run(s.name+"/during/"+map[bool]string{false: "admin", true: "worker"}[worker], func(t *testing.T) {
				target, err := engine.ParseTarget(s.info.DSN, engine.TLSOptions{Mode: engine.TLSDisable})
				if err != nil {
					t.Fatal(err)
				}
				target.Worker = worker
				// Frozen just before the first dial: the kernel still
				// completes the TCP handshake (the listen queue), and nothing
				// answers after it. (Freezing after the dial races
				// PostgreSQL's fork of the new backend, which would escape the
				// freeze; pgconn's CancelRequest after the abandoned start-up
				// dials again, and must not freeze the server anew.)
				var dialed atomic.Bool
				target.WrapDial = func(d engine.DialFunc) engine.DialFunc {
					return func(ctx context.Context, network, address string) (net.Conn, error) {
						if !dialed.Swap(true) {
							if err := quiet.Freeze(s.info.PID); err != nil {
								return nil, err
							}
						}
						return d(ctx, network, address)
					}
				}
				defer quiet.Thaw(s.info.PID)
				start := time.Now()
				c, err := target.Engine.Connect(context.Background(), target)
				took := time.Since(start)
				if err == nil {
					c.Close()
					t.Fatal("connected to a frozen server")
				}
				if took > bound || !strings.Contains(err.Error(), "in time") {
					t.Errorf("after %v (bound %v): %v", took, bound, err)
				}
			})
		}
	}
}

// A server that stops answering in the middle of an interleaved block (a
// DSN target: the suite does not freeze or thaw it) ends the block with an
// error; the suite fails that block's cells, goes on, and ends (exit 1)
// instead of waiting for the server.
func TestFrozenServerEndsAnInterleavedBlock(t *testing.T) {
	s := servers(t)[0]
	dir := t.TempDir()
	file := filepath.Join(dir, "s.yaml")
	text := "name: frozen\ntargets:\n  - name: mine\n    dsn: '" + s.info.DSN + "'\nvariants: [plain, aa]\n" +
		"workloads:\n  - name: oltp_point_select\nthreads: [2]\ntime: 6\nwarmup: 0\nrepetitions: 1\nprecision: 0\n" +
		"data: {tables: 1, table-size: 1000}\n"
	if err := os.WriteFile(file, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	type outcome struct {
		code     int
		out, err string
	}
	done := make(chan outcome, 1)
	go func() {
		code, so, se := encbench(context.Background(), "suite", "run", file, "--out", filepath.Join(dir, "out"), "--no-report")
		done <- outcome{code, so, se}
	}()
	// The block's turns begin once both cells' admin connections and
	// workers (2 + 2 x 2) are connected.
	deadline := time.Now().Add(2 * time.Minute)
	for connected(t, s) < 6 {
		if time.Now().After(deadline) {
			t.Fatal("the block's workers never connected")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err := quiet.Freeze(s.info.PID); err != nil {
		t.Fatal(err)
	}
	frozen := time.Now()
	var o outcome
	select {
	case o = <-done:
	case <-time.After(3 * time.Minute):
		_ = quiet.Thaw(s.info.PID)
		o = <-done
		t.Fatalf("the suite was still running 3 minutes after its server froze:\n%s\n%s", o.out, o.err)
	}
	took := time.Since(frozen)
	_ = quiet.Thaw(s.info.PID)
	if o.code != 1 || !strings.Contains(o.out+o.err, "stopped answering") {
		t.Errorf("exit %d, %v after the freeze:\n%s\n%s", o.code, took, o.out, o.err)
	}
	t.Logf("the suite ended %v after its server froze", took.Round(time.Millisecond))
	mustRun(t, "cleanup", "oltp_point_select", "--dsn", s.info.DSN)
}

// connected counts the benchmark account's client connections, within 10 s.
func connected(t *testing.T, s *server) int {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	rows, err := s.admin.Query(ctx, "SELECT count(*) FROM pg_stat_activity WHERE usename = 'sbtest' AND backend_type = 'client backend'")
	if err != nil || len(rows) != 1 {
		t.Fatalf("counting connections: %v", err)
	}
	n, _ := strconv.Atoi(rows[0][0])
	return n
}
