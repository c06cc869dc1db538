package suite

import (
	"testing"
)

// FuzzParse: no suite file makes the parser or the matrix expansion
// panic; an accepted file expands into cells whose setups exist (the
// option check has suiterun's FuzzSuiteOptions).
func FuzzParse(f *testing.F) {
	f.Add([]byte(sample))
	f.Add([]byte("name: x\ntargets: [{engine: postgres}]\nvariants: [plain]\nworkloads: [{name: tpcc}]\nthreads: [1]\ntime: 1\nrepetitions: 1\n"))
	f.Add([]byte("name: x\ntargets:\n  - dsn: postgres://u@h/db\nvariants: [enc-a]\ncolumn_sets: {enc-a: {encrypt: k}}\nworkloads: [{name: enc_point_select}]\n"))
	f.Add([]byte("{"))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := Parse(data)
		if err != nil {
			return
		}
		p, err := Expand(*s, NoOverrides(), nil)
		if err != nil {
			return
		}
		setups := map[string]bool{}
		for _, su := range p.Setups {
			setups[su.ID] = true
		}
		for _, c := range p.Cells {
			if !setups[c.Setup] {
				t.Fatalf("cell %s of unknown setup %s", c.ID, c.Setup)
			}
		}
	})
}
