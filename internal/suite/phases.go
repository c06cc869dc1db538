package suite

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
)

// Orders of a suite's blocks (Suite.Order).
const (
	// OrderReadsFirst runs every repetition of the read-only workloads
	// before any workload that writes, so each read block meets the data
	// as prepared, as sysbench users run oltp_read_only before
	// oltp_read_write. A write mix that deletes and reinserts rows
	// scatters them (and an encrypted table's identifier runs with them),
	// and the reads measured after it would depend on their place in the
	// plan rather than on the variant.
	OrderReadsFirst = "reads-first"
	// OrderAsListed keeps the workloads in the order the suite lists
	// them, repetitions outermost: the reads of repetition 2 on run on
	// tables the writers of repetition 1 changed, a steady state for a
	// team whose tables are mostly rewritten.
	OrderAsListed = "as-listed"
)

func (s Suite) checkOrder() error {
	switch s.Order {
	case "", OrderReadsFirst, OrderAsListed:
		return nil
	}
	return fmt.Errorf("%sorder %q: give %s (read-only workloads first, on the data as prepared) or %s (repetitions outermost, reads after writes)",
		s.at("$.order"), s.Order, OrderReadsFirst, OrderAsListed)
}

// MarkReadOnly records which workloads leave the tables as they found
// them, with the suite's options, from the workloads' own capabilities.
func (s *Suite) MarkReadOnly(cat Catalogue) error {
	for i := range s.Workloads {
		e, err := s.entry(cat, i)
		if err != nil {
			return err
		}
		if s.Workloads[i].ReadOnly, err = e.ReadOnly(); err != nil {
			return fmt.Errorf("%sworkload %s: %v", s.at(fmt.Sprintf("$.workloads[%d]", i)), s.Workloads[i].ID(), err)
		}
	}
	return nil
}

// phased says whether the plan runs its reads in a phase of their own.
func (p *Plan) phased() bool { return p.Suite.Order != OrderAsListed }

// Writes says whether a group belongs to the writing phase: its workload
// writes and the plan runs reads first. A plan in listed order has one
// phase, the reads' (false).
func (p *Plan) Writes(g Group) bool {
	if !p.phased() {
		return false
	}
	id := g.Workload
	if g.LoadPct > 0 {
		id = strings.TrimSuffix(id, LoadLabel("", g.LoadPct))
	}
	i := slices.IndexFunc(p.Suite.Workloads, func(w Workload) bool { return w.ID() == id })
	return i >= 0 && !p.Suite.Workloads[i].ReadOnly
}

// Instance is a block's place in the run for restart: repetition rep of
// its phase, phases in run order.
func (p *Plan) Instance(c Cell) int {
	if p.Writes(c.Group()) {
		return 1<<20 + c.Repetition
	}
	return c.Repetition
}

// Phases are the plan's phases in run order: reads, then writes, or the
// one phase of a plan in listed order.
func (p *Plan) Phases() []bool {
	if !p.phased() {
		return []bool{false}
	}
	return []bool{false, true}
}

// orderPhases moves every read-only cell before the first writing one,
// keeping each phase's order (repetitions outermost within it).
func (p *Plan) orderPhases() {
	slices.SortStableFunc(p.Cells, func(a, b Cell) int {
		return cmp.Compare(b2i(p.Writes(a.Group())), b2i(p.Writes(b.Group())))
	})
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
