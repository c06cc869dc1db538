package suiterun

import (
	"context"
	"fmt"

	"github.com/encbench/encbench/internal/errs"
	"github.com/encbench/encbench/internal/orchestrator"
	"github.com/encbench/encbench/internal/spec"
)

// reuseData says whether a DSN target already holds this suite's data set
// for a family (same data parameters): then it is not loaded again. A data
// set of other parameters is refused unless the suite says recreate_data.
func (x *Executor) reuseData(ctx context.Context, ls *liveSetup, s spec.Spec, family string) (bool, error) {
	ds, err := orchestrator.ReadDataSet(ctx, s, x.Registry)
	if err != nil || ds == nil {
		return false, err
	}
	want := orchestrator.DataParams(s)
	if ds.Params == want {
		fmt.Fprintf(x.Stdout, "reusing the %s data set on %s, prepared %s with the same parameters (%s)\n", family, ls.target.Name, ds.PreparedAt, want)
		if x.reused == nil {
			x.reused = map[string]string{}
		}
		x.reused[ls.ID] = ds.PreparedAt
		return true, nil
	}
	if x.Plan.Suite.RecreateData {
		fmt.Fprintf(x.Stdout, "replacing the %s data set on %s (recreate_data: true): it was prepared with %s\n", family, ls.target.Name, ds.Params)
		return false, nil
	}
	return false, errs.Usage("target %s holds a %s data set prepared %s with %s, and this suite asks for %s: set recreate_data: true in the suite to replace it, or use another database",
		ls.target.Name, family, ds.PreparedAt, ds.Params, want)
}

// cleanupData removes the data sets of the suite's DSN targets (cleanup:
// true), once every cell has finished.
func (x *Executor) cleanupData(ctx context.Context) error {
	for _, su := range x.Plan.Setups {
		ls := x.setups[su.ID]
		if ls.Sandbox || ls.owner != nil {
			continue
		}
		done := map[string]bool{}
		for _, w := range x.Plan.Suite.Workloads {
			if !w.RunsOn(ls.target) || !w.RunsIn(ls.Variant) {
				continue
			}
			fam, err := x.Registry.Lookup(w.Name)
			if err != nil || done[fam.Name()] {
				continue
			}
			done[fam.Name()] = true
			s, err := x.prepareSpec(ls, w.Name)
			if err != nil {
				return err
			}
			s.Command = spec.Cleanup
			if err := orchestrator.Cleanup(ctx, s, x.Registry, x.Stdout); err != nil {
				return fmt.Errorf("cleanup of %s on %s: %w", w.Name, ls.target.Name, err)
			}
		}
	}
	return nil
}
