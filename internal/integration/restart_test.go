package integration

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/encbench/encbench/internal/quiet"
	"github.com/encbench/encbench/internal/result"
	"github.com/encbench/encbench/internal/sandbox"
	"github.com/encbench/encbench/internal/schematest"
)

// restartServer restarts s's sandbox server with `encbench sandbox
// restart` and reconnects the admin connection the other tests use.
func restartServer(s *server, o sandbox.RestartOptions) error {
	s.admin.Close()
	args := []string{"sandbox", "restart", "--dir", s.info.Dir, "--down", o.Down.String()}
	if o.Immediate {
		args = append(args, "--immediate")
	}
	if code, out, errOut := encbench(context.Background(), args...); code != 0 || !strings.Contains(out, "restarted the") {
		return fmt.Errorf("encbench %s: exit %d: %s%s", strings.Join(args, " "), code, out, errOut)
	}
	info, err := sandbox.Load(s.info.Dir)
	if err != nil {
		return err
	}
	s.info = info
	return s.connectAdmin(context.Background())
}

// commits is the server's own count of committed transactions in the
// benchmark database: PostgreSQL's xact_commit (survives a clean restart,
// reset by a crash), MariaDB's Com_commit (reset by any restart).
func commits(s *server) (int64, error) {
	sql := "SHOW GLOBAL STATUS LIKE 'Com_commit'"
	if s.name == "postgres" {
		sql = "SELECT xact_commit FROM pg_stat_database WHERE datname = 'sbtest'"
	}
	rows, err := s.admin.Query(context.Background(), sql)
	if err != nil || len(rows) != 1 {
		return 0, fmt.Errorf("reading %s's commits: %v %v", s.name, rows, err)
	}
	return strconv.ParseInt(rows[0][len(rows[0])-1], 10, 64)
}

// orphans lists processes of s's sandbox that are not its running
// server's: an old server still alive, or PostgreSQL backends left behind
// by a postmaster that went away.
func orphans(s *server) []string {
	entries, _ := os.ReadDir("/proc")
	var out []string
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == s.info.PID {
			continue
		}
		cmd, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil {
			continue
		}
		line := strings.ReplaceAll(string(cmd), "\x00", " ")
		stat, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		fields := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
		orphanBackend := strings.HasPrefix(line, "postgres: ") && len(fields) > 1 && fields[1] == "1"
		if strings.Contains(line, s.info.Dir+"/") && !strings.Contains(line, "encbench") || orphanBackend {
			out = append(out, fmt.Sprintf("%d %s", pid, line))
		}
	}
	return out
}

// rowsIntact checks that sysbench's tables hold exactly the rows prepare
// made: a transaction cut halfway (DELETE done, INSERT not) must not stay.
func rowsIntact(t *testing.T, s *server, tables, size int) {
	t.Helper()
	for i := 1; i <= tables; i++ {
		r := s.query(t, fmt.Sprintf("SELECT COUNT(*), COUNT(DISTINCT id), MIN(id), MAX(id) FROM sbtest%d", i))
		if want := []string{strconv.Itoa(size), strconv.Itoa(size), "1", strconv.Itoa(size)}; strings.Join(r[0], ",") != strings.Join(want, ",") {
			t.Errorf("%s sbtest%d after the fault: count, distinct, min, max = %v, want %v", s.name, i, r[0], want)
		}
	}
}

// TestServerRestartMidRun restarts the server in the middle of
// oltp_read_write and TPC-C on both engines, cleanly and as a crash. The
// workers count the transactions the restart cut as failed, reconnect and
// go on; the run ends normally; the server committed transactions before
// and after the restart; nothing half-done was kept (sysbench's rows all
// there, all twelve TPC-C conditions); and no server process is left over.
func TestServerRestartMidRun(t *testing.T) {
	for _, s := range servers(t) {
		for _, wl := range []string{"oltp_read_write", "tpcc"} {
			// Each engine meets one clean restart and one crash.
			immediate := (s.name == "postgres") == (wl == "tpcc")
			t.Run(fmt.Sprintf("%s/%s/immediate=%v", s.name, wl, immediate), func(t *testing.T) {
				opts := []string{"--dsn", s.info.DSN}
				data := []string{"--threads", "2", "--force"}
				if wl == "oltp_read_write" {
					opts = append(opts, "--tables", "2", "--table-size", "1000")
				}
				mustRun(t, append(append([]string{"prepare", wl}, data...), opts...)...)
				defer mustRun(t, append([]string{"cleanup", wl}, opts...)...)
				launched := time.Now()
				var before, after int64
				var restarted time.Time
				done := make(chan error, 1)
				go func() {
					time.Sleep(3 * time.Second)
					var err error
					if before, err = commits(s); err == nil {
						err = restartServer(s, sandbox.RestartOptions{Immediate: immediate, Down: 500 * time.Millisecond})
					}
					restarted = time.Now()
					if err == nil {
						after, err = commits(s)
					}
					done <- err
				}()
				path := filepath.Join(t.TempDir(), "r.json")
				// The run lasts long enough for the server to come back and
				// take transactions again even on a loaded machine (a crash
				// restart of the TPC-C data took 19 s beside two other
				// benchmarks), so the test does not need an idle one.
				code, out, errOut := encbench(context.Background(), append([]string{"run", wl, "--threads", "4", "--time", "30",
					"--report-interval", "1", "--reconnect-timeout", "20s", "--json", path}, opts...)...)
				if err := <-done; err != nil {
					t.Fatalf("restarting: %v", err)
				}
				if code != 0 {
					t.Fatalf("the run did not survive the restart: exit %d\n%s\n%s", code, out, errOut)
				}
				r, err := result.ReadFile(path)
				if err != nil {
					t.Fatal(err)
				}
				schematest.File(t, schematest.Compile(t, "result.schema.json"), path)
				cut := r.Totals.Failed["connection"]
				if r.Totals.Reconnects < 1 || cut < 1 || r.Partial {
					t.Errorf("reconnects %d, transactions cut %d, partial %v", r.Totals.Reconnects, cut, r.Partial)
				}
				if !strings.Contains(out, "failed transactions:") || !strings.Contains(out, "connection ") {
					t.Errorf("the summary does not count the cut transactions:\n%s", out)
				}
				downFrom, upAt := 3.0, restarted.Sub(launched).Seconds()
				var early, late bool
				for _, iv := range r.Intervals {
					early = early || iv.TS <= downFrom && iv.TPS > 0
					late = late || iv.TS > upAt+1 && iv.TPS > 0
				}
				end, err := commits(s)
				if err != nil {
					t.Fatal(err)
				}
				if !early || !late || end-after < 20 || before < 1 {
					t.Errorf("transactions before the restart (by %.1f s) %v, after it (from %.1f s) %v; server commits %d before, %d more after", downFrom, early, upAt, late, before, end-after)
				}
				if wl == "tpcc" {
					out := mustRun(t, append([]string{"check", "tpcc"}, opts...)...)
					if strings.Count(out, " ok ") != 12 || strings.Contains(out, "FAILED") {
						t.Errorf("consistency after the restart:\n%s", out)
					}
				} else {
					rowsIntact(t, s, 2, 1000)
				}
				if o := orphans(s); len(o) > 0 {
					t.Errorf("processes left over by the restart: %v", o)
				}
				t.Logf("%s: %d transactions, %d cut by the restart, %d reconnects, %d committed after it", wl, r.Totals.Transactions, cut, r.Totals.Reconnects, end-after)
			})
		}
	}
}

// A server that stays down longer than --reconnect-timeout fails the run
// (exit 1) with what the worker saw, and the result is still written.
func TestServerThatStaysDownFailsTheRun(t *testing.T) {
	s := servers(t)[0]
	opts := []string{"--dsn", s.info.DSN, "--table-size", "1000"}
	mustRun(t, append([]string{"prepare", "oltp_point_select", "--force"}, opts...)...)
	defer mustRun(t, append([]string{"cleanup", "oltp_point_select"}, opts...)...)
	done := make(chan error, 1)
	go func() {
		time.Sleep(1500 * time.Millisecond)
		done <- restartServer(s, sandbox.RestartOptions{Down: 4 * time.Second})
	}()
	path := filepath.Join(t.TempDir(), "r.json")
	start := time.Now()
	code, out, errOut := encbench(context.Background(), append([]string{"run", "oltp_point_select", "--threads", "2", "--time", "30",
		"--reconnect-timeout", "1s", "--json", path}, opts...)...)
	took := time.Since(start)
	if err := <-done; err != nil {
		t.Fatalf("restarting: %v", err)
	}
	if code != 1 || !strings.Contains(errOut, "did not accept a new one within 1s") || strings.Count(strings.TrimSpace(errOut), "\n") > 1 {
		t.Errorf("exit %d after %v, stderr:\n%s\n%s", code, took, errOut, out)
	}
	if took > 15*time.Second {
		t.Errorf("giving up took %v", took)
	}
	r, err := result.ReadFile(path)
	if err != nil || r.Totals.Failed["connection"] < 1 || r.Variant.Verified.OK {
		t.Errorf("the failed run's result: %v, %+v", err, r)
	}
}

// Nothing hangs: a server that stops answering (frozen) ends the run,
// exit 1, once the bound has passed after the run's end.
func TestFrozenServerDoesNotHangTheRun(t *testing.T) {
	for _, s := range servers(t) {
		t.Run(s.name, func(t *testing.T) {
			opts := []string{"--dsn", s.info.DSN, "--table-size", "1000"}
			mustRun(t, append([]string{"prepare", "oltp_point_select", "--force"}, opts...)...)
			defer mustRun(t, append([]string{"cleanup", "oltp_point_select"}, opts...)...)
			thawed := make(chan struct{})
			go func() {
				defer close(thawed)
				time.Sleep(time.Second)
				if err := quiet.Freeze(s.info.PID); err != nil {
					t.Errorf("freezing: %v", err)
					return
				}
				time.Sleep(8 * time.Second)
				_ = quiet.Thaw(s.info.PID)
			}()
			start := time.Now()
			code, _, errOut := encbench(context.Background(), append([]string{"run", "oltp_point_select", "--threads", "2", "--time", "2",
				"--reconnect-timeout", "2s"}, opts...)...)
			took := time.Since(start)
			<-thawed
			if code != 1 || !strings.Contains(errOut, "stopped answering") || took > 15*time.Second {
				t.Errorf("exit %d after %v: %s", code, took, errOut)
			}
		})
	}
}

// Connections cut by the network (through the proxy, with added round
// trips) fail the transactions they cut; the workers reconnect and the
// run goes on; nothing half-done is kept.
func TestConnectionsCutByTheNetwork(t *testing.T) {
	for _, s := range servers(t) {
		t.Run(s.name, func(t *testing.T) {
			opts := []string{"--dsn", s.info.DSN, "--tables", "2", "--table-size", "1000"}
			mustRun(t, append([]string{"prepare", "oltp_read_write", "--force"}, opts...)...)
			defer mustRun(t, append([]string{"cleanup", "oltp_read_write"}, opts...)...)
			r := runJSON(t, append([]string{"oltp_read_write", "--threads", "4", "--time", "4", "--net-cut-after", "700ms", "--net-delay", "200us"}, opts...)...)
			cut := r.Totals.Failed["connection"]
			// Each worker's connection lives 0.7 s, so each is cut several times.
			if cut < 8 || r.Totals.Reconnects != cut || r.Totals.Transactions == 0 || r.Network == nil || r.Network.CutAfterMs != 700 {
				t.Errorf("cut %d, reconnects %d, transactions %d, network %+v", cut, r.Totals.Reconnects, r.Totals.Transactions, r.Network)
			}
			rowsIntact(t, s, 2, 1000)
		})
	}
}

// Conflicts on real servers: sysbench's writes on a tiny table deadlock
// and collide. --max-tries repeats them; with --ignore-errors none and one
// try the first conflict stops the run naming its code.
func TestConflictsRetriedOrFatal(t *testing.T) {
	for _, s := range servers(t) {
		t.Run(s.name, func(t *testing.T) {
			opts := []string{"--dsn", s.info.DSN, "--tables", "1", "--table-size", "8"}
			mustRun(t, append([]string{"prepare", "oltp_write_only", "--force"}, opts...)...)
			defer mustRun(t, append([]string{"cleanup", "oltp_write_only"}, opts...)...)
			r := runJSON(t, append([]string{"oltp_write_only", "--threads", "8", "--time", "3", "--max-tries", "20", "--ignore-errors", "all"}, opts...)...)
			if r.Totals.Errors == 0 || r.Totals.Retries == 0 || r.Totals.Retried == 0 || len(r.Totals.ErrorCodes) == 0 {
				t.Fatalf("8 writers on 8 rows met no conflict to retry: errors %d, retried %d, retries %d, codes %v", r.Totals.Errors, r.Totals.Retried, r.Totals.Retries, r.Totals.ErrorCodes)
			}
			var byCode int64
			for _, n := range r.Totals.ErrorCodes {
				byCode += n
			}
			if byCode != r.Totals.Errors || r.Totals.Retries > r.Totals.Errors {
				t.Errorf("errors %d, by code %v, retries %d", r.Totals.Errors, r.Totals.ErrorCodes, r.Totals.Retries)
			}
			code, _, errOut := encbench(context.Background(), append([]string{"run", "oltp_write_only", "--threads", "8", "--time", "3", "--max-tries", "1", "--ignore-errors", "none"}, opts...)...)
			if code != 1 || !strings.Contains(errOut, "not in --ignore-errors (none)") {
				t.Errorf("a conflict with no ignored errors: exit %d, %s", code, errOut)
			}
			rowsIntact(t, s, 1, 8)
			t.Logf("errors by code %v, failed %v, retried %d, retries %d", r.Totals.ErrorCodes, r.Totals.Failed, r.Totals.Retried, r.Totals.Retries)
		})
	}
}
