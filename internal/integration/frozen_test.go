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

// A server that stops answering before an interleaved suite starts, at
// its first connection (one of pre-flight's checks, or the block's first
// cell's admin connection: where the freeze lands is the scheduler's
// choice; TestMuteServerAtEachStatementEndsTheSuite lands on each), or in
// the middle of its turns (every cell's workers connected) ends the suite
// with an error within its bounds (engine.ConnectTimeout; pre-flight's
// half minute; the cell's set-up bound, a minute; a turn's drain,
// --reconnect-timeout): it fails and ends (exit 1) instead of waiting for
// the server.
// A DSN target, which the suite does not freeze or thaw itself.
func TestFrozenServerEndsAnInterleavedBlock(t *testing.T) {
	s := servers(t)[0]
	for _, when := range []struct {
		name string
		// connections: freeze once the benchmark account has this many
		// (0: before the suite starts).
		connections int
		within      time.Duration
	}{
		{"before", 0, 30 * time.Second},
		{"connecting", 1, 90 * time.Second},
		{"turns", 6, 60 * time.Second},
	} {
		t.Run(when.name, func(t *testing.T) {
			dir := t.TempDir()
			file := filepath.Join(dir, "s.yaml")
			text := "name: frozen\ntargets:\n  - name: mine\n    dsn: '" + s.info.DSN + "'\nvariants: [plain, aa]\n" +
				"workloads:\n  - name: oltp_point_select\nthreads: [2]\ntime: 6\nwarmup: 0\nrepetitions: 1\nprecision: 0\n" +
				"data: {tables: 1, table-size: 1000}\n"
			if err := os.WriteFile(file, []byte(text), 0o600); err != nil {
				t.Fatal(err)
			}
			if when.connections > 0 {
				// The data set first, so that the freeze falls in the block.
				mustRun(t, "prepare", "oltp_point_select", "--dsn", s.info.DSN, "--tables", "1", "--table-size", "1000", "--force")
			}
			defer mustRun(t, "cleanup", "oltp_point_select", "--dsn", s.info.DSN)
			if when.connections == 0 {
				if err := quiet.Freeze(s.info.PID); err != nil {
					t.Fatal(err)
				}
			}
			frozen := time.Now()
			done := background("suite", "run", file, "--out", filepath.Join(dir, "out"), "--no-report")
			if when.connections > 0 {
				deadline := time.Now().Add(2 * time.Minute)
				for connected(t, s) < when.connections {
					if time.Now().After(deadline) {
						t.Fatalf("the block never had %d connections", when.connections)
					}
					time.Sleep(5 * time.Millisecond)
				}
				if err := quiet.Freeze(s.info.PID); err != nil {
					t.Fatal(err)
				}
				frozen = time.Now()
			}
			o := await(t, done, 3*time.Minute, func() { _ = quiet.Thaw(s.info.PID) }, "the suite, its server frozen,")
			took := time.Since(frozen)
			_ = quiet.Thaw(s.info.PID)
			all := o.out + o.err
			if o.code != 1 || took > when.within || !strings.Contains(all, "in time") && !strings.Contains(all, "stopped answering") {
				t.Errorf("exit %d, %v after the freeze (bound %v):\n%s", o.code, took, when.within, all)
			}
			t.Logf("the suite ended %v after its server froze", took.Round(time.Millisecond))
		})
	}
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
