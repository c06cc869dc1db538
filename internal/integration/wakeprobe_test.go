package integration

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/encbench/encbench/internal/report"
	"github.com/encbench/encbench/internal/sandbox"
)

// TestDSNSuiteWakeProbeReachesTheWhatIf: a suite on a server of the
// user's (dsn and server_pid) runs the wake-up probe beside its workload,
// and the report's what-if charges what the probe measured on that
// server: an idle round trip costs the client and the server more CPU
// than a busy one, and the projection to one thread uses it.
func TestDSNSuiteWakeProbeReachesTheWhatIf(t *testing.T) {
	servers(t)
	srv, _ := dsnServer(t, sandbox.Options{Engine: "postgres", BufferPool: "64M"})
	dir := t.TempDir()
	file := filepath.Join(dir, "probe.yaml")
	text := fmt.Sprintf(`name: probemine
targets:
  - name: mine
    dsn: '%s'
    server_pid: %d
variants: [plain, aa]
workloads:
  - name: oltp_point_select
  - name: connect
    label: wake_probe
    options: {connect-phase: reused}
    variants: [plain]
    threads: [1, 8]
threads: [4]
time: 1
warmup: 0
repetitions: 2
precision: 0
client_cpus: "0"
data: {tables: 1, table-size: 1000}
`, srv.DSN, srv.PID)
	if err := os.WriteFile(file, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	if code, so, se := encbench(t.Context(), "suite", "run", file, "--out", out); code != 0 {
		t.Fatalf("suite: exit %d\n%s\n%s", code, so, se)
	}
	if code, so, se := encbench(t.Context(), "report", out, "--what-if", "threads=1,4"); code != 0 {
		t.Fatalf("report: exit %d\n%s\n%s", code, so, se)
	}
	data, err := os.ReadFile(filepath.Join(out, "analysis.json"))
	if err != nil {
		t.Fatal(err)
	}
	var a report.Analysis
	if err := json.Unmarshal(data, &a); err != nil {
		t.Fatal(err)
	}
	if len(a.WakeProbes) != 1 || a.WakeProbes[0].Target != "mine" {
		t.Fatalf("wake probes %+v, want one for target mine", a.WakeProbes)
	}
	w := a.WakeProbes[0].Wake
	if w.Client <= 0 || w.Server <= 0 {
		t.Errorf("an idle round trip cost no more than a busy one: %+v", w)
	}
	projected := 0
	for _, p := range a.Projections {
		if p.LossPct != nil {
			projected++
		}
	}
	if projected != 2 {
		t.Errorf("%d projections with a loss, want aa at 1 and 4 threads: %+v", projected, a.Projections)
	}
	md, err := os.ReadFile(filepath.Join(out, "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	if want := "mine: client CPU"; !strings.Contains(string(md), want) {
		t.Errorf("report.md's what-if section does not give the probe (%q)", want)
	}
}
