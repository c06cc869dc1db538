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

// A v1 result (before items became parts and slice_ms turn_ms) still
// reads, its fields under their new names.
func TestParseReadsV1(t *testing.T) {
	v1 := `{"schema":"encbench/result/v1","tps":5,"items":{"connect":{"n":3,"mean":1.5,"p50":1,"p95":2,"p99":2,"max":2}},
		"suite":{"name":"q","cell":"c","setup":"s","target":"t","interleaved":{"slice_ms":50,"rounds":20,"order":["plain","tls"],"position":1,"warmup_rounds":1}}}`
	r, err := Parse([]byte(v1), "v1.json")
	if err != nil {
		t.Fatal(err)
	}
	if r.Schema != Schema || r.Parts["connect"].N != 3 || r.Suite.Interleaved.TurnMs != 50 || r.TPS != 5 {
		t.Fatalf("v1 read as %+v, parts %v, interleaved %+v", r, r.Parts, r.Suite.Interleaved)
	}
	if _, err := Parse([]byte(`{"schema":"encbench/result/v0"}`), "v0.json"); err == nil {
		t.Fatal("an unknown schema was read")
	}
}
