package report

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/encbench/encbench/internal/locale"

	"github.com/encbench/encbench/internal/result"
	"github.com/encbench/encbench/internal/sandbox"
	"github.com/encbench/encbench/internal/schematest"
	"github.com/encbench/encbench/internal/stats"
	"github.com/encbench/encbench/internal/suite"
)

// fake builds a result with the given TPS.
func fake(variant string, threads, rep int, tps float64) *result.Result {
	srv := 0.0001 * (1 + float64(len(variant))/10)
	return &result.Result{
		Schema: result.Schema, StartedAt: fmt.Sprintf("2026-01-01T00:%02d:%02dZ", rep, threads),
		Engine:   result.Engine{Kind: "mysql", Version: "MariaDB 10.11"},
		Variant:  result.Variant{Name: variant, TLS: "disable", Verified: result.Verification{OK: true}},
		Workload: result.Workload{Name: "oltp_read_only", Schema: "4 tables sbtest1..sbtest4"},
		Suite:    &result.SuiteRef{Name: "t", Target: "mariadb"},
		Threads:  threads, Repetition: rep, TPS: tps, DurationS: 10,
		LatencyMs:   result.Latency{Avg: 1000 * float64(threads) / tps, P95: 2000 * float64(threads) / tps},
		CPU:         result.CPU{ClientSPerTxn: 0.00005, ServerSPerTxn: &srv, ClientUtilPct: 10},
		Environment: result.Environment{Host: "h", Cores: 2, CPUModel: "cpu"},
	}
}

func fakeSet() []*result.Result {
	var rs []*result.Result
	for rep := 1; rep <= 3; rep++ {
		j := float64(rep)
		rs = append(rs,
			fake("plain", 1, rep, 1000+j), fake("tls", 1, rep, 800+2*j), // 20% loss, tight
			fake("plain", 8, rep, 4000+40*j), fake("tls", 8, rep, 3960+80*j)) // noise only
	}
	return rs
}

func TestAggregateAndConclusions(t *testing.T) {
	d := &Data{Results: fakeSet()}
	cells := Aggregate(d.Results, "plain", &Order{})
	if len(cells) != 4 {
		t.Fatalf("cells: %d", len(cells))
	}
	var one, eight *Row
	for _, c := range cells {
		if c.Variant == "tls" && c.Threads == 1 {
			one = c
		}
		if c.Variant == "tls" && c.Threads == 8 {
			eight = c
		}
	}
	if one.Loss == nil || !one.Loss.Significant || one.Loss.Pct < 19 || one.Loss.Pct > 21 {
		t.Fatalf("1-thread loss: %+v", one.Loss)
	}
	if eight.Loss == nil || eight.Loss.Significant {
		t.Fatalf("8-thread loss should not be significant: %+v", eight.Loss)
	}
	m := Build(d, english(t))
	text := strings.Join(m.Conclusions, "\n")
	for _, want := range []string{"lower by 19.8%", "1 of 2 cells", "oltp_read_only at 1 thread", "Not significant: oltp_read_only at 8 threads", "falls from", "All 12 results proved"} {
		if !strings.Contains(text, want) {
			t.Errorf("conclusions lack %q:\n%s", want, text)
		}
	}
	var md bytes.Buffer
	if err := Markdown(&md, m); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(md.String(), "**19.8") || !strings.Contains(md.String(), "n.s. (") {
		t.Errorf("markdown glance table:\n%s", md.String())
	}
	var html bytes.Buffer
	if err := HTML(&html, m, false); err != nil {
		t.Fatal(err)
	}
	if n := regexp.MustCompile(`data-charts-expected="(\d+)"`).FindStringSubmatch(html.String()); n == nil || n[1] != "7" {
		t.Errorf("charts expected: %v", n)
	}
	if regexp.MustCompile(`(?i)<script[^>]+src=`).MatchString(html.String()) {
		t.Error("report.html loads a script from outside the page")
	}
}

func TestCompareFlagsRegression(t *testing.T) {
	a := &Data{Results: fakeSet()}
	var slower []*result.Result
	for _, r := range fakeSet() {
		c := *r
		if c.Threads == 1 && c.Variant.Name == "plain" {
			c.TPS *= 0.7
		}
		slower = append(slower, &c)
	}
	changes, missing := Compare(a, &Data{Results: slower})
	if len(missing) != 0 || len(changes) != 4 {
		t.Fatalf("changes %d missing %v", len(changes), missing)
	}
	regressions := 0
	for _, c := range changes {
		if c.Regression {
			regressions++
			if c.Threads != 1 || c.Variant != "plain" || c.TPS > -29 || c.TPS < -31 {
				t.Errorf("wrong regression: %+v", c.Key)
			}
		}
	}
	if regressions != 1 {
		t.Fatalf("regressions: %d", regressions)
	}
	var out bytes.Buffer
	if err := PrintChanges(&out, changes, missing); err != nil || !strings.Contains(out.String(), "REGRESSION") {
		t.Fatalf("%v\n%s", err, out.String())
	}
}

func TestWriteFromSuiteDirectory(t *testing.T) {
	dir := t.TempDir()
	cells := suite.Dir(dir).Cells()
	if err := os.MkdirAll(cells, 0o755); err != nil {
		t.Fatal(err)
	}
	for i, r := range fakeSet() {
		if err := result.WriteFile(filepath.Join(cells, fmt.Sprintf("c%d.json", i)), r); err != nil {
			t.Fatal(err)
		}
	}
	partial := fake("tls", 1, 4, 1)
	partial.Partial = true
	if err := result.WriteFile(filepath.Join(cells, "x.partial.json"), partial); err != nil {
		t.Fatal(err)
	}
	rec := suite.Record{Plan: &suite.Plan{Baseline: "plain", Suite: suite.Suite{Name: "t", Variants: []string{"plain", "tls"},
		Workloads: []suite.Workload{{Name: "oltp_read_only"}}, Targets: []suite.Target{{Name: "mariadb", Engine: "mariadb"}}}},
		Command: "encbench suite run t --out " + dir}
	data := []byte(fmt.Sprintf(`{"suite":{"name":"t","variants":["plain","tls"],"workloads":[{"name":"oltp_read_only"}],"targets":[{"name":"mariadb","engine":"mariadb"}]},"baseline":"plain","command":%q}`, rec.Command))
	if err := os.WriteFile(suite.Dir(dir).PlanFile(), data, 0o644); err != nil {
		t.Fatal(err)
	}
	paths, err := Write(dir, Options{})
	if err != nil || len(paths) != 3 {
		t.Fatalf("%v %v", paths, err)
	}
	schematest.File(t, schematest.Compile(t, "analysis.schema.json"), filepath.Join(dir, AnalysisFile))
	if _, err := Write(dir, Options{WhatIf: "server_cpus=8,threads=1,16"}); err != nil {
		t.Fatal(err)
	}
	schematest.File(t, schematest.Compile(t, "analysis.schema.json"), filepath.Join(dir, AnalysisFile))
	if md, _ := os.ReadFile(filepath.Join(dir, "report.md")); !strings.Contains(string(md), "## What if") || !strings.Contains(string(md), "server_cpus=8,threads=1,16") {
		t.Errorf("report.md with --what-if lacks its section:\n%s", md)
	}
	md, _ := os.ReadFile(filepath.Join(dir, "report.md"))
	for _, want := range []string{"suite t", "encbench suite run t", "1 interrupted or failed", "### oltp_read_only"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("report.md lacks %q", want)
		}
	}
	if _, err := Write(t.TempDir(), Options{}); err == nil {
		t.Error("an empty directory gave a report")
	}
}

// A loss whose interval excludes 0 but which the A/A run's interval could
// explain is not called significant, and the A/A run is reported as the
// noise floor.
func TestConclusionsRespectTheAAFloor(t *testing.T) {
	mk := func(variant string, l *stats.Loss) *Row {
		return &Row{Key: Key{Target: "postgres", Variant: variant, Workload: "oltp_read_only", Threads: 8}, Loss: l,
			Results: []*result.Result{{}}}
	}
	rows := []*Row{
		mk("plain", nil),
		mk("aa", &stats.Loss{Pct: 0.5, Low: -4.0, High: 5.0}),
		mk("tls", &stats.Loss{Pct: 3.0, Low: 1.0, High: 5.0, Significant: true}),
	}
	rows[0].Baseline = true
	order := Order{Targets: []string{"postgres"}, Workloads: []string{"oltp_read_only"}, Variants: []string{"plain", "aa", "tls"}}
	out := strings.Join(Conclusions(english(t), rows, "plain", order, nil), "\n")
	if !strings.Contains(out, "A/A (plain against itself") || !strings.Contains(out, "5.0%") {
		t.Errorf("no A/A noise floor in:\n%s", out)
	}
	if strings.Contains(out, "where the loss is significant") {
		t.Errorf("a loss within the A/A floor was called significant:\n%s", out)
	}
	rows[2].Loss = &stats.Loss{Pct: 12, Low: 9, High: 15, Significant: true}
	out = strings.Join(Conclusions(english(t), rows, "plain", order, nil), "\n")
	if !strings.Contains(out, "lower by 12.0% in the 1 of 1 cells where the loss is significant") {
		t.Errorf("a loss beyond the floor:\n%s", out)
	}
}

func TestEqualOfferedLoadIsComparedByLatencyAndCPU(t *testing.T) {
	rs := fakeSet()
	for rep := 1; rep <= 3; rep++ {
		for _, v := range []string{"plain", "tls"} {
			r := fake(v, 8, rep, 2000+float64(rep))
			r.RateLimit = 2000
			r.Workload.Label = "oltp_read_only-load50"
			r.LatencyMs.P95 = 1 + float64(rep)/100
			if v == "tls" {
				r.LatencyMs.P95 += 0.5
			}
			rs = append(rs, r)
		}
	}
	m := Build(&Data{Results: rs}, english(t))
	if len(m.Offered.Rows) != 2 {
		t.Fatalf("equal-load table has %d rows, want plain and tls", len(m.Offered.Rows))
	}
	for _, row := range m.Glance.Rows {
		for _, c := range row {
			if strings.Contains(c.S, "load50") {
				t.Fatalf("a fixed-rate cell is in the throughput glance: %v", row)
			}
		}
	}
	text := strings.Join(m.Conclusions, "\n")
	if !strings.Contains(text, "tls at equal offered load (oltp_read_only-load50 at 8 threads, 2,000 transactions/s") || !strings.Contains(text, "p95 latency changes by +0.50") {
		t.Fatalf("conclusions do not compare at equal load:\n%s", text)
	}
	if strings.Contains(text, "in the 2 of 3 cells") {
		t.Fatalf("fixed-rate cells were counted as throughput comparisons:\n%s", text)
	}
}

// Extra blocks run the baseline and only the variants still too wide, so a
// variant pairs with the baseline over the blocks both ran.
func TestPairingOverTheBlocksBothRan(t *testing.T) {
	var rs []*result.Result
	for rep := 1; rep <= 5; rep++ {
		rs = append(rs, fake("plain", 8, rep, 1000+10*float64(rep)))
		if rep <= 3 {
			rs = append(rs, fake("tls", 8, rep, 900+9*float64(rep)))
		}
	}
	for _, c := range Aggregate(rs, "plain", &Order{}) {
		if c.Variant != "tls" {
			continue
		}
		if c.Loss == nil || !c.Loss.Paired || c.Loss.Pct < 9.99 || c.Loss.Pct > 10.01 {
			t.Fatalf("tls against plain over blocks 1-3: %+v, want a paired 10%% loss", c.Loss)
		}
		return
	}
	t.Fatal("no tls cell")
}

func english(t *testing.T) *locale.Lang {
	t.Helper()
	l, err := locale.Get("en")
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// TestMessageIDsExist: every message id the report's code and template
// name is in the English catalogue (a missing id would print as itself).
func TestMessageIDsExist(t *testing.T) {
	en, err := locale.Catalogue("en")
	if err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob("*.go")
	files = append(files, "report.html.tmpl")
	ids := regexp.MustCompile(`(?:\bl\.T\(|\bT |\bid = |\bID = |:= )"([a-z_]+(?:\.[a-z_0-9]+)+)"`)
	n := 0
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range ids.FindAllStringSubmatch(string(src), -1) {
			n++
			if _, ok := en.Messages[m[1]]; !ok && !strings.HasPrefix(m[1], "leak.") {
				t.Errorf("%s names message %q, which the English catalogue lacks", f, m[1])
			}
		}
	}
	if n < 100 {
		t.Errorf("found only %d message ids in the sources", n)
	}
}

// TestSkipReasonIsTheSandboxes: the catalogue translates the PostgreSQL
// sandbox's TDE refusal by matching its English text, so the two must
// stay equal.
func TestSkipReasonIsTheSandboxes(t *testing.T) {
	err := sandbox.Check(sandbox.Options{Engine: "postgres", Variant: "tde"})
	if err == nil {
		t.Fatal("a PostgreSQL sandbox accepted tde")
	}
	reason, _, _ := strings.Cut(err.Error(), ":")
	en, ja := english(t), mustLang(t, "ja")
	if got := skippedText(en, "postgres tde: "+reason); got != "postgres tde: "+reason {
		t.Errorf("English skip: %q", got)
	}
	if got := skippedText(ja, "postgres tde: "+reason); strings.Contains(got, "community server") {
		t.Errorf("Japanese skip left in English: %q (the sandbox says %q)", got, reason)
	}
}

func mustLang(t *testing.T, code string) *locale.Lang {
	t.Helper()
	l, err := locale.Get(code)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// TestPDFWithoutChromium: one line naming the package, before any work.
func TestPDFWithoutChromium(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	_, err := Write(t.TempDir(), Options{PDF: true})
	if err == nil || !strings.Contains(err.Error(), "apt-get install chromium") || strings.Contains(err.Error(), "\n") {
		t.Fatalf("--pdf without Chromium: %v", err)
	}
	if _, err := Write(t.TempDir(), Options{Lang: "xx"}); err == nil || !strings.Contains(err.Error(), "en, id, ja, zh") {
		t.Fatalf("unknown language: %v", err)
	}
}

// Retries and given-up transactions per committed one sit beside the loss
// where a run retried (TPC-C at SERIALIZABLE), and not elsewhere.
func TestResultTableShowsRetriesWhereThereWere(t *testing.T) {
	l, err := locale.Get("en")
	if err != nil {
		t.Fatal(err)
	}
	row := func(retries float64) *Row {
		return &Row{Key: Key{Target: "postgres", Variant: "plain", Threads: 8}, Verified: true, Baseline: true,
			RetriesPerTxn: stats.Summary{Mean: retries, N: 1}}
	}
	with := resultTable(l, []*Row{row(0.25)}, 3)
	if !slices.Contains(with.Head, l.T("col.retries")) || !slices.Contains(with.Head, l.T("col.aborts")) {
		t.Fatalf("a run with retries: columns %q", with.Head)
	}
	if i := slices.Index(with.Head, l.T("col.retries")); with.Rows[0][i].S != "0.250" {
		t.Errorf("retries per committed transaction shown as %q", with.Rows[0][i].S)
	}
	if without := resultTable(l, []*Row{row(0)}, 3); slices.Contains(without.Head, l.T("col.retries")) {
		t.Fatalf("a run without retries shows the column: %q", without.Head)
	}
}
