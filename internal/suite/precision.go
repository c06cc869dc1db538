package suite

import (
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/encbench/encbench/internal/locale"
)

// TurnDuration is how long each variant of an interleaved block runs at
// a time; 0: blocks are not interleaved.
func (s Suite) TurnDuration() time.Duration {
	d, _ := time.ParseDuration(s.Turn)
	return d
}

// TurnAuto says the suite leaves the turn's length to the warm-up.
func (s Suite) TurnAuto() bool { return s.Turn == "" || s.Turn == TurnAutoKey }

// Interleaved says whether blocks run their variants in turns.
func (s Suite) Interleaved() bool { return s.Turn != TurnOff }

// AutoTxnsPerTurn is how many transactions per worker of a block's
// slowest variant an auto turn holds (see suiterun's chooseTurn).
const AutoTxnsPerTurn = 10

// The turn: key's words: auto (the default), off (no turns).
const (
	TurnAutoKey = "auto"
	TurnOff     = "off"
)

// BudgetDuration is the suite's wall-time budget; 0 means none.
func (s Suite) BudgetDuration() time.Duration {
	d, _ := time.ParseDuration(s.Budget)
	return d
}

// SmallestBlocks is how many blocks of each cell the smallest plan has:
// two, the fewest that give a loss its interval (one, for a suite that
// asks for one repetition).
func (s Suite) SmallestBlocks() int { return min(2, max(s.Repetitions, 1)) }

// BlockBounds are the least and most blocks of a cell: at least Repetitions, and with a
// precision target at most MaxRepetitions (default 30).
func (s Suite) BlockBounds() (least, most int) {
	most = s.MaxRepetitions
	if s.Precision <= 0 {
		most = s.Repetitions
	} else if most == 0 {
		most = 30
	}
	return s.Repetitions, max(most, s.Repetitions)
}

func (s Suite) checkPrecision() error {
	if s.Precision < 0 || s.Precision > 100 {
		return fmt.Errorf("%sprecision %v: give the target half-width of a loss interval in percentage points, for example 5", s.at("$.precision"), s.Precision)
	}
	if s.Budget != "" {
		if d, err := time.ParseDuration(s.Budget); err != nil || d <= 0 {
			return fmt.Errorf("%sbudget %q: give a duration such as 10m or 1h30m", s.at("$.budget"), s.Budget)
		}
	}
	if !s.TurnAuto() && s.Turn != TurnOff {
		d, err := time.ParseDuration(s.Turn)
		if err != nil || d < 20*time.Millisecond || d > time.Duration(s.Time)*time.Second {
			return fmt.Errorf("%sturn %q: give auto (the default: chosen from the warm-up's latency), off (variants one after the other) or a duration from 20ms up to the cell's time (%ds), such as 250ms", s.at("$.turn"), s.Turn, s.Time)
		}
	}
	if s.Restart != "" && s.Restart != "repetition" {
		return fmt.Errorf("%srestart %q: give repetition (restart the sandbox servers before each repetition) or leave it out", s.at("$.restart"), s.Restart)
	}
	if s.MaxRepetitions < 0 {
		return fmt.Errorf("%smax_repetitions must not be negative", s.at("$.max_repetitions"))
	}
	if d := s.Disturbance; d != nil && (d.ForeignPct <= 0 || d.StealPct <= 0 || d.StallPct < 0 || d.StallPct >= 100 || d.Reruns < 0) {
		return fmt.Errorf("%sdisturbance: foreign_pct and steal_pct must be above 0, stall_pct from 0 (the default, 25) to under 100, reruns at least 0", s.at("$.disturbance"))
	}
	return nil
}

// Group is one workload at one thread count on one target: the cells whose
// variants are compared with each other, block by block.
type Group struct {
	Target   string `json:"target"`
	Workload string `json:"workload"`
	Threads  int    `json:"threads"`
	// LoadPct is set for a group run at a fixed share of the baseline's
	// saturation throughput (its Workload is then the load label).
	LoadPct int `json:"load_pct,omitempty"`
}

func (g Group) String() string {
	return fmt.Sprintf("%s %s at %s", g.Target, g.Workload, locale.Threads(g.Threads))
}

// Group is the cell's group.
func (c Cell) Group() Group {
	return Group{Target: c.Target, Workload: c.WorkloadID(), Threads: c.Threads, LoadPct: c.LoadPct}
}

// Groups lists the plan's groups in run order.
func (p *Plan) Groups() []Group {
	var out []Group
	for _, c := range p.Cells {
		if g := c.Group(); !slices.Contains(out, g) {
			out = append(out, g)
		}
	}
	return out
}

// Repetitions is how many blocks of a group the plan holds.
func (p *Plan) Repetitions(g Group) int {
	n := 0
	for _, c := range p.Cells {
		if c.Group() == g {
			n = max(n, c.Repetition)
		}
	}
	return n
}

// BlockSize is how many cells a block of g holds.
func (p *Plan) BlockSize(g Group) int {
	i := slices.IndexFunc(p.Suite.Workloads, func(w Workload) bool { return w.ID() == g.Workload })
	if i < 0 {
		return 0
	}
	return len(p.block(p.Suite.Workloads[i], g.Threads, 0, g.Target))
}

// VariantBlocks is how many blocks of g ran variant.
func (p *Plan) VariantBlocks(g Group, variant string) int {
	n := 0
	for _, c := range p.Cells {
		if c.Group() == g && c.Variant == variant {
			n++
		}
	}
	return n
}

// NextBlock adds one more block of g to the plan and returns it: the
// baseline and the given variants (all, when none are given), in an order
// drawn from the plan's seed, the group and the repetition. A variant
// whose interval is narrow enough need not run again: its blocks still
// pair with the baseline's of the same repetition.
func (p *Plan) NextBlock(g Group, variants ...string) []Cell {
	i := slices.IndexFunc(p.Suite.Workloads, func(w Workload) bool { return w.ID() == g.Workload })
	if i < 0 {
		return nil
	}
	rep := p.Repetitions(g) + 1
	block := p.block(p.Suite.Workloads[i], g.Threads, rep, g.Target)
	if len(variants) > 0 {
		block = slices.DeleteFunc(block, func(c Cell) bool {
			return c.Variant != p.Baseline && !slices.Contains(variants, c.Variant)
		})
	}
	if p.Seed != 0 {
		h := fnv.New64a()
		fmt.Fprint(h, g)
		rng := rand.New(rand.NewPCG(p.Seed^h.Sum64(), uint64(rep)))
		rng.Shuffle(len(block), func(i, j int) { block[i], block[j] = block[j], block[i] })
	}
	p.Cells = append(p.Cells, block...)
	p.Extra++
	return block
}

// Keep adds the blocks an earlier run of this suite added past its
// repetitions (from its plan.json), so a resumed suite runs them too.
func (p *Plan) Keep(earlier []Cell) {
	have := map[string]bool{}
	for _, c := range p.Cells {
		have[c.ID] = true
	}
	setups := map[string]bool{}
	for _, su := range p.Setups {
		setups[su.ID] = true
	}
	blocks := map[string]bool{}
	for _, c := range earlier {
		if have[c.ID] || !setups[c.Setup] || (c.Repetition <= p.Suite.Repetitions && c.LoadPct == 0) {
			continue
		}
		p.Cells = append(p.Cells, c)
		have[c.ID] = true
		if c.LoadPct == 0 {
			blocks[fmt.Sprint(c.Group(), c.Repetition)] = true
		}
	}
	p.Extra += len(blocks)
}
