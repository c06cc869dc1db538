package suiterun

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/encbench/encbench/internal/errs"
	"github.com/encbench/encbench/internal/fsx"
	"github.com/encbench/encbench/internal/suite"
)

// scriptCopies maps each script file a suite's workloads name (their
// file option, as script: entries set it) to its copy in the suite
// directory, which the cells run once the suite has claimed it: a report
// then says exactly what ran, and a resumed suite runs the same text.
type scriptCopies map[string]string

// resolveScripts points the workloads' file options at absolute paths:
// the files relative to the suite file for a new suite, their copies in
// the directory when resuming.
func resolveScripts(s *suite.Suite, dir suite.Dir, nameOrFile string, resume bool) (scriptCopies, error) {
	base := "."
	if st, err := os.Stat(nameOrFile); err == nil && !st.IsDir() {
		base = filepath.Dir(nameOrFile)
	}
	copies := scriptCopies{}
	byName := map[string]string{}
	for i := range s.Workloads {
		w := &s.Workloads[i]
		v, ok := w.Options["file"]
		if !ok {
			continue
		}
		f, ok := v.(string)
		if !ok {
			return nil, errs.Usage("workload %s: give one script per entry (file: or script:); list several entries to run several scripts", w.ID())
		}
		files := []string{f}
		for k, f := range files {
			path, weight := splitScriptWeight(f)
			name := filepath.Base(path)
			src := path
			if !filepath.IsAbs(src) {
				src = filepath.Join(base, path)
			}
			src, _ = filepath.Abs(src)
			dst := filepath.Join(dir.Scripts(), name)
			if prev, seen := byName[name]; seen && prev != src {
				return nil, errs.Usage("workload %s: scripts %s and %s share the file name %s; the suite directory keeps one copy per name: rename one", w.ID(), prev, src, name)
			}
			byName[name] = src
			if resume {
				if _, err := os.Stat(dst); err != nil {
					return nil, errs.Usage("resuming: the suite directory has no copy of %s (%s)", name, dst)
				}
				files[k] = dst + weight
				continue
			}
			if _, err := os.Stat(src); err != nil {
				return nil, errs.Usage("workload %s: script %s: %v", w.ID(), path, err)
			}
			copies[src] = dst
			files[k] = src + weight
		}
		w.Options["file"] = files[0]
	}
	return copies, nil
}

// splitScriptWeight splits PATH@WEIGHT (digits after the last @).
func splitScriptWeight(f string) (path, weight string) {
	i := strings.LastIndexByte(f, '@')
	if i < 0 || i == len(f)-1 || strings.IndexFunc(f[i+1:], func(r rune) bool { return r < '0' || r > '9' }) >= 0 {
		return f, ""
	}
	return f[:i], f[i:]
}

// keep copies the scripts into the suite directory with their SHA-256
// (SHA256SUMS, as sha256sum writes it) and points the plan's cells at the
// copies.
func (c scriptCopies) keep(dir suite.Dir, plan *suite.Plan) error {
	if len(c) == 0 {
		return nil
	}
	if err := os.MkdirAll(dir.Scripts(), 0o755); err != nil {
		return fmt.Errorf("creating %s: %w", dir.Scripts(), err)
	}
	var sums strings.Builder
	for _, src := range slices.Sorted(maps.Keys(c)) {
		text, err := os.ReadFile(src)
		if err != nil {
			return fmt.Errorf("copying script %s: %w", src, err)
		}
		if err := fsx.WriteFile(c[src], text, 0o644); err != nil {
			return fmt.Errorf("copying script %s: %w", src, err)
		}
		sum := sha256.Sum256(text)
		fmt.Fprintf(&sums, "%s  %s\n", hex.EncodeToString(sum[:]), filepath.Base(c[src]))
	}
	if err := fsx.WriteFile(filepath.Join(dir.Scripts(), "SHA256SUMS"), []byte(sums.String()), 0o644); err != nil {
		return err
	}
	for i := range plan.Suite.Workloads {
		o := plan.Suite.Workloads[i].Options
		if f, ok := o["file"].(string); ok {
			if path, weight := splitScriptWeight(f); c[path] != "" {
				o["file"] = c[path] + weight
			}
		}
	}
	for i := range plan.Cells {
		f, ok := plan.Cells[i].Options["file"]
		if !ok {
			continue
		}
		path, weight := splitScriptWeight(f)
		if dst, ok := c[path]; ok {
			plan.Cells[i].Options["file"] = dst + weight
		}
	}
	return nil
}
