// Package layering holds the rule that dependencies between encbench's
// packages point down: a package low in the stack (the model of one run,
// the message catalogue, the workloads, the run's settings) never pulls in
// one above it (reports, merging, suites, the cipher code).
package layering

import (
	"os/exec"
	"strings"
	"testing"
)

const module = "github.com/encbench/encbench/internal/"

// rules: each package (and, ending in "/...", those under it) must not
// depend on these, directly or through another package.
var rules = []struct {
	pkg       string
	forbidden []string
	why       string
}{
	{"orchestrator", []string{"report", "merge", "suite", "suiterun"},
		"a single run's summary is printed by whoever prints it, and generators' results are merged by the suite"},
	{"locale", []string{"encryption/..."},
		"the message catalogue holds the leakage statements' English; it knows no cipher"},
	{"workload/...", []string{"result", "report", "orchestrator", "suiterun"},
		"a workload fills in its own proof types, which the result document carries"},
	{"spec", []string{"runner", "orchestrator", "report"},
		"a run's settings are read before anything runs"},
	{"result", []string{"report", "merge", "suite", "suiterun", "orchestrator"},
		"the result document is read by every tool above it"},
	{"engine/...", []string{"workload", "runner", "result", "report"},
		"the wire protocols know no workload"},
}

// deps lists every package pkg depends on, inside the module.
func deps(t *testing.T, pkg string) map[string]string {
	t.Helper()
	out, err := exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}} {{join .Imports \",\"}}", "./"+pkg).Output()
	if err != nil {
		t.Fatalf("go list -deps ./%s: %v", pkg, err)
	}
	got := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		path, imports, _ := strings.Cut(line, " ")
		if name, ok := strings.CutPrefix(path, module); ok {
			got[name] = imports
		}
	}
	return got
}

func matches(name, pattern string) bool {
	if base, ok := strings.CutSuffix(pattern, "/..."); ok {
		return name == base || strings.HasPrefix(name, base+"/")
	}
	return name == pattern
}

// TestDependenciesPointDown fails naming the forbidden package and the
// package that imports it.
func TestDependenciesPointDown(t *testing.T) {
	for _, r := range rules {
		all := deps(t, "../"+r.pkg)
		for name := range all {
			for _, f := range r.forbidden {
				if !matches(name, f) {
					continue
				}
				var by []string
				for from, imports := range all {
					if strings.Contains(","+imports+",", ","+module+name+",") {
						by = append(by, from)
					}
				}
				t.Errorf("%s depends on %s (imported by %s): %s", r.pkg, name, strings.Join(by, ", "), r.why)
			}
		}
	}
}
