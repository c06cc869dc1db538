package report

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/encbench/encbench/internal/locale"
	"github.com/encbench/encbench/internal/quiet"
	"github.com/encbench/encbench/internal/result"
	"github.com/encbench/encbench/internal/stats"
	"github.com/encbench/encbench/internal/suite"
	"github.com/encbench/encbench/internal/variant"
	"github.com/encbench/encbench/internal/version"
)

// Text is a table cell; Strong marks a figure to read first.
type Text struct {
	S      string
	Strong bool
}

// Table has a header and rows of cells.
type Table struct {
	Head []string
	Rows [][]Text
}

// Section is one workload's results.
type Section struct {
	Workload string
	Cells    []*Row
	Table    Table
	// Parts are R2-style tables of workloads that time parts of events.
	Parts []PartsTable
	// Rates are the losses in the workload's own rates (TPC-C's tpmC).
	Rates []RateTable
	// Costs is what each cell takes per transaction and what a variant
	// adds; Limits says what limited each cell, one sentence per cell.
	Costs      Table
	CostsIntro string
	Limits     []string
	LimitRule  string
}

// Model is everything a report says, rendered as Markdown or HTML, in
// one language.
type Model struct {
	L           *locale.Lang
	Title       string
	Subtitle    string
	Description string
	Generated   string
	Conclusions []string
	// Glance is the loss of every variant in every cell, in one table;
	// GlanceNote says how to read it.
	Glance     Table
	GlanceNote string
	// Missed lists the variants whose loss stayed wider than the precision
	// target, with why.
	Missed Table
	// Precision is the suite's target half-width (0: none); BudgetSpent
	// says its budget ended the blocks first.
	Precision   float64
	BudgetSpent bool
	// MachineNoise is the suite's noise check, if it ran one.
	MachineNoise *suite.MachineNoise
	Notes        []string
	Machine      Table
	Servers      Table
	// Colenc lists encrypted columns per level; Leakage what schemes reveal.
	Colenc  Table
	Leakage Table
	Storage Table
	// Layers lists the plugin layers' proofs; LayerLeakage what they
	// leave visible.
	Layers, LayerLeakage Table
	// Offered compares the variants at equal offered load.
	Offered Table
	// Reference sets a published result beside the suite's own;
	// Published judges each of its numbers on the stand-in engine.
	Reference       Table
	Published       []Published
	PublishedTable  Table
	PublishedCount  string
	ReferenceSource string
	Method          []string
	Commands        []string
	Reproduce       []Text
	Schema          []string
	Skipped         []string
	Sections        []Section
	Partial         int
	Baseline        string
	Order           Order
	// Overview is the one-page answer at the top.
	Overview Overview
	// WhatIf projects each loss to the setting --what-if gave; nil
	// Projections: none asked for.
	WhatIf      Table
	WhatIfIntro string
	Projections []Projection
	// WakeProbes are the wake-up costs the projections charge, per target.
	WakeProbes []WakeProbe
	whatIfSpec string
}

// Build turns loaded data into the report's content in language l.
func Build(d *Data, l *locale.Lang) *Model {
	order := d.Order()
	baseline := d.Baseline()
	cells := Aggregate(d.Results, baseline, &order)
	m := &Model{L: l, Title: l.T("report.title"), Baseline: baseline, Order: order, Partial: d.Partial,
		Generated: l.T("report.generated", time.Now().UTC().Format("2006-01-02 15:04 UTC"), version.String())}
	if rec := d.Record; rec != nil && rec.Plan != nil {
		m.fromRecord(d, cells, order)
	}
	m.Subtitle = subtitle(l, d.Results)
	var partsSaid []string
	closed := closedLoop(cells, false)
	m.Glance = glance(l, closed, order, baseline, m.Precision)
	var disturbed string
	if rec := d.Record; rec != nil && rec.Plan != nil && m.Precision > 0 {
		_, most := rec.Suite.BlockBounds()
		dist := disturbanceOf(d.Results, rec.Suite.BudgetDuration())
		m.Missed = missedTable(l, closed, baseline, missedRule{precision: m.Precision, most: most, spent: rec.BudgetSpent, stallPct: rec.Suite.Disturb().StallPct, disturbed: dist})
		if len(m.Missed.Rows) > 0 && dist.named() {
			disturbed = dist.text(l)
		}
	}
	m.Offered = offeredTable(l, cells)
	if d.WhatIf != nil {
		m.Projections = project(l, closed, baseline, d.WhatIf)
		m.WakeProbes = sortedProbes(wakeProbes(closed, baseline))
		m.WhatIf, m.WhatIfIntro, m.whatIfSpec = whatIfTable(l, m.Projections, closed), whatIfIntro(l, d.WhatIf, m.WakeProbes), d.WhatIf.Spec
	}
	m.GlanceNote = l.T("glance.note")
	if m.Precision > 0 {
		m.GlanceNote = l.T("glance.note.precision", m.Precision)
	}
	m.Machine = machineTable(l, d.Results[0].Environment)
	m.Servers = serverTable(l, cells, order)
	m.Method = method(l, d, cells, m)
	if m.Colenc = colencTable(l, d.Results); len(m.Colenc.Rows) > 0 {
		m.Leakage = leakageTable(l, schemesUsed(d.Results))
		m.Storage = storageTable(l, d.Results)
	}
	if m.Layers = layersTable(l, d.Results); len(m.Layers.Rows) > 0 {
		m.LayerLeakage = layerLeakageTable(l, d.Results)
	}
	m.Schema = schemas(d.Results)
	for _, w := range order.Workloads {
		sec := workloadSection(l, w, cells, order, baseline, m.Precision)
		partsSaid = append(partsSaid, partsConclusions(l, sec.Parts, baseline, sec.Cells)...)
		m.Sections = append(m.Sections, sec)
	}
	m.Conclusions = Conclusions(l, closed, baseline, order, append(partsSaid, offeredConclusions(l, cells, baseline, order)...))
	m.Overview = overviewOf(l, d, closed, m)
	m.Overview.Disturbed = disturbed
	return m
}

// skipReasons are the reasons a suite skips a setup that the catalogue
// translates; their English text is the sandbox's own message.
var skipReasons = []string{"skip.reason.pg_tde"}

// fromRecord is what a suite's record says: its title, description and
// notes, what was skipped, the commands that reproduce it, its rules and
// the published report it is set beside.
func (m *Model) fromRecord(d *Data, cells []*Row, order Order) {
	l, rec := m.L, d.Record
	m.Title = l.T("report.title.suite", rec.Suite.Name)
	text := rec.Suite.Text(l.Code)
	m.Description = strings.Join(strings.Fields(text.Description), " ")
	m.Notes = text.Notes
	for _, sk := range rec.Skipped {
		m.Skipped = append(m.Skipped, skippedText(l, sk))
	}
	report := "encbench report " + d.Dir
	if l.Code != locale.Default {
		report += " --lang " + l.Code
	}
	m.Commands = []string{rec.Command, report}
	for _, su := range rec.Setups {
		if lines, ok := rec.Reproduce[su.ID]; ok {
			m.Reproduce = append(m.Reproduce, Text{S: "# " + su.ID + "\n" + lines})
		}
	}
	m.Precision, m.BudgetSpent, m.MachineNoise = rec.Suite.Precision, rec.BudgetSpent, rec.Noise
	if rec.Suite.Reference == nil {
		return
	}
	m.Reference = referenceTable(l, rec.Suite.Reference, cells, order)
	m.ReferenceSource = rec.Suite.Reference.Source
	var builtin *suite.Reference
	if st, _, err := suite.Load(rec.Suite.Name); err == nil {
		builtin = st.Reference
	}
	if ref := recordedReference(builtin, d); ref != nil && ref.StandIn != nil {
		m.Published, _, _ = judgePublished(l, ref, d, cells, order)
		m.PublishedTable, m.PublishedCount = publishedTable(l, m.Published), countText(l, countPublished(m.Published))
	}
}

// workloadSection is one workload's cells with their tables, costs and
// what limited each.
func workloadSection(l *locale.Lang, w string, cells []*Row, order Order, baseline string, precision float64) Section {
	s := Section{Workload: w}
	for _, c := range cells {
		if c.Workload == w {
			s.Cells = append(s.Cells, c)
		}
	}
	s.Table = resultTable(l, s.Cells, precision)
	s.Parts = partsTables(l, s.Cells, order, baseline, precision)
	s.Rates = rateTables(l, s.Cells, order, baseline)
	s.Costs, s.CostsIntro, s.LimitRule = costTable(l, s.Cells), l.T(costsIntro(s.Cells)), l.T("limit.rule", contentionBound, cpuBound, diskBound, networkBound, lockWaitBound)
	for _, c := range s.Cells {
		s.Limits = append(s.Limits, limitSentence(l, c))
	}
	return s
}

// skippedText translates a skipped setup's known reason ("target
// variant: reason"); an unknown reason stays as the suite wrote it.
func skippedText(l *locale.Lang, skipped string) string {
	setup, reason, ok := strings.Cut(skipped, ": ")
	en, err := locale.Get(locale.Default)
	if !ok || err != nil {
		return skipped
	}
	for _, id := range skipReasons {
		if en.T(id) == reason {
			return l.T("skipped.setup", setup, l.T(id))
		}
	}
	return l.T("skipped.setup", setup, reason)
}

func subtitle(l *locale.Lang, rs []*result.Result) string {
	first, last := rs[0].StartedAt, rs[len(rs)-1].StartedAt
	return l.T("report.subtitle", len(rs), first, last)
}

func machineTable(l *locale.Lang, e result.Environment) Table {
	t := Table{Head: []string{l.T("machine.item"), l.T("machine.value")}}
	add := func(k, v string) {
		if v != "" {
			t.Rows = append(t.Rows, []Text{{S: k}, {S: v}})
		}
	}
	add(l.T("machine.host"), e.Host)
	add(l.T("machine.cpu"), e.CPUModel)
	add(l.T("machine.cores"), l.F("%d", e.Cores))
	add(l.T("machine.memory"), l.T("unit.gib", float64(e.MemoryMB)/1024))
	add(l.T("machine.os"), e.OS)
	add(l.T("machine.kernel"), e.Kernel)
	add(l.T("machine.disk"), e.Disk)
	add(l.T("machine.go"), e.GoVersion)
	return t
}

// settingsThatMatter are shown per server; the rest stay in the JSON.
var settingsThatMatter = []string{
	"innodb_buffer_pool_size", "shared_buffers", "innodb_flush_log_at_trx_commit", "sync_binlog", "fsync",
	"synchronous_commit", "innodb_flush_method", "wal_sync_method", "have_ssl", "ssl", "tls_version",
	"ssl_min_protocol_version", "require_secure_transport", "innodb_encrypt_tables", "innodb_encrypt_log",
	"innodb_encrypt_temporary_tables", "innodb_doublewrite", "full_page_writes", "deadlock_timeout", "autovacuum",
}

func serverTable(l *locale.Lang, rows []*Row, order Order) Table {
	t := Table{Head: []string{l.T("col.target"), l.T("col.variant"), l.T("servers.server"), l.T("servers.settings"), l.T("servers.regime"),
		l.T("servers.client_cpus"), l.T("servers.server_cpus"), l.T("servers.tls_seen"), l.T("servers.at_rest")}}
	seen := map[string]bool{}
	for _, tg := range order.Targets {
		for _, v := range order.Variants {
			for _, c := range rows {
				if c.Target != tg || c.Variant != v || seen[tg+v] {
					continue
				}
				seen[tg+v] = true
				r := c.Results[0]
				var set []string
				for _, k := range settingsThatMatter {
					if val, ok := r.Engine.Settings[k]; ok {
						set = append(set, k+"="+humanSetting(k, val))
					}
				}
				ratio := l.T("servers.regime.unknown")
				if r.Regime != nil {
					ratio = l.T("servers.regime.value", float64(r.Regime.DataBytes)/1e6, float64(r.Regime.BufferPoolBytes)/1e6, r.Regime.Ratio)
				}
				t.Rows = append(t.Rows, []Text{{S: tg}, {S: v}, {S: r.Engine.Version}, {S: strings.Join(set, ", ")}, {S: ratio},
					{S: cpuList(l, r.CPU.ClientCPUs)}, {S: orAll(l, r.CPU.ServerCPUs)}, {S: tlsSeen(l, rows, tg, v)}, {S: atRest(l, r.Variant.Verified.TDE)}})
			}
		}
	}
	return t
}

func humanSetting(k, v string) string {
	if k == "innodb_buffer_pool_size" {
		if n, err := strconv.ParseInt(v, 10, 64); err == nil {
			return fmt.Sprintf("%dM", n>>20)
		}
	}
	return v
}

func cpuList(l *locale.Lang, c []int) string {
	if len(c) == 0 {
		return l.T("cpus.any")
	}
	var s []string
	for _, v := range c {
		s = append(s, strconv.Itoa(v))
	}
	return strings.Join(s, ",")
}

func orAll(l *locale.Lang, s string) string {
	if s == "" {
		return l.T("cpus.any")
	}
	return s
}

// tlsSeen sums the server's view over every run of a target and variant.
func tlsSeen(l *locale.Lang, rows []*Row, target, variant string) string {
	conns, tls := 0, 0
	versions, ciphers, keys := map[string]bool{}, map[string]bool{}, map[string]bool{}
	for _, c := range rows {
		if c.Target != target || c.Variant != variant {
			continue
		}
		for _, r := range c.Results {
			p := r.Variant.Verified.TLS
			conns += p.Connections
			tls += p.TLSConnections
			for k := range p.Versions {
				versions[k] = true
			}
			for k := range p.Ciphers {
				ciphers[k] = true
			}
			if p.ServerKey != "" {
				keys[p.ServerKey] = true
			}
		}
	}
	if tls == 0 {
		return l.T("tls.seen", tls, conns)
	}
	how := strings.Join(slices.Sorted(maps.Keys(versions)), ",") + " " + strings.Join(slices.Sorted(maps.Keys(ciphers)), ",")
	if len(keys) > 0 {
		how += " " + l.T("tls.seen.key", strings.Join(slices.Sorted(maps.Keys(keys)), ","))
	}
	return l.T("tls.seen.how", tls, conns, how)
}

func atRest(l *locale.Lang, p *result.TDEProof) string {
	if p == nil {
		return l.T("atrest.unchecked")
	}
	if p.Marker != nil {
		return l.T("atrest.marker", p.Encrypted, p.Tables, p.Marker.Occurrences)
	}
	return l.T("atrest.tables", p.Encrypted, p.Tables)
}

func method(l *locale.Lang, d *Data, rows []*Row, m *Model) []string {
	out := []string{designText(l, d.Results, rows)}
	if s := autoTurnText(l, d.Results); s != "" {
		out = append(out, s)
	}
	if d.Record != nil && d.Record.Plan != nil && len(d.Record.Suite.Defaults) > 0 {
		out = append(out, defaultsText(l, d.Record.Suite))
	}
	out = append(out, l.T("method.loss"), l.T("method.cost"))
	if !serverMeasured(rows) {
		out = append(out, l.T("method.cost.no_server"))
	}
	out = append(out, perTableTDE(l, rows)...)
	if d.Record != nil {
		for _, setup := range slices.Sorted(maps.Keys(d.Record.ReusedData)) {
			out = append(out, l.T("method.data.reused", setup, d.Record.ReusedData[setup]))
		}
	}
	if d.Record != nil && d.Record.Plan != nil {
		out = append(out, aaText(l, rows, d.Record)...)
		out = append(out, suiteRules(l, d, m.BudgetSpent)...)
	}
	if s := networkText(l, d.Results); s != "" {
		out = append(out, s)
	}
	out = append(out, l.T("method.latency"))
	if d.Partial > 0 {
		out = append(out, l.T("method.partial", d.Partial))
	}
	return out
}

// designText says how many blocks of how long ran, in turns or whole.
func designText(l *locale.Lang, results []*result.Result, rows []*Row) string {
	least, most := 0, 0
	for i, c := range rows {
		if n := len(c.Results); i == 0 || n < least {
			least = n
		}
		most = max(most, len(c.Results))
	}
	blocks := l.F("%d", most)
	if least != most {
		blocks = l.T("range.int", least, most)
	}
	r := results[0]
	if il := interleaving(results); il != nil {
		turns, rounds := turnRanges(l, results)
		return l.T("method.design.interleaved", blocks, turns, il.TurnMs*float64(il.Rounds)/1000, rounds, il.WarmupRounds)
	}
	return l.T("method.design", blocks, r.DurationS, r.WarmupS)
}

// aaText says how the A/A variant ran: on its own server or the baseline's.
func aaText(l *locale.Lang, rows []*Row, rec *suite.Record) []string {
	if !hasAA(rows) {
		return nil
	}
	key := "method.aa"
	if sharesServer(cellsOf(rows, variant.AAName), rows, rec.Baseline) {
		key = "method.aa.shared"
	}
	out := []string{l.T(key)}
	if key == "method.aa.shared" && otherInstance(rows, rec.Baseline) {
		out = append(out, l.T("method.aa.instances"))
	}
	// servers: own starts a second sandbox; a DSN target has no such option.
	if key == "method.aa.shared" && slices.ContainsFunc(rec.Setups, func(su suite.Setup) bool { return su.Variant == variant.AAName && su.Sandbox }) {
		out = append(out, l.T("method.aa.own_option"))
	}
	return out
}

// suiteRules states the quiet-machine, restart, order and precision
// rules the suite ran under.
func suiteRules(l *locale.Lang, d *Data, spent bool) []string {
	st := d.Record.Suite
	dist := st.Disturb()
	key := "method.quiet"
	if interleaving(d.Results) != nil {
		key = "method.quiet.interleaved"
	}
	out := []string{l.T(key, quiet.IdleCPU.String(), quiet.Window.String(), quiet.MaxWait.String(), dist.ForeignPct, dist.StealPct, dist.Reruns) + " " + l.T("method.quiet.stall", dist.StallPct) + " " + rerunText(l, d.Results, dist.StallPct)}
	if s := noiseText(l, d.Record.Noise); s != "" {
		out = append(out, s)
	}
	if st.Restart == "repetition" {
		out = append(out, l.T("method.restart"))
	}
	if s := orderText(l, st); s != "" {
		out = append(out, s)
	}
	if st.Precision > 0 {
		_, most := st.BlockBounds()
		s := []string{l.T("method.precision", st.Precision, st.Repetitions, most)}
		if st.Budget != "" {
			s = append(s, l.T("method.precision.budget", st.Budget))
			if phasedReadsAndWrites(st) {
				s = append(s, l.T("method.precision.phase_share"))
			}
		}
		s = append(s, l.T("method.precision.stars"))
		if spent {
			s = append(s, l.T("method.precision.spent"))
		}
		out = append(out, strings.Join(append(s, l.T("method.precision.caveat")), " "))
	}
	return out
}

func cellsOf(rows []*Row, variant string) []*Row {
	var out []*Row
	for _, c := range rows {
		if c.Variant == variant {
			out = append(out, c)
		}
	}
	return out
}

// interleaving is how the closed-loop blocks took turns, or nil when
// they ran one cell after another.
func interleaving(rs []*result.Result) *result.Interleaving {
	for _, r := range rs {
		if r.Suite != nil && r.Suite.Interleaved != nil {
			return r.Suite.Interleaved
		}
	}
	return nil
}

// turnRanges is the turn length (ms) and the rounds a block ran, as one
// figure or, where groups chose their own auto turns, as a range.
func turnRanges(l *locale.Lang, rs []*result.Result) (turns, rounds string) {
	var ms, ns []int
	for _, r := range rs {
		if r.Suite != nil && r.Suite.Interleaved != nil {
			ms = append(ms, int(math.Round(r.Suite.Interleaved.TurnMs)))
			ns = append(ns, r.Suite.Interleaved.Rounds)
		}
	}
	text := func(xs []int) string {
		lo, hi := slices.Min(xs), slices.Max(xs)
		if lo == hi {
			return l.F("%d", lo)
		}
		return l.T("range.int", lo, hi)
	}
	return text(ms), text(ns)
}

// networkText says which workloads ran through the emulated network.
func networkText(l *locale.Lang, rs []*result.Result) string {
	var paths []string
	for _, r := range rs {
		if r.Network == nil {
			continue
		}
		p := l.T("method.network.path", workloadOf(r), l.F("%.1f", r.Network.RTTMs))
		if !slices.Contains(paths, p) {
			paths = append(paths, p)
		}
	}
	if len(paths) == 0 {
		return ""
	}
	return l.T("method.network", strings.Join(paths, l.T("list.sep")))
}

// readsAndWrites are the suite's read-only and writing workloads, each
// once, in the suite's order.
func readsAndWrites(st suite.Suite) (reads, writes []string) {
	for _, w := range st.Workloads {
		ids := &writes
		if w.ReadOnly {
			ids = &reads
		}
		if !slices.Contains(*ids, w.ID()) {
			*ids = append(*ids, w.ID())
		}
	}
	return reads, writes
}

// phasedReadsAndWrites says the suite ran its read-only workloads as a
// phase of their own before those that write.
func phasedReadsAndWrites(st suite.Suite) bool {
	reads, writes := readsAndWrites(st)
	return len(reads) > 0 && len(writes) > 0 && st.Order != suite.OrderAsListed
}

// orderText says where the reads ran against the writes, for a suite
// that has both.
func orderText(l *locale.Lang, st suite.Suite) string {
	reads, writes := readsAndWrites(st)
	if len(reads) == 0 || len(writes) == 0 {
		return ""
	}
	key := "method.order.reads_first"
	if st.Order == suite.OrderAsListed {
		key = "method.order.as_listed"
	}
	return l.T(key, strings.Join(reads, ", "), strings.Join(writes, ", "))
}

func hasAA(rows []*Row) bool {
	return slices.ContainsFunc(rows, func(c *Row) bool { return c.Variant == variant.AAName })
}

// noiseText tells the machine's own steadiness, checked before the first
// block, or "" when it was not checked.
func noiseText(l *locale.Lang, n *suite.MachineNoise) string {
	if n == nil || len(n.CPUs) == 0 {
		return ""
	}
	parts := make([]string, len(n.CPUs))
	for i, c := range n.CPUs {
		parts[i] = l.T("method.noise.cpu", c.CPU, c.SDPct, c.SlowestPct, c.MemorySDPct, c.MemorySlowestPct)
	}
	window := time.Duration(n.WindowMs * float64(time.Millisecond))
	return l.T("method.noise", window.String(), n.Seconds, strings.Join(parts, "; "))
}

// rerunText counts the runs discarded as disturbed, by cause, and the
// stalls by variant: those discarded and those kept because the reruns
// ran out, so a layer that stalls its server more than the baseline shows.
func rerunText(l *locale.Lang, rs []*result.Result, stallPct float64) string {
	n, cells := 0, 0
	causes := map[string]int{}
	stalls := map[string]int{}
	for _, r := range rs {
		if r.Suite != nil && len(r.Suite.Discarded) > 0 {
			n += len(r.Suite.Discarded)
			cells++
			for _, why := range r.Suite.Discarded {
				_, cause := result.DiscardOf(why)
				causes[cause]++
			}
		}
		if k := runStalls(r, stallPct); k > 0 {
			stalls[r.Variant.Name] += k
		}
	}
	var out []string
	if n == 0 {
		out = append(out, l.T("method.quiet.none"))
	} else {
		out = append(out, l.T("method.quiet.reruns", n, cells),
			l.T("method.quiet.causes", causes[result.CauseForeign], causes[result.CauseSteal], causes[result.CauseStall]))
	}
	if len(stalls) > 0 {
		var parts []string
		for _, v := range slices.Sorted(maps.Keys(stalls)) {
			parts = append(parts, l.F("%s %d", v, stalls[v]))
		}
		out = append(out, l.T("method.quiet.stalls", strings.Join(parts, ", ")))
	}
	return strings.Join(out, " ")
}

func schemas(rs []*result.Result) []string {
	var out []string
	for _, r := range rs {
		if r.Workload.Schema != "" && !slices.Contains(out, r.Workload.Schema) {
			out = append(out, r.Workload.Schema)
		}
	}
	return out
}

// ci is a mean with its 95% interval, to digits decimals.
func ci(l *locale.Lang, s stats.Summary, digits int) string {
	f := "%." + strconv.Itoa(digits) + "f"
	if s.N < 2 {
		return l.F(f, s.Mean)
	}
	return l.T("ci.range", l.F(f, s.Mean), l.F(f, s.Low), l.F(f, s.High))
}

// lossText is a cell's loss with its interval and half-width; a star
// marks a half-width above the precision target.
func lossText(l *locale.Lang, c *Row, precision float64) Text {
	switch {
	case c.Baseline:
		return Text{S: l.T("loss.baseline")}
	case c.Loss == nil:
		return Text{S: l.T("loss.na", lossReason(l, c))}
	}
	x := c.Loss
	if !x.Significant {
		return Text{S: l.T("loss.cell.ns", x.Pct, x.HalfWidth(), x.Low, x.High) + star(x, precision)}
	}
	return Text{S: l.T("loss.cell", x.Pct, x.HalfWidth(), x.Low, x.High) + star(x, precision), Strong: true}
}

// lossReason says why a cell has no loss.
func lossReason(l *locale.Lang, c *Row) string {
	switch {
	case errors.Is(c.LossErr, errNoBaseline):
		return l.T("loss.why.no_baseline")
	case errors.Is(c.LossErr, stats.ErrTooFew):
		return l.T("loss.why.too_few")
	}
	return l.T("loss.why.other", c.LossReason)
}

func star(x *stats.Loss, precision float64) string {
	if precision > 0 && x.HalfWidth() > precision {
		return " *"
	}
	return ""
}

// diffText is a CPU difference per transaction with its interval.
func diffText(l *locale.Lang, d *stats.Diff) string {
	if d == nil {
		return l.T("na")
	}
	return l.T("ci.range", l.F("%+.1f", d.Mean), l.F("%+.1f", d.Low), l.F("%+.1f", d.High))
}

// serverMeasured says whether any row has the server's CPU (a DSN target
// without server_pid has none).
func serverMeasured(rows []*Row) bool {
	return slices.ContainsFunc(rows, func(c *Row) bool { return c.ServerMsPerTxn != nil })
}

func resultTable(l *locale.Lang, rows []*Row, precision float64) Table {
	t := Table{Head: []string{l.T("col.target"), l.T("col.threads"), l.T("col.variant"), l.T("col.n"), l.T("col.tps"), l.T("col.avg_ms"), l.T("col.p95_ms"),
		l.T("col.client_us"), l.T("col.server_us"), l.T("col.client_added"), l.T("col.server_added"), l.T("col.loss"),
		l.T("col.retries"), l.T("col.aborts")}}
	for _, c := range rows {
		srv := l.T("na")
		if c.ServerMsPerTxn != nil {
			srv = l.F("%.1f", 1000*c.ServerMsPerTxn.Mean)
		}
		name := c.Variant
		if !c.Verified {
			name = l.T("variant.unverified", c.Variant)
		}
		cliAdded, srvAdded := "", ""
		if !c.Baseline {
			cliAdded, srvAdded = diffText(l, c.ClientUsAdded), diffText(l, c.ServerUsAdded)
		}
		t.Rows = append(t.Rows, []Text{{S: c.Target}, {S: strconv.Itoa(c.Threads)}, {S: name}, {S: strconv.Itoa(c.TPS.N)},
			{S: ci(l, c.TPS, 1)}, {S: l.F("%.2f", c.AvgMs.Mean)}, {S: ci(l, c.P95Ms, 2)},
			{S: l.F("%.1f", 1000*c.ClientMsPerTxn.Mean)}, {S: srv}, {S: cliAdded}, {S: srvAdded}, lossText(l, c, precision),
			{S: ci(l, c.RetriesPerTxn, 3)}, {S: ci(l, c.GivenUpPerTxn, 3)}})
	}
	// Retries beside the loss only where some transaction was retried or
	// given up (TPC-C at SERIALIZABLE); a sysbench table stays as it was.
	if !slices.ContainsFunc(rows, func(c *Row) bool { return c.RetriesPerTxn.Mean > 0 || c.GivenUpPerTxn.Mean > 0 }) {
		t = dropColumns(t, 12, 13)
	}
	if !serverMeasured(rows) {
		t = dropColumns(t, 8, 10) // server CPU and server CPU added
	}
	return t
}

// glance tabulates TPS loss: a row per target and variant, a column per
// workload and thread count.
func glance(l *locale.Lang, rows []*Row, order Order, baseline string, precision float64) Table {
	type col struct {
		w  string
		th int
	}
	var cols []col
	for _, w := range order.Workloads {
		var ths []int
		for _, c := range rows {
			if c.Workload == w && !slices.Contains(ths, c.Threads) {
				ths = append(ths, c.Threads)
			}
		}
		slices.Sort(ths)
		for _, th := range ths {
			cols = append(cols, col{w, th})
		}
	}
	t := Table{Head: []string{l.T("glance.corner", baseline)}}
	for _, c := range cols {
		t.Head = append(t.Head, l.T("glance.column", strings.TrimPrefix(c.w, "oltp_"), c.th))
	}
	for _, tg := range order.Targets {
		for _, v := range order.Variants {
			if v == baseline {
				continue
			}
			row := []Text{{S: tg + " " + v}}
			found := false
			for _, cl := range cols {
				cell := Text{S: "-"}
				for _, c := range rows {
					if c.Target == tg && c.Variant == v && c.Workload == cl.w && c.Threads == cl.th {
						found = true
						switch x := c.Loss; {
						case x == nil:
							cell = Text{S: l.T("na")}
						case x.Significant:
							cell = Text{S: l.T("glance.cell", x.Pct, x.HalfWidth()) + star(x, precision), Strong: true}
						default:
							cell = Text{S: l.T("glance.cell.ns", x.Pct, x.HalfWidth()) + star(x, precision)}
						}
					}
				}
				row = append(row, cell)
			}
			if found {
				t.Rows = append(t.Rows, row)
			}
		}
	}
	return t
}

// dropColumns removes the columns at the given indexes (ascending).
func dropColumns(t Table, idx ...int) Table {
	keep := func(n int) []int {
		var k []int
		for i := range n {
			if !slices.Contains(idx, i) {
				k = append(k, i)
			}
		}
		return k
	}
	cols := keep(len(t.Head))
	head := make([]string, 0, len(cols))
	for _, i := range cols {
		head = append(head, t.Head[i])
	}
	rows := make([][]Text, 0, len(t.Rows))
	for _, r := range t.Rows {
		nr := make([]Text, 0, len(cols))
		for _, i := range cols {
			if i < len(r) {
				nr = append(nr, r[i])
			}
		}
		rows = append(rows, nr)
	}
	t.Head, t.Rows = head, rows
	return t
}

// perTableTDE states, once per target, the limit of TDE measured on a
// server of the user's: the tables are proven, the rest is the server's.
func perTableTDE(l *locale.Lang, rows []*Row) []string {
	said := map[string]bool{}
	var out []string
	for _, c := range rows {
		for _, r := range c.Results {
			p := r.Variant.Verified.TDE
			if p == nil || p.Scope != "tables" || said[c.Target] {
				continue
			}
			said[c.Target] = true
			var settings []string
			for _, k := range slices.Sorted(maps.Keys(p.ServerSettings)) {
				settings = append(settings, k+"="+p.ServerSettings[k])
			}
			if len(settings) == 0 {
				settings = []string{"?"}
			}
			out = append(out, l.T("method.tde.tables", c.Target, p.Source, strings.Join(settings, ", ")))
		}
	}
	return out
}

// autoTurnText says how turns were chosen when the suite left them out.
func autoTurnText(l *locale.Lang, rs []*result.Result) string {
	var turnMs, txnMs []float64
	for _, r := range rs {
		if r.Suite == nil || r.Suite.Interleaved == nil || !r.Suite.Interleaved.TurnAuto {
			continue
		}
		turnMs = append(turnMs, r.Suite.Interleaved.TurnMs)
		txnMs = append(txnMs, r.Suite.Interleaved.WarmupTxnMs)
	}
	if len(turnMs) == 0 {
		return ""
	}
	return l.T("method.turn.auto", suite.AutoTxnsPerTurn, l.F("%.0f", slices.Min(turnMs)), l.F("%.0f", slices.Max(turnMs)),
		l.F("%.3g", slices.Min(txnMs)), l.F("%.3g", slices.Max(txnMs)))
}

// defaultsText names the suite keys that took encbench's defaults.
func defaultsText(l *locale.Lang, st suite.Suite) string {
	var keys, values []string
	for _, k := range st.Defaults {
		keys = append(keys, k+":")
		switch k {
		case "precision":
			values = append(values, l.T("default.precision", l.F("%g", st.Precision)))
		case "budget":
			values = append(values, l.T("default.budget", st.Budget))
		case "turn":
			values = append(values, l.T("default.turn"))
		}
	}
	return l.T("method.defaults", strings.Join(keys, l.T("list.sep")), strings.Join(values, l.T("list.sep")))
}
