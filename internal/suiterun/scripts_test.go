package suiterun

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/encbench/encbench/internal/suite"
)

// A new suite runs its scripts from the directory's copies, listed with
// their SHA-256; a resumed one finds them there, whatever became of the
// originals.
func TestScriptsAreKeptInTheSuiteDirectory(t *testing.T) {
	src := t.TempDir()
	if err := os.MkdirAll(filepath.Join(src, "scripts"), 0o755); err != nil {
		t.Fatal(err)
	}
	script := filepath.Join(src, "scripts", "transfer.sql")
	if err := os.WriteFile(script, []byte("SELECT 1;\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(src, "s.yaml")
	text := "name: s\ntargets:\n  - engine: postgres\nvariants: [plain, tls]\nthreads: [1]\ntime: 1\nworkloads:\n  - script: scripts/transfer.sql@2\n"
	if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := suite.Dir(filepath.Join(t.TempDir(), "out"))
	s, err := suite.Parse([]byte(text))
	if err != nil {
		t.Fatal(err)
	}
	copies, err := resolveScripts(s, dir, file, false)
	if err != nil {
		t.Fatal(err)
	}
	if got := s.Workloads[0].Options["file"]; got != script+"@2" {
		t.Fatalf("before the suite claims its directory, the file is %v", got)
	}
	plan, err := suite.Expand(*s, suite.NoOverrides(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := copies.keep(dir, plan); err != nil {
		t.Fatal(err)
	}
	kept := filepath.Join(dir.Scripts(), "transfer.sql")
	for _, c := range plan.Cells {
		if c.Options["file"] != kept+"@2" {
			t.Errorf("cell %s runs %s, not the kept copy", c.ID, c.Options["file"])
		}
	}
	sums, err := os.ReadFile(filepath.Join(dir.Scripts(), "SHA256SUMS"))
	// sha256sum of "SELECT 1;\n"
	if err != nil || !strings.HasSuffix(strings.TrimSpace(string(sums)), "  transfer.sql") || len(strings.Fields(string(sums))[0]) != 64 {
		t.Errorf("SHA256SUMS: %q %v", sums, err)
	}
	if err := os.Remove(script); err != nil {
		t.Fatal(err)
	}
	again, _ := suite.Parse([]byte(text))
	if _, err := resolveScripts(again, dir, file, true); err != nil || again.Workloads[0].Options["file"] != kept+"@2" {
		t.Errorf("resumed: %v, file %v", err, again.Workloads[0].Options["file"])
	}
}
