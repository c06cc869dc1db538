package suite

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/encbench/encbench/internal/fsx"
)

// Dir is a suite directory, the one place its layout is spelled out:
//
//	suite.yaml       the suite as it began (for --resume and the report)
//	overrides.json   the command line's overrides of it
//	plan.json        the Record: the plan, what ran, what failed
//	cells/ID.json    each cell's result (ID.partial.json: interrupted)
//	logs/            each cell's, prepare's and each server's log
//	sandboxes/ID/    each sandbox server's data directory
//	generators/ID/   each load generator's own result of a cell
//	keys/            the column-encryption master key and keyset
//	scripts/         each script a workload ran, as it was, with SHA256SUMS
//
// suiterun writes it; report, merge and compare read it.
type Dir string

const (
	suiteFile     = "suite.yaml"
	overridesFile = "overrides.json"
	planFile      = "plan.json"
	cellsDir      = "cells"
	logsDir       = "logs"
	sandboxesDir  = "sandboxes"
	generatorsDir = "generators"
	keysDir       = "keys"
	scriptsDir    = "scripts"
)

func (d Dir) join(parts ...string) string {
	return filepath.Join(append([]string{string(d)}, parts...)...)
}

// SuiteFile is the stored suite text.
func (d Dir) SuiteFile() string { return d.join(suiteFile) }

// OverridesFile is the stored overrides.
func (d Dir) OverridesFile() string { return d.join(overridesFile) }

// PlanFile is the stored Record.
func (d Dir) PlanFile() string { return d.join(planFile) }

// Cells is the directory of the cells' results.
func (d Dir) Cells() string { return d.join(cellsDir) }

// Cell is the result file of cell id.
func (d Dir) Cell(id string) string { return d.join(cellsDir, id+".json") }

// Scripts is the directory of the scripts' copies.
func (d Dir) Scripts() string { return d.join(scriptsDir) }

// Logs is the directory of logs.
func (d Dir) Logs() string { return d.join(logsDir) }

// Log is the log file or directory called name.
func (d Dir) Log(name string) string { return d.join(logsDir, name) }

// Sandbox is the data directory of sandbox server id.
func (d Dir) Sandbox(id string) string { return d.join(sandboxesDir, id) }

// Generators is where cell id's generators write their own results.
func (d Dir) Generators(id string) string { return d.join(generatorsDir, id) }

// GeneratorResult is generator i's own result of cell id.
func (d Dir) GeneratorResult(id string, i int) string {
	return d.join(generatorsDir, id, fmt.Sprintf("generator-%d.json", i))
}

// GeneratorResults are the generators' results of cell id found there.
func (d Dir) GeneratorResults(id string) []string {
	found, _ := filepath.Glob(d.join(generatorsDir, id, "generator-*.json"))
	return found
}

// Keys is where the suite's column-encryption keys are made.
func (d Dir) Keys() string { return d.join(keysDir) }

// Create makes the directory with its cells and logs; sandbox servers run
// as their own users and must reach it, so it is world-readable.
func (d Dir) Create() error {
	for _, p := range []string{string(d), d.Cells(), d.Logs()} {
		if err := os.MkdirAll(p, 0o755); err != nil {
			return fmt.Errorf("creating %s: %w", p, err)
		}
	}
	if err := os.Chmod(string(d), 0o755); err != nil {
		return fmt.Errorf("setting mode of %s: %w", d, err)
	}
	return nil
}

// ErrNoRecord is a directory without plan.json: not a suite's.
var ErrNoRecord = errors.New("no plan.json")

// ReadRecord reads plan.json; it returns the file's bytes too, for a copy
// that must stay byte for byte (merge). A missing file is ErrNoRecord.
func (d Dir) ReadRecord() (*Record, []byte, error) {
	data, err := os.ReadFile(d.PlanFile())
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil, fmt.Errorf("%s: %w", d, ErrNoRecord)
	}
	if err != nil {
		return nil, nil, err
	}
	var rec Record
	if err := json.Unmarshal(data, &rec); err != nil {
		return nil, nil, fmt.Errorf("parsing %s: %w", d.PlanFile(), err)
	}
	return &rec, data, nil
}

// WriteRecord replaces plan.json atomically.
func (d Dir) WriteRecord(rec Record) error { return WriteJSON(d.PlanFile(), rec) }

// ResultFiles are the JSON files of the directory and of its cells that
// may be result documents (the plan and overrides are not); interrupted
// cells' files (.partial.json) are among them.
func (d Dir) ResultFiles() []string {
	var out []string
	for _, dir := range []string{string(d), d.Cells()} {
		entries, err := os.ReadDir(dir)
		if err != nil {
			continue
		}
		for _, e := range entries {
			name := e.Name()
			if e.IsDir() || !strings.HasSuffix(name, ".json") || name == planFile || name == overridesFile {
				continue
			}
			out = append(out, filepath.Join(dir, name))
		}
	}
	return out
}

// WriteJSON writes v indented, atomically, readable by all (a suite
// directory's files are read by the servers' users' tools too).
func WriteJSON(path string, v any) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Errorf("encoding %s: %w", filepath.Base(path), err)
	}
	return fsx.WriteFile(path, append(data, '\n'), 0o644)
}
