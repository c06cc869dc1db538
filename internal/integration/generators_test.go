package integration

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/encbench/encbench/internal/result"
	"github.com/encbench/encbench/internal/schematest"
	"github.com/encbench/encbench/internal/suite"
)

// TestGeneratorsMergeExactly runs three generator processes against one
// server with a common start and merges them: the merged transactions are
// the three's sum and the server's own commit count; the merged p99 is the
// p99 of the three histograms added; a generator that proved another
// variant makes merge refuse.
func TestGeneratorsMergeExactly(t *testing.T) {
	s := servers(t)[1] // MariaDB counts COMMIT statements, and nothing else, in Com_commit
	opts := []string{"--dsn", s.info.DSN, "--tables", "2", "--table-size", "1000"}
	mustRun(t, append([]string{"prepare", "oltp_read_write", "--force"}, opts...)...)
	defer mustRun(t, append([]string{"cleanup", "oltp_read_write"}, opts...)...)
	dir := t.TempDir()
	start := time.Now().Add(4 * time.Second).UTC().Format(time.RFC3339Nano)
	before := s.scalar(t, "SHOW GLOBAL STATUS LIKE 'Com_commit'")
	runGenerators(t, 3, func(i int) []string {
		return append([]string{"run", "oltp_read_write", "--threads", "5", "--time", "3", "--report-interval", "1",
			"--generator", fmt.Sprintf("%d/3", i), "--start-at", start, "--json", filepath.Join(dir, fmt.Sprintf("g%d.json", i))}, opts...)
	})
	committed := s.scalar(t, "SHOW GLOBAL STATUS LIKE 'Com_commit'") - before
	merged := filepath.Join(dir, "merged", "result.json")
	if err := os.MkdirAll(filepath.Dir(merged), 0o755); err != nil {
		t.Fatal(err)
	}
	mustRun(t, "merge", dir, "--json", merged)
	m, err := result.ReadFile(merged)
	if err != nil {
		t.Fatal(err)
	}
	schematest.File(t, schematest.Compile(t, "result.schema.json"), merged)
	var sum int64
	threads := 0
	added := hdrhistogram.New(1, 60_000_000, 3)
	for i := range 3 {
		r, err := result.ReadFile(filepath.Join(dir, fmt.Sprintf("g%d.json", i)))
		if err != nil {
			t.Fatal(err)
		}
		if r.Generator == nil || r.Generator.StartAt == "" || r.Generator.ClockOffsetMs == nil {
			t.Errorf("generator %d's result does not say its share and start: %+v", i, r.Generator)
		}
		sum += r.Totals.Transactions
		threads += r.Threads
		h, err := hdrhistogram.Decode([]byte(r.Histogram))
		if err != nil {
			t.Fatalf("generator %d's histogram: %v", i, err)
		}
		added.Merge(h)
	}
	if m.Totals.Transactions != sum || threads != 5 || m.Threads != 5 || len(m.Generators) != 3 {
		t.Errorf("merged %d transactions on %d threads, the generators %d on %d", m.Totals.Transactions, m.Threads, sum, threads)
	}
	if d := float64(committed - m.Totals.Transactions); d < -0.01*float64(committed) || d > 0.01*float64(committed) {
		t.Errorf("the server committed %d transactions, the merged result counts %d", committed, m.Totals.Transactions)
	}
	if p99 := float64(added.ValueAtQuantile(99)) / 1000; m.LatencyMs.P99 != p99 {
		t.Errorf("merged p99 %.3f ms, the added histograms' %.3f ms", m.LatencyMs.P99, p99)
	}
	if len(m.Intervals) < 3 || m.Intervals[0].TPS <= 0 {
		t.Errorf("merged intervals %+v", m.Intervals)
	}
	// Report and compare take the merged result like any other.
	mustRun(t, "report", filepath.Dir(merged))
	// A generator that proved another variant is refused.
	bad := filepath.Join(dir, "g2.json")
	r, _ := result.ReadFile(bad)
	r.Variant.Name, r.Variant.TLS, r.Variant.Verified.TLS.TLSConnections = "tls", "require", r.Variant.Verified.TLS.Connections
	if err := result.WriteFile(bad, r); err != nil {
		t.Fatal(err)
	}
	code, _, errOut := encbench(context.Background(), "merge", dir, "--json", filepath.Join(dir, "no.json"))
	if code != 2 || !strings.Contains(errOut, "did not run the same test") || !strings.Contains(errOut, "variant") {
		t.Errorf("merging a generator of another variant: exit %d, %s", code, errOut)
	}
	t.Logf("3 generators: %d transactions (%d, %d by the server), p99 %.3f ms", m.Totals.Transactions, sum, committed, m.LatencyMs.P99)
}

// A suite target with generators: 2 runs each cell as two processes and
// keeps the merged result as the cell, with each generator's own beside it.
func TestSuiteWithGenerators(t *testing.T) {
	servers(t)
	t.Setenv(asCLI, "1") // the generator processes are this test binary acting as encbench
	dir, file := suiteFile(t, "gens", `name: gens
targets: [{engine: mariadb, generators: 2}]
variants: [plain]
workloads: [{name: oltp_point_select}]
threads: [3]
time: 1
warmup: 0
repetitions: 1
data: {tables: 1, table-size: 1000}
`)
	out := filepath.Join(dir, "out")
	mustRun(t, "suite", "run", file, "--out", out)
	r, gens := onlyCell(t, out)
	if len(r.Generators) != 2 || r.Threads != 3 || r.Suite == nil || len(gens) != 2 || r.Totals.Transactions != r.Generators[0].Transactions+r.Generators[1].Transactions {
		t.Errorf("cell %+v with generators %+v, files %v", r.Suite, r.Generators, gens)
	}
}

// A suite run as two generator processes (as a Kubernetes Indexed Job's
// pods would): prepared once, each runs the fixed plan on the common
// schedule, and merge --suite-out adds them up into a suite directory
// whose report encbench writes.
func TestSuiteAsGenerators(t *testing.T) {
	s := servers(t)[1]
	dir, file := suiteFile(t, "k8s", fmt.Sprintf(`name: k8s
targets: [{name: shared, dsn: "%s"}]
variants: [plain]
workloads: [{name: oltp_point_select}]
threads: [2]
time: 1
warmup: 0
repetitions: 2
data: {tables: 1, table-size: 1000}
`, s.info.DSN))
	mustRun(t, "suite", "run", file, "--out", filepath.Join(dir, "prep"), "--prepare-only")
	start := time.Now().Add(4 * time.Second).UTC().Format(time.RFC3339)
	runGenerators(t, 2, func(i int) []string {
		return []string{"suite", "run", file, "--out", filepath.Join(dir, fmt.Sprintf("g%d", i)), "--generator", fmt.Sprintf("%d/2", i), "--start-at", start}
	})
	merged := filepath.Join(dir, "merged")
	out := mustRun(t, "merge", filepath.Join(dir, "g0"), filepath.Join(dir, "g1"), "--suite-out", merged)
	if !strings.Contains(out, "merged 2 cells") {
		t.Errorf("merge said: %s", out)
	}
	cells, _ := filepath.Glob(filepath.Join(suite.Dir(merged).Cells(), "*.json"))
	for _, c := range cells {
		r, err := result.ReadFile(c)
		if err != nil || len(r.Generators) != 2 || r.Threads != 2 || r.Suite == nil || r.Totals.Transactions == 0 {
			t.Errorf("merged cell %s: %v %+v", c, err, r)
		}
	}
	if len(cells) != 2 {
		t.Errorf("cells %v", cells)
	}
	mustRun(t, "report", merged)
	if _, err := os.Stat(filepath.Join(merged, "report.html")); err != nil {
		t.Error(err)
	}
	mustRun(t, "cleanup", "oltp_point_select", "--dsn", s.info.DSN, "--tables", "1")
}

// runGenerators starts n encbench processes (this test binary acting as
// encbench) with the arguments args(i) and waits for all of them.
func runGenerators(t *testing.T, n int, args func(i int) []string) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmds := make([]*exec.Cmd, n)
	outs := make([]*bytes.Buffer, n)
	for i := range n {
		cmds[i], outs[i] = exec.Command(exe, args(i)...), &bytes.Buffer{}
		cmds[i].Env = append(os.Environ(), asCLI+"=1")
		cmds[i].Stdout, cmds[i].Stderr = outs[i], outs[i]
		if err := cmds[i].Start(); err != nil {
			t.Fatal(err)
		}
	}
	for i, cmd := range cmds {
		if err := cmd.Wait(); err != nil {
			t.Fatalf("generator %d: %v\n%s", i, err, outs[i])
		}
	}
}

// Setups on one server share it and its data: a DSN target's variants
// prepare once (a second prepare of the same tables used to fail the
// suite), and servers: shared puts plain, TLS and A/A on one sandbox whose
// TLS is optional, each run proving its own transport.
func TestSuiteSetupsShareAServer(t *testing.T) {
	s := servers(t)[0]
	common := "workloads: [{name: oltp_point_select}]\nthreads: [1]\ntime: 1\nwarmup: 0\nrepetitions: 1\nprecision: 0\ndata: {tables: 1, table-size: 1000}\n"
	dir, dsnSuite := suiteFile(t, "dsn", fmt.Sprintf("name: dsn\ntargets: [{name: pg, dsn: \"%s\"}]\nvariants: [plain, aa]\n", s.info.DSN)+common)
	out := filepath.Join(dir, "out")
	mustRun(t, "suite", "run", dsnSuite, "--out", out)
	if n := countFiles(suite.Dir(out).Cells(), ".json", ".partial.json"); n != 2 {
		t.Errorf("DSN suite: %d cells, want plain and aa", n)
	}
	mustRun(t, "cleanup", "oltp_point_select", "--dsn", s.info.DSN, "--tables", "1")

	dir, shared := suiteFile(t, "shared", "name: shared\ntargets: [{engine: mariadb}]\nvariants: [plain, tls, aa]\nservers: shared\n"+common)
	out = filepath.Join(dir, "out")
	stdout := mustRun(t, "suite", "run", shared, "--out", out)
	if strings.Count(stdout, "starting sandbox") != 1 {
		t.Errorf("servers: shared started %d sandboxes:\n%s", strings.Count(stdout, "starting sandbox"), stdout)
	}
	cells, _ := filepath.Glob(filepath.Join(suite.Dir(out).Cells(), "*.json"))
	pids := map[int]bool{}
	for _, c := range cells {
		r, err := result.ReadFile(c)
		if err != nil {
			t.Fatal(err)
		}
		pids[r.CPU.ServerPID] = true
		p := r.Variant.Verified.TLS
		wantTLS := r.Variant.Name == "tls"
		if !r.Variant.Verified.OK || (p.TLSConnections == p.Connections) != wantTLS || p.Connections == 0 {
			t.Errorf("%s: proof %+v", r.Variant.Name, p)
		}
	}
	if len(cells) != 3 || len(pids) != 1 {
		t.Errorf("%d cells on %d servers, want 3 on one", len(cells), len(pids))
	}
}

// onlyCell reads the one cell a suite directory holds, and lists the
// results its generators left beside it.
func onlyCell(t *testing.T, out string) (r *result.Result, generators []string) {
	t.Helper()
	cells, _ := filepath.Glob(filepath.Join(suite.Dir(out).Cells(), "*.json"))
	if len(cells) != 1 {
		t.Fatalf("cells %v, want one", cells)
	}
	r, err := result.ReadFile(cells[0])
	if err != nil {
		t.Fatal(err)
	}
	generators, _ = filepath.Glob(filepath.Join(out, "generators", "*", "generator-*.json"))
	return r, generators
}

// ENCBENCH_DSN names the server when neither --dsn nor --sandbox does; a
// DSN target's generator processes get it that way (that their command
// lines lack it is the orchestrator's unit test's to check).
func TestDSNFromTheEnvironment(t *testing.T) {
	s := servers(t)[0]
	t.Setenv("ENCBENCH_DSN", s.info.DSN)
	mustRun(t, "prepare", "oltp_point_select", "--table-size", "1000", "--tables", "1", "--force")
	r := runJSON(t, "oltp_point_select", "--table-size", "1000", "--tables", "1", "--time", "1")
	if r.Totals.Transactions == 0 || !strings.Contains(r.Target, fmt.Sprint(s.info.Port)) {
		t.Errorf("run by ENCBENCH_DSN: %d transactions on %s", r.Totals.Transactions, r.Target)
	}
	mustRun(t, "cleanup", "oltp_point_select", "--tables", "1")
	t.Setenv("ENCBENCH_DSN", "")
	t.Setenv(asCLI, "1")
	dir, file := suiteFile(t, "dsnenv", fmt.Sprintf("name: dsnenv\ntargets: [{name: pg, dsn: \"%s\", generators: 2}]\nvariants: [plain]\nworkloads: [{name: oltp_point_select}]\nthreads: [2]\ntime: 1\nwarmup: 0\nrepetitions: 1\ndata: {tables: 1, table-size: 1000}\n", s.info.DSN))
	out := filepath.Join(dir, "out")
	mustRun(t, "suite", "run", file, "--out", out)
	if r, gens := onlyCell(t, out); len(r.Generators) != 2 || len(gens) != 2 {
		t.Errorf("cell with generators %+v, files %v", r.Generators, gens)
	}
	logs, _ := filepath.Glob(filepath.Join(out, "logs", "*oltp_point_select*.log"))
	if len(logs) != 1 {
		t.Fatalf("cell logs %v", logs)
	}
	if text, _ := os.ReadFile(logs[0]); !strings.Contains(string(text), "generator 1/2") {
		t.Errorf("the cell log does not show the generators:\n%s", text)
	}
	mustRun(t, "cleanup", "oltp_point_select", "--dsn", s.info.DSN, "--tables", "1")
}
