package suite

import (
	"strings"
	"testing"
)

// readOnlyTable stands in for the workload catalogue: which workloads
// leave the tables as they found them, where oltp_read_write with its
// writes set to 0 is read-only as sysbench's script makes it (suiterun's
// tests check the real workloads).
type readOnlyTable map[string]bool

func (r readOnlyTable) Entry(name string, options map[string]string) (Entry, error) {
	ro := r[name] || name == "oltp_read_write" && options["index-updates"] == "0" && options["non-index-updates"] == "0" && options["delete-inserts"] == "0"
	return Entry{Has: func(string) bool { return true }, ReadOnly: func() (bool, error) { return ro, nil }}, nil
}

const phasedSuite = `name: x
targets: [{engine: postgres}]
variants: [plain, tls]
workloads:
  - name: enc_point_select
  - name: enc_write_mix
  - name: enc_range_sum
  - name: oltp_read_write
    label: rw_reads_only
    options: {index-updates: 0, non-index-updates: 0, delete-inserts: 0}
threads: [1, 8]
time: 1
warmup: 0
repetitions: 3
`

func phasedPlan(t *testing.T, text string) *Plan {
	t.Helper()
	s, err := Parse([]byte(text))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.MarkReadOnly(readOnlyTable{"enc_point_select": true, "enc_range_sum": true, "oltp_read_write": false}); err != nil {
		t.Fatal(err)
	}
	return seededPlan(t, s)
}

// seededPlan expands a suite as written, in an order drawn from seed 7.
func seededPlan(t *testing.T, s *Suite) *Plan {
	t.Helper()
	o := NoOverrides()
	o.Seed = 7
	p, err := Expand(*s, o, nil)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// Reads first: every read cell of every repetition before the first
// write cell; within each phase repetitions stay outermost.
func TestReadsRunBeforeWrites(t *testing.T) {
	p := phasedPlan(t, phasedSuite)
	firstWrite := -1
	for i, c := range p.Cells {
		writes := c.Workload == "enc_write_mix"
		if p.Writes(c.Group()) != writes {
			t.Fatalf("cell %s: Writes says %v", c.ID, !writes)
		}
		if writes && firstWrite < 0 {
			firstWrite = i
		}
		if !writes && firstWrite >= 0 {
			t.Fatalf("read cell %s runs after write cell %s", c.ID, p.Cells[firstWrite].ID)
		}
		if i > 0 && p.Writes(p.Cells[i-1].Group()) == writes && c.Repetition < p.Cells[i-1].Repetition {
			t.Fatalf("repetition %d after %d within a phase (%s)", c.Repetition, p.Cells[i-1].Repetition, c.ID)
		}
	}
	if firstWrite != 3*3*2*2 {
		t.Errorf("first write at cell %d, want after the 36 read cells", firstWrite)
	}
	if got := p.Instance(p.Cells[firstWrite]); got <= p.Instance(p.Cells[firstWrite-1]) {
		t.Errorf("the writing phase's first repetition is instance %d, not after the reads' %d", got, p.Instance(p.Cells[firstWrite-1]))
	}
	if len(p.Phases()) != 2 {
		t.Errorf("phases %v", p.Phases())
	}
	// Extra blocks keep their phase.
	g := p.Cells[firstWrite].Group()
	for _, c := range p.NextBlock(g) {
		if !p.Writes(c.Group()) {
			t.Errorf("extra block cell %s left its phase", c.ID)
		}
	}
}

// As listed: repetitions outermost across all workloads, one phase.
func TestAsListedKeepsTheSuiteOrder(t *testing.T) {
	p := phasedPlan(t, phasedSuite+"order: as-listed\n")
	if len(p.Phases()) != 1 {
		t.Fatalf("phases %v", p.Phases())
	}
	for i := 1; i < len(p.Cells); i++ {
		if p.Cells[i].Repetition < p.Cells[i-1].Repetition {
			t.Fatalf("repetition %d after %d", p.Cells[i].Repetition, p.Cells[i-1].Repetition)
		}
		if p.Writes(p.Cells[i].Group()) {
			t.Fatalf("as-listed has no writing phase, %s is in one", p.Cells[i].ID)
		}
	}
	if p.Cells[len(p.Cells)-1].Workload == "enc_write_mix" {
		t.Error("the last cell is a write: the order was changed")
	}
}

func TestOrderIsChecked(t *testing.T) {
	_, err := Parse([]byte(phasedSuite + "order: writes-first\n"))
	if err == nil || !strings.Contains(err.Error(), "reads-first") {
		t.Fatalf("want the allowed orders, got %v", err)
	}
}
