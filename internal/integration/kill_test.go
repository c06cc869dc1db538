package integration

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/encbench/encbench/internal/suite"
)

// TestSIGKILLedSuiteLeavesNoOrphans kills a running suite with SIGKILL,
// which no handler sees: its sandbox servers keep running. `sandbox ls`
// shows them as orphans, the next suite (here the same one, resumed)
// stops them and finishes the killed suite's cells, and `sandbox prune`
// stops those of a second killed suite.
func TestSIGKILLedSuiteLeavesNoOrphans(t *testing.T) {
	servers(t)
	bin := buildBinary(t)
	dir, file := smallSuite(t, "killed")

	out := filepath.Join(dir, "one")
	killMidSuite(t, bin, file, out)
	code, ls, _ := encbench(t.Context(), "sandbox", "ls")
	if code != 0 || strings.Count(ls, ", gone") != 2 {
		t.Fatalf("sandbox ls after SIGKILL (want both sandboxes, owner gone):\n%s", ls)
	}
	code, so, se := encbench(t.Context(), "suite", "run", file, "--out", out, "--resume")
	if code != 0 {
		t.Fatalf("resume after SIGKILL: exit %d\n%s\n%s", code, so, se)
	}
	if strings.Count(se, "which is gone") != 2 {
		t.Errorf("the next suite did not say it stopped the orphans:\n%s", se)
	}
	cells := suite.Dir(out).Cells()
	if n := countFiles(cells, ".json", ".partial.json"); n != 2*3 {
		t.Errorf("after the resume %d of 6 cells are finished", n)
	}
	if n := countFiles(cells, ".partial.json", ""); n != 0 {
		t.Errorf("%d partial results left", n)
	}
	entries, _ := os.ReadDir(cells)
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(cells, e.Name()))
		if err != nil || !json.Valid(data) {
			t.Errorf("cell file %s is not whole JSON: %v", e.Name(), err)
		}
	}
	if left := processesMentioning(out); len(left) > 0 {
		t.Fatalf("processes left after the resumed suite:\n%s", strings.Join(left, "\n"))
	}

	two := filepath.Join(dir, "two")
	killMidSuite(t, bin, file, two)
	code, so, se = encbench(t.Context(), "sandbox", "prune")
	if code != 0 || strings.Count(so, "stopped: mariadb sandbox") != 2 {
		t.Fatalf("sandbox prune: exit %d\n%s\n%s", code, so, se)
	}
	if left := processesMentioning(two); len(left) > 0 {
		t.Fatalf("processes left after sandbox prune:\n%s", strings.Join(left, "\n"))
	}
	if code, ls, _ := encbench(t.Context(), "sandbox", "ls"); code != 0 || strings.Contains(ls, dir) {
		t.Errorf("sandbox ls after prune still lists sandboxes:\n%s", ls)
	}
}

// smallSuite writes a six-cell MariaDB suite, run cell by cell (plain and tls, one
// workload, three blocks of 1 s); see suiteFile.
func smallSuite(t *testing.T, name string) (dir, file string) {
	t.Helper()
	return suiteFile(t, name, "name: "+name+`
targets: [{engine: mariadb}]
variants: [plain, tls]
workloads: [{name: oltp_point_select}]
threads: [1]
time: 1
warmup: 0
repetitions: 3
precision: 0
turn: "off"
data: {tables: 1, table-size: 1000}
`)
}

// suiteFile writes a suite file in a directory of its own under the
// fixture's, with its own sandbox registry: other tests' sandboxes are
// not the business of a test that kills and prunes.
func suiteFile(t *testing.T, name, text string) (dir, file string) {
	t.Helper()
	dir = filepath.Join(fx.dir, name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("ENCBENCH_STATE_DIR", filepath.Join(dir, "state"))
	file = filepath.Join(dir, name+".yaml")
	if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir, file
}

// killMidSuite starts the suite in a process of its own, waits for its
// first finished cell and kills it with SIGKILL; its servers must still
// run (nothing stopped them).
func killMidSuite(t *testing.T, bin, file, out string) {
	t.Helper()
	cmd := exec.Command(bin, "suite", "run", file, "--out", out)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(3 * time.Minute)
	for countFiles(suite.Dir(out).Cells(), ".json", ".partial.json") < 1 {
		if time.Now().After(deadline) {
			_ = cmd.Process.Kill()
			t.Fatalf("no cell finished in time:\n%s", stderr.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	if left := processesMentioning(out); len(left) == 0 {
		t.Fatal("no sandbox server survived the SIGKILL: the test would prove nothing")
	}
}

// A suite killed with SIGKILL, whose directory is then deleted (as `make
// run` clears its own) and run again without --resume, leaves no process
// of the first run: the registry still points at the deleted directory,
// and the servers are found from the process table and stopped.
func TestSIGKILLedSuiteRunAgainAfterItsDirectoryWasDeleted(t *testing.T) {
	servers(t)
	bin := buildBinary(t)
	dir, file := smallSuite(t, "rerun")
	out := filepath.Join(dir, "out")
	killMidSuite(t, bin, file, out)
	if err := os.RemoveAll(out); err != nil {
		t.Fatal(err)
	}
	code, ls, _ := encbench(t.Context(), "sandbox", "ls")
	if code != 0 || strings.Count(ls, "directory was deleted") != 2 {
		t.Errorf("sandbox ls does not show the deleted directory's two servers:\n%s", ls)
	}
	code, so, se := encbench(t.Context(), "suite", "run", file, "--out", out, "--no-report")
	if code != 0 {
		t.Fatalf("the suite run again: exit %d\n%s\n%s", code, so, se)
	}
	if strings.Count(se, "whose directory was deleted while it ran") != 2 {
		t.Errorf("the suite did not say it stopped the first run's servers:\n%s", se)
	}
	if left := processesMentioning(out); len(left) > 0 {
		t.Errorf("processes left after the second run:\n%s", strings.Join(left, "\n"))
	}
}
