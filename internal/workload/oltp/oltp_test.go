package oltp

import (
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/encbench/encbench/internal/randgen"
)

func testOptions() Options {
	return Options{Tables: 1, TableSize: 1000, AutoInc: true, Rand: randgen.Defaults()}
}

func TestAppendRowMatchesSysbenchFormat(t *testing.T) {
	src := randgen.New(randgen.Options{Type: "uniform", SpecIter: 12, SpecRes: 75, SpecPct: 1, ParetoH: 0.2, Seed: 7}, 1)
	row := regexp.MustCompile(`^\(([0-9]+), '([0-9]{11}(?:-[0-9]{11}){9})', '([0-9]{11}(?:-[0-9]{11}){4})'\)$`)
	o := testOptions()
	for i := 1; i <= 500; i++ {
		buf, _, _ := appendRow(nil, nil, nil, src, o, i)
		m := row.FindStringSubmatch(string(buf))
		if m == nil {
			t.Fatalf("row %q does not match sysbench's (k, c, pad) format", buf)
		}
		k, _ := strconv.Atoi(m[1])
		if k < 1 || k > o.TableSize {
			t.Fatalf("k=%d outside 1..%d", k, o.TableSize)
		}
		if len(m[2]) != 119 || len(m[3]) != 59 {
			t.Fatalf("c has %d chars (want 119), pad %d (want 59)", len(m[2]), len(m[3]))
		}
	}
}

func TestAppendRowWithClientIDs(t *testing.T) {
	src := randgen.New(randgen.Defaults(), 1)
	o := testOptions()
	o.AutoInc = false
	buf, _, _ := appendRow(nil, nil, nil, src, o, 42)
	if !strings.HasPrefix(string(buf), "(42, ") {
		t.Fatalf("row %q should start with the client id", buf)
	}
}

func TestUniqueSequenceNeverRepeats(t *testing.T) {
	u := newUniqueSeq(12345, 678)
	seen := make(map[uint32]bool, 200000)
	for i := 0; i < 200000; i++ {
		v := u.next()
		if seen[v] {
			t.Fatalf("value %d repeated after %d draws", v, i)
		}
		seen[v] = true
	}
}

func TestPointSelectUsesOneStatementPerEvent(t *testing.T) {
	o := testOptions()
	o.PointSelects = 10
	w, err := Family{}.New("oltp_point_select", &o)
	if err != nil {
		t.Fatal(err)
	}
	if got := w.(*Workload).opts.PointSelects; got != 1 {
		t.Fatalf("oltp_point_select runs %d point selects per event, sysbench runs 1", got)
	}
}

func TestValidateRejectsBadOptions(t *testing.T) {
	cases := map[string]func(*Options){
		"tables":     func(o *Options) { o.Tables = 0 },
		"range size": func(o *Options) { o.RangeSize = 0 },
		"rand type":  func(o *Options) { o.Rand.Type = "normal" },
		"negative":   func(o *Options) { o.PointSelects = -1 },
	}
	for name, mutate := range cases {
		o := testOptions()
		o.RangeSize = 100
		mutate(&o)
		w := &Workload{name: "oltp_read_write", opts: o}
		if err := w.Validate(1); err == nil {
			t.Errorf("%s: Validate accepted a bad value", name)
		}
	}
	o := testOptions()
	o.RangeSize, o.Tables, o.RandomPoints, o.NumberOfRanges = 100, 2, 10, 10
	if err := (&Workload{name: "select_random_points", opts: o}).Validate(1); err == nil {
		t.Error("select_random_points accepted --tables=2; sysbench refuses it")
	}
}

func TestEveryScriptIsDescribed(t *testing.T) {
	for name := range scriptStmts {
		if _, ok := descriptions[name]; !ok {
			t.Errorf("%s has statements but no description", name)
		}
	}
	if len(descriptions) != 10 {
		t.Errorf("expected sysbench's 10 OLTP scripts, have %d", len(descriptions))
	}
}
