package integration

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/encbench/encbench/internal/result"
	"github.com/encbench/encbench/internal/suite"
)

// TestSuiteWithoutDesignKeysRunsPrecisely runs a suite file that names no
// turn, precision or budget: its blocks run in turns whose length was
// chosen from the warm-up and is recorded in every result, the precision
// rule and a budget apply, and the report's method says so.
func TestSuiteWithoutDesignKeysRunsPrecisely(t *testing.T) {
	s := servers(t)[1]
	dir := t.TempDir()
	file := filepath.Join(dir, "s.yaml")
	text := "name: plainfile\ntargets:\n  - name: mine\n    dsn: '" + s.info.DSN + "'\nvariants: [plain, aa]\n" +
		"workloads:\n  - name: oltp_point_select\nthreads: [2]\ntime: 1\nwarmup: 0\nmax_repetitions: 4\ncleanup: true\n" +
		"data: {tables: 1, table-size: 1000}\n"
	if err := os.WriteFile(file, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	code, so, se := encbench(t.Context(), "suite", "run", file, "--out", out)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, so, se)
	}
	raw, err := os.ReadFile(suite.Dir(out).PlanFile())
	if err != nil {
		t.Fatal(err)
	}
	var rec suite.Record
	if err := json.Unmarshal(raw, &rec); err != nil {
		t.Fatal(err)
	}
	if st := rec.Suite; st.Precision != suite.DefaultPrecision || st.Budget == "" || len(st.Defaults) != 3 {
		t.Errorf("plan.json: precision %v, budget %q, defaults %v", st.Precision, st.Budget, st.Defaults)
	}
	cells, _ := filepath.Glob(filepath.Join(suite.Dir(out).Cells(), "*.json"))
	if len(cells) < 6 {
		t.Fatalf("%d cells, want at least 3 blocks of 2", len(cells))
	}
	for _, path := range cells {
		r, err := result.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		il := r.Suite.Interleaved
		if il == nil || !il.TurnAuto || il.TurnMs < 50 || il.TurnMs > 100 || il.WarmupTxnMs <= 0 || il.Rounds < 10 {
			t.Fatalf("%s: interleaving %+v, want an auto turn from 50 ms to a tenth of the cell, with its warm-up latency", filepath.Base(path), il)
		}
	}
	md, _ := os.ReadFile(filepath.Join(out, "report.md"))
	for _, want := range []string{"Turn lengths: the suite set none", "so encbench's defaults applied: precision 3 points", "Precision: the suite asked"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("report.md lacks %q", want)
		}
	}
}
