package report

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/encbench/encbench/internal/quiet"
	result "github.com/encbench/encbench/internal/resultdoc"
	"github.com/encbench/encbench/internal/stats"
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
	Cells    []*Cell
	Table    Table
	// Parts are R2-style tables of workloads that time parts of events.
	Parts []PartsTable
}

// Model is everything a report says, rendered as Markdown or HTML.
type Model struct {
	Title       string
	Subtitle    string
	Description string
	Generated   string
	Conclusions []string
	// Glance is the loss of every variant in every cell, in one table;
	// GlanceNote says how to read it.
	Glance     Table
	GlanceNote string
	// Precision is the suite's target half-width (0: none); BudgetSpent
	// says its budget ended the blocks first.
	Precision   float64
	BudgetSpent bool
	Notes       []string
	Machine     Table
	Servers     Table
	// Colenc lists encrypted columns per level; Leakage what schemes reveal.
	Colenc  Table
	Leakage Table
	Storage Table
	// Offered compares the variants at equal offered load.
	Offered Table
	// Reference sets a published result beside the suite's own.
	Reference       Table
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
}

// Build turns loaded data into the report's content.
func Build(d *Data) *Model {
	order := d.Order()
	baseline := d.Baseline()
	cells := Aggregate(d.Results, baseline, &order)
	m := &Model{Title: "encbench report", Baseline: baseline, Order: order, Partial: d.Partial,
		Generated: time.Now().UTC().Format("2006-01-02 15:04 UTC") + " by encbench " + version.String()}
	if rec := d.Record; rec != nil && rec.Plan != nil {
		m.Title = "encbench report: suite " + rec.Suite.Name
		m.Description = strings.Join(strings.Fields(rec.Suite.Description), " ")
		m.Notes = rec.Suite.Notes
		m.Skipped = rec.Skipped
		m.Commands = []string{rec.Command, "encbench report " + d.Dir}
		for _, su := range rec.Setups {
			if lines, ok := rec.Reproduce[su.ID]; ok {
				m.Reproduce = append(m.Reproduce, Text{S: "# " + su.ID + "\n" + lines})
			}
		}
	}
	if rec := d.Record; rec != nil && rec.Plan != nil {
		m.Precision, m.BudgetSpent = rec.Suite.Precision, rec.BudgetSpent
	}
	if rec := d.Record; rec != nil && rec.Suite.Reference != nil {
		m.Reference = referenceTable(rec.Suite.Reference, cells, order)
		m.ReferenceSource = rec.Suite.Reference.Source
	}
	m.Subtitle = subtitle(d.Results)
	var partsSaid []string
	m.Glance = glance(closedLoop(cells, false), order, baseline, m.Precision)
	m.Offered = offeredTable(cells)
	m.GlanceNote = "TPS loss in % with the half-width of its 95% interval (bold: significant; n.s.: the interval includes 0"
	if m.Precision > 0 {
		m.GlanceNote += fmt.Sprintf("; * marks a half-width above the %.0f-point target", m.Precision)
	}
	m.GlanceNote += ")"
	m.Machine = machineTable(d.Results[0].Environment)
	m.Servers = serverTable(cells, order)
	m.Method = method(d, cells, m)
	if m.Colenc = colencTable(d.Results); len(m.Colenc.Rows) > 0 {
		m.Leakage = leakageTable(schemesUsed(d.Results))
		m.Storage = storageTable(d.Results)
	}
	m.Schema = schemas(d.Results)
	for _, w := range order.Workloads {
		s := Section{Workload: w}
		for _, c := range cells {
			if c.Workload == w {
				s.Cells = append(s.Cells, c)
			}
		}
		s.Table = resultTable(s.Cells, m.Precision)
		s.Parts = partsTables(s.Cells, order, baseline)
		partsSaid = append(partsSaid, partsConclusions(s.Parts, baseline, s.Cells)...)
		m.Sections = append(m.Sections, s)
	}
	m.Conclusions = Conclusions(closedLoop(cells, false), baseline, order, append(partsSaid, offeredConclusions(cells, baseline, order)...))
	return m
}

func subtitle(rs []*result.Result) string {
	first, last := rs[0].StartedAt, rs[len(rs)-1].StartedAt
	return fmt.Sprintf("%d results, %s to %s", len(rs), first, last)
}

func machineTable(e result.Environment) Table {
	t := Table{Head: []string{"item", "value"}}
	add := func(k, v string) {
		if v != "" {
			t.Rows = append(t.Rows, []Text{{S: k}, {S: v}})
		}
	}
	add("host", e.Host)
	add("CPU", e.CPUModel)
	add("cores", strconv.Itoa(e.Cores))
	add("memory", fmt.Sprintf("%.1f GiB", float64(e.MemoryMB)/1024))
	add("OS", e.OS)
	add("kernel", e.Kernel)
	add("disk (server data)", e.Disk)
	add("Go", e.GoVersion)
	return t
}

// settingsThatMatter are shown per server; the rest stay in the JSON.
var settingsThatMatter = []string{
	"innodb_buffer_pool_size", "shared_buffers", "innodb_flush_log_at_trx_commit", "sync_binlog", "fsync",
	"synchronous_commit", "innodb_flush_method", "wal_sync_method", "have_ssl", "ssl", "tls_version",
	"ssl_min_protocol_version", "require_secure_transport", "innodb_encrypt_tables", "innodb_encrypt_log",
	"innodb_encrypt_temporary_tables", "deadlock_timeout",
}

func serverTable(cells []*Cell, order Order) Table {
	t := Table{Head: []string{"target", "variant", "server", "settings that matter", "data / buffer pool", "client CPUs", "server CPUs", "TLS seen by server", "at rest"}}
	seen := map[string]bool{}
	for _, tg := range order.Targets {
		for _, v := range order.Variants {
			for _, c := range cells {
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
				ratio := "unknown"
				if r.Regime != nil {
					ratio = fmt.Sprintf("%.1f MB / %.0f MB = %.2f", float64(r.Regime.DataBytes)/1e6, float64(r.Regime.BufferPoolBytes)/1e6, r.Regime.Ratio)
				}
				t.Rows = append(t.Rows, []Text{{S: tg}, {S: v}, {S: r.Engine.Version}, {S: strings.Join(set, ", ")}, {S: ratio},
					{S: cpuList(r.CPU.ClientCPUs)}, {S: orAll(r.CPU.ServerCPUs)}, {S: tlsSeen(cells, tg, v)}, {S: atRest(r.Variant.Verified.TDE)}})
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

func cpuList(c []int) string {
	if len(c) == 0 {
		return "any"
	}
	var s []string
	for _, v := range c {
		s = append(s, strconv.Itoa(v))
	}
	return strings.Join(s, ",")
}

func orAll(s string) string {
	if s == "" {
		return "any"
	}
	return s
}

// tlsSeen sums the server's view over every run of a target and variant.
func tlsSeen(cells []*Cell, target, variant string) string {
	conns, tls := 0, 0
	versions, ciphers := map[string]bool{}, map[string]bool{}
	for _, c := range cells {
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
		}
	}
	s := fmt.Sprintf("%d of %d connections", tls, conns)
	if tls > 0 {
		s += ": " + strings.Join(slices.Sorted(maps.Keys(versions)), ",") + " " + strings.Join(slices.Sorted(maps.Keys(ciphers)), ",")
	}
	return s
}

func atRest(p *result.TDEProof) string {
	if p == nil {
		return "not checked"
	}
	s := fmt.Sprintf("%d of %d tables encrypted", p.Encrypted, p.Tables)
	if p.Marker != nil {
		s += fmt.Sprintf("; marker in raw files: %d", p.Marker.Occurrences)
	}
	return s
}

func method(d *Data, cells []*Cell, m *Model) []string {
	least, most := 0, 0
	for i, c := range cells {
		if n := len(c.Results); i == 0 || n < least {
			least = n
		}
		most = max(most, len(c.Results))
	}
	blocks := strconv.Itoa(most)
	if least != most {
		blocks = fmt.Sprintf("%d to %d", least, most)
	}
	r := d.Results[0]
	out := []string{
		fmt.Sprintf("Design: a cell is one workload at one thread count on one target; a block is one run of each of its variants, back to back (%s blocks per cell, %.0f s each after %.0f s of warmup). The order of the variants is drawn anew for every block from a recorded seed (randomised multiple interleaved trials, Abedi and Brecht, ICPE 2017), so no variant always runs first or right after a write-heavy run.", blocks, r.DurationS, r.WarmupS),
		"Loss: loss % = (baseline TPS - variant TPS) / baseline TPS. It is computed within each block, where both runs met the same machine state, as the ratio variant/baseline; the loss and its 95% interval come from the mean of the log ratios with a Student-t interval (n-1 degrees of freedom), carried back through exp, so the interval is slightly asymmetric. Drift between blocks cancels in the ratios, which is why pairing gives much narrower intervals than comparing means. Extra blocks run the baseline and only the variants whose interval is still too wide, so a variant pairs with the baseline over the blocks both ran; where fewer than two blocks hold both, the interval compares the means instead (delta method, Welch's degrees of freedom). A loss whose interval includes 0 is reported as not significant; ± is the wider side of the interval.",
		"Cost per transaction: server CPU (the server's whole process tree) and encbench's own CPU, in microseconds per transaction, measured over each run's window; what a variant adds is the within-block difference against the baseline, with a Student-t interval. At saturation, the added server CPU is what the throughput loss is made of.",
	}
	if d.Record != nil && d.Record.Plan != nil {
		st := d.Record.Suite
		if hasAA(cells) {
			out = append(out, "A/A: the variant aa is the baseline's layers on a second server of its own, measured exactly like a real variant. Its loss should be 0; its interval is the noise floor, and no conclusion calls a loss significant that the same cell's A/A interval could explain.")
		}
		dist := st.Disturb()
		out = append(out, fmt.Sprintf("Quiet machine: before each run, the server that ran last finishes its deferred write work (a PostgreSQL sandbox runs CHECKPOINT) and is given time to finish the rest of its background work (until its processes use at most %v of CPU in %v, at most %v), then every other sandbox server is frozen (SIGSTOP) until its own turn, so only the measured server and encbench work. Each run records foreign CPU (machine busy time that was neither encbench nor the server) and hypervisor steal; a run with foreign CPU above %.0f%% or steal above %.0f%% of the machine is discarded and run again, at most %d times. %s", quiet.IdleCPU, quiet.Window, quiet.MaxWait, dist.ForeignPct, dist.StealPct, dist.Reruns, rerunText(d.Results)))
		if st.Precision > 0 {
			s := fmt.Sprintf("Precision: the suite asked for every loss interval to be at most %.0f points wide on each side. After %d blocks, cells whose widest interval (any variant, A/A included) was wider got more blocks, one per cell per round, up to %d each: first the cells predicted to reach the target in the time left, fewest blocks to go first (the half-width shrinks as t(n-1) over the square root of n blocks), and only when none can, the others", st.Precision, st.Repetitions, func() int { _, m := st.Blocks(); return m }())
			if st.Budget != "" {
				s += fmt.Sprintf(", within a budget of %s of wall time", st.Budget)
			}
			s += ". Cells marked * did not reach the target"
			if m.BudgetSpent {
				s += "; the budget ended the blocks"
			}
			out = append(out, s+". Stopping when an interval is narrow enough makes it slightly optimistic; the minimum number of blocks limits that.")
		}
	}
	out = append(out, "Latency is measured per transaction with a monotonic clock into HdrHistogram (1 us to 60 s, 3 significant digits); TPS, latency and CPU per variant are means over blocks with 95% Student-t intervals.")
	if d.Partial > 0 {
		out = append(out, fmt.Sprintf("%d interrupted or failed cell results are left out.", d.Partial))
	}
	return out
}

func hasAA(cells []*Cell) bool {
	return slices.ContainsFunc(cells, func(c *Cell) bool { return c.Variant == variant.AAName })
}

// rerunText counts the runs discarded as disturbed.
func rerunText(rs []*result.Result) string {
	n, cells := 0, 0
	for _, r := range rs {
		if r.Suite != nil && len(r.Suite.Discarded) > 0 {
			n += len(r.Suite.Discarded)
			cells++
		}
	}
	if n == 0 {
		return "No run was disturbed beyond that."
	}
	return fmt.Sprintf("%d runs of %d cells were disturbed and run again.", n, cells)
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

func ci(s stats.Summary, digits int) string {
	f := "%." + strconv.Itoa(digits) + "f"
	if s.N < 2 {
		return fmt.Sprintf(f, s.Mean)
	}
	return fmt.Sprintf(f+" ("+f+" to "+f+")", s.Mean, s.Low, s.High)
}

// lossText is a cell's loss with its interval and half-width; a star
// marks a half-width above the precision target.
func lossText(c *Cell, precision float64) Text {
	switch {
	case c.Baseline:
		return Text{S: "baseline"}
	case c.Loss == nil:
		return Text{S: "n/a: " + c.LossReason}
	}
	l := c.Loss
	s := fmt.Sprintf("%.1f%% ±%.1f (%.1f to %.1f)%s", l.Pct, l.HalfWidth(), l.Low, l.High, star(l, precision))
	if !l.Significant {
		s = "n.s. " + s
	}
	return Text{S: s, Strong: l.Significant}
}

func star(l *stats.Loss, precision float64) string {
	if precision > 0 && l.HalfWidth() > precision {
		return " *"
	}
	return ""
}

// diffText is a CPU difference per transaction with its interval.
func diffText(d *stats.Diff) string {
	if d == nil {
		return "n/a"
	}
	return fmt.Sprintf("%+.1f (%+.1f to %+.1f)", d.Mean, d.Low, d.High)
}

func resultTable(cells []*Cell, precision float64) Table {
	t := Table{Head: []string{"target", "threads", "variant", "n", "TPS (95% CI)", "avg ms", "p95 ms",
		"client CPU us/txn", "server CPU us/txn", "client us/txn added (95% CI)", "server us/txn added (95% CI)", "TPS loss % ±half-width (95% CI)"}}
	for _, c := range cells {
		srv := "n/a"
		if c.ServerMsPerTxn != nil {
			srv = fmt.Sprintf("%.1f", 1000*c.ServerMsPerTxn.Mean)
		}
		name := c.Variant
		if !c.Verified {
			name += " (NOT verified)"
		}
		cliAdded, srvAdded := "", ""
		if !c.Baseline {
			cliAdded, srvAdded = diffText(c.ClientUsAdded), diffText(c.ServerUsAdded)
		}
		t.Rows = append(t.Rows, []Text{{S: c.Target}, {S: strconv.Itoa(c.Threads)}, {S: name}, {S: strconv.Itoa(c.TPS.N)},
			{S: ci(c.TPS, 1)}, {S: fmt.Sprintf("%.2f", c.AvgMs.Mean)}, {S: ci(c.P95Ms, 2)},
			{S: fmt.Sprintf("%.1f", 1000*c.ClientMsPerTxn.Mean)}, {S: srv}, {S: cliAdded}, {S: srvAdded}, lossText(c, precision)})
	}
	return t
}

// glance tabulates TPS loss: a row per target and variant, a column per
// workload and thread count.
func glance(cells []*Cell, order Order, baseline string, precision float64) Table {
	type col struct {
		w  string
		th int
	}
	var cols []col
	for _, w := range order.Workloads {
		var ths []int
		for _, c := range cells {
			if c.Workload == w && !slices.Contains(ths, c.Threads) {
				ths = append(ths, c.Threads)
			}
		}
		slices.Sort(ths)
		for _, th := range ths {
			cols = append(cols, col{w, th})
		}
	}
	t := Table{Head: []string{"TPS loss % vs " + baseline}}
	for _, c := range cols {
		t.Head = append(t.Head, fmt.Sprintf("%s %d thr", strings.TrimPrefix(c.w, "oltp_"), c.th))
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
				for _, c := range cells {
					if c.Target == tg && c.Variant == v && c.Workload == cl.w && c.Threads == cl.th {
						found = true
						switch l := c.Loss; {
						case l == nil:
							cell = Text{S: "n/a"}
						case l.Significant:
							cell = Text{S: fmt.Sprintf("%.1f ±%.1f%s", l.Pct, l.HalfWidth(), star(l, precision)), Strong: true}
						default:
							cell = Text{S: fmt.Sprintf("n.s. (%.1f ±%.1f)%s", l.Pct, l.HalfWidth(), star(l, precision))}
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
