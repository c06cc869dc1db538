// Package variant is the one place where encryption variants are named and
// parsed: which layers (TLS and its version, TDE, client-side columns) a
// run or a suite cell has on.
package variant

import (
	"fmt"
	"slices"
	"strings"

	"github.com/encbench/encbench/internal/layer"
	// The layers a variant can name.
	_ "github.com/encbench/encbench/internal/layer/all"
)

// Variant is a set of encryption layers. It has no field of any one
// layer: a layer's package reads its own options (tls.Of, tde.Of,
// colenc.Of).
type Variant struct {
	// Layers are the layers with their options, in canonical order.
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
// enc-NAME, fscrypt:policy=none).
func Parse(name string) (Variant, error) {
	switch name {
	case "plain":
		return Variant{}, nil
	case AAName:
		return Variant{AA: true}, nil
	}
	specs, err := layer.Default().Parse(name)
	if err != nil {
		return Variant{}, fmt.Errorf("%w; or plain (no layer), or aa (the baseline against itself)", err)
	}
	layer.Default().Sort(specs)
	return Variant{Layers: specs}, nil
}

// Of is the variant of these layers, in canonical order.
func Of(specs ...layer.Spec) Variant {
	specs = slices.Clone(specs)
	layer.Default().Sort(specs)
	return Variant{Layers: specs}
}

// String is the canonical name: layers in a fixed order, "plain" for none.
func (v Variant) String() string {
	if v.AA {
		return AAName
	}
	if len(v.Layers) == 0 {
		return "plain"
	}
	names := make([]string, len(v.Layers))
	for i, s := range v.Layers {
		names[i] = layer.Default().Name(s)
	}
	return strings.Join(names, "+")
}

// Has says whether the variant has the named layer.
func (v Variant) Has(name string) bool {
	_, ok := layer.Find(v.Layers, name)
	return ok
}

// With is the variant with s in place of the layer of its name (added
// when it had none).
func (v Variant) With(s layer.Spec) Variant {
	return Of(append(v.Without(s.Layer).Layers, s)...)
}

// Without is the variant without the named layers.
func (v Variant) Without(names ...string) Variant {
	out := Variant{AA: v.AA}
	for _, s := range v.Layers {
		if !slices.Contains(names, s.Layer) {
			out.Layers = append(out.Layers, s)
		}
	}
	return out
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

// serverSpec is a layer that names the server it needs with part of its
// options (TLS: the server offers every version a client may pin).
type serverSpec interface {
	ServerSpec(layer.Spec) layer.Spec
}

// ServerLayers are the layers a sandbox server is started with: those
// that change the server, with the options that name it.
func (v Variant) ServerLayers() []layer.Spec {
	var out []layer.Spec
	for _, s := range v.Layers {
		l, _ := layer.Default().Lookup(s.Layer)
		switch l := l.(type) {
		case serverSpec:
			out = append(out, l.ServerSpec(s))
		case layer.Plugin:
			if l.OnServer() {
				out = append(out, s)
			}
		}
	}
	return out
}

// Server is the name of the part a sandbox server is started with (plain,
// tls, tde, tls+tde, fscrypt): client-side columns happen in the client.
func (v Variant) Server() string { return Variant{Layers: v.ServerLayers()}.String() }

// Plugins are the layers a run carries out through package layer's
// Plugin hooks (--layer), in their canonical form.
func (v Variant) Plugins() []layer.Spec {
	var out []layer.Spec
	for _, s := range v.Layers {
		if l, _ := layer.Default().Lookup(s.Layer); isPlugin(l) {
			out = append(out, s)
		}
	}
	return out
}

func isPlugin(l layer.Layer) bool { _, ok := l.(layer.Plugin); return ok }

// PluginNames are the plugin layers in their canonical form.
func (v Variant) PluginNames() []string {
	var out []string
	for _, s := range v.Plugins() {
		out = append(out, s.String())
	}
	return out
}

// Encrypts says whether the client encrypts columns.
func (v Variant) Encrypts() bool { return v.Has("colenc") }

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
