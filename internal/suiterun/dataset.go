package suiterun

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/encbench/encbench/internal/orchestrator"
	"github.com/encbench/encbench/internal/spec"
)

// cleanupData removes the data sets of the suite's DSN targets (cleanup:
// true), once every cell has finished.
func (x *servers) cleanupData(ctx context.Context) error {
	log, err := os.Create(x.Dir.Log("cleanup.log"))
	if err != nil {
		return fmt.Errorf("creating the cleanup log: %w", err)
	}
	defer log.Close()
	var removed []string
	for _, su := range x.Plan.Setups {
		ls := x.setups[su.ID]
		if ls.Sandbox || ls.owner != nil {
			continue
		}
		sets, err := x.dataSets(ls)
		if err != nil {
			return err
		}
		for _, d := range sets {
			s := d.spec
			s.Command = spec.Cleanup
			fmt.Fprintf(log, "$ %s\n", s.Display())
			if err := orchestrator.Cleanup(ctx, s, x.Registry, log); err != nil {
				return fmt.Errorf("cleanup of %s on %s: %w", d.workload, ls.target.Name, err)
			}
			removed = append(removed, fmt.Sprintf("%s on %s", d.family, ls.ID))
		}
	}
	if len(removed) > 0 {
		fmt.Fprintf(x.Stdout, "cleanup: true: removed the data sets %s (what was dropped: %s)\n", strings.Join(removed, ", "), log.Name())
	}
	return nil
}

// dataSet is the prepare of one workload family's data on a setup.
type dataSet struct {
	workload, family string
	spec             spec.Spec
}

// dataSets are a setup's data sets: one per workload family that runs on
// it, prepared as its first workload in the suite prepares it.
func (x *servers) dataSets(ls *liveSetup) ([]dataSet, error) {
	var out []dataSet
	for _, w := range x.Plan.Suite.Workloads {
		if !w.RunsOn(ls.target) || !w.RunsIn(ls.Variant) {
			continue
		}
		fam, err := x.Registry.Lookup(w.Name)
		if err != nil || slices.ContainsFunc(out, func(d dataSet) bool { return d.family == fam.Name() }) {
			continue
		}
		s, err := x.prepareSpec(ls, w.Name)
		if err != nil {
			return nil, err
		}
		out = append(out, dataSet{workload: w.Name, family: fam.Name(), spec: s})
	}
	return out, nil
}
