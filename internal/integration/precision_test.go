package integration

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/encbench/encbench/internal/report"
	"github.com/encbench/encbench/internal/result"
	"github.com/encbench/encbench/internal/schematest"
	"github.com/encbench/encbench/internal/suite"
)

// runSuiteFile writes a suite file (see suiteFile), runs it to the end
// and returns its results directory and plan.
func runSuiteFile(t *testing.T, name, text string, args ...string) (string, suite.Record) {
	t.Helper()
	dir, file := suiteFile(t, name, text)
	out := filepath.Join(dir, "out")
	code, so, se := encbench(t.Context(), append([]string{"suite", "run", file, "--out", out}, args...)...)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, so, se)
	}
	var rec suite.Record
	readJSON(t, suite.Dir(out).PlanFile(), &rec)
	return out, rec
}

// readJSON decodes a file the suite wrote into v.
func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err == nil {
		err = json.Unmarshal(data, v)
	}
	if err != nil {
		t.Fatal(err)
	}
}

// TestPrecisionQuietMachineAndEqualLoad runs a small suite whose precision
// target cannot be met: it must add blocks up to max_repetitions, freeze
// the idle sandbox while the other runs, record foreign CPU and steal per
// run, then run both variants at half the baseline's throughput.
func TestPrecisionQuietMachineAndEqualLoad(t *testing.T) {
	servers(t)
	out, rec := runSuiteFile(t, "precision", `name: precision
targets: [{engine: postgres}]
variants: [plain, aa]
workloads: [{name: oltp_point_select}]
threads: [2]
time: 1
warmup: 0
repetitions: 2
precision: 0.001
max_repetitions: 3
budget: 10m
turn: "off"
offered_load: [50]
data: {tables: 1, table-size: 1000}
`)
	// 2 blocks, 1 more for precision (max 3), then 2 load blocks: 2 variants each.
	if rec.Extra != 1 || len(rec.Cells) != 2*3+2*2 {
		t.Fatalf("plan has %d extra blocks and %d cells, want 1 and 10", rec.Extra, len(rec.Cells))
	}
	var plainTPS []float64
	rates := map[float64]int{}
	resultSchema := schematest.Compile(t, "result.schema.json")
	for _, c := range rec.Cells {
		path := suite.Dir(out).Cell(c.ID)
		schematest.File(t, resultSchema, path)
		r, err := result.ReadFile(path)
		if err != nil {
			t.Fatalf("cell %s: %v", c.ID, err)
		}
		if r.CPU.ForeignUtilPct == nil || r.CPU.StealPct == nil {
			t.Fatalf("cell %s records no foreign CPU or steal", c.ID)
		}
		if c.LoadPct == 0 && c.Variant == "plain" {
			plainTPS = append(plainTPS, r.TPS)
		}
		if c.LoadPct > 0 {
			rates[r.RateLimit]++
		}
	}
	mean := 0.0
	for _, v := range plainTPS {
		mean += v / float64(len(plainTPS))
	}
	if len(rates) != 1 {
		t.Fatalf("load cells ran at %v, want one rate for every variant", rates)
	}
	for rate := range rates {
		if rate < 0.49*mean || rate > 0.51*mean {
			t.Fatalf("load cells ran at %.0f tps, want half of plain's %.0f", rate, mean)
		}
	}
	// While one server ran, the other was frozen: the log of every cell after
	// the first says what the quiet machine did.
	logs, _ := filepath.Glob(filepath.Join(out, "logs", "*__r3.log"))
	if len(logs) == 0 {
		t.Fatal("no log of the extra block")
	}
	for _, l := range logs {
		b, _ := os.ReadFile(l)
		if !strings.Contains(string(b), "quiet: postgres-") {
			t.Errorf("%s does not show the previous server settling:\n%s", l, b)
		}
	}
	schematest.File(t, schematest.Compile(t, "analysis.schema.json"), filepath.Join(out, report.AnalysisFile))
	var a report.Analysis
	readJSON(t, filepath.Join(out, report.AnalysisFile), &a)
	missed := 0
	for _, c := range a.Rows {
		if c.ReachedTarget != nil && !*c.ReachedTarget {
			missed++
		}
	}
	if missed == 0 || a.Precision != 0.001 {
		t.Fatalf("analysis.json: precision %v, %d cells marked as missing the target", a.Precision, missed)
	}
	// The machine's own noise was checked before the first block, on
	// every CPU, per second (cells not interleaved): 10 s, 5 of each kind.
	if n := a.MachineNoise; n == nil || len(n.CPUs) == 0 || n.WindowMs != 1000 || n.CPUs[0].Windows != 5 {
		t.Fatalf("analysis.json: machine noise %+v, want per-second windows on each CPU", n)
	}
	md, _ := os.ReadFile(filepath.Join(out, "report.md"))
	for _, want := range []string{"At equal offered load", "oltp_point_select-load50", "* marks a half-width above", "Quiet machine:", "Machine noise:", "us/txn added", "deadlock_timeout=100ms",
		// the suite's PostgreSQL servers leave maintenance to Quiesce
		"autovacuum=off", "--autovacuum=false"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("report.md lacks %q", want)
		}
	}
}
