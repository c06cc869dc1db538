package variant

import (
	"reflect"
	"testing"

	"github.com/encbench/encbench/internal/layer/colenc"
	tdelayer "github.com/encbench/encbench/internal/layer/tde"
	tlslayer "github.com/encbench/encbench/internal/layer/tls"
)

func TestParseRoundTrip(t *testing.T) {
	for _, name := range []string{"plain", "tls", "tls1.2", "tls1.3", "tde", "tls+tde", "tls1.3+tde", "colenc50", "tls+colenc100", "enc-all", "tde+enc-k-index"} {
		v, err := Parse(name)
		if err != nil {
			t.Fatalf("Parse(%q): %v", name, err)
		}
		if v.String() != name {
			t.Errorf("Parse(%q).String() = %q", name, v.String())
		}
	}
}

// The one syntax of package layer: options after a colon, aliases
// joined with +, in the canonical form runs and setups are named by; each
// layer's package reads its own options back.
func TestParseLayerOptions(t *testing.T) {
	for in, want := range map[string]struct {
		name   string
		tls    tlslayer.Settings
		tde    string
		colenc colenc.Settings
	}{
		"tls1.2:cipher=ECDHE-RSA-AES128-GCM-SHA256+tde:cipher=aes-cbc": {"tls1.2:cipher=ECDHE-RSA-AES128-GCM-SHA256+tde:cipher=aes-cbc", tlslayer.Settings{Version: "1.2", Cipher: "ECDHE-RSA-AES128-GCM-SHA256"}, "aes-cbc", colenc.Settings{}},
		"tls:version=1.3+colenc:level=50":                              {"tls1.3+colenc50", tlslayer.Settings{Version: "1.3"}, "", colenc.Settings{Level: 50}},
		"colenc:set=enc-rest":                                          {"enc-rest", tlslayer.Settings{}, "", colenc.Settings{Set: "enc-rest"}},
		"tls1.3:cert=rsa-4096":                                         {"tls1.3:cert=rsa-4096", tlslayer.Settings{Version: "1.3", Cert: "rsa-4096"}, "", colenc.Settings{}},
		"tde+tls:client-cert=on":                                       {"tls:client-cert=on+tde", tlslayer.Settings{ClientCert: true}, "", colenc.Settings{}},
		"fscrypt:policy=none+tde":                                      {"tde+fscrypt:policy=none", tlslayer.Settings{}, "", colenc.Settings{}},
	} {
		v, err := Parse(in)
		if err != nil || v.String() != want.name {
			t.Errorf("%s: %q %v, want %q", in, v.String(), err, want.name)
			continue
		}
		tls, _ := tlslayer.Of(v.Layers)
		tde, _ := tdelayer.Of(v.Layers)
		col, _ := colenc.Of(v.Layers)
		if tls != want.tls || tde != want.tde || col != want.colenc {
			t.Errorf("%s: tls %+v tde %q colenc %+v, want %+v", in, tls, tde, col, want)
		}
		again, err := Parse(v.String())
		if err != nil || !reflect.DeepEqual(again, v) {
			t.Errorf("%s: its canonical name %s parses to %+v %v", in, v.String(), again, err)
		}
	}
}

func TestParseRejects(t *testing.T) {
	for _, name := range []string{"", "ssl", "tls+tls1.3", "colenc30", "colenc", "enc-a b", "tde+tde", "colenc50+enc-all"} {
		if _, err := Parse(name); err == nil {
			t.Errorf("Parse(%q) accepted", name)
		}
	}
}

func TestServerAndObserved(t *testing.T) {
	v, _ := Parse("tls1.2+tde+colenc20")
	if v.Server() != "tls+tde" || !v.Encrypts() || len(v.Plugins()) != 0 {
		t.Errorf("Server() = %q, Encrypts() = %v", v.Server(), v.Encrypts())
	}
	if got := Observed(false, false, "none"); got != "plain" {
		t.Errorf("Observed plain = %q", got)
	}
	if got := Observed(true, true, "colenc50"); got != "tls+tde+colenc50" {
		t.Errorf("Observed = %q", got)
	}
}

func TestAAIsTheBaselineAgain(t *testing.T) {
	aa, err := Parse("aa")
	if err != nil || !aa.AA || aa.String() != "aa" {
		t.Fatalf("aa: %+v %v", aa, err)
	}
	base, _ := Parse("tls1.3+colenc50")
	got := aa.Against(base)
	if !got.AA || got.Server() != "tls" || got.String() != "aa" || (Variant{Layers: got.Layers}).String() != "tls1.3+colenc50" {
		t.Errorf("aa against tls1.3+colenc50: %+v", got)
	}
	if _, err := Parse("aa+tls"); err == nil {
		t.Error("aa joined with a layer was accepted")
	}
}
