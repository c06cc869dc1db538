package report

import (
	_ "embed"
	"fmt"
	"html/template"
	"io"
)

//go:embed assets/echarts.min.js
var echartsJS string

//go:embed report.html.tmpl
var htmlTemplate string

type htmlSection struct {
	Section
	Charts []Chart
}

// HTML writes one self-contained page: styles, ECharts and data inline, no
// network fetch.
func HTML(w io.Writer, m *Model) error {
	tpl, err := template.New("report").Parse(htmlTemplate)
	if err != nil {
		return fmt.Errorf("parsing the report template: %w", err)
	}
	var sections []htmlSection
	charts := 0
	for i, s := range m.Sections {
		cs, err := sectionCharts(i, s, m)
		if err != nil {
			return err
		}
		charts += len(cs)
		sections = append(sections, htmlSection{Section: s, Charts: cs})
	}
	return tpl.Execute(w, map[string]any{
		"M":           m,
		"Sections":    sections,
		"Charts":      charts,
		"StorageNote": storageNote,
		// ECharts is Apache-2.0 licensed, embedded unchanged.
		"ECharts": template.JS(echartsJS),
	})
}
