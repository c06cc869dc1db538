// Package layer names encbench's encryption layers: what each is, the
// options it takes and the engines it runs on, and the one syntax that
// names a set of them for runs, sandboxes and suites alike:
//
//	LAYER[:key=value[,key=value]]  joined with +
//
// for example tls1.3:cipher=TLS_CHACHA20_POLY1305_SHA256+tde. Each layer
// lives in a package of its own under layer/ and registers itself there
// (layer/all lists them); this package holds what they share and knows
// none of them. A layer package imports this one and nothing that runs
// servers or suites, so that naming a variant pulls in no server code.
package layer

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
)

// Where is what a layer protects: data in transit, at rest, or in the
// columns a client or server encrypts.
type Where string

const (
	InTransit Where = "in transit"
	AtRest    Where = "at rest"
	InColumns Where = "in columns"
)

// Option is one key a layer takes.
type Option struct {
	Key string
	// Values are the accepted values; none: any value Check accepts.
	Values []string
	Help   string
}

// Alias is another name for a layer with some options set, such as
// tls1.3 for tls:version=1.3; a name ending in * takes the rest of the
// name as the value of Key (enc-* for a suite's column sets).
type Alias struct {
	Name    string
	Options map[string]string
	// Key receives what a name ending in * matched.
	Key string
}

// Layer describes one encryption layer.
type Layer interface {
	// Name is the layer's name in variants.
	Name() string
	// Summary says in one line what the layer encrypts, where and how.
	Summary() string
	Where() Where
	Options() []Option
	// Aliases are its other names.
	Aliases() []Alias
	// Engines are the engines whose sandboxes run it (a DSN target runs
	// it where its server is set up for it).
	Engines() []string
	// Check refuses options that do not go together, or a value an
	// Option without Values does not accept; nil when they are fine.
	Check(options map[string]string) error
}

// Spec is one layer of a variant with its options.
type Spec struct {
	Layer   string
	Options map[string]string
}

// String is the canonical form: name, then its options in key order.
func (s Spec) String() string {
	if len(s.Options) == 0 {
		return s.Layer
	}
	parts := make([]string, 0, len(s.Options))
	for _, k := range slices.Sorted(maps.Keys(s.Options)) {
		parts = append(parts, k+"="+s.Options[k])
	}
	return s.Layer + ":" + strings.Join(parts, ",")
}

// Registry holds the layers encbench knows.
type Registry struct {
	mu     sync.RWMutex
	layers map[string]Layer
}

// Register adds a layer; a second layer of the same name, or an alias
// that names a layer already known, is a programming error.
func (r *Registry) Register(l Layer) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.layers == nil {
		r.layers = map[string]Layer{}
	}
	for _, name := range append([]string{l.Name()}, aliasNames(l)...) {
		if _, taken := r.find(name); taken {
			panic(fmt.Sprintf("layer: %q registered twice", name))
		}
	}
	r.layers[l.Name()] = l
}

func aliasNames(l Layer) []string {
	var names []string
	for _, a := range l.Aliases() {
		names = append(names, a.Name)
	}
	return names
}

// List is every layer, by name.
func (r *Registry) List() []Layer {
	r.mu.RLock()
	defer r.mu.RUnlock()
	out := make([]Layer, 0, len(r.layers))
	for _, name := range slices.Sorted(maps.Keys(r.layers)) {
		out = append(out, r.layers[name])
	}
	return out
}

// Lookup is the layer of a name, or false.
func (r *Registry) Lookup(name string) (Layer, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	l, ok := r.layers[name]
	return l, ok
}

// find resolves a name or alias to its layer and the options the alias
// sets; r.mu is held.
func (r *Registry) find(name string) (Spec, bool) {
	if _, ok := r.layers[name]; ok {
		return Spec{Layer: name}, true
	}
	for _, l := range r.layers {
		for _, a := range l.Aliases() {
			prefix, wild := strings.CutSuffix(a.Name, "*")
			switch {
			case !wild && a.Name == name:
				return Spec{Layer: l.Name(), Options: maps.Clone(a.Options)}, true
			case wild && strings.HasPrefix(name, prefix) && len(name) > len(prefix):
				opts := maps.Clone(a.Options)
				if opts == nil {
					opts = map[string]string{}
				}
				opts[a.Key] = name
				return Spec{Layer: l.Name(), Options: opts}, true
			}
		}
	}
	return Spec{}, false
}

// Parse reads a variant name: layers (or their aliases) with options,
// joined with +. A layer named twice, an unknown layer, key or value is
// an error that lists what there is.
func (r *Registry) Parse(name string) ([]Spec, error) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	if name == "" {
		return nil, fmt.Errorf("empty variant: %s", r.usage())
	}
	var out []Spec
	seen := map[string]bool{}
	for _, part := range strings.Split(name, "+") {
		head, opts, hasOpts := strings.Cut(part, ":")
		s, ok := r.find(head)
		if !ok {
			return nil, fmt.Errorf("unknown layer %q in variant %q: %s", head, name, r.usage())
		}
		l := r.layers[s.Layer]
		if seen[s.Layer] {
			return nil, fmt.Errorf("variant %q names the %s layer twice", name, s.Layer)
		}
		seen[s.Layer] = true
		if hasOpts {
			if opts == "" {
				return nil, fmt.Errorf("variant %q: %s: give key=value after the colon (%s)", name, head, optionsText(l))
			}
			for _, kv := range strings.Split(opts, ",") {
				k, v, ok := strings.Cut(kv, "=")
				if !ok || k == "" || v == "" {
					return nil, fmt.Errorf("variant %q: %s: %q is not key=value (%s)", name, head, kv, optionsText(l))
				}
				if s.Options == nil {
					s.Options = map[string]string{}
				}
				if prev, set := s.Options[k]; set && prev != v {
					return nil, fmt.Errorf("variant %q: %s sets %s=%s already, not %s", name, head, k, prev, v)
				}
				s.Options[k] = v
			}
		}
		if err := checkOptions(l, s.Options); err != nil {
			return nil, fmt.Errorf("variant %q: %w", name, err)
		}
		out = append(out, s)
	}
	return out, nil
}

// checkOptions refuses a key the layer does not take, a value outside
// its list, and what the layer's own Check refuses.
func checkOptions(l Layer, opts map[string]string) error {
	for _, k := range slices.Sorted(maps.Keys(opts)) {
		i := slices.IndexFunc(l.Options(), func(o Option) bool { return o.Key == k })
		if i < 0 {
			return fmt.Errorf("%s takes no option %q (%s)", l.Name(), k, optionsText(l))
		}
		if o := l.Options()[i]; len(o.Values) > 0 && !slices.Contains(o.Values, opts[k]) {
			return fmt.Errorf("%s: %s=%s: give one of %s", l.Name(), k, opts[k], strings.Join(o.Values, ", "))
		}
	}
	if err := l.Check(opts); err != nil {
		return fmt.Errorf("%s: %w", l.Name(), err)
	}
	return nil
}

// optionsText lists a layer's keys, for an error.
func optionsText(l Layer) string {
	if len(l.Options()) == 0 {
		return l.Name() + " takes no options"
	}
	var keys []string
	for _, o := range l.Options() {
		keys = append(keys, o.Key)
	}
	return l.Name() + "'s options: " + strings.Join(keys, ", ")
}

// usage lists the layers and their aliases; r.mu is held.
func (r *Registry) usage() string {
	var names []string
	for _, name := range slices.Sorted(maps.Keys(r.layers)) {
		names = append(names, name)
		names = append(names, aliasNames(r.layers[name])...)
	}
	return "layers are " + strings.Join(names, ", ") + ", joined with + (encbench layers lists their options)"
}

// Ranked fixes a layer's place in a variant's canonical name; layers
// without a rank follow, by name. TLS, TDE and client-side columns have
// ranks so the names earlier versions wrote (tls1.3+tde+colenc50) stay
// what they were.
type Ranked interface{ Rank() int }

func (r *Registry) rank(name string) int {
	if rk, ok := r.layers[name].(Ranked); ok {
		return rk.Rank()
	}
	return 1 << 20
}

// Sort puts specs in canonical order.
func (r *Registry) Sort(specs []Spec) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	slices.SortStableFunc(specs, func(a, b Spec) int {
		if d := r.rank(a.Layer) - r.rank(b.Layer); d != 0 {
			return d
		}
		return strings.Compare(a.Layer, b.Layer)
	})
}

// Name is a spec's canonical name: through the alias that sets the most
// of its options (tls1.3:cert=rsa-4096 for tls:cert=rsa-4096,version=1.3;
// enc-rest for colenc:set=enc-rest), or the layer's name and options.
func (r *Registry) Name(s Spec) string {
	r.mu.RLock()
	l, ok := r.layers[s.Layer]
	r.mu.RUnlock()
	if !ok {
		return s.String()
	}
	best, rest, covered := s.Layer, s.Options, 0
	for _, a := range l.Aliases() {
		prefix, wild := strings.CutSuffix(a.Name, "*")
		name, left, n := a.Name, maps.Clone(s.Options), 0
		if wild {
			v, set := left[a.Key]
			if !set || !strings.HasPrefix(v, prefix) || len(v) == len(prefix) {
				continue
			}
			name, n = v, 1
			delete(left, a.Key)
		}
		matches := true
		for k, v := range a.Options {
			if left[k] != v {
				matches = false
				break
			}
			delete(left, k)
			n++
		}
		if matches && n > covered {
			best, rest, covered = name, left, n
		}
	}
	return Spec{Layer: best, Options: rest}.String()
}

// Find is the spec of the named layer among specs.
func Find(specs []Spec, name string) (Spec, bool) {
	for _, s := range specs {
		if s.Layer == name {
			return s, true
		}
	}
	return Spec{}, false
}

// Format is the canonical name of specs: each layer's canonical form,
// joined with + in the order given.
func Format(specs []Spec) string {
	parts := make([]string, len(specs))
	for i, s := range specs {
		parts[i] = s.String()
	}
	return strings.Join(parts, "+")
}

var std Registry

// Register adds a layer to the registry every command uses; a layer's
// package calls it from init.
func Register(l Layer) { std.Register(l) }

// Default is the registry every command uses.
func Default() *Registry { return &std }
