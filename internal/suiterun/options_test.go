package suiterun

import (
	"strings"
	"testing"

	"github.com/encbench/encbench/internal/suite"
	"github.com/encbench/encbench/internal/workload"
	_ "github.com/encbench/encbench/internal/workload/connect"
	_ "github.com/encbench/encbench/internal/workload/oltp"
	_ "github.com/encbench/encbench/internal/workload/tpcc"
	_ "github.com/encbench/encbench/internal/workload/ycsb"
)

const optionsSuite = `name: x
targets:
  - engine: postgres
variants: [plain, tls]
workloads:
  - name: oltp_point_select
    options: {range-size: 10}
  - name: tpcc
    label: tpcc_rc
    options:
      isolation: read-committed
      %s
threads: [1]
time: 1
warmup: 0
repetitions: 1
data: {tables: 2, table_size: 1000, warehouses: 1}
`

func TestCheckOptionsNamesLineOfAForeignOption(t *testing.T) {
	bad := strings.Replace(optionsSuite, "%s", "recordcount: 5", 1)
	s, err := suite.Parse([]byte(bad))
	if err != nil {
		t.Fatal(err)
	}
	err = s.CheckOptions(Catalogue(workload.Default()))
	if err == nil || !strings.Contains(err.Error(), "line 12: --recordcount does not apply to tpcc") {
		t.Fatalf("foreign option: %v", err)
	}
	good := strings.Replace(optionsSuite, "%s", "think-time: false", 1)
	s, _ = suite.Parse([]byte(good))
	if err := s.CheckOptions(Catalogue(workload.Default())); err != nil {
		t.Fatalf("good suite: %v", err)
	}
}

func TestCheckOptionsRefusesBadValuesAndUnusedData(t *testing.T) {
	for text, want := range map[string]string{
		strings.Replace(optionsSuite, "%s", "think-time: maybe", 1):                                                               "line 12: workload tpcc_rc, option think-time",
		strings.Replace(optionsSuite, "%s", "warehouses: 2", 1):                                                                   "line 12: workload tpcc_rc: warehouses shapes the data set",
		strings.Replace(strings.Replace(optionsSuite, "%s", "", 1), "{range-size: 10}", "{range-size: 10, tables: 3}", 1):         "line 7: workload oltp_point_select: tables shapes the data set",
		strings.Replace(strings.Replace(optionsSuite, "%s", "", 1), "{range-size: 10}", "{range-size: 10, rand-type: pareto}", 1): "",
		strings.Replace(strings.Replace(optionsSuite, "%s", "", 1), "warehouses: 1}", "fieldcount: 3}", 1):                        "data option fieldcount applies to none",
		strings.Replace(strings.Replace(optionsSuite, "%s", "", 1), "name: tpcc\n", "name: tpcd\n", 1):                            "line 8: unknown workload \"tpcd\"",
	} {
		s, err := suite.Parse([]byte(text))
		if err == nil {
			err = s.CheckOptions(Catalogue(workload.Default()))
		}
		if want == "" {
			// data and setting (sysbench's --rand-type): a run may set it.
			if err != nil {
				t.Errorf("accepted options refused: %v", err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("want %q, got %v", want, err)
		}
	}
}

// Every built-in suite's options apply to its workloads.
func TestBuiltinSuitesPassTheOptionCheck(t *testing.T) {
	all, err := suite.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range all {
		if err := s.CheckOptions(Catalogue(workload.Default())); err != nil {
			t.Errorf("suite %s: %v", s.Name, err)
		}
		// Every scale too: its options are set on every workload.
		for name := range s.Scales {
			o := suite.NoOverrides()
			o.Scale = name
			p, err := suite.Expand(s, o, nil)
			if err == nil {
				err = p.Suite.CheckOptions(Catalogue(workload.Default()))
			}
			if err != nil {
				t.Errorf("suite %s, scale %s: %v", s.Name, name, err)
			}
		}
	}
}

// FuzzSuiteOptions: no suite file makes the option check panic.
func FuzzSuiteOptions(f *testing.F) {
	f.Add([]byte(optionsSuite))
	f.Add([]byte(strings.Replace(optionsSuite, "%s", "warehouses: 2", 1)))
	f.Add([]byte("name: x\ntargets: [{engine: postgres}]\nvariants: [plain]\nworkloads: [{name: tpcc, options: {isolation: x}}]\nthreads: [1]\ntime: 1\nrepetitions: 1\n"))
	cat := Catalogue(workload.Default())
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := suite.Parse(data)
		if err != nil {
			return
		}
		_ = s.CheckOptions(cat)
		_ = s.MarkReadOnly(cat)
	})
}

// The workloads' own capabilities decide: options that make a script
// write nothing make it read-only; YCSB C reads, A writes; TPC-C writes.
func TestMarkReadOnly(t *testing.T) {
	s, err := suite.Parse([]byte(`name: x
targets: [{engine: postgres}]
variants: [plain]
workloads:
  - {name: oltp_read_only}
  - {name: oltp_read_write}
  - {name: oltp_read_write, label: rw0, options: {index-updates: 0, non-index-updates: 0, delete-inserts: 0}}
  - {name: ycsb_c}
  - {name: ycsb_a}
  - {name: tpcc}
  - {name: connect}
`))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.MarkReadOnly(Catalogue(workload.Default())); err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{"oltp_read_only": true, "oltp_read_write": false, "rw0": true, "ycsb_c": true, "ycsb_a": false, "tpcc": false, "connect": true}
	for _, w := range s.Workloads {
		if w.ReadOnly != want[w.ID()] {
			t.Errorf("%s: read-only %v, want %v", w.ID(), w.ReadOnly, want[w.ID()])
		}
	}
}
