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
// figures, encbench's intervals, each published number judged on its
// stand-in (MariaDB's: R1's two bounds and R3's three losses at 8
// terminals; R2's and R4's stand-ins did not run), and the setting
// sentence, in English and Chinese.
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
		"| tpcc | colenc20 | 8 | **8.79** |", "**at most 20**", "**5.36**", "R3 measured PolarDB with the EncJDBC driver", "38 published numbers:",
		"The stand-in mongodb did not run", "The stand-in postgres did not run"} {
		if !strings.Contains(report, want) {
			t.Errorf("report.md lacks %q", want)
		}
	}
	judged := 0
	for _, c := range []string{"| **agrees** |", "| **encbench lower", "| **encbench higher", "| **within the bound** |", "| **above the bound**"} {
		judged += strings.Count(report, c)
	}
	if judged != 5 {
		t.Errorf("%d published numbers judged in the seeds report, want R1's 2 and R3's 3 at 8 terminals:\n%s", judged, report)
	}
	data, err := os.ReadFile(filepath.Join(out, "published.json"))
	if err != nil || !strings.Contains(string(data), `"comparison": "not_measured"`) || !strings.Contains(string(data), `"engine": "mariadb"`) {
		t.Errorf("published.json: %v\n%s", err, data)
	}
	if code, so, se := encbench(t.Context(), "suite", "run", "seeds", "--out", out, "--resume", "--lang", "zh"); code != 0 || !strings.Contains(so, "all ") {
		t.Fatalf("resume of a finished seeds run: exit %d\n%s\n%s", code, so, se)
	}
	zh, err := os.ReadFile(filepath.Join(out, "report.zh.md"))
	if err != nil || !strings.Contains(string(zh), "由 encbench 复现的四份公开报告") || !strings.Contains(string(zh), "个公开数字") {
		t.Errorf("report.zh.md: %v\n%s", err, zh)
	}
}
