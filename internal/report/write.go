package report

import (
	"bytes"
	"encoding/json"
	"path/filepath"

	"github.com/encbench/encbench/internal/errs"
	"github.com/encbench/encbench/internal/fsx"
	"github.com/encbench/encbench/internal/locale"
)

// Options choose the report's language and whether to print a PDF.
type Options struct {
	// Lang is a catalogue code (locale.Codes); "" is English.
	Lang string
	PDF  bool
	// WhatIf is --what-if's setting ("" none): see ParseWhatIf.
	WhatIf string
}

// Files names a report's files in dir: report.html, report.md and
// report.pdf in English, report.<lang>.* in other languages, so reports
// in several languages sit side by side.
func Files(dir, lang string) (html, md, pdf string) {
	base := "report"
	if lang != "" && lang != locale.Default {
		base += "." + lang
	}
	return filepath.Join(dir, base+".html"), filepath.Join(dir, base+".md"), filepath.Join(dir, base+".pdf")
}

// Write builds the report of the results in dir and writes its HTML,
// Markdown, analysis.json and, with o.PDF, its PDF there; it returns
// their paths.
func Write(dir string, o Options) ([]string, error) {
	if o.Lang == "" {
		o.Lang = locale.Default
	}
	l, err := locale.Get(o.Lang)
	if err != nil {
		return nil, errs.Usage("%w", err)
	}
	var pdfPrinter string
	if o.PDF {
		// Before the work: a missing browser is known at once.
		if pdfPrinter, err = chromium(); err != nil {
			return nil, err
		}
	}
	var w *WhatIf
	if o.WhatIf != "" {
		if w, err = ParseWhatIf(o.WhatIf); err != nil {
			return nil, err
		}
	}
	d, err := Load(dir)
	if err != nil {
		return nil, err
	}
	d.WhatIf = w
	m := Build(d, l)
	htmlPath, mdPath, pdfPath := Files(d.Dir, o.Lang)
	var paths []string
	for _, out := range []struct {
		path   string
		render func(*bytes.Buffer) error
	}{
		{htmlPath, func(b *bytes.Buffer) error { return HTML(b, m, false) }},
		{mdPath, func(b *bytes.Buffer) error { return Markdown(b, m) }},
		{filepath.Join(d.Dir, AnalysisFile), func(b *bytes.Buffer) error {
			enc := json.NewEncoder(b)
			enc.SetIndent("", "  ")
			return enc.Encode(analysisOf(m))
		}},
	} {
		var buf bytes.Buffer
		if err := out.render(&buf); err != nil {
			return nil, err
		}
		if err := fsx.WriteFile(out.path, buf.Bytes(), 0o644); err != nil {
			return nil, err
		}
		paths = append(paths, out.path)
	}
	if o.PDF {
		if err := writePDF(pdfPrinter, m, pdfPath); err != nil {
			return nil, err
		}
		paths = append(paths, pdfPath)
	}
	return paths, nil
}
