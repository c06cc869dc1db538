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
