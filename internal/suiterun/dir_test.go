package suiterun

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/encbench/encbench/internal/suite"
)

const small = "name: s\ntargets: [{engine: postgres}]\nvariants: [plain]\nworkloads:\n  - name: oltp_point_select\nthreads: [1]\ntime: 1\n"

func runSuite(file, out string, resume bool) error {
	return Run(context.Background(), Options{NameOrFile: file, Out: out, Resume: resume, Overrides: suite.NoOverrides(),
		Registry: reg, Stdout: io.Discard, Stderr: io.Discard})
}

// A suite that fails its checks writes nothing, so the fixed file runs in
// the same --out without --resume.
func TestFailedValidationLeavesNoState(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out")
	file := filepath.Join(t.TempDir(), "s.yaml")
	bad := strings.Replace(small, "  - name: oltp_point_select\n", "  - name: oltp_point_select\n    options: {warehouses: 4}\n", 1)
	if err := os.WriteFile(file, []byte(bad), 0o600); err != nil {
		t.Fatal(err)
	}
	err := runSuite(file, out, false)
	if err == nil || !strings.Contains(err.Error(), "line 6") || !strings.Contains(err.Error(), "warehouses") {
		t.Fatalf("bad option: %v", err)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("a refused suite left %s behind (%v)", out, err)
	}
}

// --resume with a suite file that changed since the suite began is
// refused, naming the lines that changed.
func TestResumeRefusesAChangedSuite(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out")
	file := filepath.Join(t.TempDir(), "s.yaml")
	if err := claimDir(suite.Dir(out), []byte(small), suite.NoOverrides()); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, []byte(strings.Replace(small, "time: 1", "time: 2", 1)), 0o600); err != nil {
		t.Fatal(err)
	}
	err := runSuite(file, out, true)
	if err == nil || !strings.Contains(err.Error(), `line 7: was "time: 1", now "time: 2"`) {
		t.Fatalf("changed suite: %v", err)
	}
}

// A TLS variant on a DSN target without tls_ca is refused before
// anything exists, naming the target's line.
func TestTLSVariantNeedsTheCA(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out")
	file := filepath.Join(t.TempDir(), "s.yaml")
	text := "name: s\ntargets:\n  - name: remote\n    dsn: mysql://bench@127.0.0.1:3999/bench\nvariants: [plain, tls]\nworkloads:\n  - name: oltp_point_select\nthreads: [1]\ntime: 1\n"
	if err := os.WriteFile(file, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	err := runSuite(file, out, false)
	if err == nil || !strings.Contains(err.Error(), "line 3: variant tls needs tls_ca (the server's CA certificate) on target remote") {
		t.Fatalf("tls without tls_ca: %v", err)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("a refused suite left %s behind", out)
	}
}
