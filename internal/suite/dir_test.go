package suite

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestDirLayout: a created directory reads back its record, lists only
// result candidates (not its plan or overrides), and a directory without
// plan.json says so with ErrNoRecord.
func TestDirLayout(t *testing.T) {
	d := Dir(filepath.Join(t.TempDir(), "suite"))
	if _, _, err := d.ReadRecord(); !errors.Is(err, ErrNoRecord) {
		t.Fatalf("no plan yet: %v", err)
	}
	if err := d.Create(); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Stat(string(d)); err != nil || st.Mode().Perm() != 0o755 {
		t.Fatalf("created %v %v, want mode 0755", st, err)
	}
	if err := d.WriteRecord(Record{Command: "encbench suite run quick"}); err != nil {
		t.Fatal(err)
	}
	rec, raw, err := d.ReadRecord()
	if err != nil || rec.Command != "encbench suite run quick" || len(raw) == 0 {
		t.Fatalf("record %+v %v", rec, err)
	}
	for _, p := range []string{d.OverridesFile(), d.Cell("a"), d.Cell("b.partial"), filepath.Join(string(d), "x.json"), filepath.Join(d.Cells(), "notes.txt")} {
		if err := os.WriteFile(p, []byte("{}"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got := d.ResultFiles()
	slices.Sort(got)
	want := []string{d.Cell("a"), d.Cell("b.partial"), filepath.Join(string(d), "x.json")}
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("result files %v, want %v", got, want)
	}
	if g := d.GeneratorResult("c1", 2); filepath.Dir(g) != d.Generators("c1") {
		t.Fatalf("generator result %s outside %s", g, d.Generators("c1"))
	}
}
