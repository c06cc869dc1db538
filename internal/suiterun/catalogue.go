package suiterun

import (
	"maps"
	"slices"

	"github.com/encbench/encbench/internal/spec"
	"github.com/encbench/encbench/internal/suite"
	"github.com/encbench/encbench/internal/workload"
)

// Catalogue answers a suite's questions about the workloads it names from
// a workload registry: the suite package knows no workload code.
func Catalogue(reg *workload.Registry) suite.Catalogue { return catalogue{reg} }

type catalogue struct{ reg *workload.Registry }

// Entry sets the entry's options on a run spec of the workload, as the
// command line would.
func (c catalogue) Entry(name string, options map[string]string) (suite.Entry, error) {
	fam, err := c.reg.Lookup(name)
	if err != nil {
		return suite.Entry{}, err
	}
	sp := spec.New(spec.Run, name, fam)
	e := suite.Entry{Has: sp.Has, ReadOnly: func() (bool, error) {
		wl, err := fam.New(sp.Workload, sp.Options)
		if err != nil {
			return false, err
		}
		return wl.Capabilities().ReadOnly, nil
	}}
	for _, k := range slices.Sorted(maps.Keys(options)) {
		if !sp.Has(k) {
			return e, &suite.OptionError{Option: k, Err: workload.NotApplicable(k, name, c.reg.Owners()[spec.Normalize(k)])}
		}
		if kind, _ := sp.KindOf(k); kind == workload.Data {
			return e, &suite.OptionError{Option: k, Data: true}
		}
		if err := sp.Set(k, options[k]); err != nil {
			return e, &suite.OptionError{Option: k, Value: true, Err: err}
		}
	}
	return e, nil
}
