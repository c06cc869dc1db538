package orchestrator

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// The marker scan reads in chunks; a marker split across two chunks, at
// the very start or at the very end of a file still counts once.
func TestCountInFileAcrossChunks(t *testing.T) {
	needle := []byte("encbench-marker-7f3a")
	var data []byte
	data = append(data, needle...)
	for _, gap := range []int{1, 5, 13, 40, 0} {
		data = append(data, bytes.Repeat([]byte{'x'}, gap)...)
		data = append(data, needle...)
	}
	path := filepath.Join(t.TempDir(), "raw")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	want := bytes.Count(data, needle)
	for chunk := 1; chunk <= 64; chunk++ {
		got, err := countInFile(path, needle, make([]byte, chunk+len(needle)))
		if err != nil || got != want {
			t.Fatalf("chunk %d: %d matches, %v; want %d", chunk, got, err, want)
		}
	}
	if _, err := countInFile(filepath.Join(t.TempDir(), "missing"), needle, make([]byte, 64)); err == nil {
		t.Fatal("a missing file counted")
	}
}

// A plaintext proof stops at the first file that shows the marker; an
// encryption proof reads every file.
func TestScanMarkerStopsOnlyForPlaintext(t *testing.T) {
	dir := t.TempDir()
	canary := "encbench-marker-7f3a"
	first, second := filepath.Join(dir, "table.ibd"), filepath.Join(dir, "redo")
	for path, body := range map[string]string{first: "x" + canary + "x", second: canary + canary} {
		if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	m, err := scanMarker([]string{first, second}, canary, true)
	if err != nil || m.Occurrences != 1 || len(m.Files) != 1 {
		t.Fatalf("until found: %+v, %v; want the first file only", m, err)
	}
	m, err = scanMarker([]string{first, second}, canary, false)
	if err != nil || m.Occurrences != 3 || m.Files["redo"] != 2 {
		t.Fatalf("all files: %+v, %v; want 3 occurrences, 2 in redo", m, err)
	}
}
