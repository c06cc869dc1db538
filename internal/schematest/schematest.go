// Package schematest checks documents encbench writes against the JSON
// Schemas under docs/, which the README cites; tests only.
package schematest

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// Compile loads docs/<name> (for example result.schema.json).
func Compile(t testing.TB, name string) *jsonschema.Schema {
	t.Helper()
	_, here, _, _ := runtime.Caller(0)
	path := filepath.Join(filepath.Dir(here), "..", "..", "docs", name)
	sch, err := jsonschema.NewCompiler().Compile(path)
	if err != nil {
		t.Fatalf("compiling %s: %v", path, err)
	}
	return sch
}

// Check validates a JSON document against a schema.
func Check(t testing.TB, sch *jsonschema.Schema, doc []byte) error {
	t.Helper()
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(doc))
	if err != nil {
		t.Fatalf("not JSON: %v", err)
	}
	return sch.Validate(inst)
}

// File fails the test unless the JSON file at path matches the schema.
func File(t testing.TB, sch *jsonschema.Schema, path string) {
	t.Helper()
	doc, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := Check(t, sch, doc); err != nil {
		t.Fatalf("%s does not match its schema: %v", path, err)
	}
}
