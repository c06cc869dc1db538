package report

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/encbench/encbench/internal/stats"
	variantpkg "github.com/encbench/encbench/internal/variant"
)

// Conclusions are sentences written from the cells: they claim only what
// the intervals support.
// extra (what the event parts show) follows the throughput findings.
func Conclusions(cells []*Cell, baseline string, order Order, extra []string) []string {
	var out []string
	for _, target := range order.Targets {
		for _, variant := range order.Variants {
			if variant == baseline {
				continue
			}
			var cs []*Cell
			for _, c := range cells {
				if c.Target == target && c.Variant == variant {
					cs = append(cs, c)
				}
			}
			if len(cs) == 0 {
				continue
			}
			if variant == variantpkg.AAName {
				out = append(out, aaConclusion(cs, baseline))
				continue
			}
			out = append(out, strings.Join(variantConclusions(cs, baseline, order, floorOf(cells)), " "))
		}
	}
	out = append(out, extra...)
	out = append(out, verification(cells)...)
	out = append(out, clientShare(cells)...)
	return out
}

func where(c *Cell) string { return c.Workload + " at " + threadsText(c.Threads) }

func threadsText(n int) string {
	if n == 1 {
		return "1 thread"
	}
	return fmt.Sprintf("%d threads", n)
}

// floorOf finds a cell's A/A counterpart (same target, workload and
// threads, variant aa) and returns the largest loss its interval allows
// either way: a difference within it is noise the A/A run also shows.
func floorOf(cells []*Cell) func(*Cell) float64 {
	return func(c *Cell) float64 {
		for _, a := range cells {
			if a.Variant == variantpkg.AAName && a.Target == c.Target && a.Workload == c.Workload && a.Threads == c.Threads && a.Loss != nil {
				return math.Max(math.Abs(a.Loss.Low), math.Abs(a.Loss.High))
			}
		}
		return 0
	}
}

// aaConclusion reports the A/A variant: the baseline against itself.
func aaConclusion(cs []*Cell, baseline string) string {
	var widest float64
	var where string
	n := 0
	for _, c := range cs {
		if c.Loss == nil {
			continue
		}
		n++
		if w := math.Max(math.Abs(c.Loss.Low), math.Abs(c.Loss.High)); w >= widest {
			widest, where = w, c.Workload+" at "+threadsText(c.Threads)
		}
	}
	if n == 0 {
		return fmt.Sprintf("%s, A/A (%s against itself): no noise floor can be computed (%s).", cs[0].Target, baseline, cs[0].LossReason)
	}
	cellsText := fmt.Sprintf("%d cells", n)
	if n == 1 {
		cellsText = "1 cell"
	}
	return fmt.Sprintf("%s, A/A (%s against itself, on a server of its own): the noise floor. Its intervals reach at most %.1f%% from 0 (%s) over %s; a variant's loss within its cell's A/A floor is not called significant.",
		cs[0].Target, baseline, widest, where, cellsText)
}

func variantConclusions(cs []*Cell, baseline string, order Order, floor func(*Cell) float64) []string {
	head := fmt.Sprintf("%s (%s), %s against %s:", cs[0].Target, cs[0].EngineVersion, cs[0].Variant, baseline)
	var sig, gain, ns, floored []*Cell
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
		out := []string{fmt.Sprintf("%s no loss can be computed (%s).", head, cs[0].LossReason)}
		if s := regimeNote(cs); s != "" {
			out = append(out, s)
		}
		return out
	}
	var out []string
	if len(sig) > 0 {
		sort.Slice(sig, func(i, j int) bool { return sig[i].Loss.Pct > sig[j].Loss.Pct })
		top := sig[0]
		span := fmt.Sprintf("%.1f%%", top.Loss.Pct)
		// two losses that print alike read as one figure
		if low := fmt.Sprintf("%.1f%%", sig[len(sig)-1].Loss.Pct); low != span {
			span = fmt.Sprintf("between %s and %s", low, span)
		}
		s := fmt.Sprintf("%s throughput is lower by %s in the %d of %d cells where the loss is significant; the largest loss is %.1f%% (95%% CI %.1f to %.1f) on %s.",
			head, span, len(sig), compared, top.Loss.Pct, top.Loss.Low, top.Loss.High, where(top))
		if len(ns) > 0 {
			s += fmt.Sprintf(" Not significant: %s.", list(ns))
		}
		if len(floored) > 0 {
			s += fmt.Sprintf(" Within the A/A noise floor of their cell: %s.", list(floored))
		}
		out = append(out, s)
	} else {
		lo, hi := pctRange(append(append(ns, gain...), floored...))
		out = append(out, fmt.Sprintf("%s no significant throughput loss in any of %d cells (point estimates %.1f%% to %.1f%%; each interval includes 0 or shows a gain).",
			head, compared, lo, hi))
	}
	if len(gain) > 0 {
		out = append(out, fmt.Sprintf("%s was significantly faster than %s in %s. Encryption only adds work, so this is drift or placement noise larger than the intervals capture; read neighbouring figures with the same caution.",
			cs[0].Variant, baseline, list(gain)))
	}
	if s := threadTrend(cs, order); s != "" {
		out = append(out, s)
	}
	if s := cpuChange(cs); s != "" {
		out = append(out, s)
	}
	if s := regimeNote(cs); s != "" {
		out = append(out, s)
	}
	return out
}

func list(cs []*Cell) string {
	var parts []string
	for _, c := range cs {
		parts = append(parts, where(c))
	}
	if len(parts) > 5 {
		parts = append(parts[:5], fmt.Sprintf("and %d more", len(parts)-5))
	}
	return strings.Join(parts, ", ")
}

func pctRange(cs []*Cell) (lo, hi float64) {
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
func threadTrend(cs []*Cell, order Order) string {
	var moves []string
	multi := false
	for _, w := range order.Workloads {
		var ws []*Cell
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
		verb := ""
		switch {
		case b.Loss.High < a.Loss.Low:
			verb = "falls"
		case b.Loss.Low > a.Loss.High:
			verb = "rises"
		default:
			continue
		}
		moves = append(moves, fmt.Sprintf("on %s it %s from %.1f%% at %s to %.1f%% at %s", w, verb, a.Loss.Pct, threadsText(a.Threads), b.Loss.Pct, threadsText(b.Threads)))
	}
	if !multi {
		return ""
	}
	if len(moves) == 0 {
		return "With more threads the loss does not change beyond its intervals in any workload."
	}
	return "With more threads the loss changes: " + strings.Join(moves, "; ") + "."
}

// cpuChange states what the variant adds per transaction, in CPU time,
// beside what that costs in throughput, at the most threads measured
// (closest to saturation), where the largest loss is; then how many cells
// show a server CPU increase beyond its interval.
func cpuChange(cs []*Cell) string {
	var top *Cell
	for _, c := range cs {
		if c.ServerUsAdded == nil && c.ClientUsAdded == nil {
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
		parts = append(parts, ciText(*d, 1, " us")+" of server CPU")
	}
	if d := top.ClientUsAdded; d != nil {
		parts = append(parts, ciText(*d, 1, " us")+" of encbench's own CPU")
	}
	s := fmt.Sprintf("Cost per transaction on %s: %s adds %s per transaction", where(top), top.Variant, strings.Join(parts, " and "))
	if l := top.Loss; l != nil {
		s += fmt.Sprintf(", which at this load costs %.1f%% of throughput (95%% CI %.1f to %.1f)", l.Pct, l.Low, l.High)
	}
	var added []float64
	up := 0
	for _, c := range cs {
		if d := c.ServerUsAdded; d != nil {
			added = append(added, d.Mean)
			if d.Significant && d.Mean > 0 {
				up++
			}
		}
	}
	if len(added) > 1 {
		m, lo, hi := medianRange(added)
		s += fmt.Sprintf(". Server CPU per transaction rises beyond its interval in %d of %d cells (median %+.1f us, %+.1f to %+.1f)", up, len(added), m, lo, hi)
	}
	return s + "."
}

func lossPct(c *Cell) float64 {
	if c.Loss == nil {
		return math.Inf(-1)
	}
	return c.Loss.Pct
}

// ciText is a difference with its unit (if any) and 95% interval, to
// digits decimals.
func ciText(d stats.Diff, digits int, unit string) string {
	f := "%+." + strconv.Itoa(digits) + "f"
	s := fmt.Sprintf(f+unit+" (95%% CI "+f+" to "+f, d.Mean, d.Low, d.High)
	if !d.Significant {
		s += ", not significant"
	}
	return s + ")"
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
func regimeNote(cs []*Cell) string {
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
		return fmt.Sprintf("The data set was %.0f%% of the buffer pool, so reads never left memory: these figures price TDE on writes (redo, page flushes), not on page reads. For an I/O-bound comparison run the tde suite.", 100*ratio)
	default:
		return fmt.Sprintf("The data set was %.1f times the buffer pool, so page reads decrypt, as in report R1.", ratio)
	}
}

func verification(cells []*Cell) []string {
	n, bad := 0, []string{}
	for _, c := range cells {
		for _, r := range c.Results {
			n++
			if !r.Variant.Verified.OK {
				bad = append(bad, fmt.Sprintf("%s %s r%d", c.Target, c.Variant, r.Repetition))
			}
		}
	}
	if len(bad) == 0 {
		how := "TLS per connection as the server saw it, TDE per table and, for sandboxes, by a marker absent from the raw files"
		for _, c := range cells {
			if len(c.Results) > 0 && c.Results[0].Variant.Verified.Colenc != nil {
				how += "; column encryption by reading stored values raw and decrypting them in the client"
				break
			}
		}
		return []string{fmt.Sprintf("All %d results proved their variant from the server's side: %s.", n, how)}
	}
	return []string{fmt.Sprintf("%d of %d results did not prove their variant (%s): their figures are not evidence for that variant.", len(bad), n, strings.Join(bad, ", "))}
}

// clientShare reports how much of the machine the client used at the
// highest thread count: on a small machine it competes with the server.
func clientShare(cells []*Cell) []string {
	maxT := 0
	for _, c := range cells {
		maxT = max(maxT, c.Threads)
	}
	var cli, mach []float64
	for _, c := range cells {
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
	s := fmt.Sprintf("At %s encbench itself used %.0f%% of the machine's CPU (median over cells)", threadsText(maxT), mc)
	if len(mach) > 0 {
		mm, _, _ := medianRange(mach)
		s += fmt.Sprintf(", with the whole machine %.0f%% busy", mm)
	}
	return []string{s + ": the client shares the machine with the server, so its cost is part of every figure here."}
}
