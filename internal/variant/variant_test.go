package variant

import (
	"reflect"
	"testing"
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
// joined with +, in the canonical form runs and setups are named by.
func TestParseLayerOptions(t *testing.T) {
	for in, want := range map[string]Variant{
		"tls1.2:cipher=ECDHE-RSA-AES128-GCM-SHA256+tde:cipher=aes-cbc": {TLS: true, TLSVersion: "1.2", TLSCipher: "ECDHE-RSA-AES128-GCM-SHA256", TDE: true, TDECipher: "aes-cbc"},
		"tls:version=1.3+colenc:level=50":                              {TLS: true, TLSVersion: "1.3", Colenc: 50},
		"colenc:set=enc-rest":                                          {ColumnSet: "enc-rest"},
		"tls1.3:cert=rsa-4096":                                         {TLS: true, TLSVersion: "1.3", TLSCert: "rsa-4096"},
		"tls:client-cert=on+tde":                                       {TLS: true, TLSClientCert: true, TDE: true},
	} {
		v, err := Parse(in)
		if err != nil || !reflect.DeepEqual(v, want) {
			t.Errorf("%s: %+v %v, want %+v", in, v, err, want)
			continue
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
	if v.Server() != "tls+tde" || !v.Encrypts() {
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
	if !got.AA || got.Server() != "tls" || got.TLSVersion != "1.3" || got.Colenc != 50 || got.String() != "aa" || (Variant{TLS: got.TLS, TLSVersion: got.TLSVersion, Colenc: got.Colenc}).String() != "tls1.3+colenc50" {
		t.Errorf("aa against tls1.3+colenc50: %+v", got)
	}
	if _, err := Parse("aa+tls"); err == nil {
		t.Error("aa joined with a layer was accepted")
	}
}
