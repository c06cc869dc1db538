package report

import (
	"fmt"
	"math"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/encbench/encbench/internal/locale"
	"github.com/encbench/encbench/internal/stats"
	variantpkg "github.com/encbench/encbench/internal/variant"
)

// Conclusions are sentences written from the cells: they claim only what
// the intervals support.
// extra (what the event parts show) follows the throughput findings.
func Conclusions(l *locale.Lang, rows []*Row, baseline string, order Order, extra []string) []string {
	var out []string
	for _, target := range order.Targets {
		for _, variant := range order.Variants {
			if variant == baseline {
				continue
			}
			var cs []*Row
			for _, c := range rows {
				if c.Target == target && c.Variant == variant {
					cs = append(cs, c)
				}
			}
			if len(cs) == 0 {
				continue
			}
			if variant == variantpkg.AAName {
				out = append(out, aaConclusion(l, cs, baseline, sharesServer(cs, rows, baseline)))
				continue
			}
			out = append(out, strings.Join(variantConclusions(l, cs, baseline, order, floorOf(rows)), l.T("sentence.sep")))
		}
	}
	out = append(out, extra...)
	out = append(out, verification(l, rows)...)
	out = append(out, clientShare(l, rows)...)
	return out
}

func where(l *locale.Lang, c *Row) string {
	return l.T("where", c.Workload, threadsText(l, c.Threads))
}

func threadsText(l *locale.Lang, n int) string { return l.T("threads.n", n) }

// floorOf finds a cell's A/A counterpart (same target, workload and
// threads, variant aa) and returns the largest loss its interval allows
// either way: a difference within it is noise the A/A run also shows.
func floorOf(rows []*Row) func(*Row) float64 {
	return func(c *Row) float64 {
		for _, a := range rows {
			if a.Variant == variantpkg.AAName && a.Target == c.Target && a.Workload == c.Workload && a.Threads == c.Threads && a.Loss != nil {
				return math.Max(math.Abs(a.Loss.Low), math.Abs(a.Loss.High))
			}
		}
		return 0
	}
}

// sharesServer says the A/A cells ran on the baseline's own server (the
// same server process in every block), not on a second instance.
func sharesServer(aa []*Row, rows []*Row, baseline string) bool {
	for _, a := range aa {
		i := slices.IndexFunc(rows, func(c *Row) bool {
			return c.Variant == baseline && c.Target == a.Target && c.Workload == a.Workload && c.Threads == a.Threads && c.Rate == a.Rate
		})
		if i < 0 || serverOf(a) == "" || serverOf(a) != serverOf(rows[i]) {
			return false
		}
	}
	return true
}

// serverOf identifies the server a row's runs used: the local server's
// pid when it was measured, else the DSN's address and database (a DSN
// target without server_pid: the same address is the same server).
func serverOf(c *Row) string {
	if len(c.Results) == 0 {
		return ""
	}
	r := c.Results[0]
	if r.CPU.ServerPID != 0 {
		return fmt.Sprintf("pid %d", r.CPU.ServerPID)
	}
	u, err := url.Parse(r.Target)
	if err != nil || u.Host == "" {
		return r.Target
	}
	return u.Host + u.Path
}

// otherInstance says whether some variant ran on another server instance
// than its baseline (TDE on a server of its own), as opposed to another
// database of the same server (TDE's encrypted copies).
func otherInstance(rows []*Row, baseline string) bool {
	for _, c := range rows {
		if c.Variant == baseline || c.Variant == variantpkg.AAName {
			continue
		}
		i := slices.IndexFunc(rows, func(b *Row) bool {
			return b.Variant == baseline && b.Target == c.Target && b.Workload == c.Workload && b.Threads == c.Threads && b.Rate == c.Rate
		})
		if i >= 0 && instanceOf(c) != instanceOf(rows[i]) {
			return true
		}
	}
	return false
}

// instanceOf is serverOf without the database: the server process.
func instanceOf(c *Row) string {
	if len(c.Results) == 0 {
		return ""
	}
	r := c.Results[0]
	if r.CPU.ServerPID != 0 {
		return fmt.Sprintf("pid %d", r.CPU.ServerPID)
	}
	if u, err := url.Parse(r.Target); err == nil && u.Host != "" {
		return u.Host
	}
	return r.Target
}

// aaConclusion reports the A/A variant: the baseline against itself.
func aaConclusion(l *locale.Lang, cs []*Row, baseline string, shared bool) string {
	var widest float64
	var at string
	n := 0
	for _, c := range cs {
		if c.Loss == nil {
			continue
		}
		n++
		if w := math.Max(math.Abs(c.Loss.Low), math.Abs(c.Loss.High)); w >= widest {
			widest, at = w, where(l, c)
		}
	}
	if n == 0 {
		return l.T("concl.aa.none", cs[0].Target, baseline, lossReason(l, cs[0]))
	}
	key := "concl.aa"
	if shared {
		key = "concl.aa.shared"
	}
	return l.T(key, cs[0].Target, baseline, widest, at, l.T("cells.n", n))
}

func variantConclusions(l *locale.Lang, cs []*Row, baseline string, order Order, floor func(*Row) float64) []string {
	head := l.T("concl.head", cs[0].Target, cs[0].EngineVersion, cs[0].Variant, baseline)
	var sig, gain, ns, floored []*Row
	for _, c := range cs {
		switch {
		case c.Loss == nil:
		case c.Loss.Significant && math.Abs(c.Loss.Pct) <= floor(c):
			floored = append(floored, c)
		case c.Loss.Significant && c.Loss.Pct > 0:
			sig = append(sig, c)
		case c.Loss.Significant:
			gain = append(gain, c)
		default:
			ns = append(ns, c)
		}
	}
	compared := len(sig) + len(gain) + len(ns) + len(floored)
	if compared == 0 {
		out := []string{l.T("concl.no_loss", head, lossReason(l, cs[0]))}
		if s := regimeNote(l, cs); s != "" {
			out = append(out, s)
		}
		return out
	}
	var out []string
	if len(sig) > 0 {
		sort.Slice(sig, func(i, j int) bool { return sig[i].Loss.Pct > sig[j].Loss.Pct })
		top := sig[0]
		span := l.T("pct", top.Loss.Pct)
		// two losses that print alike read as one figure
		if low := l.T("pct", sig[len(sig)-1].Loss.Pct); low != span {
			span = l.T("concl.between", low, span)
		}
		s := []string{l.T("concl.loss", head, span, len(sig), compared, top.Loss.Pct, top.Loss.Low, top.Loss.High, where(l, top))}
		if len(ns) > 0 {
			s = append(s, l.T("concl.ns", list(l, ns)))
		}
		if len(floored) > 0 {
			s = append(s, l.T("concl.floored", list(l, floored)))
		}
		out = append(out, strings.Join(s, l.T("sentence.sep")))
	} else {
		lo, hi := pctRange(append(append(ns, gain...), floored...))
		out = append(out, l.T("concl.no_sig", head, compared, lo, hi))
	}
	if len(gain) > 0 {
		out = append(out, l.T("concl.gain", cs[0].Variant, baseline, list(l, gain)))
	}
	if s := threadTrend(l, cs, order); s != "" {
		out = append(out, s)
	}
	if s := cpuChange(l, cs); s != "" {
		out = append(out, s)
	}
	if s := regimeNote(l, cs); s != "" {
		out = append(out, s)
	}
	return out
}

func list(l *locale.Lang, cs []*Row) string {
	var parts []string
	for _, c := range cs {
		parts = append(parts, where(l, c))
	}
	if len(parts) > 5 {
		parts = append(parts[:5], l.T("list.more", len(parts)-5))
	}
	return strings.Join(parts, l.T("list.sep"))
}

func pctRange(cs []*Row) (lo, hi float64) {
	for i, c := range cs {
		if i == 0 || c.Loss.Pct < lo {
			lo = c.Loss.Pct
		}
		if i == 0 || c.Loss.Pct > hi {
			hi = c.Loss.Pct
		}
	}
	return lo, hi
}

// threadTrend compares the loss at the lowest and highest thread counts
// of each workload, and speaks only where the intervals do not overlap.
func threadTrend(l *locale.Lang, cs []*Row, order Order) string {
	var moves []string
	multi := false
	for _, w := range order.Workloads {
		var ws []*Row
		for _, c := range cs {
			if c.Workload == w && c.Loss != nil {
				ws = append(ws, c)
			}
		}
		if len(ws) < 2 {
			continue
		}
		multi = true
		sort.Slice(ws, func(i, j int) bool { return ws[i].Threads < ws[j].Threads })
		a, b := ws[0], ws[len(ws)-1]
		id := ""
		switch {
		case b.Loss.High < a.Loss.Low:
			id = "trend.falls"
		case b.Loss.Low > a.Loss.High:
			id = "trend.rises"
		default:
			continue
		}
		moves = append(moves, l.T(id, w, a.Loss.Pct, threadsText(l, a.Threads), b.Loss.Pct, threadsText(l, b.Threads)))
	}
	if !multi {
		return ""
	}
	if len(moves) == 0 {
		return l.T("trend.none")
	}
	return l.T("trend.changes", strings.Join(moves, l.T("clause.sep")))
}

// cpuChange states what the variant adds per transaction, in CPU time,
// beside what that costs in throughput, at the most threads measured
// (closest to saturation), where the largest loss is; then how many cells
// show a server CPU increase beyond its interval.
func cpuChange(l *locale.Lang, cs []*Row) string {
	var top *Row
	for _, c := range cs {
		// Without the server's CPU a cost would be priced from encbench's
		// own CPU alone, which is not what a loss is made of.
		if c.ServerUsAdded == nil {
			continue
		}
		if top == nil || c.Threads > top.Threads || (c.Threads == top.Threads && lossPct(c) > lossPct(top)) {
			top = c
		}
	}
	if top == nil {
		return ""
	}
	var parts []string
	if d := top.ServerUsAdded; d != nil {
		parts = append(parts, l.T("cost.server", ciText(l, *d, 1, "unit.us")))
	}
	if d := top.ClientUsAdded; d != nil {
		parts = append(parts, l.T("cost.client", ciText(l, *d, 1, "unit.us")))
	}
	added := strings.Join(parts, l.T("and"))
	var s []string
	if x := top.Loss; x != nil {
		s = append(s, l.T("cost.loss", where(l, top), top.Variant, added, x.Pct, x.Low, x.High))
	} else {
		s = append(s, l.T("cost", where(l, top), top.Variant, added))
	}
	var serverAdded []float64
	up := 0
	for _, c := range cs {
		if d := c.ServerUsAdded; d != nil {
			serverAdded = append(serverAdded, d.Mean)
			if d.Significant && d.Mean > 0 {
				up++
			}
		}
	}
	if len(serverAdded) > 1 {
		m, lo, hi := medianRange(serverAdded)
		s = append(s, l.T("cost.cells", up, len(serverAdded), m, lo, hi))
	}
	return strings.Join(s, l.T("sentence.sep"))
}

func lossPct(c *Row) float64 {
	if c.Loss == nil {
		return math.Inf(-1)
	}
	return c.Loss.Pct
}

// ciText is a difference with its unit (a message id, "" for none) and
// 95% interval, to digits decimals.
func ciText(l *locale.Lang, d stats.Diff, digits int, unit string) string {
	f := "%+." + strconv.Itoa(digits) + "f"
	mean := l.F(f, d.Mean)
	if unit != "" {
		mean = l.T(unit, mean)
	}
	id := "diff.ci"
	if !d.Significant {
		id = "diff.ci.ns"
	}
	return l.T(id, mean, l.F(f, d.Low), l.F(f, d.High))
}

func medianRange(x []float64) (median, lo, hi float64) {
	s := slices.Clone(x)
	slices.Sort(s)
	n := len(s)
	median = s[n/2]
	if n%2 == 0 {
		median = (s[n/2-1] + s[n/2]) / 2
	}
	return median, s[0], s[n-1]
}

// regimeNote says whether a TDE comparison read encrypted pages at all.
func regimeNote(l *locale.Lang, cs []*Row) string {
	tde := false
	ratio := -1.0
	for _, c := range cs {
		for _, r := range c.Results {
			tde = tde || r.Variant.TDE
			if r.Regime != nil && r.Regime.Ratio > ratio {
				ratio = r.Regime.Ratio
			}
		}
	}
	switch {
	case !tde || ratio < 0:
		return ""
	case ratio < 1:
		return l.T("regime.memory", 100*ratio)
	default:
		return l.T("regime.io", ratio)
	}
}

func verification(l *locale.Lang, rows []*Row) []string {
	n, bad := 0, []string{}
	for _, c := range rows {
		for _, r := range c.Results {
			n++
			if !r.Variant.Verified.OK {
				bad = append(bad, fmt.Sprintf("%s %s r%d", c.Target, c.Variant, r.Repetition))
			}
		}
	}
	if len(bad) == 0 {
		for _, c := range rows {
			if len(c.Results) > 0 && c.Results[0].Variant.Verified.Colenc != nil {
				return []string{l.T("verified.all.colenc", n)}
			}
		}
		return []string{l.T("verified.all", n)}
	}
	return []string{l.T("verified.bad", len(bad), n, strings.Join(bad, ", "))}
}

// clientShare reports how much of the machine the client used at the
// highest thread count: on a small machine it competes with the server.
func clientShare(l *locale.Lang, rows []*Row) []string {
	maxT := 0
	for _, c := range rows {
		maxT = max(maxT, c.Threads)
	}
	var cli, mach []float64
	for _, c := range rows {
		if c.Threads != maxT {
			continue
		}
		cli = append(cli, c.ClientUtilPct)
		if c.MachineUtilPct != nil {
			mach = append(mach, *c.MachineUtilPct)
		}
	}
	if len(cli) == 0 {
		return nil
	}
	mc, _, _ := medianRange(cli)
	if len(mach) > 0 {
		mm, _, _ := medianRange(mach)
		return []string{l.T("client.share.machine", threadsText(l, maxT), mc, mm)}
	}
	return []string{l.T("client.share", threadsText(l, maxT), mc)}
}
