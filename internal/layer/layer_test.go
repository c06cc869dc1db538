package layer_test

import (
	"strings"
	"testing"

	"github.com/encbench/encbench/internal/layer"
	_ "github.com/encbench/encbench/internal/layer/all"
)

// TestOneSyntaxNamesEveryVariant: layers, their aliases and options
// joined with +, in one canonical form; what is wrong is named with what
// there is.
func TestOneSyntaxNamesEveryVariant(t *testing.T) {
	reg := layer.Default()
	for in, want := range map[string]string{
		"tls":    "tls",
		"tls1.3": "tls:version=1.3",
		"tls1.2:cipher=ECDHE-ECDSA-AES128-GCM-SHA256+tde": "tls:cipher=ECDHE-ECDSA-AES128-GCM-SHA256,version=1.2+tde",
		"tls:version=1.2+tde:cipher=aes-cbc":              "tls:version=1.2+tde:cipher=aes-cbc",
		"colenc50":                                        "colenc:level=50",
		"enc-rest":                                        "colenc:set=enc-rest",
		"tls+colenc:level=20":                             "tls+colenc:level=20",
		"tls1.3:version=1.3":                              "tls:version=1.3",
		"tls1.3:cipher=TLS_CHACHA20_POLY1305_SHA256":      "tls:cipher=TLS_CHACHA20_POLY1305_SHA256,version=1.3",
	} {
		specs, err := reg.Parse(in)
		if err != nil {
			t.Errorf("%s: %v", in, err)
			continue
		}
		if got := layer.Format(specs); got != want {
			t.Errorf("%s: %s, want %s", in, got, want)
		}
	}
	for in, want := range map[string]string{
		"":                "empty variant",
		"tlsx":            `unknown layer "tlsx"`,
		"tls+tls1.3":      "names the tls layer twice",
		"tls:ver=1.3":     `tls takes no option "ver"`,
		"tls:version=1.1": "give one of 1.2, 1.3",
		"tls1.3:cipher=X": "with version=1.3, cipher= is one of",
		"tls:cipher=X":    "needs the version pinned",
		"tls1.2:cipher=TLS_CHACHA20_POLY1305_SHA256": "is a TLS 1.3 suite",
		"tls1.3:version=1.2":                         "sets version=1.3 already",
		"tls:":                                       "give key=value after the colon",
		"tls:version":                                `"version" is not key=value`,
		"colenc":                                     "give level=20|50|100",
		"colenc:level=20,set=enc-a":                  "not both",
		"colenc:set=rest":                            "a column set is named enc-NAME",
	} {
		_, err := reg.Parse(in)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %q", in, err, want)
		}
	}
}

// TestEveryLayerSaysWhatItIs: each registered layer has a summary, the
// engines its sandboxes run it on, and options with help.
func TestEveryLayerSaysWhatItIs(t *testing.T) {
	ls := layer.Default().List()
	if len(ls) < 3 {
		t.Fatalf("%d layers registered, want tls, tde and colenc at least", len(ls))
	}
	for _, l := range ls {
		if l.Summary() == "" || len(l.Engines()) == 0 || l.Where() == "" {
			t.Errorf("%s: summary %q, engines %v, where %q", l.Name(), l.Summary(), l.Engines(), l.Where())
		}
		for _, o := range l.Options() {
			if o.Help == "" {
				t.Errorf("%s: option %s has no help", l.Name(), o.Key)
			}
		}
	}
}

// TestCanonicalNameTakesTheAliasThatFits: a spec is named through the
// alias that sets the most of its options, and through none whose
// options it does not have (tls:cert=rsa-4096 is not tls1.2 or tls1.3).
func TestCanonicalNameTakesTheAliasThatFits(t *testing.T) {
	reg := layer.Default()
	for _, c := range []struct {
		spec layer.Spec
		want string
	}{
		{layer.Spec{Layer: "tls"}, "tls"},
		{layer.Spec{Layer: "tls", Options: map[string]string{"cert": "rsa-4096"}}, "tls:cert=rsa-4096"},
		{layer.Spec{Layer: "tls", Options: map[string]string{"version": "1.3", "cert": "rsa-4096"}}, "tls1.3:cert=rsa-4096"},
		{layer.Spec{Layer: "colenc", Options: map[string]string{"level": "50"}}, "colenc50"},
		{layer.Spec{Layer: "colenc", Options: map[string]string{"level": "30"}}, "colenc:level=30"},
		{layer.Spec{Layer: "colenc", Options: map[string]string{"set": "enc-k"}}, "enc-k"},
		{layer.Spec{Layer: "colenc", Options: map[string]string{"set": "enc-"}}, "colenc:set=enc-"},
		{layer.Spec{Layer: "tde", Options: map[string]string{"cipher": "aes-cbc"}}, "tde:cipher=aes-cbc"},
		{layer.Spec{Layer: "fscrypt", Options: map[string]string{"policy": "none"}}, "fscrypt:policy=none"},
	} {
		if got := reg.Name(c.spec); got != c.want {
			t.Errorf("%s: named %s, want %s", c.spec, got, c.want)
		}
	}
	specs, err := reg.Parse("srvenc+fscrypt+colenc20+tde+tls1.2")
	if err != nil {
		t.Fatal(err)
	}
	reg.Sort(specs)
	if got := layer.Format(specs); got != "tls:version=1.2+tde+colenc:level=20+fscrypt+srvenc" {
		t.Errorf("canonical order: %s", got)
	}
}
