package locale

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestCatalogueComplete: every message id of the English catalogue (and
// every leakage statement) exists in every language, and no language has
// ids English lacks.
func TestCatalogueComplete(t *testing.T) {
	en := messages(t, Default)
	for _, code := range Codes() {
		m := messages(t, code)
		for id := range en {
			if _, ok := m[id]; !ok {
				t.Errorf("%s: message %q is missing", code, id)
			}
		}
		for id := range m {
			if _, ok := en[id]; !ok {
				t.Errorf("%s: message %q is not in the English catalogue", code, id)
			}
		}
	}
	if len(Codes()) < 4 {
		t.Errorf("languages %v: want at least en, id, ja, zh", Codes())
	}
}

// TestTranslationsTakeTheSameArguments: a translation formats each
// argument with the verb English uses (a %d printed as %s would show
// %!s(int=3)), uses every argument, and has no stray % verb.
func TestTranslationsTakeTheSameArguments(t *testing.T) {
	en := messages(t, Default)
	for _, code := range Codes() {
		for id, m := range messages(t, code) {
			want, err := verbsOf(en[id].forms()[0])
			if err != nil {
				t.Errorf("en %s: %v", id, err)
				continue
			}
			for _, text := range m.forms() {
				got, err := verbsOf(text)
				if err != nil {
					t.Errorf("%s %s: %v", code, id, err)
					continue
				}
				if !maps.Equal(got, want) {
					t.Errorf("%s %s: arguments %v, English has %v", code, id, got, want)
				}
			}
		}
	}
}

// TestFormattingIsClean formats every message of every language with
// arguments of the English verbs' types: no %! error marks.
func TestFormattingIsClean(t *testing.T) {
	en := messages(t, Default)
	for _, code := range Codes() {
		l, err := Get(code)
		if err != nil {
			t.Fatal(err)
		}
		for id := range en {
			verbs, _ := verbsOf(en[id].forms()[0])
			args := make([]any, len(verbs))
			for i := range args {
				switch verbs[i+1] {
				case 'd':
					args[i] = 3
				case 'f':
					args[i] = 12.5
				default:
					args[i] = "x"
				}
			}
			if s := l.T(id, args...); strings.Contains(s, "%!") || s == id {
				t.Errorf("%s %s formats as %q", code, id, s)
			}
		}
	}
}

// TestNumbersFollowTheLanguage: Indonesian writes a decimal comma and
// groups thousands with dots; English the other way round.
func TestNumbersFollowTheLanguage(t *testing.T) {
	for code, want := range map[string]string{"en": "12,345.7", "id": "12.345,7", "ja": "12,345.7"} {
		l, err := Get(code)
		if err != nil {
			t.Fatal(err)
		}
		if got := l.F("%.1f", 12345.67); got != want {
			t.Errorf("%s: %q, want %q", code, got, want)
		}
	}
	en, _ := Get("en")
	if a, b := en.T("threads.n", 1), en.T("threads.n", 8); a != "1 thread" || b != "8 threads" {
		t.Errorf("English plurals: %q, %q", a, b)
	}
}

func TestUnknownLanguage(t *testing.T) {
	_, err := Get("fr")
	if err == nil || !strings.Contains(err.Error(), "en, id, ja, zh") {
		t.Fatalf("unknown language: %v", err)
	}
}

// TestLeakageTranslationsAreCurrent: a translated leakage statement names
// the English text it translates; a changed English statement must be
// translated again before the reports say it in other languages.
func TestLeakageTranslationsAreCurrent(t *testing.T) {
	english := LeakageEnglish()
	for _, code := range Codes() {
		if code == Default {
			continue
		}
		f, err := Catalogue(code)
		if err != nil {
			t.Fatal(err)
		}
		for id, text := range english {
			if got := f.Sources[id]; got != Fingerprint(text) {
				t.Errorf("%s %s translates English %q, the English is now %q: translate it again and update sources", code, id, got, Fingerprint(text))
			}
		}
	}
}

func messages(t *testing.T, code string) map[string]Message {
	t.Helper()
	f, err := Catalogue(code)
	if err != nil {
		t.Fatal(err)
	}
	if code != Default {
		return f.Messages
	}
	return f.Messages
}

func (m Message) forms() []string {
	if m.Forms == nil {
		return []string{m.Text}
	}
	var out []string
	for _, k := range slices.Sorted(maps.Keys(m.Forms)) {
		out = append(out, m.Forms[k])
	}
	return out
}

var verbRE = regexp.MustCompile(`%(%|[-+# 0]*(\[\d+\])?\d*(\.\d+)?(\[\d+\])?([a-zA-Z]))`)

// verbsOf maps each argument (1-based) to the verb that formats it.
func verbsOf(s string) (map[int]byte, error) {
	out := map[int]byte{}
	next := 1
	for _, m := range verbRE.FindAllStringSubmatch(s, -1) {
		if m[1] == "%" {
			continue
		}
		idx := m[2]
		if idx == "" {
			idx = m[4]
		}
		if idx != "" {
			fmt.Sscanf(idx, "[%d]", &next)
		}
		verb := m[5][0]
		if !strings.ContainsRune("sdfv", rune(verb)) {
			return nil, fmt.Errorf("verb %%%c in %q", verb, s)
		}
		if prev, ok := out[next]; ok && prev != verb {
			return nil, fmt.Errorf("argument %d formatted as %%%c and %%%c", next, prev, verb)
		}
		out[next] = verb
		next++
	}
	if strings.Count(s, "%")%2 == 1 && len(out) == 0 {
		return nil, fmt.Errorf("a lone %% in %q", s)
	}
	return out, nil
}

func TestThreadsCountsInEnglish(t *testing.T) {
	if got := Threads(1); got != "1 thread" {
		t.Errorf("Threads(1) = %q", got)
	}
	if got := Threads(8); got != "8 threads" {
		t.Errorf("Threads(8) = %q", got)
	}
}
