package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
)

// Write builds the report of the results in dir and writes report.html
// and report.md there; it returns their paths.
func Write(dir string) ([]string, error) {
	d, err := Load(dir)
	if err != nil {
		return nil, err
	}
	m := Build(d)
	outDir := d.Dir
	var paths []string
	for _, out := range []struct {
		name   string
		render func(*bytes.Buffer) error
	}{
		{"report.html", func(b *bytes.Buffer) error { return HTML(b, m) }},
		{"report.md", func(b *bytes.Buffer) error { return Markdown(b, m) }},
		{AnalysisFile, func(b *bytes.Buffer) error {
			enc := json.NewEncoder(b)
			enc.SetIndent("", "  ")
			return enc.Encode(analysisOf(m))
		}},
	} {
		var buf bytes.Buffer
		if err := out.render(&buf); err != nil {
			return nil, err
		}
		path := filepath.Join(outDir, out.name)
		tmp := path + ".tmp"
		if err := os.WriteFile(tmp, buf.Bytes(), 0o644); err != nil {
			return nil, fmt.Errorf("writing %s: %w", path, err)
		}
		if err := os.Rename(tmp, path); err != nil {
			return nil, fmt.Errorf("writing %s: %w", path, err)
		}
		paths = append(paths, path)
	}
	return paths, nil
}
