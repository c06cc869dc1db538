package result

import (
	"os"
	"path/filepath"
	"testing"
)

func TestWriteFileIsAtomicAndReadable(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "r.json")
	r := &Result{Schema: Schema, TPS: 12.5, Threads: 4}
	if err := WriteFile(path, r); err != nil {
		t.Fatal(err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Fatalf("temporary files left behind: %v", entries)
	}
	got, err := ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if got.TPS != 12.5 || got.Threads != 4 {
		t.Fatalf("round trip changed the document: %+v", got)
	}
	if err := os.WriteFile(path, []byte(`{"schema":"other"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadFile(path); err == nil {
		t.Fatal("a document of another schema was accepted")
	}
}
