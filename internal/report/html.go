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

// HTML writes one self-contained page: styles, ECharts and data inline, no
// network fetch, block by block (Model.Blocks). print lays it out for A4
// (one column of charts as wide as the page, page breaks between
// sections) before Chromium prints it.
func HTML(w io.Writer, m *Model, print bool) error {
	tpl, err := template.New("report").Funcs(template.FuncMap{"T": m.L.T}).Parse(htmlTemplate)
	if err != nil {
		return fmt.Errorf("parsing the report template: %w", err)
	}
	charts := make([][]Chart, len(m.Sections))
	count := 0
	for i, s := range m.Sections {
		if charts[i], err = sectionCharts(m.L, i, s, m); err != nil {
			return err
		}
		count += len(charts[i])
	}
	return tpl.Execute(w, map[string]any{
		"M":          m,
		"Blocks":     m.Blocks(),
		"Charts":     charts,
		"ChartCount": count,
		"Print":      print,
		// The font stack comes from our own catalogue, not from input.
		"Fonts": template.CSS(m.L.Fonts),
		// ECharts is Apache-2.0 licensed, embedded unchanged.
		"ECharts": template.JS(echartsJS),
	})
}
