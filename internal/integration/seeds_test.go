package integration

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSeedsRunsTheFourReportsUnderOneBudget runs encbench suite run seeds
// cut down to MariaDB, one thread count and two one-second blocks: each
// seed suite runs in its own directory with its share of the budget, and
// the one report has a section per published report with the published
// figures, encbench's intervals and verdicts, and the setting sentence, in
// English and Chinese.
func TestSeedsRunsTheFourReportsUnderOneBudget(t *testing.T) {
	servers(t)
	out := filepath.Join(fx.dir, "seeds")
	args := []string{"suite", "run", "seeds", "--out", out, "--engines", "mariadb", "--threads", "8", "--time", "1", "--warmup-time", "0",
		"--repetitions", "2", "--precision", "0", "--scale", "smoke", "--budget", "1h"}
	code, so, se := encbench(t.Context(), args...)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, so, se)
	}
	for _, name := range []string{"tls", "tde", "colenc-tpcc", "colenc-sysbench"} {
		if !strings.Contains(so, "== seed suite "+name) {
			t.Errorf("no budget line for %s:\n%s", name, so)
		}
		if _, err := os.Stat(filepath.Join(out, name, "report.html")); err != nil {
			t.Errorf("seed suite %s wrote no report: %v", name, err)
		}
	}
	md, err := os.ReadFile(filepath.Join(out, "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	report := string(md)
	for _, want := range []string{"## R1: suite tde", "## R2: suite tls", "## R3: suite colenc-tpcc", "## R4: suite colenc-sysbench",
		"| tpcc | colenc20 | 8 | **8.79** |", "**at most 20**", "**5.36**", "R3 measured PolarDB with the EncJDBC driver", "Verdicts: "} {
		if !strings.Contains(report, want) {
			t.Errorf("report.md lacks %q", want)
		}
	}
	if strings.Count(report, "| agrees |")+strings.Count(report, "| **lower** |")+strings.Count(report, "| **higher** |") < 10 {
		t.Errorf("few verdicts in the seeds report:\n%s", report)
	}
	if code, so, se := encbench(t.Context(), "suite", "run", "seeds", "--out", out, "--resume", "--lang", "zh"); code != 0 || !strings.Contains(so, "all ") {
		t.Fatalf("resume of a finished seeds run: exit %d\n%s\n%s", code, so, se)
	}
	zh, err := os.ReadFile(filepath.Join(out, "report.zh.md"))
	if err != nil || !strings.Contains(string(zh), "由 encbench 复现的四份公开报告") || !strings.Contains(string(zh), "判定") {
		t.Errorf("report.zh.md: %v\n%s", err, zh)
	}
}
