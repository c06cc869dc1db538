package report

import (
	"strings"
	"testing"

	"github.com/encbench/encbench/internal/locale"
	"github.com/encbench/encbench/internal/result"
)

// A plugin layer's proofs add up per variant and target, and its leakage
// statement comes from the catalogue; runs without one give no section
// (and a baseline that states no leakage, such as fscrypt:policy=none,
// no row in the leakage table).
func TestLayersSection(t *testing.T) {
	l, err := locale.Get("en")
	if err != nil {
		t.Fatal(err)
	}
	run := func(name string, ps ...result.LayerProof) *result.Result {
		r := &result.Result{}
		r.Variant.Name = name
		r.Engine.Kind = "postgres"
		r.Variant.Verified.Layers = ps
		return r
	}
	p := result.LayerProof{Layer: "srvenc", Source: "raw", Checked: 40, Proven: 40, Leakage: "srvenc_pg", Facts: map[string]string{"key": "per session"}}
	base := result.LayerProof{Layer: "fscrypt:policy=none", Source: "ioctl", Checked: 2, Proven: 2}
	rs := []*result.Result{run("plain"), run("srvenc", p), run("srvenc", p), run("fscrypt:policy=none", base)}
	tab := layersTable(l, rs)
	if len(tab.Rows) != 2 {
		t.Fatalf("rows: %v", tab.Rows)
	}
	if got := tab.Rows[0][4].S; got != "80 of 80" {
		t.Errorf("srvenc's proofs add up to %q", got)
	}
	leak := layerLeakageTable(l, rs)
	if len(leak.Rows) != 1 || !strings.Contains(leak.Rows[0][2].S, "the key and every plaintext") {
		t.Errorf("leakage rows: %v", leak.Rows)
	}
	if len(layersTable(l, rs[:1]).Rows) != 0 {
		t.Error("a run without plugin layers got a layers section")
	}
}
