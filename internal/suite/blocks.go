package suite

// Block names a block: one repetition of one workload (or its load label)
// at one thread count and offered load. Its cells are every target's and
// variant's, measured together (interleaved) and compared within their
// target.
type Block struct {
	Workload   string
	Threads    int
	Repetition int
	LoadPct    int
}

// Block is the block the cell belongs to.
func (c Cell) Block() Block {
	return Block{Workload: c.WorkloadID(), Threads: c.Threads, Repetition: c.Repetition, LoadPct: c.LoadPct}
}

// Blocks splits cells, in plan order, into their blocks.
func Blocks(cells []Cell) [][]Cell {
	var out [][]Cell
	for i, c := range cells {
		if i == 0 || c.Block() != cells[i-1].Block() {
			out = append(out, nil)
		}
		out[len(out)-1] = append(out[len(out)-1], c)
	}
	return out
}

// WholeBlocks is every cell of the plan's blocks that hold a pending
// cell, in plan order: an interleaved block's cells are measured
// together, so a resumed block runs all of them again.
func (p *Plan) WholeBlocks(pending []Cell) []Cell {
	want := map[Block]bool{}
	for _, c := range pending {
		want[c.Block()] = true
	}
	var out []Cell
	for _, c := range p.Cells {
		if want[c.Block()] {
			out = append(out, c)
		}
	}
	return out
}
