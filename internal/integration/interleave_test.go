package integration

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/encbench/encbench/internal/report"
	"github.com/encbench/encbench/internal/result"
	"github.com/encbench/encbench/internal/schematest"
	"github.com/encbench/encbench/internal/suite"
)

// TestInterleavedBlocks runs a suite whose blocks interleave: both
// engines' variants connect at once and take 100 ms turns. Every result
// must cover its own turns only, say how its block was interleaved, prove
// its variant from the server, and pair with its baseline in the report;
// a block that wrote lets its servers settle before the next, and every
// repetition runs on new server instances (restart: repetition).
func TestInterleavedBlocks(t *testing.T) {
	servers(t)
	out, rec := runSuiteFile(t, "interleave", `name: interleave
targets: [{engine: postgres}, {engine: mariadb}]
variants: [plain, tls, aa]
workloads: [{name: oltp_read_write}]
threads: [2]
time: 1
warmup: 0
turn: 100ms
repetitions: 2
precision: 0
restart: repetition
data: {tables: 1, table-size: 1000}
`, "--seed", "3")
	if len(rec.Cells) != 12 {
		t.Fatalf("plan has %d cells, want 2 targets x 3 variants x 2 blocks", len(rec.Cells))
	}
	resultSchema := schematest.Compile(t, "result.schema.json")
	positions := map[int][]int{}
	pids := map[string][]int{} // server pid per setup, block by block
	for _, c := range rec.Cells {
		path := suite.Dir(out).Cell(c.ID)
		schematest.File(t, resultSchema, path)
		r, err := result.ReadFile(path)
		if err != nil {
			t.Fatalf("cell %s: %v", c.ID, err)
		}
		il := r.Suite.Interleaved
		if il == nil {
			t.Fatalf("cell %s does not say its block was interleaved", c.ID)
		}
		// Block 2 follows a restart: each cold server (one per cell
		// here) gets a second of warm-up. A block run again after a
		// disturbed attempt meets them warm.
		cold := map[int]float64{1: 0, 2: 1000}[c.Repetition]
		if len(r.Suite.Discarded) > 0 {
			cold = 0
		}
		if il.TurnMs != 100 || il.Rounds != 10 || il.WarmupRounds != 1 || il.ColdWarmupMs != cold || len(il.Order) != 6 || il.Order[il.Position] != c.Variant {
			t.Errorf("cell %s: interleaving %+v", c.ID, il)
		}
		pids[c.Setup] = append(pids[c.Setup], r.CPU.ServerPID)
		positions[c.Repetition] = append(positions[c.Repetition], il.Position)
		// Its own ten turns of 100 ms, plus each turn's last transactions.
		if r.DurationS < 1.0 || r.DurationS > 1.5 || len(r.Intervals) != 10 {
			t.Errorf("cell %s measured %.3f s in %d intervals, want 10 turns of about 100 ms", c.ID, r.DurationS, len(r.Intervals))
		}
		if !r.Variant.Verified.OK || r.Totals.Transactions == 0 || r.CPU.ServerS == nil {
			t.Errorf("cell %s: verified %v, %d transactions, server CPU %v", c.ID, r.Variant.Verified.OK, r.Totals.Transactions, r.CPU.ServerS)
		}
		tlsOn := r.Variant.Verified.TLS.TLSConnections == r.Variant.Verified.TLS.Connections && r.Variant.Verified.TLS.Connections == 2
		if (c.Variant == "tls") != tlsOn {
			t.Errorf("cell %s (%s): the server saw %d of %d connections encrypted", c.ID, c.Variant, r.Variant.Verified.TLS.TLSConnections, r.Variant.Verified.TLS.Connections)
		}
	}
	for rep, ps := range positions {
		slices.Sort(ps)
		if !slices.Equal(ps, []int{0, 1, 2, 3, 4, 5}) {
			t.Errorf("block %d has positions %v, want each of 0-5 once", rep, ps)
		}
	}
	// restart: repetition gave every block a new server instance.
	for setup, ps := range pids {
		if len(ps) != 2 || ps[0] == 0 || ps[0] == ps[1] {
			t.Errorf("%s ran on server pids %v, want a new instance for block 2", setup, ps)
		}
	}
	// Each block wrote, so its servers settled before the next block.
	logs, _ := filepath.Glob(filepath.Join(out, "logs", "*__r1.log"))
	settled := false
	for _, l := range logs {
		b, _ := os.ReadFile(l)
		settled = settled || strings.Contains(string(b), "quiet: the block's servers wrote their deferred work and settled")
	}
	if !settled {
		t.Error("no log of the first block shows its servers settling")
	}
	var a report.Analysis
	readJSON(t, filepath.Join(out, report.AnalysisFile), &a)
	losses := 0
	for _, c := range a.Rows {
		if c.Variant != "plain" && c.Loss != nil && c.Loss.Paired {
			losses++
		}
	}
	if losses != 4 {
		t.Errorf("%d paired loss intervals over 2 blocks, want tls and aa on both targets", losses)
	}
	md, _ := os.ReadFile(filepath.Join(out, "report.md"))
	if !strings.Contains(string(md), "take turns of 100 ms") {
		t.Error("the report's method does not describe the interleaving")
	}
}
