package suiterun

import (
	"cmp"
	"maps"
	"slices"
	"time"

	"github.com/encbench/encbench/internal/result"
	"github.com/encbench/encbench/internal/stats"
	"github.com/encbench/encbench/internal/suite"
)

// want is a group short of the precision target.
type want struct {
	group suite.Group
	// variants are those whose interval is still too wide; a block of
	// the group runs them and the baseline.
	variants []string
	// width is the widest of their half-widths; blocks is how many
	// blocks the group's baseline has run.
	width  float64
	blocks int
}

// wanting is the precision rule: the groups whose widest half-width is
// above the target and that have fewer than the most blocks, widest first
// (fewer blocks first among equals). The next block goes to the widest,
// so a budget too short for every target narrows the worst interval of
// the report first instead of buying targets for the groups that are
// nearly there: a reader acts on the widest interval as much as on the
// others. A group without any interval yet (a failed cell) is left alone;
// fixed-rate groups set their throughput.
func wanting(p *suite.Plan, widths map[suite.Group]map[string]float64) []want {
	_, most := p.Suite.BlockBounds()
	var out []want
	for _, g := range p.Groups() {
		if g.LoadPct > 0 {
			continue
		}
		w := want{group: g, blocks: p.VariantBlocks(g, p.Baseline)}
		for _, v := range slices.Sorted(maps.Keys(widths[g])) {
			hw := widths[g][v]
			if hw <= p.Suite.Precision || p.VariantBlocks(g, v) >= most {
				continue
			}
			w.variants = append(w.variants, v)
			w.width = max(w.width, hw)
		}
		if len(w.variants) > 0 {
			out = append(out, w)
		}
	}
	slices.SortStableFunc(out, func(a, b want) int {
		if c := cmp.Compare(b.width, a.width); c != 0 {
			return c
		}
		return cmp.Compare(a.blocks, b.blocks)
	})
	return out
}

// pick is the group to get the next block: the first (widest) whose block
// fits in the budget; ok is false when none does.
func pick(ws []want, fits func(want) bool) (want, bool) {
	for _, w := range ws {
		if fits(w) {
			return w, true
		}
	}
	return want{}, false
}

// phaseShare is how far into the budget a phase's extra blocks may go:
// the later phases' own blocks are set aside (at the mean cell time so
// far), and the time that leaves is shared by this phase and the later
// ones in proportion to their groups, so the reads cannot spend on
// precision the time the writes need to run at all. It is the limit, measured from the
// suite's start, for a phase with groupsNow groups at elapsed, when
// laterCells cells of groupsLater groups must still run after it.
func phaseShare(budget, elapsed time.Duration, laterCells int, perCell time.Duration, groupsNow, groupsLater int) time.Duration {
	if budget <= 0 || groupsLater == 0 {
		return budget
	}
	spare := budget - elapsed - time.Duration(laterCells)*perCell
	if spare <= 0 {
		return max(elapsed, time.Nanosecond) // no block fits
	}
	return elapsed + spare*time.Duration(groupsNow)/time.Duration(groupsNow+groupsLater)
}

// fits is the budget rule: a block of n cells starts only if, at the mean
// cell time so far, it ends within the budget (0: no budget).
func fits(elapsed time.Duration, n int, perCell, budget time.Duration) bool {
	return budget <= 0 || elapsed+time.Duration(n)*perCell <= budget
}

// halfWidths is each variant's loss half-width so far, per group, from
// the results so far: paired per block as the report pairs them.
func halfWidths(plan *suite.Plan, resultOf func(suite.Cell) *result.Result) map[suite.Group]map[string]float64 {
	type runs struct {
		reps []int
		tps  []float64
		// parts are an anatomy's block means, by part, with their blocks.
		parts map[string]*partRuns
	}
	byGroup := map[suite.Group]map[string]*runs{}
	for _, c := range plan.Cells {
		r := resultOf(c)
		if r == nil || c.LoadPct > 0 || c.Rate > 0 {
			continue
		}
		g := c.Group()
		if byGroup[g] == nil {
			byGroup[g] = map[string]*runs{}
		}
		rs := byGroup[g][c.Variant]
		if rs == nil {
			rs = &runs{parts: map[string]*partRuns{}}
			byGroup[g][c.Variant] = rs
		}
		rs.reps, rs.tps = append(rs.reps, r.Repetition), append(rs.tps, r.TPS)
		if anatomy(r) {
			for name, part := range r.Parts {
				pr := rs.parts[name]
				if pr == nil {
					pr = &partRuns{}
					rs.parts[name] = pr
				}
				pr.reps, pr.means = append(pr.reps, r.Repetition), append(pr.means, part.Mean)
			}
		}
	}
	out := map[suite.Group]map[string]float64{}
	for g, variants := range byGroup {
		base := variants[plan.Baseline]
		if base == nil {
			continue
		}
		for v, rs := range variants {
			if v == plan.Baseline {
				continue
			}
			l, err := stats.LossByRepetition(base.reps, base.tps, rs.reps, rs.tps)
			if err != nil {
				continue
			}
			if out[g] == nil {
				out[g] = map[string]float64{}
			}
			// A connection anatomy's parts count too, as each part's time
			// against the baseline's, paired by block like the loss.
			out[g][v] = max(l.HalfWidth(), partsWidth(base.parts, rs.parts))
		}
	}
	return out
}

// meanCellTime is the mean wall time of the cells measured so far, or,
// before any, a cell's own time, warmup and two seconds of set-up.
func meanCellTime(times []time.Duration, st suite.Suite) time.Duration {
	if len(times) == 0 {
		return time.Duration(st.Time+st.Warmup+2) * time.Second
	}
	var sum time.Duration
	for _, d := range times {
		sum += d
	}
	return sum / time.Duration(len(times))
}

// baselineTPS is the baseline's mean TPS per closed-loop group so far.
func baselineTPS(plan *suite.Plan, resultOf func(suite.Cell) *result.Result) map[suite.Group]float64 {
	sum, n := map[suite.Group]float64{}, map[suite.Group]int{}
	for _, c := range plan.Cells {
		if c.Variant != plan.Baseline || c.LoadPct > 0 {
			continue
		}
		if r := resultOf(c); r != nil {
			sum[c.Group()] += r.TPS
			n[c.Group()]++
		}
	}
	out := map[suite.Group]float64{}
	for g, s := range sum {
		out[g] = s / float64(n[g])
	}
	return out
}

// anatomy says whether a result times the parts of a connection (its
// workload gives parts roles: connect, handshake, ...); other workloads'
// parts (TPC-C's transaction types) are not held to the precision target.
func anatomy(r *result.Result) bool {
	return slices.ContainsFunc(r.Workload.Parts, func(p result.Part) bool { return p.Role != "" })
}

// partRuns are one part's block means and the blocks they came from.
type partRuns struct {
	reps  []int
	means []float64
}

// partsWidth is the widest 95% half-width, in percent of the baseline's
// time, of a variant's part times against the baseline's, paired by
// block: on a shared machine a part's own mean drifts by 10-20% from
// block to block, while its ratio to the baseline, measured in the same
// block, is what the anatomy reports. 0 without two paired blocks.
func partsWidth(base, variant map[string]*partRuns) float64 {
	w := 0.0
	for name, v := range variant {
		b := base[name]
		if b == nil {
			continue
		}
		l, err := stats.LossByRepetition(b.reps, b.means, v.reps, v.means)
		if err != nil {
			continue
		}
		// In percent of the ratio itself: a TLS connect takes 5 to 10
		// times plain's, and ±3 points of plain's time would ask a
		// 5.5x ratio for ±0.5% of itself.
		if ratio := 1 - l.Pct/100; ratio > 0 {
			w = max(w, l.HalfWidth()/ratio)
		}
	}
	return w
}
