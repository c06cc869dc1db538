package result

import (
	"encoding/json"
	"testing"
)

// FuzzParse: no document makes the loader panic, and an accepted one
// encodes and loads again.
func FuzzParse(f *testing.F) {
	f.Add([]byte(`{"schema":"encbench/result/v1","tps":1.5,"latency_ms":{"p95":0.3},"cpu":{"server_s":null}}`))
	f.Add([]byte(`{"schema":"encbench/result/v1","intervals":[{"t_s":1,"tps":2}],"items":{"x":{"n":3}}}`))
	f.Add([]byte(`{"schema":"other"}`))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := Parse(data, "fuzz")
		if err != nil {
			return
		}
		again, err := json.Marshal(r)
		if err != nil {
			t.Fatalf("an accepted document does not encode: %v", err)
		}
		if _, err := Parse(again, "again"); err != nil {
			t.Fatalf("an accepted document does not load again: %v", err)
		}
	})
}
