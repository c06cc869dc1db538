package suite

import (
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"slices"
)

// LoadLabel names a workload run at a fixed share of the baseline's
// saturation throughput, as reports group it.
func LoadLabel(workload string, pct int) string { return fmt.Sprintf("%s-load%d", workload, pct) }

func (s Suite) checkLoad() error {
	for _, p := range s.OfferedLoad {
		if p < 1 || p > 100 {
			return fmt.Errorf("%soffered_load %d: give shares of the baseline's saturation throughput in percent, 1 to 100, for example [50, 80]", s.at("$.offered_load"), p)
		}
	}
	return nil
}

// LoadBlocks adds the equal-offered-load blocks of group g: for every
// offered load, Repetitions blocks of all its variants at rate
// pct% x saturationTPS, each block in an order drawn from the seed. It
// returns the cells added.
func (p *Plan) LoadBlocks(g Group, saturationTPS float64) []Cell {
	i := slices.IndexFunc(p.Suite.Workloads, func(w Workload) bool { return w.ID() == g.Workload })
	if i < 0 || saturationTPS <= 0 {
		return nil
	}
	w := p.Suite.Workloads[i]
	var added []Cell
	for _, pct := range p.Suite.OfferedLoad {
		rate := saturationTPS * float64(pct) / 100
		for rep := 1; rep <= p.Suite.Repetitions; rep++ {
			block := p.block(w, g.Threads, rep, g.Target)
			label := LoadLabel(w.ID(), pct)
			for k := range block {
				c := &block[k]
				c.ID = fmt.Sprintf("%s__%s__t%d__r%d", c.Setup, label, c.Threads, rep)
				c.Label, c.LoadPct, c.Rate = label, pct, rate
			}
			if p.Seed != 0 {
				h := fnv.New64a()
				fmt.Fprint(h, g, pct)
				rng := rand.New(rand.NewPCG(p.Seed^h.Sum64(), uint64(rep)))
				rng.Shuffle(len(block), func(i, j int) { block[i], block[j] = block[j], block[i] })
			}
			added = append(added, block...)
		}
	}
	p.Cells = append(p.Cells, added...)
	return added
}

// HasLoad says whether the plan holds load blocks of closed-loop group g.
func (p *Plan) HasLoad(g Group) bool {
	return slices.ContainsFunc(p.Cells, func(c Cell) bool {
		return c.LoadPct > 0 && c.Target == g.Target && c.Threads == g.Threads && c.Label == LoadLabel(g.Workload, c.LoadPct)
	})
}
