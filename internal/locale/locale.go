// Package locale holds the report's message catalogues (messages/*.json,
// one file per language, edited by translators) and formats their
// templates with golang.org/x/text/message, so numbers follow the
// language's conventions (thousands separators, decimal comma).
package locale

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"

	"golang.org/x/text/feature/plural"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
	"golang.org/x/text/message/catalog"
)

//go:embed messages/*.json
var files embed.FS

// Default is the language of a report when none is asked for.
const Default = "en"

// File is one language's catalogue as translators edit it.
type File struct {
	// Lang is the BCP 47 tag; Name the language in itself.
	Lang string `json:"lang"`
	Name string `json:"name"`
	// Fonts lead the report's font stack (CJK needs its own faces).
	Fonts string `json:"fonts,omitempty"`
	// Messages maps a message id to its template: a string, or for
	// counted phrases {"one": ..., "other": ...} chosen by the first
	// argument (CLDR plural rules of the language).
	Messages map[string]Message `json:"messages"`
	// Sources pins translations of security statements to the English
	// they translate: id -> SHA-256 of the English text (first 12 hex
	// digits). A changed English text makes the translation stale.
	Sources map[string]string `json:"sources,omitempty"`
}

// Message is one template, plain or by plural category.
type Message struct {
	Text  string
	Forms map[string]string
}

// UnmarshalJSON reads a string or an object of plural forms.
func (m *Message) UnmarshalJSON(b []byte) error {
	if len(b) > 0 && b[0] == '"' {
		return json.Unmarshal(b, &m.Text)
	}
	return json.Unmarshal(b, &m.Forms)
}

// Lang formats one language's messages.
type Lang struct {
	Code  string
	Name  string
	Fonts string
	p     *message.Printer
}

type catalogue struct {
	builder *catalog.Builder
	files   map[string]*File
	err     error
}

// catalogues parses the embedded files once; they never change after.
var catalogues = sync.OnceValue(func() *catalogue {
	c := &catalogue{builder: catalog.NewBuilder(catalog.Fallback(language.English)), files: map[string]*File{}}
	c.err = c.load()
	return c
})

func (c *catalogue) load() error {
	entries, err := files.ReadDir("messages")
	if err != nil {
		return fmt.Errorf("reading the message catalogues: %w", err)
	}
	for _, e := range entries {
		data, err := files.ReadFile("messages/" + e.Name())
		if err != nil {
			return fmt.Errorf("reading %s: %w", e.Name(), err)
		}
		var f File
		if err := json.Unmarshal(data, &f); err != nil {
			return fmt.Errorf("parsing the message catalogue %s: %w", e.Name(), err)
		}
		code := strings.TrimSuffix(e.Name(), ".json")
		if f.Lang != code {
			return fmt.Errorf("message catalogue %s says lang %q", e.Name(), f.Lang)
		}
		c.files[code] = &f
	}
	en := c.files[Default]
	if en == nil {
		return fmt.Errorf("no %s message catalogue", Default)
	}
	for code, f := range c.files {
		tag, err := language.Parse(code)
		if err != nil {
			return fmt.Errorf("message catalogue %s: %w", code, err)
		}
		for id, m := range en.Messages {
			if own, ok := f.Messages[id]; ok {
				m = own
			}
			if err := c.set(tag, id, m); err != nil {
				return fmt.Errorf("message %s in %s: %w", id, code, err)
			}
		}
	}
	return nil
}

func (c *catalogue) set(tag language.Tag, id string, m Message) error {
	if m.Forms == nil {
		return c.builder.SetString(tag, id, m.Text)
	}
	other, ok := m.Forms["other"]
	if !ok {
		return fmt.Errorf("plural forms without \"other\"")
	}
	var cases []any
	for _, form := range []string{"zero", "one", "two", "few", "many"} {
		if s, ok := m.Forms[form]; ok {
			cases = append(cases, form, s)
		}
	}
	cases = append(cases, plural.Other, other)
	return c.builder.Set(tag, id, plural.Selectf(1, "", cases...))
}

// Codes lists the languages with a catalogue, sorted.
func Codes() []string {
	return slices.Sorted(maps.Keys(catalogues().files))
}

// Get returns a language by its code (en, zh, ja, id).
func Get(code string) (*Lang, error) {
	c := catalogues()
	if c.err != nil {
		return nil, c.err
	}
	f, ok := c.files[code]
	if !ok {
		return nil, fmt.Errorf("unknown report language %q: use one of %s", code, strings.Join(Codes(), ", "))
	}
	tag := language.MustParse(code)
	return &Lang{Code: code, Name: f.Name, Fonts: f.Fonts, p: message.NewPrinter(tag, message.Catalog(c.builder))}, nil
}

// Catalogue returns a language's file as parsed, for checks.
func Catalogue(code string) (*File, error) {
	c := catalogues()
	if c.err != nil {
		return nil, c.err
	}
	f, ok := c.files[code]
	if !ok {
		return nil, fmt.Errorf("no catalogue %q", code)
	}
	return f, nil
}

// T formats message id with args in the language.
func (l *Lang) T(id string, args ...any) string { return l.p.Sprintf(id, args...) }

// F formats numbers with a fmt verb in the language's conventions, e.g.
// F("%.1f", 1234.5) is "1,234.5" in English and "1.234,5" in Indonesian.
func (l *Lang) F(format string, args ...any) string { return l.p.Sprintf(format, args...) }

// LeakageEnglish maps the leakage statements' message ids
// (leak.<scheme>.primitive, .reveals, .enables) to their English text.
func LeakageEnglish() map[string]string {
	out := map[string]string{}
	en := catalogues().files[Default]
	if en == nil {
		return out
	}
	for id, m := range en.Messages {
		if isLeakID(id) {
			out[id] = strings.ReplaceAll(m.Text, "%%", "%")
		}
	}
	return out
}

// isLeakID says whether id is one part of a scheme's leakage statement.
func isLeakID(id string) bool {
	parts := strings.Split(id, ".")
	if len(parts) != 3 || parts[0] != "leak" {
		return false
	}
	switch parts[2] {
	case "primitive", "reveals", "enables":
		return true
	}
	return false
}

// LeakID names one part of a scheme's leakage statement.
func LeakID(scheme, part string) string { return "leak." + scheme + "." + part }

// Fingerprint is how Sources pins a translation to its English text.
func Fingerprint(english string) string {
	sum := sha256.Sum256([]byte(english))
	return hex.EncodeToString(sum[:6])
}

// Threads is "1 thread" or "n threads", for the command line's English.
func Threads(n int) string {
	if n == 1 {
		return "1 thread"
	}
	return fmt.Sprintf("%d threads", n)
}
