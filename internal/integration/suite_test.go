package integration

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/encbench/encbench/internal/report"
	"github.com/encbench/encbench/internal/suite"
)

// buildBinary compiles encbench once for tests that need a real process
// (signals).
func buildBinary(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "encbench")
	out, err := exec.Command("go", "build", "-o", bin, "../../cmd/encbench").CombinedOutput()
	if err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

func countFiles(dir, suffix string, exclude string) int {
	entries, _ := os.ReadDir(dir)
	n := 0
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), suffix) && (exclude == "" || !strings.HasSuffix(e.Name(), exclude)) {
			n++
		}
	}
	return n
}

// keptInWholeBlocks counts the finished cells whose block (every target's
// variants of one workload, thread count and repetition: size cells) is
// finished whole.
func keptInWholeBlocks(t *testing.T, dir string, size int) int {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	blocks := map[string]int{}
	for _, e := range entries {
		name := e.Name()
		if !strings.HasSuffix(name, ".json") || strings.HasSuffix(name, ".partial.json") {
			continue
		}
		_, block, _ := strings.Cut(name, "__")
		blocks[block]++
	}
	kept := 0
	for _, n := range blocks {
		if n == size {
			kept += n
		}
	}
	return kept
}

// interruptAfterFirstCell runs encbench with args, sends it SIGINT once a
// cell has finished in cells, and checks that it exits 1 saying how to
// resume.
func interruptAfterFirstCell(t *testing.T, bin, cells string, args ...string) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(3 * time.Minute)
	for countFiles(cells, ".json", ".partial.json") < 1 {
		if time.Now().After(deadline) {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
			t.Fatalf("no cell finished in time\nstdout:\n%s\nstderr:\n%s", stdout.String(), stderr.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	err := cmd.Wait()
	if cmd.ProcessState.ExitCode() != 1 || !strings.Contains(stderr.String(), "--resume") {
		t.Fatalf("interrupted suite: want exit 1 and how to resume, got %v\nstdout:\n%s\nstderr:\n%s", err, stdout.String(), stderr.String())
	}
}

// TestQuickSuiteInterruptResumeAndReport runs the built-in quick suite
// shortened, interrupts it with SIGINT after its first cell, checks that no
// server is left running, resumes it to the end, and opens the report in
// headless Chromium with the network blocked.
func TestQuickSuiteInterruptResumeAndReport(t *testing.T) {
	servers(t)
	bin := buildBinary(t)
	out := filepath.Join(fx.dir, "quick")
	args := []string{"suite", "run", "quick", "--out", out, "--time", "1", "--warmup-time", "0", "--repetitions", "2", "--threads", "1", "--precision", "0"}
	cells := suite.Dir(out).Cells()
	interruptAfterFirstCell(t, bin, cells, args...)
	if left := processesMentioning(out); len(left) > 0 {
		t.Fatalf("processes left after Ctrl-C:\n%s", strings.Join(left, "\n"))
	}
	finished := countFiles(cells, ".json", ".partial.json")
	const total = 7 * 4 * 2 // setups (postgres has no tde; aa on both) x workloads x repetitions
	if finished < 1 || finished >= total {
		t.Fatalf("after the interrupt %d of %d cells are finished", finished, total)
	}
	// The quick suite interleaves its blocks: a block is kept only whole.
	kept := keptInWholeBlocks(t, cells, 7)

	code, so, se := encbench(t.Context(), "suite", "run", "quick", "--out", out, "--resume")
	if code != 0 {
		t.Fatalf("resume: exit %d\n%s\n%s", code, so, se)
	}
	if !strings.Contains(so, "resuming suite quick") || !strings.Contains(so, "report:") {
		t.Errorf("resume output:\n%s", so)
	}
	if n := countFiles(cells, ".json", ".partial.json"); n != total {
		t.Fatalf("after resume %d of %d cells are finished", n, total)
	}
	if n := countFiles(cells, ".partial.json", ""); n != 0 {
		t.Errorf("%d partial results left after the resumed suite finished", n)
	}
	if left := processesMentioning(out); len(left) > 0 {
		t.Fatalf("processes left after the suite:\n%s", strings.Join(left, "\n"))
	}
	// The first run's whole blocks were kept, not run again.
	if strings.Count(so, " thr r") != total-kept {
		t.Errorf("resume ran %d cells, want %d", strings.Count(so, " thr r"), total-kept)
	}
	md, err := os.ReadFile(filepath.Join(out, "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"## Conclusions", "## Test environment", "## Tool and commands", "## Schema", "### oltp_read_write", "TPS loss %", "Skipped: postgres tde", "servers: own runs the A/A check on a second sandbox instance"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("report.md lacks %q", want)
		}
	}
	checkReportInChromium(t, filepath.Join(out, "report.html"), "report-quick")
	checkReportLanguages(t, out)
}

var externalRef = regexp.MustCompile(`(?i)<(script|link|img|iframe)[^>]+(src|href)\s*=\s*["']?(https?:)?//`)

// chromiumPath finds headless Chromium, which make test installs.
func chromiumPath(t *testing.T) string {
	t.Helper()
	chromium, err := exec.LookPath("chromium")
	if err != nil {
		if os.Getenv("ENCBENCH_REQUIRE_SERVERS") == "1" {
			t.Fatal("chromium is not installed (apt-get install chromium)")
		}
		t.Skip("chromium is not installed")
	}
	return chromium
}

// artefactsDir is where screenshots are kept for people to look at.
func artefactsDir(t *testing.T) string {
	t.Helper()
	dir, _ := filepath.Abs(filepath.Join("..", "..", "test-artifacts"))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// checkReportInChromium opens a report with the network blocked, checks
// that every chart drew without a script error, keeps a screenshot as
// name.png and returns the page as Chromium built it.
func checkReportInChromium(t *testing.T, page, name string) []byte {
	t.Helper()
	html, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	if m := externalRef.Find(html); m != nil {
		t.Fatalf("%s loads something from the network: %s", page, m)
	}
	chromium := chromiumPath(t)
	base := report.ChromiumArgs(t.TempDir())
	dom, err := exec.Command(chromium, append(base, "--dump-dom", "file://"+page)...).Output()
	if err != nil {
		t.Fatalf("chromium --dump-dom: %v", err)
	}
	expected := regexp.MustCompile(`data-charts-expected="(\d+)"`).FindSubmatch(dom)
	drawn := regexp.MustCompile(`data-charts-drawn="(\d+)"`).FindSubmatch(dom)
	if expected == nil || drawn == nil || string(expected[1]) != string(drawn[1]) || string(drawn[1]) == "0" {
		t.Fatalf("%s charts: expected %q drawn %q", page, expected, drawn)
	}
	if m := regexp.MustCompile(`<pre id="js-errors">([^<]*)</pre>`).FindSubmatch(dom); m == nil || len(bytes.TrimSpace(m[1])) > 0 {
		t.Fatalf("JavaScript errors in %s: %q", page, m)
	}
	artefacts := artefactsDir(t)
	shot := filepath.Join(artefacts, name+".png")
	if out, err := exec.Command(chromium, append(base, "--window-size=1280,4000", "--screenshot="+shot, "file://"+page)...).CombinedOutput(); err != nil {
		t.Fatalf("chromium --screenshot: %v\n%s", err, out)
	}
	if st, err := os.Stat(shot); err != nil || st.Size() < 10000 {
		t.Fatalf("screenshot %s missing or empty: %v", shot, err)
	}
	_ = os.WriteFile(filepath.Join(artefacts, name+".html"), html, 0o644)
	t.Logf("%s: charts drawn %s; screenshot %s", page, drawn[1], shot)
	return dom
}
