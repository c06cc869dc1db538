package report

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	result "github.com/encbench/encbench/internal/resultdoc"
	"github.com/encbench/encbench/internal/stats"
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
	// Glance is the loss of every variant in every cell, in one table.
	Glance  Table
	Notes   []string
	Machine Table
	Servers Table
	// Colenc lists encrypted columns per level; Leakage what schemes reveal.
	Colenc  Table
	Leakage Table
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
	if rec := d.Record; rec != nil && rec.Suite.Reference != nil {
		m.Reference = referenceTable(rec.Suite.Reference, cells, order)
		m.ReferenceSource = rec.Suite.Reference.Source
	}
	m.Subtitle = subtitle(d.Results)
	var partsSaid []string
	m.Glance = glance(cells, order, baseline)
	m.Machine = machineTable(d.Results[0].Environment)
	m.Servers = serverTable(cells, order)
	m.Method = method(d, cells)
	if m.Colenc = colencTable(d.Results); len(m.Colenc.Rows) > 0 {
		m.Leakage = leakageTable(schemesUsed(d.Results))
	}
	m.Schema = schemas(d.Results)
	for _, w := range order.Workloads {
		s := Section{Workload: w}
		for _, c := range cells {
			if c.Workload == w {
				s.Cells = append(s.Cells, c)
			}
		}
		s.Table = resultTable(s.Cells)
		s.Parts = partsTables(s.Cells, order, baseline)
		partsSaid = append(partsSaid, partsConclusions(s.Parts, baseline, s.Cells)...)
		m.Sections = append(m.Sections, s)
	}
	m.Conclusions = Conclusions(cells, baseline, order, partsSaid)
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
	"innodb_encrypt_temporary_tables",
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

func method(d *Data, cells []*Cell) []string {
	reps := 0
	for _, c := range cells {
		reps = max(reps, len(c.Results))
	}
	r := d.Results[0]
	out := []string{
		fmt.Sprintf("Each cell ran %d times for %.0f s after %.0f s of warmup; repetitions were interleaved (repetition r of every variant before r+1), so drift hits all variants alike.", reps, r.DurationS, r.WarmupS),
		"TPS, latency and CPU are means over repetitions with 95% Student-t intervals. Loss % = (baseline TPS - variant TPS) / baseline TPS. Each repetition is a block: every variant of a cell runs once, back to back, so the machine's drift between blocks hits all variants alike; the loss and its 95% interval come from the ratios within blocks (the mean of the log ratios with a Student-t interval, n-1 degrees of freedom, carried back through exp), which removes that drift from the comparison. Where a cell's repetitions do not pair up (a repetition missing), the interval compares the means instead (delta method, Welch's degrees of freedom). A loss whose interval includes 0 is reported as not significant.",
		"Latency is measured per transaction with a monotonic clock into HdrHistogram (1 us to 60 s, 3 significant digits). Client CPU is encbench's own; server CPU is the server's whole process tree over the measured window.",
	}
	if d.Partial > 0 {
		out = append(out, fmt.Sprintf("%d interrupted or failed cell results are left out.", d.Partial))
	}
	return out
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

func lossText(c *Cell) Text {
	switch {
	case c.Baseline:
		return Text{S: "baseline"}
	case c.Loss == nil:
		return Text{S: "n/a: " + c.LossReason}
	case c.Loss.Significant:
		return Text{S: fmt.Sprintf("%.1f%% (%.1f to %.1f)", c.Loss.Pct, c.Loss.Low, c.Loss.High), Strong: true}
	}
	return Text{S: fmt.Sprintf("not significant (%.1f to %.1f)", c.Loss.Low, c.Loss.High)}
}

func resultTable(cells []*Cell) Table {
	t := Table{Head: []string{"target", "threads", "variant", "n", "TPS (95% CI)", "avg ms", "p95 ms", "client CPU ms/txn", "server CPU ms/txn", "TPS loss % (95% CI)"}}
	for _, c := range cells {
		srv := "n/a"
		if c.ServerMsPerTxn != nil {
			srv = fmt.Sprintf("%.3f", c.ServerMsPerTxn.Mean)
		}
		name := c.Variant
		if !c.Verified {
			name += " (NOT verified)"
		}
		t.Rows = append(t.Rows, []Text{{S: c.Target}, {S: strconv.Itoa(c.Threads)}, {S: name}, {S: strconv.Itoa(c.TPS.N)},
			{S: ci(c.TPS, 1)}, {S: fmt.Sprintf("%.2f", c.AvgMs.Mean)}, {S: ci(c.P95Ms, 2)},
			{S: fmt.Sprintf("%.3f", c.ClientMsPerTxn.Mean)}, {S: srv}, lossText(c)})
	}
	return t
}

// glance tabulates TPS loss: a row per target and variant, a column per
// workload and thread count.
func glance(cells []*Cell, order Order, baseline string) Table {
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
						switch {
						case c.Loss == nil:
							cell = Text{S: "n/a"}
						case c.Loss.Significant:
							cell = Text{S: fmt.Sprintf("%.1f", c.Loss.Pct), Strong: true}
						default:
							cell = Text{S: fmt.Sprintf("n.s. (%.1f)", c.Loss.Pct)}
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
