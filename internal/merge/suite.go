package merge

import (
	"errors"
	"fmt"
	"os"
	"slices"

	"github.com/encbench/encbench/internal/errs"
	"github.com/encbench/encbench/internal/fsx"
	"github.com/encbench/encbench/internal/result"
	"github.com/encbench/encbench/internal/suite"
)

// Suite adds up the directories that generators of one suite wrote (each
// ran encbench suite run --generator I/N with the same plan) into out, a
// suite directory with one merged result per cell that encbench report
// reads. It returns how many cells were merged and which were not (some
// generator lacks them: a failed or late cell).
func Suite(dirs []string, out string) (merged int, missing []string, err error) {
	var plan []byte
	var rec suite.Record
	for i, d := range dirs {
		r, data, err := suite.Dir(d).ReadRecord()
		switch {
		case errors.Is(err, suite.ErrNoRecord):
			return 0, nil, errs.Usage("%s is not a generator's suite directory: %w", d, err)
		case err != nil:
			return 0, nil, err
		case r.Plan == nil:
			return 0, nil, fmt.Errorf("%s holds no plan", suite.Dir(d).PlanFile())
		}
		if i == 0 {
			plan, rec = data, *r
			continue
		}
		if !slices.EqualFunc(r.Cells, rec.Cells, func(a, b suite.Cell) bool { return a.ID == b.ID }) {
			return 0, nil, errs.Usage("%s and %s planned different cells: every generator must run the same suite with the same --start-at", dirs[0], d)
		}
	}
	if entries, err := os.ReadDir(out); err == nil && len(entries) > 0 {
		return 0, nil, errs.Usage("%s is not empty: give a new directory for the merged suite", out)
	}
	to := suite.Dir(out)
	if err := to.Create(); err != nil {
		return 0, nil, err
	}
	if err := fsx.WriteFile(to.PlanFile(), plan, 0o644); err != nil {
		return 0, nil, err
	}
	if text, err := os.ReadFile(suite.Dir(dirs[0]).SuiteFile()); err == nil {
		if err := fsx.WriteFile(to.SuiteFile(), text, 0o600); err != nil {
			return 0, nil, err
		}
	}
	for _, c := range rec.Cells {
		var paths []string
		for _, d := range dirs {
			paths = append(paths, suite.Dir(d).GeneratorResults(c.ID)...)
		}
		m, err := Files(paths)
		if err != nil {
			missing = append(missing, fmt.Sprintf("%s (%v)", c.ID, err))
			continue
		}
		if err := result.WriteFile(to.Cell(c.ID), m); err != nil {
			return merged, missing, err
		}
		merged++
	}
	return merged, missing, nil
}
