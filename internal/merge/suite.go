package merge

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
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
		data, err := os.ReadFile(filepath.Join(d, "plan.json"))
		if err != nil {
			return 0, nil, errs.Usage("%s is not a generator's suite directory (no plan.json): %w", d, err)
		}
		var r suite.Record
		if err := json.Unmarshal(data, &r); err != nil || r.Plan == nil {
			return 0, nil, fmt.Errorf("parsing %s: %v", filepath.Join(d, "plan.json"), err)
		}
		if i == 0 {
			plan, rec = data, r
			continue
		}
		if !slices.EqualFunc(r.Cells, rec.Cells, func(a, b suite.Cell) bool { return a.ID == b.ID }) {
			return 0, nil, errs.Usage("%s and %s planned different cells: every generator must run the same suite with the same --start-at", dirs[0], d)
		}
	}
	if entries, err := os.ReadDir(out); err == nil && len(entries) > 0 {
		return 0, nil, errs.Usage("%s is not empty: give a new directory for the merged suite", out)
	}
	if err := os.MkdirAll(filepath.Join(out, "cells"), 0o755); err != nil {
		return 0, nil, fmt.Errorf("creating %s: %w", out, err)
	}
	if err := fsx.WriteFile(filepath.Join(out, "plan.json"), plan, 0o644); err != nil {
		return 0, nil, err
	}
	if text, err := os.ReadFile(filepath.Join(dirs[0], "suite.yaml")); err == nil {
		if err := fsx.WriteFile(filepath.Join(out, "suite.yaml"), text, 0o600); err != nil {
			return 0, nil, err
		}
	}
	for _, c := range rec.Cells {
		var paths []string
		for _, d := range dirs {
			found, _ := filepath.Glob(filepath.Join(d, "generators", c.ID, "generator-*.json"))
			paths = append(paths, found...)
		}
		m, err := Files(paths)
		if err != nil {
			missing = append(missing, fmt.Sprintf("%s (%v)", c.ID, err))
			continue
		}
		if err := result.WriteFile(filepath.Join(out, "cells", c.ID+".json"), m); err != nil {
			return merged, missing, err
		}
		merged++
	}
	return merged, missing, nil
}
