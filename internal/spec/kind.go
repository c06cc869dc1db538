package spec

import (
	"github.com/spf13/pflag"

	"github.com/encbench/encbench/internal/workload"
)

// ChangedOf lists the flags of kind that differ from their defaults.
func (s Spec) ChangedOf(kind workload.Kind) map[string]string {
	out := map[string]string{}
	s.visitChanged(func(f *pflag.Flag, v string) {
		if workload.KindOf(f) == kind {
			out[f.Name] = v
		}
	})
	return out
}
