package spec

import (
	"github.com/spf13/pflag"

	"github.com/encbench/encbench/internal/workload"
)

// DataChanged lists the flags that are part of a data set's identity
// (data, or data and setting) and differ from their defaults.
func (s Spec) DataChanged() map[string]string {
	out := map[string]string{}
	s.visitChanged(func(f *pflag.Flag, v string) {
		if workload.KindOf(f).IsData() {
			out[f.Name] = v
		}
	})
	return out
}

// KindOf is the kind of the spec's flag name; false when it has none.
func (s Spec) KindOf(name string) (workload.Kind, bool) {
	fs, _ := s.flags()
	f := fs.Lookup(name)
	if f == nil {
		return "", false
	}
	return workload.KindOf(f), true
}
