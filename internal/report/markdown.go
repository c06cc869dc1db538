package report

import (
	"fmt"
	"io"
	"strings"
)

// Markdown writes the report as GitHub-flavoured Markdown (no charts: they
// are in report.html).
func Markdown(w io.Writer, m *Model) error {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n\n%s. Generated %s.\n\n", m.Title, m.Subtitle, m.Generated)
	if m.Description != "" {
		fmt.Fprintf(&b, "%s\n\n", m.Description)
	}
	b.WriteString("## Conclusions\n\n")
	for _, c := range m.Conclusions {
		fmt.Fprintf(&b, "- %s\n", c)
	}
	for _, n := range m.Notes {
		fmt.Fprintf(&b, "- Note: %s\n", n)
	}
	for _, s := range m.Skipped {
		fmt.Fprintf(&b, "- Skipped: %s\n", s)
	}
	if len(m.Glance.Rows) > 0 {
		fmt.Fprintf(&b, "\nLoss at a glance: %s.\n\n", m.GlanceNote)
		mdTable(&b, m.Glance)
	}
	if len(m.Offered.Rows) > 0 {
		b.WriteString("\nAt equal offered load (every variant at the same fixed rate, a share of the baseline's saturation throughput; open loop, latency from each event's intended start):\n\n")
		mdTable(&b, m.Offered)
	}
	if len(m.Reference.Rows) > 0 {
		fmt.Fprintf(&b, "\nPublished figures beside encbench's (%s):\n\n", m.ReferenceSource)
		mdTable(&b, m.Reference)
	}
	b.WriteString("\n## Test environment\n\n")
	mdTable(&b, m.Machine)
	b.WriteString("\nServers, as each reported itself, and what the server saw of each variant:\n\n")
	mdTable(&b, m.Servers)
	if len(m.Colenc.Rows) > 0 {
		b.WriteString("\n## Column encryption\n\nColumns encrypted in the client in each variant (schemes in the table below), where each workload's predicate ran, and the check made before each run:\n\n")
		mdTable(&b, m.Colenc)
		b.WriteString("\nWhat each scheme lets the database server learn:\n\n")
		mdTable(&b, m.Leakage)
		if len(m.Storage.Rows) > 0 {
			b.WriteString("\n" + storageNote + "\n\n")
			mdTable(&b, m.Storage)
		}
	}
	b.WriteString("\n## Method\n\n")
	for _, s := range m.Method {
		fmt.Fprintf(&b, "- %s\n", s)
	}
	if len(m.Commands) > 0 {
		b.WriteString("\n## Tool and commands\n\nThe suite, and the report from its directory:\n\n```\n")
		b.WriteString(strings.Join(m.Commands, "\n"))
		b.WriteString("\n```\n\nOne cell of each setup by hand (the suite runs every cell this way):\n\n```\n")
		for _, r := range m.Reproduce {
			b.WriteString(r.S + "\n")
		}
		b.WriteString("```\n")
	}
	if len(m.Schema) > 0 {
		b.WriteString("\n## Schema\n\n")
		for _, s := range m.Schema {
			fmt.Fprintf(&b, "- %s\n", s)
		}
	}
	b.WriteString("\n## Results\n\nCharts of TPS, latency and CPU by threads are in report.html.\n")
	for _, s := range m.Sections {
		fmt.Fprintf(&b, "\n### %s\n\n", s.Workload)
		mdTable(&b, s.Table)
		for _, pt := range s.Parts {
			fmt.Fprintf(&b, "\n%s:\n\n", pt.Title)
			mdTable(&b, pt.Table)
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
