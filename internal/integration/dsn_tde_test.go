package integration

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/encbench/encbench/internal/result"
	"github.com/encbench/encbench/internal/sandbox"
	"github.com/encbench/encbench/internal/suite"
)

// TestDSNSuiteTDEOnItsOwnServer runs the TDE comparison as R1 does, on two
// servers of the user's: a plain one and one with encryption at rest,
// named by dsn and tde_dsn with their pids. Each variant's CPU must be
// read from its own server: read from the other, the encrypted server's
// work would count as foreign load and the blocks be discarded.
func TestDSNSuiteTDEOnItsOwnServer(t *testing.T) {
	servers(t)
	plain, _ := dsnServer(t, sandbox.Options{Engine: "mariadb", BufferPool: "64M"})
	tde, _ := dsnServer(t, sandbox.Options{Engine: "mariadb", Variant: "tde", BufferPool: "64M"})
	dir := t.TempDir()
	file := filepath.Join(dir, "r1.yaml")
	text := fmt.Sprintf(`name: r1mine
targets:
  - name: maria
    dsn: '%s'
    server_pid: %d
    tde_dsn: '%s'
    tde_server_pid: %d
variants: [plain, tde]
workloads: [{name: oltp_point_select}]
threads: [2]
time: 1
warmup: 0
repetitions: 2
precision: 0
data: {tables: 1, table-size: 1000}
`, plain.DSN, plain.PID, tde.DSN, tde.PID)
	if err := os.WriteFile(file, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	code, so, se := encbench(t.Context(), "suite", "run", file, "--out", out)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, so, se)
	}
	cells, _ := filepath.Glob(filepath.Join(suite.Dir(out).Cells(), "*.json"))
	if len(cells) != 4 {
		t.Fatalf("%d cells, want 2 blocks of plain and tde", len(cells))
	}
	want := map[string]int{"plain": plain.PID, "tde": tde.PID}
	for _, path := range cells {
		r, err := result.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		name := filepath.Base(path)
		if r.CPU.ServerPID != want[r.Variant.Name] {
			t.Errorf("%s: server CPU read from pid %d, want %s's server %d", name, r.CPU.ServerPID, r.Variant.Name, want[r.Variant.Name])
		}
		if r.Variant.Name == "tde" && !r.Variant.TDE {
			t.Errorf("%s: the tde variant ran without TDE", name)
		}
		if r.CPU.ServerSPerTxn == nil || *r.CPU.ServerSPerTxn <= 0 {
			t.Errorf("%s: no server CPU per transaction", name)
		}
	}
}
