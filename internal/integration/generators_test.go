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

	result "github.com/encbench/encbench/internal/resultdoc"
	"github.com/encbench/encbench/internal/schematest"
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
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	start := time.Now().Add(4 * time.Second).UTC().Format(time.RFC3339Nano)
	before := s.scalar(t, "SHOW GLOBAL STATUS LIKE 'Com_commit'")
	var cmds []*exec.Cmd
	var outs []*bytes.Buffer
	for i := range 3 {
		args := append([]string{"run", "oltp_read_write", "--threads", "5", "--time", "3", "--report-interval", "1",
			"--generator", fmt.Sprintf("%d/3", i), "--start-at", start, "--json", filepath.Join(dir, fmt.Sprintf("g%d.json", i))}, opts...)
		cmd := exec.Command(exe, args...)
		cmd.Env = append(os.Environ(), asCLI+"=1")
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds, outs = append(cmds, cmd), append(outs, &out)
	}
	for i, cmd := range cmds {
		if err := cmd.Wait(); err != nil {
			t.Fatalf("generator %d: %v\n%s", i, err, outs[i])
		}
	}
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
