package report

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/encbench/encbench/internal/locale"
	"github.com/encbench/encbench/internal/result"
)

// layersTable lists each plugin layer the runs proved (package layer's
// Plugin), per variant and engine: where its proof was read, how many of
// the values it checked showed the layer on, and the facts it read (the
// functions, the column types, the key's route). A layer contributes
// this section by filling in its proof; the report knows none of them.
func layersTable(l *locale.Lang, rs []*result.Result) Table {
	t := Table{Head: []string{l.T("col.variant"), l.T("col.target"), l.T("layers.layer"), l.T("layers.source"), l.T("layers.proven"), l.T("layers.facts")}}
	type key struct{ variant, target, layer string }
	type seen struct {
		p               result.LayerProof
		checked, proven int
	}
	var order []key
	byKey := map[key]*seen{}
	for _, r := range rs {
		for _, p := range r.Variant.Verified.Layers {
			k := key{r.Variant.Name, targetOf(r), p.Layer}
			s, ok := byKey[k]
			if !ok {
				s = &seen{p: p}
				byKey[k] = s
				order = append(order, k)
			}
			s.checked += p.Checked
			s.proven += p.Proven
		}
	}
	for _, k := range order {
		s := byKey[k]
		var facts []string
		for _, name := range slices.Sorted(maps.Keys(s.p.Facts)) {
			facts = append(facts, fmt.Sprintf("%s: %s", name, s.p.Facts[name]))
		}
		t.Rows = append(t.Rows, []Text{{S: k.variant}, {S: k.target}, {S: k.layer, Strong: true}, {S: s.p.Source},
			{S: l.T("n_of_m", s.proven, s.checked)}, {S: strings.Join(facts, "; ")}})
	}
	return t
}

// layerLeakageTable states what each plugin layer the runs used leaves
// visible, from its statement in the message catalogue.
func layerLeakageTable(l *locale.Lang, rs []*result.Result) Table {
	t := Table{Head: []string{l.T("layers.layer"), l.T("leak.primitive"), l.T("leak.reveals"), l.T("leak.enables")}}
	var stems []string
	for _, r := range rs {
		for _, p := range r.Variant.Verified.Layers {
			if p.Leakage != "" && !slices.Contains(stems, p.Leakage) {
				stems = append(stems, p.Leakage)
			}
		}
	}
	slices.Sort(stems)
	for _, s := range stems {
		t.Rows = append(t.Rows, []Text{{S: s, Strong: true}, {S: l.T(locale.LeakID(s, "primitive"))},
			{S: l.T(locale.LeakID(s, "reveals"))}, {S: l.T(locale.LeakID(s, "enables"))}})
	}
	return t
}
