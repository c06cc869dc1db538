package suiterun

import (
	"slices"
	"testing"
	"time"

	"github.com/encbench/encbench/internal/suite"
)

const interleavedText = `name: il
targets: [{engine: postgres}, {engine: mariadb}]
variants: [plain, tls, aa]
workloads: [{name: oltp_point_select}, {name: oltp_write_only}]
threads: [1, 8]
time: 2
warmup: 0
turn: 250ms
repetitions: 2
offered_load: [50]
data: {tables: 1, table-size: 100}
`

func interleavedPlan(t *testing.T, seed uint64) *Executor {
	t.Helper()
	o := suite.NoOverrides()
	o.Seed = seed
	return planOf(t, interleavedText, o)
}

// A block is every target's cells of one workload, thread count and
// repetition: they interleave together, in the plan's (seeded) order.
func TestBlocksOfAnInterleavedPlan(t *testing.T) {
	x := interleavedPlan(t, 42)
	blocks := suite.Blocks(x.Plan.Cells)
	// 2 workloads x 2 thread counts x 2 repetitions.
	if len(blocks) != 8 {
		t.Fatalf("%d blocks, want 8", len(blocks))
	}
	for _, b := range blocks {
		if len(b) != 6 || !x.meas.interleaves(b) {
			t.Fatalf("block of %d cells (interleaves %v), want 6 interleaved: %v", len(b), x.meas.interleaves(b), b)
		}
		targets := map[string]int{}
		for _, c := range b {
			targets[c.Target]++
			if c.Block() != b[0].Block() {
				t.Fatalf("block mixes %v and %v", c.Block(), b[0].Block())
			}
		}
		if targets["postgres"] != 3 || targets["mariadb"] != 3 {
			t.Fatalf("block holds %v, want both targets' three variants", targets)
		}
	}
	// The order within a block comes from the seed: the same seed gives
	// the same order, and some other seed a different one.
	same := suite.Blocks(interleavedPlan(t, 42).Plan.Cells)
	differs := false
	for seed := uint64(1); seed < 6 && !differs; seed++ {
		other := suite.Blocks(interleavedPlan(t, seed).Plan.Cells)
		differs = !slices.Equal(ids(other[0]), ids(blocks[0]))
	}
	if !slices.Equal(ids(same[0]), ids(blocks[0])) || !differs {
		t.Errorf("block order is not reproducible from its seed, or not drawn from it: %v / %v", ids(same[0]), ids(blocks[0]))
	}
}

func ids(cs []suite.Cell) []string {
	var out []string
	for _, c := range cs {
		out = append(out, c.ID)
	}
	return out
}

// Fixed-rate cells and single cells run one after another; a suite
// with turn: off never interleaves, and one without turn does (auto).
func TestWhatInterleaves(t *testing.T) {
	x := interleavedPlan(t, 0)
	b := suite.Blocks(x.Plan.Cells)[0]
	if x.meas.interleaves(b[:1]) {
		t.Error("a block of one cell interleaves")
	}
	load := slices.Clone(b)
	for i := range load {
		load[i].LoadPct, load[i].Rate = 50, 1000
	}
	if x.meas.interleaves(load) {
		t.Error("fixed-rate cells interleave")
	}
	x.Plan.Suite.Turn = "off"
	if x.meas.interleaves(b) {
		t.Error("a suite with turn: off interleaves")
	}
	x.Plan.Suite.Turn = ""
	if !x.meas.interleaves(b) {
		t.Error("a suite without turn does not interleave (auto)")
	}
}

// A resumed interleaved suite runs every cell of a block that is not
// finished: its cells are measured together.
func TestWholeBlocksOnResume(t *testing.T) {
	x := interleavedPlan(t, 7)
	blocks := suite.Blocks(x.Plan.Cells)
	pending := []suite.Cell{blocks[1][2], blocks[3][0], blocks[3][5]}
	got := x.wholeBlocks(pending)
	want := append(slices.Clone(blocks[1]), blocks[3]...)
	if !slices.Equal(ids(got), ids(want)) {
		t.Errorf("pending %v widened to %v, want blocks 1 and 3 whole", ids(pending), ids(got))
	}
	x.Plan.Suite.Turn = "off"
	if got := x.wholeBlocks(pending); !slices.Equal(ids(got), ids(pending)) {
		t.Errorf("a suite that does not interleave widened its pending cells to %v", ids(got))
	}
}

// A restarted server gets a second of warm-up, shared among the block's
// cells on it; cells on servers that kept their instance get none.
func TestColdWarmupIsASecondPerRestartedServer(t *testing.T) {
	members := []*member{{server: "mariadb-plain"}, {server: "postgres-plain"}, {server: "mariadb-plain"}, {server: "mariadb-tde"}, {server: "mariadb-plain"}, {server: "postgres-plain"}}
	got := coldWarmup(members, map[string]bool{"mariadb-plain": true, "mariadb-tde": true})
	third := time.Second / 3
	if want := []time.Duration{third, 0, third, time.Second, third, 0}; !slices.Equal(got, want) {
		t.Errorf("cold warm-up %v, want %v", got, want)
	}
	if got := coldWarmup(members, nil); slices.ContainsFunc(got, func(d time.Duration) bool { return d != 0 }) {
		t.Errorf("no server restarted, yet warm-up %v", got)
	}
}
