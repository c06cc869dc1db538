package report

import (
	"fmt"
	"io"
	"strings"
)

// Markdown writes the report as GitHub-flavoured Markdown (no charts: they
// are in the HTML report).
func Markdown(w io.Writer, m *Model) error {
	l := m.L
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n\n%s\n\n", m.Title, l.T("report.sub", m.Subtitle, m.Generated))
	o := m.Overview
	fmt.Fprintf(&b, "## %s\n\n**%s**\n\n", l.T("h.overview"), o.Question)
	for _, a := range o.Answers {
		fmt.Fprintf(&b, "- %s\n", a)
	}
	if o.Disturbed != "" {
		fmt.Fprintf(&b, "- %s\n", o.Disturbed)
	}
	if o.Floor != "" {
		fmt.Fprintf(&b, "- %s\n", o.Floor)
	}
	if len(m.Glance.Rows) > 0 {
		fmt.Fprintf(&b, "\n%s\n\n", l.T("glance.intro", m.GlanceNote))
		mdTable(&b, m.Glance)
	}
	if len(m.Missed.Rows) > 0 {
		fmt.Fprintf(&b, "\n%s\n\n", l.T("missed.intro", m.Precision))
		mdTable(&b, m.Missed)
	}
	fmt.Fprintf(&b, "\n%s  \n%s\n\n", o.Machine, o.Dates)
	if len(m.Reference.Rows) > 0 {
		fmt.Fprintf(&b, "%s\n\n", l.T("overview.reference", m.ReferenceSource))
		mdTable(&b, m.Reference)
		b.WriteString("\n")
	}
	if len(m.PublishedTable.Rows) > 0 {
		fmt.Fprintf(&b, "%s\n\n", m.PublishedCount)
		mdTable(&b, m.PublishedTable)
		b.WriteString("\n")
	}
	if m.Description != "" {
		fmt.Fprintf(&b, "%s\n\n", m.Description)
	}
	fmt.Fprintf(&b, "## %s\n\n", l.T("h.conclusions"))
	for _, c := range m.Conclusions {
		fmt.Fprintf(&b, "- %s\n", c)
	}
	for _, n := range m.Notes {
		fmt.Fprintf(&b, "- %s\n", l.T("note", n))
	}
	for _, s := range m.Skipped {
		fmt.Fprintf(&b, "- %s\n", l.T("skipped", s))
	}
	if len(m.WhatIf.Rows) > 0 {
		fmt.Fprintf(&b, "\n## %s\n\n%s\n\n", l.T("h.whatif"), m.WhatIfIntro)
		mdTable(&b, m.WhatIf)
	}
	if len(m.Offered.Rows) > 0 {
		fmt.Fprintf(&b, "\n%s\n\n", l.T("offered.intro"))
		mdTable(&b, m.Offered)
	}
	fmt.Fprintf(&b, "\n## %s\n\n", l.T("h.environment"))
	mdTable(&b, m.Machine)
	fmt.Fprintf(&b, "\n%s\n\n", l.T("servers.intro"))
	mdTable(&b, m.Servers)
	if len(m.Colenc.Rows) > 0 {
		fmt.Fprintf(&b, "\n## %s\n\n%s\n\n", l.T("h.colenc"), l.T("colenc.intro"))
		mdTable(&b, m.Colenc)
		fmt.Fprintf(&b, "\n%s\n\n", l.T("leak.intro"))
		mdTable(&b, m.Leakage)
		if len(m.Storage.Rows) > 0 {
			fmt.Fprintf(&b, "\n%s\n\n", l.T("storage.intro"))
			mdTable(&b, m.Storage)
		}
	}
	fmt.Fprintf(&b, "\n## %s\n\n", l.T("h.method"))
	for _, s := range m.Method {
		fmt.Fprintf(&b, "- %s\n", s)
	}
	if len(m.Commands) > 0 {
		fmt.Fprintf(&b, "\n## %s\n\n%s\n\n```\n", l.T("h.commands"), l.T("commands.suite"))
		b.WriteString(strings.Join(m.Commands, "\n"))
		fmt.Fprintf(&b, "\n```\n\n%s\n\n```\n", l.T("commands.cell"))
		for _, r := range m.Reproduce {
			b.WriteString(r.S + "\n")
		}
		b.WriteString("```\n")
	}
	if len(m.Schema) > 0 {
		fmt.Fprintf(&b, "\n## %s\n\n", l.T("h.schema"))
		for _, s := range m.Schema {
			fmt.Fprintf(&b, "- %s\n", s)
		}
	}
	fmt.Fprintf(&b, "\n## %s\n\n%s\n", l.T("h.results"), l.T("results.md_charts"))
	for _, s := range m.Sections {
		fmt.Fprintf(&b, "\n### %s\n\n", s.Workload)
		mdTable(&b, s.Table)
		for _, rt := range s.Rates {
			fmt.Fprintf(&b, "\n%s:\n\n", rt.Title)
			mdTable(&b, rt.Table)
		}
		for _, pt := range s.Parts {
			fmt.Fprintf(&b, "\n%s:\n\n", pt.Title)
			mdTable(&b, pt.Table)
		}
		if len(s.Costs.Rows) > 0 {
			fmt.Fprintf(&b, "\n%s\n\n", s.CostsIntro)
			mdTable(&b, s.Costs)
			fmt.Fprintf(&b, "\n%s\n\n", s.LimitRule)
			for _, x := range s.Limits {
				fmt.Fprintf(&b, "- %s\n", x)
			}
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func mdTable(b *strings.Builder, t Table) {
	b.WriteString("| " + strings.Join(t.Head, " | ") + " |\n|")
	for range t.Head {
		b.WriteString("---|")
	}
	b.WriteString("\n")
	for _, row := range t.Rows {
		b.WriteString("|")
		for _, c := range row {
			s := strings.ReplaceAll(c.S, "|", "\\|")
			if c.Strong {
				s = "**" + s + "**"
			}
			b.WriteString(" " + s + " |")
		}
		b.WriteString("\n")
	}
}
