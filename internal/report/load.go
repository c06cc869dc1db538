package report

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/encbench/encbench/internal/errs"
	"github.com/encbench/encbench/internal/result"
	"github.com/encbench/encbench/internal/suite"
)

// Data is what a report is made of: a suite's plan (when the directory
// holds one) and its complete results.
type Data struct {
	Dir     string
	Record  *suite.Record
	Results []*result.Result
	// Partial counts interrupted or failed cells left out of a directory
	// (a single result file is kept even if partial: it was asked for).
	Partial int
	// WhatIf is a setting to project the losses to (--what-if).
	WhatIf *WhatIf
}

// Load reads a suite directory, or a directory or single file of result
// documents written with --json.
func Load(path string) (*Data, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, errs.Usage("cannot read %s: %w", path, err)
	}
	d := &Data{Dir: path}
	if !st.IsDir() {
		r, err := result.ReadFile(path)
		if err != nil {
			return nil, errs.Usage("%w", err)
		}
		d.Dir = filepath.Dir(path)
		d.Results = []*result.Result{r}
		return d, nil
	}
	dir := suite.Dir(path)
	rec, _, err := dir.ReadRecord()
	switch {
	case err == nil:
		d.Record = rec
	case !errors.Is(err, suite.ErrNoRecord):
		return nil, err
	}
	for _, file := range dir.ResultFiles() {
		r, err := result.ReadFile(file)
		if err != nil {
			continue // not a result document
		}
		if r.Partial || strings.HasSuffix(file, ".partial.json") {
			d.Partial++
			continue
		}
		d.Results = append(d.Results, r)
	}
	if len(d.Results) == 0 {
		return nil, errs.Usage("no complete results in %s: run a suite there (encbench suite run NAME --out %s) or write results with run --json", path, path)
	}
	sort.SliceStable(d.Results, func(i, j int) bool { return d.Results[i].StartedAt < d.Results[j].StartedAt })
	return d, nil
}

// ErrNoBaseline is returned when no result has the baseline variant.
var ErrNoBaseline = errors.New("no baseline results")

// Baseline is the variant every other is compared with.
func (d *Data) Baseline() string {
	if d.Record != nil && d.Record.Baseline != "" {
		return d.Record.Baseline
	}
	return "plain"
}

// targetOf names the server a result ran on: the suite's target name, or
// the engine kind for lone runs.
func targetOf(r *result.Result) string {
	if r.Suite != nil && r.Suite.Target != "" {
		return r.Suite.Target
	}
	return r.Engine.Kind
}

// workloadOf names the workload a result belongs to in a report: the
// suite's label when the suite ran one workload in several ways.
func workloadOf(r *result.Result) string {
	if r.Workload.Label != "" {
		return r.Workload.Label
	}
	return r.Workload.Name
}

// PartialWarning is a line warning that path's figures are incomplete, or
// "" when they are not.
func (d *Data) PartialWarning(path string) string {
	switch {
	case len(d.Results) == 1 && d.Results[0].Partial:
		return fmt.Sprintf("warning: %s is a partial result (interrupted after %.1f s): its figures cover only part of the run", path, d.Results[0].DurationS)
	case d.Partial == 0:
		return ""
	}
	return fmt.Sprintf("warning: %s: %d partial result(s) (interrupted or failed cells) left out", path, d.Partial)
}
