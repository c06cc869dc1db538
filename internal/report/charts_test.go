package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/encbench/encbench/internal/result"
)

// chartOptions renders a model's HTML and returns its chart scripts.
func chartOptions(t *testing.T, rs []*result.Result, lang string) string {
	t.Helper()
	m := Build(&Data{Results: rs}, mustLang(t, lang))
	var b bytes.Buffer
	if err := HTML(&b, m, false); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestThreadAxisTurnsLogarithmic: 1 to 64 threads spread on a log axis;
// 1 and 8 stay categories.
func TestThreadAxisTurnsLogarithmic(t *testing.T) {
	var wide []*result.Result
	for rep := 1; rep <= 3; rep++ {
		for _, th := range []int{1, 8, 64} {
			wide = append(wide, fake("plain", th, rep, float64(1000*th+rep)), fake("tls", th, rep, float64(900*th+rep)))
		}
	}
	if html := chartOptions(t, wide, "en"); !strings.Contains(html, `"type":"log"`) {
		t.Error("1 to 64 threads: no log axis")
	}
	if html := chartOptions(t, fakeSet(), "en"); strings.Contains(html, `"type":"log"`) {
		t.Error("1 and 8 threads: a log axis")
	}
}

// TestChartsShowUncertainty: TPS by threads carries whiskers (a custom
// series per line), the CPU chart has a two-entry legend (server and
// client, whatever the number of variants), and loss charts draw the A/A
// floor where an aa variant ran.
func TestChartsShowUncertainty(t *testing.T) {
	rs := fakeSet()
	for rep := 1; rep <= 3; rep++ {
		rs = append(rs, fake("aa", 1, rep, 1000+float64(rep%2)), fake("aa", 8, rep, 4000+float64(rep*30)))
	}
	html := chartOptions(t, rs, "en")
	if n := strings.Count(html, `"type":"custom"`); n < 3 {
		t.Errorf("%d whisker series, want one per target and variant of the TPS chart at least", n)
	}
	var cpu string
	for _, block := range strings.Split(html, "let option_") {
		if strings.Contains(block, "CPU per transaction, server and encbench") {
			cpu = block
		}
	}
	if n := strings.Count(cpu, `"type":"bar"`); n != 2 {
		t.Errorf("CPU chart: %d series (legend entries), want server and client", n)
	}
	if !strings.Contains(html, "A/A noise floor") {
		t.Error("loss chart without the A/A band")
	}
	ja := chartOptions(t, rs, "ja")
	if !strings.Contains(ja, "A/A ノイズフロア") || !strings.Contains(ja, "スレッド数ごとの TPS") {
		t.Error("Japanese charts not in Japanese")
	}
}

// TestIndonesianNumbers: the Indonesian report writes decimal commas in
// its tables and sentences.
func TestIndonesianNumbers(t *testing.T) {
	m := Build(&Data{Results: fakeSet()}, mustLang(t, "id"))
	text := strings.Join(m.Conclusions, "\n")
	if !strings.Contains(text, "19,8%") {
		t.Errorf("Indonesian conclusions without decimal commas:\n%s", text)
	}
}

func TestShortVersion(t *testing.T) {
	for in, want := range map[string]string{
		"PostgreSQL 15.20 (Debian 15.20-0+deb12u1)": "PostgreSQL 15.20",
		"MariaDB 10.11.19-MariaDB-0+deb12u1":        "MariaDB 10.11.19",
		"8.0.36":                                    "8.0.36",
	} {
		if got := shortVersion(in); got != want {
			t.Errorf("shortVersion(%q) = %q, want %q", in, got, want)
		}
	}
}
