// Package layering holds the rule that dependencies between encbench's
// packages point down. From the bottom:
//
//   - data and text: proof (what a run proves), result (the result
//     document), stats, locale (the message catalogue), serverconf;
//   - the cipher code: encryption/... (knows no server and no workload);
//   - the encryption layers: layer/... (their names, options and hooks,
//     reaching the server through the small interfaces of package layer:
//     no engine, sandbox, workload or run code);
//   - the wire protocols: engine/... (know no workload and no document);
//   - the workloads and a run's settings: workload/..., spec;
//   - running: runner, sandbox, orchestrator (one run);
//   - the suite's model: suite (its file, plan and rules: no engine,
//     sandbox or workload code; suiterun hands it a workload catalogue);
//   - reading results: report, merge (no engine, sandbox or workload);
//   - suiterun and cli at the top.
//
// A rule that Go's ban on import cycles already enforces (the forbidden
// package imports the ruled one) is not listed: TestRulesAreNotCycles
// keeps it so.
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
	{"orchestrator", []string{"report", "merge", "suite"},
		"a single run's summary is printed by whoever prints it, and generators' results are merged by the suite"},
	{"locale", []string{"encryption/..."},
		"the message catalogue holds the leakage statements' English; it knows no cipher"},
	{"workload/...", []string{"result", "report"},
		"a workload fills in its own proof types (package proof), which the result document carries"},
	{"spec", []string{"runner", "report"},
		"a run's settings are read before anything runs"},
	{"result", []string{"workload/...", "engine/..."},
		"the result document is data: reading it needs no workload or wire protocol"},
	{"engine/...", []string{"result", "report", "sandbox"},
		"the wire protocols know no document and no sandbox"},
	{"suite", []string{"sandbox", "engine/...", "workload/...", "spec", "orchestrator", "runner"},
		"a suite's file, plan and rules are data; suiterun runs them and answers their questions about workloads"},
	{"report", []string{"engine/...", "sandbox", "workload/...", "spec", "orchestrator", "runner"},
		"a report reads results; it runs nothing"},
	{"merge", []string{"engine/...", "sandbox", "workload/...", "spec", "orchestrator", "runner"},
		"merging adds up results; it runs nothing"},
	{"encryption/...", []string{"engine/...", "workload/...", "result", "report", "suite"},
		"the cipher code knows no server, workload or document"},
	{"layer/...", []string{"engine/...", "workload/...", "runner", "result"},
		"a layer reaches the server through package layer's Session and Env; naming a variant must pull in no server or run code"},
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

// TestRulesAreNotCycles: a rule whose forbidden packages reach every
// package it rules says nothing Go's ban on import cycles does not.
func TestRulesAreNotCycles(t *testing.T) {
	for _, r := range rules {
		ruled := packages(t, "../"+r.pkg)
		for _, f := range r.forbidden {
			reached := deps(t, "../"+f)
			all := true
			for _, p := range ruled {
				if _, ok := reached[p]; !ok {
					all = false
				}
			}
			if all {
				t.Errorf("%s must not depend on %s: %s already depends on all of %s, so Go refuses the cycle; drop the rule", r.pkg, f, f, r.pkg)
			}
		}
	}
}

// packages lists the module's packages a pattern names.
func packages(t *testing.T, pattern string) []string {
	t.Helper()
	out, err := exec.Command("go", "list", "./"+pattern).Output()
	if err != nil {
		t.Fatalf("go list ./%s: %v", pattern, err)
	}
	var names []string
	for _, line := range strings.Fields(string(out)) {
		if name, ok := strings.CutPrefix(line, module); ok {
			names = append(names, name)
		}
	}
	return names
}
