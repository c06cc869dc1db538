package variant

import "testing"

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
