package report

import (
	"fmt"
	"io"
	"strings"
)

// Markdown writes the report as GitHub-flavoured Markdown (no charts: they
// are in the HTML report), block by block (Model.Blocks).
func Markdown(w io.Writer, m *Model) error {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n\n%s\n", m.Title, m.L.T("report.sub", m.Subtitle, m.Generated))
	for _, x := range m.Blocks() {
		mdBlock(&b, x)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func mdBlock(b *strings.Builder, x Block) {
	switch x.Kind {
	case BlockH2:
		fmt.Fprintf(b, "\n## %s\n\n", x.Text)
	case BlockH3:
		fmt.Fprintf(b, "\n### %s\n\n", x.Text)
	case BlockPara, BlockMDNote:
		if x.Strong {
			fmt.Fprintf(b, "**%s**\n\n", x.Text)
		} else {
			fmt.Fprintf(b, "%s\n\n", x.Text)
		}
	case BlockList:
		for _, it := range x.Items {
			if it.Strong {
				fmt.Fprintf(b, "- **%s**\n", it.S)
			} else {
				fmt.Fprintf(b, "- %s\n", it.S)
			}
		}
		b.WriteString("\n")
	case BlockLines:
		lines := make([]string, len(x.Items))
		for i, it := range x.Items {
			lines[i] = it.S
		}
		fmt.Fprintf(b, "%s\n\n", strings.Join(lines, "  \n"))
	case BlockTable:
		mdTable(b, x.Table)
		b.WriteString("\n")
	case BlockPre:
		b.WriteString("```\n")
		for _, it := range x.Items {
			b.WriteString(it.S + "\n")
		}
		b.WriteString("```\n\n")
	}
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
