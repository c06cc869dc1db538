package integration

import (
	"html"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"

	"github.com/encbench/encbench/internal/locale"
	"github.com/encbench/encbench/internal/report"
)

// checkReportLanguages writes the suite's report in every language with
// its PDF, opens each in headless Chromium (charts drawn, no script
// error, screenshot kept), checks that no English fixed text is left in
// the other languages' pages (charts included: they draw as SVG), and
// turns each PDF's first page into a PNG with pdftoppm.
func checkReportLanguages(t *testing.T, dir string) {
	t.Helper()
	if _, err := exec.LookPath("pdftoppm"); err != nil {
		t.Fatal("pdftoppm is not installed (apt-get install poppler-utils)")
	}
	english := englishPhrases(t)
	artefacts := artefactsDir(t)
	for _, code := range locale.Codes() {
		mustRun(t, "report", dir, "--lang", code, "--pdf")
		page, _, pdf := report.Files(dir, code)
		dom := checkReportInChromium(t, page, "report-quick-"+code)
		if !strings.Contains(string(dom), `<html lang="`+code+`"`) {
			t.Errorf("%s: the page does not declare lang=%s", page, code)
		}
		if code != locale.Default {
			text := visibleText(dom)
			kept := keptInTranslation(t, code)
			for _, p := range english {
				if strings.Contains(text, p) && !strings.Contains(kept, p) {
					t.Errorf("%s report still says, in English: %q", code, p)
				}
			}
		}
		first := filepath.Join(artefacts, "report-quick-"+code+"-pdf-page1")
		if out, err := exec.Command("pdftoppm", "-png", "-r", "80", "-f", "1", "-l", "1", "-singlefile", pdf, first).CombinedOutput(); err != nil {
			t.Fatalf("pdftoppm %s: %v\n%s", pdf, err, out)
		}
		if st, err := os.Stat(first + ".png"); err != nil || st.Size() < 5000 {
			t.Fatalf("first page of %s not rendered: %v", pdf, err)
		}
		pages, err := exec.Command("pdftotext", "-f", "1", "-l", "1", pdf, "-").Output()
		if err != nil {
			t.Fatalf("pdftotext %s: %v", pdf, err)
		}
		l, _ := locale.Get(code)
		// The summary heads the first page, in the report's language and
		// in fonts that carry its script.
		if want := l.T("h.overview"); !strings.Contains(string(pages), want) {
			t.Errorf("page 1 of %s lacks the summary heading %q:\n%s", pdf, want, pages)
		}
		if !strings.Contains(string(pages), "1 / ") {
			t.Errorf("page 1 of %s has no page number:\n%s", pdf, pages)
		}
	}
}

var (
	hidden  = regexp.MustCompile(`(?is)<(script|style|pre)[^>]*>.*?</(script|style|pre)>`)
	tags    = regexp.MustCompile(`(?s)<[^>]+>`)
	verbs   = regexp.MustCompile(`%(\[\d+\])?[+]?(\.\d+)?(\[\d+\])?[sdfv]|%%`)
	wordsRE = regexp.MustCompile(`[A-Za-z]{3,}`)
)

// visibleText is what a reader sees: no scripts, styles or command blocks
// (commands are not prose), one line per text node (so that two table
// cells never read as one phrase), entities decoded.
func visibleText(dom []byte) string {
	s := hidden.ReplaceAllString(string(dom), " ")
	var lines []string
	for _, node := range strings.Split(tags.ReplaceAllString(s, "\n"), "\n") {
		if f := strings.Fields(html.UnescapeString(node)); len(f) > 0 {
			lines = append(lines, strings.Join(f, " "))
		}
	}
	return strings.Join(lines, "\n")
}

// keptInTranslation is a language's own catalogue text: a phrase its
// translator kept as in English ("encbench CPU", Indonesian "data / buffer
// pool") is a choice, not a leftover.
func keptInTranslation(t *testing.T, code string) string {
	t.Helper()
	f, err := locale.Catalogue(code)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, m := range f.Messages {
		b.WriteString(m.Text + "\n")
		for _, form := range m.Forms {
			b.WriteString(form + "\n")
		}
	}
	return b.String()
}

// englishPhrases are the English catalogue's fixed phrases: its templates
// cut at their parameters, kept where a piece has two words or more
// (single words such as "thread" or "server" are loanwords in Indonesian,
// and technical names like TPS or CPU are the same in every language).
func englishPhrases(t *testing.T) []string {
	t.Helper()
	en, err := locale.Catalogue(locale.Default)
	if err != nil {
		t.Fatal(err)
	}
	var texts []string
	for _, m := range en.Messages {
		if m.Forms != nil {
			for _, f := range m.Forms {
				texts = append(texts, f)
			}
			continue
		}
		texts = append(texts, m.Text)
	}
	for _, s := range locale.LeakageEnglish() {
		texts = append(texts, s)
	}
	var out []string
	for _, s := range texts {
		for _, piece := range verbs.Split(s, -1) {
			piece = strings.TrimFunc(piece, func(r rune) bool { return !unicode.IsLetter(r) })
			if len(wordsRE.FindAllString(piece, -1)) >= 2 && strings.Contains(piece, " ") {
				out = append(out, piece)
			}
		}
	}
	if len(out) < 100 {
		t.Fatalf("only %d English phrases from the catalogue", len(out))
	}
	return out
}
