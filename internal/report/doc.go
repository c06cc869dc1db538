package report

// A report is one list of blocks, in the order every rendering shows it:
// Markdown and HTML (and the PDF printed from the HTML) walk the same
// list, so a section is added, moved or dropped in one place.

// BlockKind says what a block is.
type BlockKind string

const (
	BlockH2    BlockKind = "h2"
	BlockH3    BlockKind = "h3"
	BlockPara  BlockKind = "p"
	BlockList  BlockKind = "ul"
	BlockLines BlockKind = "lines" // lines of one paragraph, broken apart
	BlockTable BlockKind = "table"
	BlockPre   BlockKind = "pre"
	// BlockCharts are a results section's charts (HTML only); BlockMDNote
	// is said in Markdown only (where the charts are not).
	BlockCharts BlockKind = "charts"
	BlockMDNote BlockKind = "mdnote"
	// BlockOpen and BlockClose wrap blocks in an HTML section (the
	// overview's box).
	BlockOpen  BlockKind = "open"
	BlockClose BlockKind = "close"
)

// Block is one heading, paragraph, list, table or preformatted text.
type Block struct {
	Kind  BlockKind
	Text  string
	Items []Text
	Table Table
	// ID anchors a heading or section; Class styles it in HTML.
	ID, Class string
	Strong    bool
	// Section is the results section whose charts a BlockCharts shows.
	Section int
}

func h2(text string) Block { return Block{Kind: BlockH2, Text: text} }
func para(text string) Block {
	return Block{Kind: BlockPara, Text: text}
}
func table(t Table) Block { return Block{Kind: BlockTable, Table: t} }

func bullets(class string, items ...string) Block {
	b := Block{Kind: BlockList, Class: class}
	for _, s := range items {
		b.Items = append(b.Items, Text{S: s})
	}
	return b
}

// tableWith is a paragraph and its table, or nothing when the table is
// empty.
func tableWith(intro string, t Table) []Block {
	if len(t.Rows) == 0 {
		return nil
	}
	return []Block{para(intro), table(t)}
}

// Blocks is the report in order.
func (m *Model) Blocks() []Block {
	var out []Block
	for _, part := range [][]Block{m.overviewBlocks(), m.conclusionBlocks(), m.environmentBlocks(), m.methodBlocks(), m.resultBlocks()} {
		out = append(out, part...)
	}
	return out
}

func (m *Model) overviewBlocks() []Block {
	l, o := m.L, m.Overview
	answers := bullets("answers", o.Answers...)
	if o.Disturbed != "" {
		answers.Items = append(answers.Items, Text{S: o.Disturbed, Strong: true})
	}
	if o.Floor != "" {
		answers.Items = append(answers.Items, Text{S: o.Floor})
	}
	out := []Block{{Kind: BlockOpen, Class: "overview", ID: "overview"}, h2(l.T("h.overview")),
		{Kind: BlockPara, Text: o.Question, Class: "question", Strong: true}, answers}
	out = append(out, tableWith(l.T("glance.intro", m.GlanceNote), m.Glance)...)
	out = append(out, tableWith(l.T("missed.intro", m.Precision), m.Missed)...)
	out = append(out, Block{Kind: BlockLines, Class: "facts", Items: []Text{{S: o.Machine}, {S: o.Dates}}})
	out = append(out, tableWith(l.T("overview.reference", m.ReferenceSource), m.Reference)...)
	out = append(out, tableWith(m.PublishedCount, m.PublishedTable)...)
	if m.Description != "" {
		out = append(out, para(m.Description))
	}
	return append(out, Block{Kind: BlockClose})
}

func (m *Model) conclusionBlocks() []Block {
	l := m.L
	items := append([]string{}, m.Conclusions...)
	for _, n := range m.Notes {
		items = append(items, l.T("note", n))
	}
	for _, s := range m.Skipped {
		items = append(items, l.T("skipped", s))
	}
	out := []Block{h2(l.T("h.conclusions")), bullets("conclusions", items...)}
	if len(m.WhatIf.Rows) > 0 {
		out = append(out, h2(l.T("h.whatif")), para(m.WhatIfIntro), table(m.WhatIf))
	}
	return append(out, tableWith(l.T("offered.intro"), m.Offered)...)
}

func (m *Model) environmentBlocks() []Block {
	l := m.L
	out := []Block{h2(l.T("h.environment")), table(m.Machine), para(l.T("servers.intro")), table(m.Servers)}
	if len(m.Colenc.Rows) > 0 {
		out = append(out, h2(l.T("h.colenc")), para(l.T("colenc.intro")), table(m.Colenc), para(l.T("leak.intro")), table(m.Leakage))
		out = append(out, tableWith(l.T("storage.intro"), m.Storage)...)
	}
	if len(m.Layers.Rows) > 0 {
		out = append(out, h2(l.T("h.layers")), para(l.T("layers.intro")), table(m.Layers))
		out = append(out, tableWith(l.T("layers.leak.intro"), m.LayerLeakage)...)
	}
	return out
}

func (m *Model) methodBlocks() []Block {
	l := m.L
	out := []Block{h2(l.T("h.method")), bullets("", m.Method...)}
	if len(m.Commands) > 0 {
		cells := make([]Text, len(m.Reproduce))
		copy(cells, m.Reproduce)
		out = append(out, h2(l.T("h.commands")), para(l.T("commands.suite")), pre(m.Commands...),
			para(l.T("commands.cell")), Block{Kind: BlockPre, Items: cells})
	}
	if len(m.Schema) > 0 {
		out = append(out, h2(l.T("h.schema")), bullets("", m.Schema...))
	}
	return out
}

func pre(lines ...string) Block {
	b := Block{Kind: BlockPre}
	for _, s := range lines {
		b.Items = append(b.Items, Text{S: s})
	}
	return b
}

func (m *Model) resultBlocks() []Block {
	l := m.L
	out := []Block{h2(l.T("h.results")), {Kind: BlockMDNote, Text: l.T("results.md_charts")}}
	for i, s := range m.Sections {
		out = append(out, Block{Kind: BlockH3, Text: s.Workload, ID: s.Workload}, Block{Kind: BlockCharts, Section: i}, table(s.Table))
		for _, rt := range s.Rates {
			out = append(out, para(rt.Title+":"), table(rt.Table))
		}
		for _, pt := range s.Parts {
			out = append(out, para(pt.Title+":"), table(pt.Table))
		}
		if len(s.Costs.Rows) > 0 {
			out = append(out, para(s.CostsIntro), table(s.Costs), para(s.LimitRule), bullets("", s.Limits...))
		}
	}
	return out
}
