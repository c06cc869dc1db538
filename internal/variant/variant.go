// Package variant is the one place where encryption variants are named and
// parsed: which layers (TLS and its version, TDE, client-side columns) a
// run or a suite cell has on.
package variant

import (
	"fmt"
	"strconv"
	"strings"
)

// Variant is a set of encryption layers.
type Variant struct {
	TLS bool
	// TLSVersion pins the protocol: "", "1.2" or "1.3".
	TLSVersion string
	TDE        bool
	// Colenc is the share of business columns encrypted in the client (TPC-C).
	Colenc int
	// ColumnSet names a suite's column set (enc-NAME): columns and schemes.
	ColumnSet string
	// AA is the A/A variant: the baseline's layers again, on a server of
	// its own, measured like any variant; its "loss" is the noise floor.
	AA bool
}

// AAName is the A/A variant's name in suites and reports.
const AAName = "aa"

// Levels are the column encryption shares report R3 measured.
var Levels = []int{20, 50, 100}

const usage = "use plain, tls, tls1.2, tls1.3, tde, colenc20, colenc50, colenc100, enc-NAME (a column set), a + join such as tls+tde, or aa (the baseline against itself)"

// Parse reads plain, tls, tls1.2, tls1.3, tde, colencNN, enc-NAME and
// their + joins.
func Parse(name string) (Variant, error) {
	var v Variant
	if name == "plain" {
		return v, nil
	}
	if name == AAName {
		return Variant{AA: true}, nil
	}
	if name == "" {
		return v, fmt.Errorf("empty variant name: %s", usage)
	}
	seen := map[string]bool{}
	for _, layer := range strings.Split(name, "+") {
		kind := layer
		switch {
		case layer == "tls":
			v.TLS = true
		case layer == "tls1.2" || layer == "tls1.3":
			v.TLS, v.TLSVersion, kind = true, strings.TrimPrefix(layer, "tls"), "tls"
		case layer == "tde":
			v.TDE = true
		case strings.HasPrefix(layer, "colenc"):
			n, err := strconv.Atoi(strings.TrimPrefix(layer, "colenc"))
			if err != nil || !validLevel(n) {
				return v, fmt.Errorf("unknown variant %q: %s", name, usage)
			}
			v.Colenc, kind = n, "colenc"
		case strings.HasPrefix(layer, "enc-") && ValidName(layer):
			v.ColumnSet, kind = layer, "colenc"
		default:
			return v, fmt.Errorf("unknown variant %q: %s", name, usage)
		}
		if seen[kind] {
			return v, fmt.Errorf("variant %q names the %s layer twice", name, kind)
		}
		seen[kind] = true
	}
	return v, nil
}

// String is the canonical name: layers in a fixed order, "plain" for none.
func (v Variant) String() string {
	if v.AA {
		return AAName
	}
	var layers []string
	if v.TLS {
		layers = append(layers, "tls"+v.TLSVersion)
	}
	if v.TDE {
		layers = append(layers, "tde")
	}
	if v.Colenc > 0 {
		layers = append(layers, "colenc"+strconv.Itoa(v.Colenc))
	}
	if v.ColumnSet != "" {
		layers = append(layers, v.ColumnSet)
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
	return Variant{TLS: v.TLS, TDE: v.TDE}.String()
}

// Encrypts says whether the client encrypts columns.
func (v Variant) Encrypts() bool { return v.Colenc > 0 || v.ColumnSet != "" }

// Observed names a run from what was proved: the TLS mode in use, TDE, and
// the column encryption's own name ("colenc50", or "none").
func Observed(tls, tde bool, colenc string) string {
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
	if len(layers) == 0 {
		return "plain"
	}
	return strings.Join(layers, "+")
}

func validLevel(n int) bool {
	for _, l := range Levels {
		if l == n {
			return true
		}
	}
	return false
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
