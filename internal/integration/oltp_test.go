package integration

import (
	"context"
	"fmt"
	"math"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Statements per transaction of sysbench 1.0.20's Lua scripts with default
// options, as each server counts them. PostgreSQL's pg_stat_statements does
// not count BEGIN and COMMIT sent as prepared statements; MariaDB's Com_*
// counters do.
var perTxn = map[string]map[string]float64{
	"postgres": {
		"oltp_point_select": 1, "oltp_read_only": 14, "oltp_read_write": 18, "oltp_write_only": 4,
		"oltp_update_index": 1, "oltp_update_non_index": 1, "oltp_insert": 1, "oltp_delete": 1,
		"select_random_points": 1, "select_random_ranges": 1,
	},
	"mariadb": {
		"oltp_point_select": 1, "oltp_read_only": 16, "oltp_read_write": 20, "oltp_write_only": 6,
		"oltp_update_index": 1, "oltp_update_non_index": 1, "oltp_insert": 1, "oltp_delete": 1,
		"select_random_points": 1, "select_random_ranges": 1,
	},
}

var workloads = []string{
	"oltp_point_select", "oltp_read_only", "oltp_read_write", "oltp_write_only", "oltp_update_index",
	"oltp_update_non_index", "oltp_insert", "oltp_delete", "select_random_points", "select_random_ranges",
}

const tableSize = 2000

func tablesFor(wl string) string {
	if strings.HasPrefix(wl, "select_random") {
		return "1"
	}
	return "2"
}

// TestWorkloadsMatchSysbench prepares, runs every workload and cleans up on
// both engines, checking rows, statements counted by the server, TLS seen by
// the server, and, when sysbench is installed, that sysbench sends the same
// statements per transaction to the same server.
func TestWorkloadsMatchSysbench(t *testing.T) {
	for _, s := range servers(t) {
		t.Run(s.name, func(t *testing.T) {
			dsn := s.info.DSN
			out := mustRun(t, "prepare", "oltp_read_write", "--dsn", dsn, "--tables", "2", "--table-size", strconv.Itoa(tableSize), "--threads", "2")
			if !strings.Contains(out, "Creating a secondary index on 'sbtest2'") {
				t.Errorf("prepare output lacks sysbench's progress lines:\n%s", out)
			}
			if !strings.Contains(out, "Creating table 'encbench_marker'") {
				t.Errorf("prepare does not name the marker table it creates:\n%s", out)
			}
			for _, tbl := range []string{"sbtest1", "sbtest2"} {
				if n := s.scalar(t, "SELECT count(*) FROM "+tbl); n != tableSize {
					t.Errorf("%s has %d rows, want %d", tbl, n, tableSize)
				}
			}
			if n := s.indexCount(t, "k_1"); n != 1 {
				t.Errorf("index k_1 missing after prepare")
			}
			for _, wl := range workloads {
				t.Run(wl, func(t *testing.T) {
					checkWorkload(t, s, wl)
				})
			}
			mustRun(t, "cleanup", "oltp_read_write", "--dsn", dsn, "--tables", "2")
			left := s.tables(t)
			for _, tbl := range []string{"sbtest1", "sbtest2", "encbench_owned"} {
				if left[tbl] {
					t.Errorf("cleanup left %s behind", tbl)
				}
			}
		})
	}
}

func (s *server) indexCount(t *testing.T, name string) int64 {
	if s.name == "postgres" {
		return s.scalar(t, fmt.Sprintf("SELECT count(*) FROM pg_indexes WHERE indexname = '%s'", name))
	}
	return s.scalar(t, fmt.Sprintf("SELECT count(DISTINCT index_name) FROM information_schema.statistics WHERE table_schema = 'sbtest' AND index_name = '%s'", name))
}

func checkWorkload(t *testing.T, s *server, wl string) {
	// Enough events that the few statements a run sends before measuring
	// (reading the marker and the tablespace view) stay under 0.5%.
	const events = 600
	rowsBefore := s.scalar(t, "SELECT count(*) FROM sbtest1") + s.scalar(t, "SELECT count(*) FROM sbtest2")
	before := s.statements(t)
	r := runJSON(t, wl, "--dsn", s.info.DSN, "--tables", tablesFor(wl), "--table-size", strconv.Itoa(tableSize),
		"--threads", "2", "--events", strconv.Itoa(events), "--time", "0")
	seen := s.statements(t) - before
	rowsAfter := s.scalar(t, "SELECT count(*) FROM sbtest1") + s.scalar(t, "SELECT count(*) FROM sbtest2")

	if r.Totals.Transactions != events {
		t.Errorf("ran %d transactions, want exactly --events=%d", r.Totals.Transactions, events)
	}
	want := perTxn[s.name][wl]
	got := float64(seen) / float64(r.Totals.Transactions)
	// An event retried after an error sysbench ignores (a duplicate key
	// when two threads delete and re-insert the same id) sends its
	// statements again.
	retried := float64(r.Totals.Errors) * want / float64(r.Totals.Transactions)
	if got < want*0.99 || got > (want+retried)*1.01 {
		t.Errorf("server counted %.3f statements per transaction (%d ignored errors), sysbench's script sends %.0f", got, r.Totals.Errors, want)
	}
	v := r.Variant.Verified
	if !v.OK || v.TLS.Connections != 2 || v.TLS.TLSConnections != 0 {
		t.Errorf("TLS proof %+v: want 2 connections, none encrypted, verified", v)
	}
	if r.Workload.Name != wl || r.Workload.Params["rand_type"] != "special" {
		t.Errorf("result names workload %q with distribution %v", r.Workload.Name, r.Workload.Params["rand_type"])
	}
	if r.LatencyMs.P50 <= 0 || r.LatencyMs.P99 < r.LatencyMs.P50 || r.LatencyMs.Max < r.LatencyMs.P999 {
		t.Errorf("latency percentiles out of order: %+v", r.LatencyMs)
	}
	switch wl {
	case "oltp_insert":
		if rowsAfter-rowsBefore != events {
			t.Errorf("oltp_insert added %d rows, want %d", rowsAfter-rowsBefore, events)
		}
	case "oltp_delete":
		if rowsAfter > rowsBefore || rowsBefore-rowsAfter > events {
			t.Errorf("oltp_delete went from %d to %d rows in %d events", rowsBefore, rowsAfter, events)
		}
	case "oltp_read_only", "oltp_point_select", "oltp_read_write", "oltp_write_only":
		if rowsAfter != rowsBefore {
			t.Errorf("%s changed the row count from %d to %d", wl, rowsBefore, rowsAfter)
		}
	}
	if sb, err := exec.LookPath("sysbench"); err == nil {
		sbPerTxn, sbRetried := sysbenchPerTxn(t, sb, s, wl, events)
		if math.Abs(sbPerTxn-got) > want*(0.01+sbRetried)+retried {
			t.Errorf("sysbench sent %.3f statements per transaction to the same server, encbench %.3f", sbPerTxn, got)
		}
	}
}

var (
	sbTxns   = regexp.MustCompile(`transactions:\s+(\d+)`)
	sbErrors = regexp.MustCompile(`ignored errors:\s+(\d+)`)
)

// sysbenchPerTxn runs sysbench and returns the statements per transaction
// the server counted, and sysbench's ignored errors per transaction.
func sysbenchPerTxn(t *testing.T, bin string, s *server, wl string, events int) (float64, float64) {
	t.Helper()
	port := strconv.Itoa(s.info.Port)
	args := []string{wl, "--tables=" + tablesFor(wl), "--table-size=" + strconv.Itoa(tableSize), "--threads=2",
		"--events=" + strconv.Itoa(events), "--time=0"}
	if s.name == "postgres" {
		args = append(args, "--db-driver=pgsql", "--pgsql-host=127.0.0.1", "--pgsql-port="+port, "--pgsql-user=sbtest", "--pgsql-password="+s.info.Password, "--pgsql-db=sbtest")
	} else {
		args = append(args, "--db-driver=mysql", "--mysql-host=127.0.0.1", "--mysql-port="+port, "--mysql-user=sbtest", "--mysql-password="+s.info.Password, "--mysql-db=sbtest")
	}
	before := s.statements(t)
	cmd := exec.Command(bin, append(args, "run")...)
	cmd.Env = append(cmd.Environ(), "PGSSLMODE=disable")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("sysbench %v: %v\n%s", args, err, out)
	}
	m := sbTxns.FindSubmatch(out)
	if m == nil {
		t.Fatalf("no transaction count in sysbench output:\n%s", out)
	}
	n, _ := strconv.ParseFloat(string(m[1]), 64)
	var ignored float64
	if e := sbErrors.FindSubmatch(out); e != nil {
		ignored, _ = strconv.ParseFloat(string(e[1]), 64)
	}
	return float64(s.statements(t)-before) / n, ignored / n
}

// TestRunnerModes covers --report-interval, --warmup-time, --rate and the
// partial result an interrupted run writes.
func TestRunnerModes(t *testing.T) {
	s := servers(t)[0]
	dsn := s.info.DSN
	mustRun(t, "prepare", "oltp_point_select", "--dsn", dsn, "--tables", "1", "--table-size", "1000", "--force")
	defer mustRun(t, "cleanup", "oltp_point_select", "--dsn", dsn, "--tables", "1")
	base := []string{"oltp_point_select", "--dsn", dsn, "--tables", "1", "--table-size", "1000", "--threads", "2"}

	out := mustRun(t, append([]string{"run", "--time", "2", "--report-interval", "1"}, base...)...)
	line := regexp.MustCompile(`(?m)^\[ 1s \] thds: 2 tps: [0-9.]+ qps: [0-9.]+ \(r/w/o: [0-9.]+/[0-9.]+/[0-9.]+\) lat \(ms,95%\): [0-9.]+ err/s: [0-9.]+ reconn/s: [0-9.]+ fail/s: [0-9.]+$`)
	if !line.MatchString(out) {
		t.Errorf("no sysbench-style interval line in:\n%s", out)
	}
	for _, want := range []string{"SQL statistics:", "95th percentile:", "99.9th percentile:", "Threads fairness:"} {
		if !strings.Contains(out, want) {
			t.Errorf("summary lacks %q", want)
		}
	}

	r := runJSON(t, append([]string{"--time", "1", "--warmup-time", "1"}, base...)...)
	if r.DurationS < 0.9 || r.DurationS > 1.5 || r.WarmupS != 1 {
		t.Errorf("warmup run measured %.2f s (warmup %.0f s), want about 1 s after 1 s of warmup", r.DurationS, r.WarmupS)
	}

	r = runJSON(t, append([]string{"--time", "1", "--client-cpus", "0"}, base...)...)
	if len(r.CPU.ClientCPUs) != 1 || r.CPU.ClientCPUs[0] != 0 || r.Totals.Transactions == 0 {
		t.Errorf("--client-cpus 0: placement %v, %d transactions", r.CPU.ClientCPUs, r.Totals.Transactions)
	}
	if code, _, errOut := encbench(context.Background(), append([]string{"run", "--client-cpus", "0-999"}, base...)...); code != 2 {
		t.Errorf("--client-cpus beyond the machine: exit %d, %q", code, errOut)
	}

	r = runJSON(t, append([]string{"--time", "2", "--rate", "100"}, base...)...)
	if r.Totals.Transactions < 50 || r.Totals.Transactions > 400 {
		t.Errorf("--rate 100 for 2 s ran %d transactions", r.Totals.Transactions)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 1500*time.Millisecond)
	defer cancel()
	path := t.TempDir() + "/partial.json"
	code, _, errOut := encbench(ctx, append([]string{"run", "--time", "30", "--json", path}, base...)...)
	if code != 1 || !strings.Contains(errOut, "partial") {
		t.Errorf("interrupted run: exit %d, stderr %q; want 1 and a note that the result is partial", code, errOut)
	}
	if pr := readResult(t, path); !pr.Partial || pr.Totals.Transactions == 0 || pr.DurationS > 5 {
		t.Errorf("partial result: partial=%v transactions=%d duration=%.1f", pr.Partial, pr.Totals.Transactions, pr.DurationS)
	}
}
