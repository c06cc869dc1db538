package workload

import (
	"fmt"

	"github.com/spf13/pflag"
)

// Kind says what a flag names. It is set where the flag is bound (a pflag
// annotation, as cockroach's workload FlagMeta does) and read by whoever
// must tell a data set's parameters from where the server is or how a
// phase runs: a new flag that says only where the server is cannot then
// change a data set's identity and make pre-flight refuse, or replace, a
// data set the user already has.
type Kind string

const (
	// Data is what the data set holds; another value is another data set.
	// A workload's own options are data unless they say otherwise.
	Data Kind = "data"
	// Location is where the server is and how to reach it.
	Location Kind = "location"
	// Setting is how a phase runs or loads (threads, limits, outputs).
	Setting Kind = "setting"
	// Both is data when prepare is given it and a setting when run is
	// (sysbench's --rand-type draws the loaded k and the run's keys).
	Both Kind = "data+setting"
)

const kindAnnotation = "encbench-kind"

// Mark gives flags their kind. It panics on a name the set does not bind,
// which is a mistake in the binding code, found by any test that binds it.
func Mark(fs *pflag.FlagSet, kind Kind, names ...string) {
	for _, n := range names {
		if err := fs.SetAnnotation(n, kindAnnotation, []string{string(kind)}); err != nil {
			panic(fmt.Sprintf("marking flag --%s: %v", n, err))
		}
	}
}

// IsData says whether a flag of this kind is part of a data set's identity.
func (k Kind) IsData() bool { return k == Data || k == Both }

// KindOf is a flag's kind; an unmarked flag is data.
func KindOf(f *pflag.Flag) Kind {
	if v := f.Annotations[kindAnnotation]; len(v) == 1 {
		return Kind(v[0])
	}
	return Data
}

// Marked says whether the flag was given a kind where it is bound.
func Marked(f *pflag.Flag) bool { return len(f.Annotations[kindAnnotation]) == 1 }
