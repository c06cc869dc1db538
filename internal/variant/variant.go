// Package variant is the one place where encryption variants are named and
// parsed: which layers (TLS and its version, TDE, client-side columns) a
// run or a suite cell has on.
package variant

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/encbench/encbench/internal/layer"
	// The layers a variant can name.
	_ "github.com/encbench/encbench/internal/layer/all"
	tlslayer "github.com/encbench/encbench/internal/layer/tls"
)

// Variant is a set of encryption layers.
type Variant struct {
	TLS bool
	// TLSVersion pins the protocol: "", "1.2" or "1.3"; TLSCipher a TLS
	// 1.2 cipher suite by its OpenSSL name; TLSCert a sandbox's
	// certificate key (ecdsa-p256, rsa-2048, rsa-4096; "": the default).
	TLSVersion, TLSCipher, TLSCert string
	// TLSClientCert is mutual TLS: the client presents a certificate the
	// server verifies.
	TLSClientCert bool
	TDE           bool
	// TDECipher is the sandbox's TDE algorithm (aes-ctr, aes-cbc; "": the
	// suite's or the default).
	TDECipher string
	// Colenc is the share of business columns encrypted in the client (TPC-C).
	Colenc int
	// ColumnSet names a suite's column set (enc-NAME): columns and schemes.
	ColumnSet string
	// Layers are the plugin layers (package layer's Plugin) with their
	// options, in name order.
	Layers []layer.Spec
	// AA is the A/A variant: the baseline's layers again, on a server of
	// its own, measured like any variant; its "loss" is the noise floor.
	AA bool
}

// AAName is the A/A variant's name in suites and reports.
const AAName = "aa"

// Levels are the column encryption shares report R3 measured.
var Levels = []int{20, 50, 100}

// Parse reads a variant name: plain, aa (the baseline against itself), or
// layers with their options joined with + in the one syntax of package
// layer (tls1.3+tde, tls1.2:cipher=ECDHE-RSA-AES128-GCM-SHA256, colenc50,
// enc-NAME).
func Parse(name string) (Variant, error) {
	var v Variant
	switch name {
	case "plain":
		return v, nil
	case AAName:
		return Variant{AA: true}, nil
	}
	specs, err := layer.Default().Parse(name)
	if err != nil {
		return v, fmt.Errorf("%w; or plain (no layer), or aa (the baseline against itself)", err)
	}
	for _, s := range specs {
		o := s.Options
		switch s.Layer {
		case "tls":
			v.TLS, v.TLSVersion, v.TLSCipher, v.TLSCert, v.TLSClientCert = true, o["version"], o["cipher"], o["cert"], o["client-cert"] == "on"
		case "tde":
			v.TDE, v.TDECipher = true, o["cipher"]
		case "colenc":
			if o["level"] != "" {
				v.Colenc, _ = strconv.Atoi(o["level"])
			}
			v.ColumnSet = o["set"]
		default:
			l, _ := layer.Default().Lookup(s.Layer)
			if _, ok := l.(layer.Plugin); !ok {
				return v, fmt.Errorf("variant %q: the %s layer is not one runs know", name, s.Layer)
			}
			v.Layers = append(v.Layers, s)
		}
	}
	slices.SortFunc(v.Layers, func(a, b layer.Spec) int { return strings.Compare(a.Layer, b.Layer) })
	return v, nil
}

// String is the canonical name: layers in a fixed order, "plain" for none.
func (v Variant) String() string {
	if v.AA {
		return AAName
	}
	var layers []string
	if v.TLS {
		var opts []string
		if v.TLSCert != "" {
			opts = append(opts, "cert="+v.TLSCert)
		}
		if v.TLSCipher != "" {
			opts = append(opts, "cipher="+v.TLSCipher)
		}
		if v.TLSClientCert {
			opts = append(opts, "client-cert=on")
		}
		l := "tls" + v.TLSVersion
		if len(opts) > 0 {
			l += ":" + strings.Join(opts, ",")
		}
		layers = append(layers, l)
	}
	if v.TDE {
		l := "tde"
		if v.TDECipher != "" {
			l += ":cipher=" + v.TDECipher
		}
		layers = append(layers, l)
	}
	if v.Colenc > 0 {
		layers = append(layers, "colenc"+strconv.Itoa(v.Colenc))
	}
	if v.ColumnSet != "" {
		layers = append(layers, v.ColumnSet)
	}
	for _, s := range v.Layers {
		layers = append(layers, s.String())
	}
	if len(layers) == 0 {
		return "plain"
	}
	return strings.Join(layers, "+")
}

// Against makes an A/A variant concrete: the baseline's layers, still
// named aa. Other variants are returned as they are.
func (v Variant) Against(baseline Variant) Variant {
	if !v.AA {
		return v
	}
	baseline.AA = true
	return baseline
}

// Server is the part a sandbox server is started with (plain, tls, tde,
// tls+tde): column encryption happens in the client.
func (v Variant) Server() string {
	return Variant{TLS: v.TLS, TDE: v.TDE, Layers: v.ServerLayers()}.String()
}

// ServerLayers are the plugin layers that change the server itself.
func (v Variant) ServerLayers() []layer.Spec {
	var out []layer.Spec
	for _, s := range v.Layers {
		if l, ok := layer.Default().Lookup(s.Layer); ok && l.(layer.Plugin).OnServer() {
			out = append(out, s)
		}
	}
	return out
}

// LayerNames are the plugin layers in their canonical form.
func (v Variant) LayerNames() []string {
	out := make([]string, len(v.Layers))
	for i, s := range v.Layers {
		out[i] = s.String()
	}
	return out
}

// ServerChoosesCipher says the variant pins a TLS 1.3 suite, which only
// the server can choose: its server must be configured for it.
func (v Variant) ServerChoosesCipher() bool {
	return v.TLS && slices.Contains(tlslayer.TLS13Suites, v.TLSCipher)
}

// Encrypts says whether the client encrypts columns.
func (v Variant) Encrypts() bool { return v.Colenc > 0 || v.ColumnSet != "" }

// Observed names a run from what was proved: the TLS mode in use, TDE, and
// the column encryption's own name ("colenc50", or "none"), and the
// plugin layers proved.
func Observed(tls, tde bool, colenc string, plugins ...string) string {
	var layers []string
	if tls {
		layers = append(layers, "tls")
	}
	if tde {
		layers = append(layers, "tde")
	}
	if colenc != "" && colenc != "none" {
		layers = append(layers, colenc)
	}
	layers = append(layers, plugins...)
	if len(layers) == 0 {
		return "plain"
	}
	return strings.Join(layers, "+")
}

// ValidName says whether s is a name encbench uses in file names and
// variant names: letters, digits, '-', '_' and '.'.
func ValidName(s string) bool {
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.') {
			return false
		}
	}
	return s != ""
}
